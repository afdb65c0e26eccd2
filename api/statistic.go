package api

import (
	"net/http"

	"github.com/semcat/semcat"
)

// statisticsTarget returns the table of an /objects/{type}/{fullName}/statistics
// path; statistics of another object type are 405, as in Gravitino.
func statisticsTarget(r *http.Request) (semcat.Namespace, string, error) {
	metalake, obj, err := objectTarget(r)
	if err != nil {
		return semcat.Namespace{}, "", err
	}
	if obj.Type != semcat.KindTable {
		return semcat.Namespace{}, "", semcat.Errorf(semcat.EUNSUPPORTED, "type: statistics are only supported for tables, not for a %s", obj.Type)
	}
	_, ns, name, err := semcat.ParseObjectRef(metalake, string(obj.Type), obj.FullName)
	return ns, name, err
}

// listStatistics answers {"statistics": [...]}.
func (h *handler) listStatistics(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := statisticsTarget(r)
	if err != nil {
		return err
	}
	sts, err := h.svc.Tables.ListTableStatistics(r.Context(), ns, name)
	if err != nil {
		return err
	}
	RecordCount(r, len(sts))
	return ok(w, "statistics", nonNil(sts))
}

// updateStatistics sets custom statistics; it answers {"code": 0}.
func (h *handler) updateStatistics(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := statisticsTarget(r)
	if err != nil {
		return err
	}
	var req semcat.StatisticsUpdate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	pos, err := h.svc.Tables.UpdateTableStatistics(r.Context(), ns, name, req)
	if err != nil {
		return err
	}
	return writtenNothing(w, pos)
}

// dropStatistics answers {"dropped": bool}.
func (h *handler) dropStatistics(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := statisticsTarget(r)
	if err != nil {
		return err
	}
	var req semcat.StatisticsDrop
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	dropped, pos, err := h.svc.Tables.DropTableStatistics(r.Context(), ns, name, req)
	if err != nil {
		return err
	}
	return written(w, pos, "dropped", dropped)
}
