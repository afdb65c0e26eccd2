package api

import (
	"net/http"

	"github.com/semcat/semcat"
)

func (h *handler) createSchema(w http.ResponseWriter, r *http.Request) error {
	ns, err := schemaNamespace(r)
	if err != nil {
		return err
	}
	var req semcat.SchemaCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	s, pos, err := h.svc.Schemas.CreateSchema(r.Context(), ns, req)
	if err != nil {
		return err
	}
	return written(w, pos, "schema", s)
}

func (h *handler) listSchemas(w http.ResponseWriter, r *http.Request) error {
	ns, err := schemaNamespace(r)
	if err != nil {
		return err
	}
	names, err := h.svc.Schemas.ListSchemas(r.Context(), ns)
	if err != nil {
		return err
	}
	RecordCount(r, len(names))
	return ok(w, "identifiers", identifiers(ns, names))
}

func (h *handler) loadSchema(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := schemaTarget(r)
	if err != nil {
		return err
	}
	s, err := h.svc.Schemas.GetSchema(r.Context(), ns, name)
	if err != nil {
		return err
	}
	return ok(w, "schema", s)
}

func (h *handler) alterSchema(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := schemaTarget(r)
	if err != nil {
		return err
	}
	updates, err := h.decodeUpdates(w, r, commonUpdates)
	if err != nil {
		return err
	}
	s, pos, err := h.svc.Schemas.AlterSchema(r.Context(), ns, name, updates)
	if err != nil {
		return err
	}
	return written(w, pos, "schema", s)
}

func (h *handler) dropSchema(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := schemaTarget(r)
	if err != nil {
		return err
	}
	cascade, err := boolParam(r, "cascade")
	if err != nil {
		return err
	}
	dropped, pos, err := h.svc.Schemas.DropSchema(r.Context(), ns, name, cascade)
	if err != nil {
		return err
	}
	return written(w, pos, "dropped", dropped)
}

// schemaTarget returns the namespace and name of the schema in the path.
func schemaTarget(r *http.Request) (semcat.Namespace, string, error) {
	ns, err := schemaNamespace(r)
	if err != nil {
		return semcat.Namespace{}, "", err
	}
	name, err := pathName(r, "schema")
	return ns, name, err
}
