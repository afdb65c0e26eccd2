package api

import (
	"net/http"

	"github.com/semcat/semcat"
)

func (h *handler) createTable(w http.ResponseWriter, r *http.Request) error {
	ns, err := schemaObjectNamespace(r)
	if err != nil {
		return err
	}
	var req semcat.TableCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	t, pos, err := h.svc.Tables.CreateTable(r.Context(), ns, req)
	if err != nil {
		return err
	}
	return written(w, pos, "table", t)
}

// createTables creates a batch of tables with their tags (POST
// …/tables:batchCreate, after AIP-233's batch create): 200 with the tables
// in request order, or an error naming the first bad table by its index.
func (h *handler) createTables(w http.ResponseWriter, r *http.Request) error {
	ns, err := schemaObjectNamespace(r)
	if err != nil {
		return err
	}
	var req semcat.TableBatchCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	tables, pos, err := h.svc.Tables.CreateTables(r.Context(), ns, req)
	if err != nil {
		return err
	}
	RecordCount(r, len(tables))
	return written(w, pos, "tables", tables)
}

func (h *handler) listTables(w http.ResponseWriter, r *http.Request) error {
	ns, err := schemaObjectNamespace(r)
	if err != nil {
		return err
	}
	names, err := h.svc.Tables.ListTables(r.Context(), ns)
	if err != nil {
		return err
	}
	RecordCount(r, len(names))
	return ok(w, "identifiers", identifiers(ns, names))
}

func (h *handler) loadTable(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := schemaObjectTarget(r, "table")
	if err != nil {
		return err
	}
	t, err := h.svc.Tables.GetTable(r.Context(), ns, name)
	if err != nil {
		return err
	}
	return ok(w, "table", t)
}

func (h *handler) alterTable(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := schemaObjectTarget(r, "table")
	if err != nil {
		return err
	}
	updates, err := h.decodeUpdates(w, r, semcat.ValidateTableUpdates)
	if err != nil {
		return err
	}
	t, pos, err := h.svc.Tables.AlterTable(r.Context(), ns, name, updates)
	if err != nil {
		return err
	}
	return written(w, pos, "table", t)
}

func (h *handler) dropTable(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := schemaObjectTarget(r, "table")
	if err != nil {
		return err
	}
	// purge (Gravitino's purgeTable) drops the table's data too: semcat
	// holds none, so a purge is a drop; its value is still checked.
	if _, err := boolParam(r, "purge"); err != nil {
		return err
	}
	dropped, pos, err := h.svc.Tables.DropTable(r.Context(), ns, name)
	if err != nil {
		return err
	}
	return written(w, pos, "dropped", dropped)
}

// schemaObjectTarget returns the namespace and name of the table or semantic
// model in the path; key is its path variable.
// tablePartitions answers Gravitino's partition calls as its catalogs
// without partition support do (405 UnsupportedOperationException): semcat
// keeps the metadata of tables, not their data, so it has no partitions to
// list, load, add or drop. A table that does not exist is still 404.
func (h *handler) tablePartitions(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := schemaObjectTarget(r, "table")
	if err != nil {
		return err
	}
	if _, err := h.svc.Tables.GetTable(r.Context(), ns, name); err != nil {
		return err
	}
	return semcat.Errorf(semcat.EUNSUPPORTED, "table '%s.%s.%s.%s' does not support partition operations: semcat keeps the metadata of tables, not their data",
		ns.Metalake, ns.Catalog, ns.Schema, name)
}

func schemaObjectTarget(r *http.Request, key string) (semcat.Namespace, string, error) {
	ns, err := schemaObjectNamespace(r)
	if err != nil {
		return semcat.Namespace{}, "", err
	}
	name, err := pathName(r, key)
	return ns, name, err
}
