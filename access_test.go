package semcat_test

import (
	"testing"

	"github.com/semcat/semcat"
)

func allow(level semcat.EntityKind, ps ...semcat.Privilege) []semcat.Binding {
	var out []semcat.Binding
	for _, p := range ps {
		out = append(out, semcat.Binding{Level: level, Privilege: p, Condition: semcat.Allow})
	}
	return out
}

func deny(level semcat.EntityKind, p semcat.Privilege) semcat.Binding {
	return semcat.Binding{Level: level, Privilege: p, Condition: semcat.Deny}
}

func access(owns []semcat.EntityKind, bindings ...[]semcat.Binding) *semcat.Access {
	a := &semcat.Access{Owns: map[semcat.EntityKind]bool{}}
	for _, o := range owns {
		a.Owns[o] = true
	}
	for _, b := range bindings {
		a.Bindings = append(a.Bindings, b...)
	}
	return a
}

// TestAccessRules has an allow and a deny case for each row of SPEC §6.
func TestAccessRules(t *testing.T) {
	const (
		ml  = semcat.KindMetalake
		cat = semcat.KindCatalog
		sch = semcat.KindSchema
		tbl = semcat.KindTable
		mdl = semcat.KindSemanticModel
	)
	use := append(allow(ml, semcat.UseCatalog), allow(cat, semcat.UseSchema)...)
	none := []semcat.EntityKind{}
	type rule func(*semcat.Access) (bool, error)
	drop := func(f func(*semcat.Access) bool) rule {
		return func(a *semcat.Access) (bool, error) { return f(a), nil }
	}
	tests := []struct {
		name string
		rule rule
		a    *semcat.Access
		want bool
	}{
		{"schema access: owner of metalake", (*semcat.Access).CanUseSchema, access([]semcat.EntityKind{ml}), true},
		{"schema access: owner of catalog", (*semcat.Access).CanUseSchema, access([]semcat.EntityKind{cat}), true},
		{"schema access: owner of schema", (*semcat.Access).CanUseSchema, access([]semcat.EntityKind{sch}), true},
		{"schema access: USE_CATALOG and USE_SCHEMA", (*semcat.Access).CanUseSchema, access(none, use), true},
		{"schema access: USE_CATALOG only", (*semcat.Access).CanUseSchema, access(none, allow(ml, semcat.UseCatalog)), false},
		{"schema access: USE_SCHEMA denied on the schema", (*semcat.Access).CanUseSchema, access(none, use, []semcat.Binding{deny(sch, semcat.UseSchema)}), false},

		{"see model: schema access and SELECT", (*semcat.Access).CanSeeSemanticModel, access(none, use, allow(sch, semcat.SelectSemanticModel)), true},
		{"see model: schema access and MODIFY", (*semcat.Access).CanSeeSemanticModel, access(none, use, allow(mdl, semcat.ModifySemanticModel)), true},
		{"see model: owner of the model with schema access", (*semcat.Access).CanSeeSemanticModel, access([]semcat.EntityKind{mdl}, use), true},
		{"see model: owner of the model without schema access", (*semcat.Access).CanSeeSemanticModel, access([]semcat.EntityKind{mdl}), false},
		{"see model: SELECT without schema access", (*semcat.Access).CanSeeSemanticModel, access(none, allow(ml, semcat.SelectSemanticModel)), false},
		{"see model: CREATE only", (*semcat.Access).CanSeeSemanticModel, access(none, use, allow(sch, semcat.CreateSemanticModel)), false},
		{"see model: DENY on the model beats ALLOW on the metalake", (*semcat.Access).CanSeeSemanticModel,
			access(none, use, allow(ml, semcat.SelectSemanticModel), []semcat.Binding{deny(mdl, semcat.SelectSemanticModel)}), false},
		{"see model: owner of the catalog", (*semcat.Access).CanSeeSemanticModel, access([]semcat.EntityKind{cat}), true},

		{"create model: owner of metalake", (*semcat.Access).CanCreateSemanticModel, access([]semcat.EntityKind{ml}), true},
		{"create model: owner of catalog", (*semcat.Access).CanCreateSemanticModel, access([]semcat.EntityKind{cat}), true},
		{"create model: schema owner with USE_CATALOG", (*semcat.Access).CanCreateSemanticModel, access([]semcat.EntityKind{sch}, allow(ml, semcat.UseCatalog)), true},
		{"create model: schema owner without USE_CATALOG", (*semcat.Access).CanCreateSemanticModel, access([]semcat.EntityKind{sch}), false},
		{"create model: CREATE with schema access", (*semcat.Access).CanCreateSemanticModel, access(none, use, allow(sch, semcat.CreateSemanticModel)), true},
		{"create model: CREATE without schema access", (*semcat.Access).CanCreateSemanticModel, access(none, allow(sch, semcat.CreateSemanticModel)), false},
		{"create model: CREATE denied on the catalog", (*semcat.Access).CanCreateSemanticModel,
			access(none, use, allow(sch, semcat.CreateSemanticModel), []semcat.Binding{deny(cat, semcat.CreateSemanticModel)}), false},

		{"alter model: owner of the model", (*semcat.Access).CanAlterSemanticModel, access([]semcat.EntityKind{mdl}), true},
		{"alter model: MODIFY with schema access", (*semcat.Access).CanAlterSemanticModel, access(none, use, allow(mdl, semcat.ModifySemanticModel)), true},
		{"alter model: SELECT only", (*semcat.Access).CanAlterSemanticModel, access(none, use, allow(mdl, semcat.SelectSemanticModel)), false},
		{"alter model: MODIFY without schema access", (*semcat.Access).CanAlterSemanticModel, access(none, allow(mdl, semcat.ModifySemanticModel)), false},

		{"drop model: owner of the schema", drop((*semcat.Access).CanDropSemanticModel), access([]semcat.EntityKind{sch}), true},
		{"drop model: MODIFY is not enough", drop((*semcat.Access).CanDropSemanticModel), access(none, use, allow(ml, semcat.ModifySemanticModel)), false},

		{"see table: SELECT_TABLE with schema access", (*semcat.Access).CanSeeTable, access(none, use, allow(tbl, semcat.SelectTable)), true},
		{"see table: model privileges do not apply", (*semcat.Access).CanSeeTable, access(none, use, allow(ml, semcat.SelectSemanticModel)), false},
		{"create table: CREATE_TABLE with schema access", (*semcat.Access).CanCreateTable, access(none, use, allow(ml, semcat.CreateTable)), true},
		{"create table: denied", (*semcat.Access).CanCreateTable, access(none, use), false},
		{"alter table: MODIFY_TABLE with schema access", (*semcat.Access).CanAlterTable, access(none, use, allow(cat, semcat.ModifyTable)), true},
		{"alter table: MODIFY_TABLE denied on the table", (*semcat.Access).CanAlterTable,
			access(none, use, allow(cat, semcat.ModifyTable), []semcat.Binding{deny(tbl, semcat.ModifyTable)}), false},
		{"drop table: owner of the table", drop((*semcat.Access).CanDropTable), access([]semcat.EntityKind{tbl}), true},
		{"drop table: MODIFY_TABLE is not enough", drop((*semcat.Access).CanDropTable), access(none, use, allow(ml, semcat.ModifyTable)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.rule(tt.a)
			if err != nil || got != tt.want {
				t.Errorf("got %v (%v), want %v", got, err, tt.want)
			}
		})
	}
}

