package api

import (
	"net/http"

	"github.com/semcat/semcat"
)

func (h *handler) createTag(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	var req semcat.TagCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	t, pos, err := h.svc.Tags.CreateTag(r.Context(), metalake, req)
	if err != nil {
		return err
	}
	return written(w, pos, "tag", t)
}

func (h *handler) listTags(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	names, err := h.svc.Tags.ListTags(r.Context(), metalake)
	if err != nil {
		return err
	}
	RecordCount(r, len(names))
	return ok(w, "names", nonNil(names))
}

func (h *handler) loadTag(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "tag")
	if err != nil {
		return err
	}
	t, err := h.svc.Tags.GetTag(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return ok(w, "tag", t)
}

func (h *handler) dropTag(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "tag")
	if err != nil {
		return err
	}
	dropped, pos, err := h.svc.Tags.DropTag(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return written(w, pos, "dropped", dropped)
}

func (h *handler) listObjectTags(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := objectTarget(r)
	if err != nil {
		return err
	}
	names, err := h.svc.Tags.ListObjectTags(r.Context(), metalake, obj)
	if err != nil {
		return err
	}
	RecordCount(r, len(names))
	return ok(w, "names", nonNil(names))
}

func (h *handler) associateTags(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := objectTarget(r)
	if err != nil {
		return err
	}
	var req semcat.TagAssociation
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	names, pos, err := h.svc.Tags.AssociateTags(r.Context(), metalake, obj, req)
	if err != nil {
		return err
	}
	return written(w, pos, "names", nonNil(names))
}

// objectTarget returns the metalake and the object of an
// /objects/{type}/{fullName} path.
func objectTarget(r *http.Request) (string, semcat.ObjectRef, error) {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return "", semcat.ObjectRef{}, err
	}
	typ, err := pathVar(r, "type")
	if err != nil {
		return "", semcat.ObjectRef{}, err
	}
	fullName, err := pathVar(r, "fullName")
	if err != nil {
		return "", semcat.ObjectRef{}, err
	}
	obj, _, _, err := semcat.ParseObjectRef(metalake, typ, fullName)
	return metalake, obj, err
}
