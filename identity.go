package semcat

// MetricIdentity is the stable internal identity of a live metric of a model.
// Ids are never exposed and never reused.
type MetricIdentity struct {
	ID   int64
	Name string
}

// MetricReconciliation says what to do with a model's metric identities when
// a new definition is committed (SPEC §3).
type MetricReconciliation struct {
	Keep   []MetricIdentity // names still present: same id
	Add    []string         // new names: allocate ids, in definition order
	Retire []MetricIdentity // names no longer present: retire their ids
}

// ReconcileMetrics matches the metric names of a new definition exactly
// against the model's live identities. A name that was retired earlier is not
// among the live identities, so it comes back with a new id.
func ReconcileMetrics(live []MetricIdentity, names []string) MetricReconciliation {
	var r MetricReconciliation
	byName := make(map[string]MetricIdentity, len(live))
	for _, id := range live {
		byName[id.Name] = id
	}
	present := make(map[string]bool, len(names))
	for _, n := range names {
		if present[n] {
			continue
		}
		present[n] = true
		if id, ok := byName[n]; ok {
			r.Keep = append(r.Keep, id)
		} else {
			r.Add = append(r.Add, n)
		}
	}
	for _, id := range live {
		if !present[id.Name] {
			r.Retire = append(r.Retire, id)
		}
	}
	return r
}
