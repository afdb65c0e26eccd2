package api

import (
	"context"
	"net/http"

	"github.com/semcat/semcat"
)

func (h *handler) createCatalog(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	var req semcat.CatalogCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	c, pos, err := h.svc.Catalogs.CreateCatalog(r.Context(), metalake, req)
	if err != nil {
		return err
	}
	return written(w, pos, "catalog", c)
}

// listCatalogs answers identifiers, or the catalogs themselves with
// details=true.
func (h *handler) listCatalogs(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	details, err := boolParam(r, "details")
	if err != nil {
		return err
	}
	cs, err := h.svc.Catalogs.ListCatalogs(r.Context(), metalake)
	if err != nil {
		return err
	}
	RecordCount(r, len(cs))
	if details {
		return ok(w, "catalogs", nonNil(cs))
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return ok(w, "identifiers", identifiers(semcat.Namespace{Metalake: metalake}, names))
}

func (h *handler) loadCatalog(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "catalog")
	if err != nil {
		return err
	}
	c, err := h.svc.Catalogs.GetCatalog(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return ok(w, "catalog", c)
}

func (h *handler) alterCatalog(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "catalog")
	if err != nil {
		return err
	}
	updates, err := h.decodeUpdates(w, r, commonUpdates)
	if err != nil {
		return err
	}
	c, pos, err := h.svc.Catalogs.AlterCatalog(r.Context(), n[0], n[1], updates)
	if err != nil {
		return err
	}
	return written(w, pos, "catalog", c)
}

func (h *handler) dropCatalog(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "catalog")
	if err != nil {
		return err
	}
	force, err := boolParam(r, "force")
	if err != nil {
		return err
	}
	dropped, pos, err := h.svc.Catalogs.DropCatalog(r.Context(), n[0], n[1], force)
	if err != nil {
		return err
	}
	return written(w, pos, "dropped", dropped)
}

// setCatalogInUse serves PATCH {"inUse": bool}: enable or disable.
func (h *handler) setCatalogInUse(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "catalog")
	if err != nil {
		return err
	}
	inUse, err := h.decodeInUse(w, r)
	if err != nil {
		return err
	}
	pos, err := h.svc.Catalogs.SetCatalogInUse(r.Context(), n[0], n[1], inUse)
	if err != nil {
		return err
	}
	return writtenNothing(w, pos)
}

// testConnection serves POST …/catalogs/testConnection: a catalog creation
// request whose source is tested and nothing stored (Gravitino's
// testConnection). {"code": 0}, or the source's failure (502/1007).
func (h *handler) testConnection(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	var req semcat.CatalogCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := h.connections().TestConnection(r.Context(), metalake, req); err != nil {
		return err
	}
	return writtenNothing(w, semcat.Position{})
}

// testCatalogConnection serves POST …/catalogs/{c}/testConnection: the
// source of an existing catalog is tested.
func (h *handler) testCatalogConnection(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "catalog")
	if err != nil {
		return err
	}
	if err := h.connections().TestCatalogConnection(r.Context(), n[0], n[1]); err != nil {
		return err
	}
	return writtenNothing(w, semcat.Position{})
}

// connections is the configured ConnectionService, or one that finds the
// metalake and catalog and knows no external source.
func (h *handler) connections() semcat.ConnectionService {
	if h.svc.Connections != nil {
		return h.svc.Connections
	}
	return &semcat.Connections{Metalakes: h.svc.Metalakes, Catalogs: h.svc.Catalogs}
}

// SourceRefresher refreshes the mirror of a catalog with an external
// source (SPEC §2.12).
type SourceRefresher interface {
	// Refresh reads the catalog's source and writes what changed; for a
	// catalog without a source it does nothing and succeeds.
	Refresh(ctx context.Context, metalake, catalog string) (semcat.Position, error)
}

// refreshCatalog serves POST …/catalogs/{c}/refresh: the mirror of a
// catalog the caller may see is brought up to date with its source before
// the answer ({"code": 0}, the write's position in the header). A catalog
// without a source has nothing to refresh, and succeeds, as its
// testConnection does.
func (h *handler) refreshCatalog(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "catalog")
	if err != nil {
		return err
	}
	if _, err := h.svc.Catalogs.GetCatalog(r.Context(), n[0], n[1]); err != nil {
		return err
	}
	if h.svc.Sources == nil {
		return writtenNothing(w, semcat.Position{}) // no catalog has a source
	}
	pos, err := h.svc.Sources.Refresh(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return writtenNothing(w, pos)
}
