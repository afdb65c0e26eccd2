package api

import (
	"net/http"

	"github.com/semcat/semcat"
)

func (h *handler) createSemanticModel(w http.ResponseWriter, r *http.Request) error {
	ns, err := schemaObjectNamespace(r)
	if err != nil {
		return err
	}
	var req semcat.SemanticModelCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	m, pos, err := h.svc.Models.CreateSemanticModel(r.Context(), ns, req)
	if err != nil {
		return err
	}
	return writtenModel(w, pos, m)
}

func (h *handler) listSemanticModels(w http.ResponseWriter, r *http.Request) error {
	ns, err := schemaObjectNamespace(r)
	if err != nil {
		return err
	}
	names, err := h.svc.Models.ListSemanticModels(r.Context(), ns)
	if err != nil {
		return err
	}
	RecordCount(r, len(names))
	return ok(w, "identifiers", identifiers(ns, names))
}

// loadSemanticModel answers the model with its version as ETag, for a later
// If-Match.
func (h *handler) loadSemanticModel(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := schemaObjectTarget(r, "model")
	if err != nil {
		return err
	}
	m, err := h.svc.Models.GetSemanticModel(r.Context(), ns, name)
	if err != nil {
		return err
	}
	return writtenModel(w, semcat.Position{}, m)
}

func (h *handler) alterSemanticModel(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := schemaObjectTarget(r, "model")
	if err != nil {
		return err
	}
	version, err := ifMatch(r)
	if err != nil {
		return err
	}
	updates, err := h.decodeUpdates(w, r, semcat.ValidateModelUpdates)
	if err != nil {
		return err
	}
	m, pos, err := h.svc.Models.AlterSemanticModel(r.Context(), ns, name, updates, version)
	if err != nil {
		return err
	}
	return writtenModel(w, pos, m)
}

func (h *handler) dropSemanticModel(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := schemaObjectTarget(r, "model")
	if err != nil {
		return err
	}
	version, err := ifMatch(r)
	if err != nil {
		return err
	}
	dropped, pos, err := h.svc.Models.DropSemanticModel(r.Context(), ns, name, version)
	if err != nil {
		return err
	}
	return written(w, pos, "dropped", dropped)
}

// writtenModel writes a semantic model with its version as ETag, so that
// the answer to a create or alter can be the base of the next If-Match.
func writtenModel(w http.ResponseWriter, pos semcat.Position, m *semcat.SemanticModel) error {
	if m != nil && m.Version > 0 {
		w.Header().Set("ETag", etag(m.Version))
	}
	return written(w, pos, "semanticModel", m)
}
