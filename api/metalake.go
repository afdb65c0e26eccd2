package api

import (
	"net/http"

	"github.com/semcat/semcat"
)

func (h *handler) createMetalake(w http.ResponseWriter, r *http.Request) error {
	var req semcat.MetalakeCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	m, pos, err := h.svc.Metalakes.CreateMetalake(r.Context(), req)
	if err != nil {
		return err
	}
	return written(w, pos, "metalake", m)
}

func (h *handler) listMetalakes(w http.ResponseWriter, r *http.Request) error {
	ms, err := h.svc.Metalakes.ListMetalakes(r.Context())
	if err != nil {
		return err
	}
	RecordCount(r, len(ms))
	return ok(w, "metalakes", nonNil(ms))
}

func (h *handler) loadMetalake(w http.ResponseWriter, r *http.Request) error {
	name, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	m, err := h.svc.Metalakes.GetMetalake(r.Context(), name)
	if err != nil {
		return err
	}
	return ok(w, "metalake", m)
}

func (h *handler) alterMetalake(w http.ResponseWriter, r *http.Request) error {
	name, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	updates, err := h.decodeUpdates(w, r, commonUpdates)
	if err != nil {
		return err
	}
	m, pos, err := h.svc.Metalakes.AlterMetalake(r.Context(), name, updates)
	if err != nil {
		return err
	}
	return written(w, pos, "metalake", m)
}

func (h *handler) dropMetalake(w http.ResponseWriter, r *http.Request) error {
	name, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	force, err := boolParam(r, "force")
	if err != nil {
		return err
	}
	dropped, pos, err := h.svc.Metalakes.DropMetalake(r.Context(), name, force)
	if err != nil {
		return err
	}
	return written(w, pos, "dropped", dropped)
}

// setMetalakeInUse serves PATCH {"inUse": bool}: enable or disable.
func (h *handler) setMetalakeInUse(w http.ResponseWriter, r *http.Request) error {
	name, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	inUse, err := h.decodeInUse(w, r)
	if err != nil {
		return err
	}
	pos, err := h.svc.Metalakes.SetMetalakeInUse(r.Context(), name, inUse)
	if err != nil {
		return err
	}
	return writtenNothing(w, pos)
}

// decodeInUse reads the body of a PATCH of a metalake or catalog.
func (h *handler) decodeInUse(w http.ResponseWriter, r *http.Request) (bool, error) {
	var req semcat.InUseRequest
	if err := h.decode(w, r, &req); err != nil {
		return false, err
	}
	if req.InUse == nil {
		return false, semcat.Errorf(semcat.EINVALID, "inUse: required (true to enable, false to disable)")
	}
	return *req.InUse, nil
}
