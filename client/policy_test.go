package client_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/client"
)

func TestPolicies(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	seed(t, c)
	orders := semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"}
	rel := semcat.ObjectRef{Type: semcat.KindCatalog, FullName: "rel"}
	content := func(rules string) *semcat.PolicyContent {
		return &semcat.PolicyContent{CustomRules: json.RawMessage(rules), SupportedObjectTypes: []string{"TABLE", "CATALOG"},
			Properties: map[string]string{"team": "data"}}
	}

	p := wrote(c.CreatePolicy(ctx, "m", semcat.PolicyCreate{Name: "retention", Comment: str("thirty days"), PolicyType: "custom",
		Content: content(`{"days":30}`)})).must(t)
	if p.Name != "retention" || !p.Enabled || p.Inherited != nil || string(p.Content.CustomRules) != `{"days":30}` ||
		!slices.Equal(p.Content.SupportedObjectTypes, []string{"table", "catalog"}) {
		t.Errorf("CreatePolicy: %+v", p)
	}
	off := false
	wrote(c.CreatePolicy(ctx, "m", semcat.PolicyCreate{Name: "masking", PolicyType: "custom", Enabled: &off, Content: content(`{}`)})).must(t)
	_, _, err := c.CreatePolicy(ctx, "m", semcat.PolicyCreate{Name: "masking", PolicyType: "custom", Content: content(`{}`)})
	wantCode(t, "creating a policy twice", err, semcat.EEXISTS, client.ErrAlreadyExists)
	if got := read(c.ListPolicies(ctx, "m")).must(t); !slices.Equal(got, []string{"masking", "retention"}) {
		t.Errorf("ListPolicies: %v", got)
	}
	if got := read(c.ListPolicyInfos(ctx, "m")).must(t); len(got) != 2 || got[0].Enabled {
		t.Errorf("ListPolicyInfos: %+v", got)
	}
	if got := read(c.GetPolicy(ctx, "m", "retention")).must(t); *got.Comment != "thirty days" {
		t.Errorf("GetPolicy: %+v", got)
	}
	_, err = c.GetPolicy(ctx, "m", "nope")
	wantCode(t, "a missing policy", err, semcat.ENOTFOUND, client.ErrNotFound)

	changed := "longer"
	p = wrote(c.AlterPolicy(ctx, "m", "retention", []semcat.PolicyUpdate{
		{Type: semcat.UpdateComment, NewComment: semcat.OptionalString{Set: true, Value: &changed}},
		{Type: semcat.UpdatePolicyContent, PolicyType: str("custom"), NewContent: content(`{"days":60}`)}})).must(t)
	if *p.Comment != "longer" || string(p.Content.CustomRules) != `{"days":60}` {
		t.Errorf("AlterPolicy: %+v", p)
	}
	wrote1(c.SetPolicyEnabled(ctx, "m", "masking", true)).must(t)
	if got := read(c.GetPolicy(ctx, "m", "masking")).must(t); !got.Enabled {
		t.Error("SetPolicyEnabled(true) left it disabled")
	}

	// Associations and inheritance.
	names := wrote(c.AssociatePolicies(ctx, "m", rel, semcat.PolicyAssociation{PoliciesToAdd: []string{"retention", "missing"}})).must(t)
	if !slices.Equal(names, []string{"retention"}) {
		t.Errorf("AssociatePolicies: %v", names)
	}
	wrote(c.AssociatePolicies(ctx, "m", orders, semcat.PolicyAssociation{PoliciesToAdd: []string{"masking"}})).must(t)
	_, _, err = c.AssociatePolicies(ctx, "m", orders, semcat.PolicyAssociation{PoliciesToAdd: []string{"masking"}})
	wantCode(t, "attaching a held policy", err, semcat.EEXISTS, client.ErrAlreadyExists)
	if got := read(c.ListObjectPolicies(ctx, "m", orders)).must(t); !slices.Equal(got, []string{"masking", "retention"}) {
		t.Errorf("ListObjectPolicies: %v", got)
	}
	infos := read(c.ObjectPolicyInfos(ctx, "m", orders)).must(t)
	if len(infos) != 2 || *infos[0].Inherited || !*infos[1].Inherited {
		t.Errorf("ObjectPolicyInfos: %+v", infos)
	}
	if got := read(c.GetObjectPolicy(ctx, "m", orders, "retention")).must(t); !*got.Inherited {
		t.Errorf("GetObjectPolicy: %+v", got)
	}
	_, err = c.GetObjectPolicy(ctx, "m", rel, "masking")
	wantCode(t, "a policy the object does not carry", err, semcat.ENOTFOUND, client.ErrNotFound)
	if got := read(c.PolicyObjects(ctx, "m", "retention")).must(t); len(got) != 1 || got[0] != (semcat.TaggedObject{Type: semcat.KindCatalog, FullName: "rel"}) {
		t.Errorf("PolicyObjects: %v", got)
	}

	// Semantic models carry policies too, and inherit their schema's.
	shop := semcat.ObjectRef{Type: semcat.KindSemanticModel, FullName: "rel.sales.shop"}
	wrote(c.AssociatePolicies(ctx, "m", shop, semcat.PolicyAssociation{PoliciesToAdd: []string{"masking"}})).must(t)
	if got := read(c.ListObjectPolicies(ctx, "m", shop)).must(t); !slices.Equal(got, []string{"masking", "retention"}) {
		t.Errorf("the model's policies: %v", got)
	}
	if got := read(c.PolicyObjects(ctx, "m", "masking")).must(t); len(got) != 2 || got[1] != (semcat.TaggedObject{Type: semcat.KindSemanticModel, FullName: "rel.sales.shop"}) {
		t.Errorf("masking's objects: %v", got)
	}

	// Another member who cannot see the catalog sees none of it.
	wrote(c.CreateUser(ctx, "m", semcat.UserCreate{Name: "eve"})).must(t)
	eve := s.as(t, "eve")
	if got := read(eve.PolicyObjects(ctx, "m", "retention")).must(t); len(got) != 0 {
		t.Errorf("eve sees %v", got)
	}
	_, err = eve.ListObjectPolicies(ctx, "m", orders)
	if semcat.ErrorCode(err) == "" {
		t.Error("eve lists the policies of a table she cannot see")
	}

	if dropped := wrote(c.DropPolicy(ctx, "m", "retention")).must(t); !dropped {
		t.Error("DropPolicy: false")
	}
	if got := read(c.ListObjectPolicies(ctx, "m", orders)).must(t); !slices.Equal(got, []string{"masking"}) {
		t.Errorf("after the drop: %v", got)
	}
}
