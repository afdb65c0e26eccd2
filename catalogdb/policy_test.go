package catalogdb_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
)

func policyCreate(name string) semcat.PolicyCreate {
	return semcat.PolicyCreate{Name: name, PolicyType: "custom",
		Content: &semcat.PolicyContent{CustomRules: json.RawMessage(`{"days": 30}`), SupportedObjectTypes: []string{"TABLE"}}}
}

// TestPolicyStore: the store's policy operations, its outbox rows, and
// the purge of a dropped metalake's policies and their associations.
func TestPolicyStore(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	advance := clock(s)
	seed(t, s)
	ctx := ctxAlice
	orders := semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"}
	p := must(t, w(s.CreatePolicy(ctx, "m", policyCreate("retention"))))
	if p.Audit.Creator != "alice" || !p.Enabled || string(p.Content.CustomRules) != `{"days": 30}` {
		t.Errorf("created %+v", p)
	}
	if _, _, err := s.CreatePolicy(ctx, "m", policyCreate("retention")); semcat.ErrorCode(err) != semcat.EEXISTS || semcat.ErrorEntity(err) != semcat.KindPolicy {
		t.Errorf("duplicate: %v", err)
	}
	if _, _, err := s.CreatePolicy(ctx, "nope", policyCreate("retention")); semcat.ErrorEntity(err) != semcat.KindMetalake {
		t.Errorf("missing metalake: %v", err)
	}

	// Concurrent attachments of the same policy to one object: one wins,
	// the others are PolicyAlreadyAssociatedException.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			_, _, err := s.AssociatePolicies(ctx, "m", orders, semcat.PolicyAssociation{PoliciesToAdd: []string{"retention"}})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	won := 0
	for err := range errs {
		switch {
		case err == nil:
			won++
		case semcat.ErrorCode(err) != semcat.EEXISTS:
			t.Errorf("concurrent attach: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d concurrent attachments succeeded, want 1", won)
	}
	got, err := s.ObjectPolicyInfos(ctx, "m", orders)
	if err != nil || len(got) != 1 || got[0].Name != "retention" || got[0].Inherited == nil || *got[0].Inherited {
		t.Fatalf("orders' policies %+v %v", got, err)
	}

	// The purge of a dropped metalake takes its policies and their
	// associations (policy_meta refers to metalake_meta).
	if dropped, _, err := s.DropMetalake(ctx, "m", true); err != nil || !dropped {
		t.Fatalf("drop metalake: %v %v", dropped, err)
	}
	advance(8 * day)
	st := purge(t, s, catalogdb.RetentionPolicy{BatchSize: 1})
	if st.Policies != 1 || st.Metalakes != 1 {
		t.Errorf("purge stats %+v", st)
	}
	for _, table := range []string{"policy_meta", "policy_relation", "metalake_meta"} {
		if n := count(t, s, `SELECT count(*) FROM `+table); n != 0 {
			t.Errorf("%s: %d rows left", table, n)
		}
	}
}
