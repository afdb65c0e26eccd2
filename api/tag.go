package api

import (
	"net/http"
	"slices"

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
	details, err := boolParam(r, "details")
	if err != nil {
		return err
	}
	if details {
		ts, err := h.svc.Tags.ListTagInfos(r.Context(), metalake)
		if err != nil {
			return err
		}
		RecordCount(r, len(ts))
		return ok(w, "tags", nonNil(ts))
	}
	names, err := h.svc.Tags.ListTags(r.Context(), metalake)
	if err != nil {
		return err
	}
	RecordCount(r, len(names))
	return ok(w, "names", nonNil(names))
}

func (h *handler) alterTag(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "tag")
	if err != nil {
		return err
	}
	updates, err := h.decodeUpdates(w, r, commonUpdates)
	if err != nil {
		return err
	}
	t, pos, err := h.svc.Tags.AlterTag(r.Context(), n[0], n[1], updates)
	if err != nil {
		return err
	}
	return written(w, pos, "tag", t)
}

// tagObjects answers {"metadataObjects": [{"type", "fullName"}]}.
func (h *handler) tagObjects(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "tag")
	if err != nil {
		return err
	}
	objs, err := h.svc.Tags.TagObjects(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	RecordCount(r, len(objs))
	return ok(w, "metadataObjects", nonNil(objs))
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
	details, err := boolParam(r, "details")
	if err != nil {
		return err
	}
	names, err := h.svc.Tags.ListObjectTags(r.Context(), metalake, obj)
	if err != nil {
		return err
	}
	RecordCount(r, len(names))
	if !details {
		return ok(w, "names", nonNil(names))
	}
	ts, err := h.objectTagInfos(r, metalake, names)
	if err != nil {
		return err
	}
	return ok(w, "tags", ts)
}

// objectTagInfos returns the tags of an object's tag names
// (?details=true), in their order, from one listing of the metalake's tags
// rather than one load per tag; a tag dropped meanwhile is left out.
func (h *handler) objectTagInfos(r *http.Request, metalake string, names []string) ([]*semcat.Tag, error) {
	if len(names) == 0 {
		return []*semcat.Tag{}, nil
	}
	all, err := h.svc.Tags.ListTagInfos(r.Context(), metalake)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*semcat.Tag, len(all))
	for _, t := range all {
		byName[t.Name] = t
	}
	out := make([]*semcat.Tag, 0, len(names))
	for _, n := range names {
		if t, ok := byName[n]; ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// loadObjectTag answers one tag of an object; a tag the object does not
// carry is NoSuchTagException, as in Gravitino.
func (h *handler) loadObjectTag(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := objectTarget(r)
	if err != nil {
		return err
	}
	tag, err := pathName(r, "tag")
	if err != nil {
		return err
	}
	names, err := h.svc.Tags.ListObjectTags(r.Context(), metalake, obj)
	if err != nil {
		return err
	}
	if !slices.Contains(names, tag) {
		return semcat.NotFound(semcat.KindTag, "tag '%s' is not attached to %s '%s'", tag, obj.Type, obj.FullName)
	}
	t, err := h.svc.Tags.GetTag(r.Context(), metalake, tag)
	if err != nil {
		return err
	}
	return ok(w, "tag", t)
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
