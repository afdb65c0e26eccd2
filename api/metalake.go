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