func TestAccessCorruptGrantIsAnError(t *testing.T) {
	a := access(nil, []semcat.Binding{{Level: semcat.KindMetalake, Privilege: "SELECT_EVERYTHING", Condition: semcat.Allow}})
	if _, err := a.CanSeeSemanticModel(); err == nil {
		t.Error("an unknown privilege should make the rule fail, not pass")
	}
}

func TestRoleCreateValidate(t *testing.T) {
	tests := []struct {
		req        semcat.RoleCreate
		wantPrefix string
	}{
		{semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{{FullName: "c", Type: "BUCKET",
			Privileges: []semcat.PrivilegeGrant{{Name: semcat.UseCatalog, Condition: semcat.Allow}}}}}, "securableObjects[0].type:"},
		{semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{{FullName: "c.s", Type: "SCHEMA",
			Privileges: []semcat.PrivilegeGrant{{Name: semcat.CreateCatalog, Condition: semcat.Allow}}}}}, "securableObjects[0].privileges[0].name: create_catalog cannot be bound on a schema"},
		{semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{{FullName: "c", Type: "CATALOG",
			Privileges: []semcat.PrivilegeGrant{{Name: semcat.UseCatalog, Condition: "MAYBE"}}}}}, "securableObjects[0].privileges[0].condition:"},
		{semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{{FullName: "c", Type: "CATALOG",
			Privileges: []semcat.PrivilegeGrant{{Name: "READ", Condition: semcat.Allow}}}}}, "securableObjects[0].privileges[0].name: unknown privilege"},
	}
	for _, tt := range tests {
		err := tt.req.Validate()
		if msg := semcat.ErrorMessage(err); semcat.ErrorCode(err) != semcat.EINVALID || len(msg) < len(tt.wantPrefix) || msg[:len(tt.wantPrefix)] != tt.wantPrefix {
			t.Errorf("got %q, want prefix %q", msg, tt.wantPrefix)
		}
	}
}
