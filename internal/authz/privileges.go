package authz

import (
	"context"

	"github.com/semcat/semcat"
)

// ObjectAccess is what the caller may do with one object: the answer of
// GET …/objects/{type}/{fullName}/privileges, which the page reads to
// decide which edit controls to show.
type ObjectAccess struct {
	// User is the caller the answer is for.
	User string `json:"user"`
	// Privileges are the privileges whose operations the caller may perform
	// on the object, by any means: a grant on it or above it that no DENY
	// overrides, or owning it or an object above it. Only those that apply
	// to the object's type are listed (for a table: USE_CATALOG,
	// USE_SCHEMA, SELECT_TABLE, MODIFY_TABLE; for a schema: USE_CATALOG,
	// USE_SCHEMA, CREATE_TABLE, CREATE_SEMANTIC_MODEL; for a catalog:
	// USE_CATALOG, CREATE_SCHEMA), with MANAGE_GRANTS.
	Privileges []semcat.Privilege `json:"privileges"`
	// Alter: change the object (comment, properties, columns) and its tags.
	Alter bool `json:"alter"`
	// Drop: drop the object.
	Drop bool `json:"drop"`
	// SetOwner: change the object's owner.
	SetOwner bool `json:"setOwner"`
}

// AllAccess is the answer where authorization is off: every privilege of
// the object's type and every operation.
func AllAccess(user string, typ semcat.EntityKind) *ObjectAccess {
	out := &ObjectAccess{User: user, Privileges: []semcat.Privilege{}, Alter: true, Drop: true, SetOwner: true}
	for _, p := range privilegesOf(typ) {
		out.Privileges = append(out.Privileges, p.privilege)
	}
	return out
}

// accessRule is a privilege and the rule that says whether its operation
// is allowed.
type accessRule struct {
	privilege semcat.Privilege
	rule      func(*semcat.Access) (bool, error)
}

// privilegesOf lists the privileges that apply to an object of typ, each
// with its rule of SPEC §6 (semcat.Access), in the order they are listed.
func privilegesOf(typ semcat.EntityKind) []accessRule {
	useCatalog := accessRule{semcat.UseCatalog, (*semcat.Access).CanUseCatalog}
	useSchema := accessRule{semcat.UseSchema, (*semcat.Access).CanUseSchema}
	// MANAGE_GRANTS is decided on the metalake, as the grant routes do.
	manage := accessRule{semcat.ManageGrants, nil}
	switch typ {
	case semcat.KindCatalog:
		return []accessRule{useCatalog, {semcat.CreateSchema, (*semcat.Access).CanCreateSchema}, manage}
	case semcat.KindSchema:
		return []accessRule{useCatalog, useSchema,
			{semcat.CreateTable, (*semcat.Access).CanCreateTable},
			{semcat.CreateSemanticModel, (*semcat.Access).CanCreateSemanticModel}, manage}
	case semcat.KindTable:
		return []accessRule{useCatalog, useSchema,
			{semcat.SelectTable, (*semcat.Access).CanSeeTable},
			{semcat.ModifyTable, (*semcat.Access).CanAlterTable}, manage}
	case semcat.KindSemanticModel:
		return []accessRule{useCatalog, useSchema,
			{semcat.SelectSemanticModel, (*semcat.Access).CanSeeSemanticModel},
			{semcat.ModifySemanticModel, (*semcat.Access).CanAlterSemanticModel}, manage}
	}
	return nil
}

// allLevels are the levels whose owners may change an object's owner.
var allLevels = []semcat.EntityKind{semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel}

// ObjectPrivileges answers what the caller may do with a catalog, schema,
// table or semantic model, by the same rules the operations apply (the
// alter rule AssociateTags and the Alter methods apply, the drop rule of
// the Drop methods, SetOwner's rule). An object the caller may not see
// answers as GetOwner does, exactly as one that does not exist (SPEC §6, no
// existence oracles), with the same lookups; to a caller who is not a
// member of the metalake, the metalake does not exist. A rule that cannot be
// evaluated (a corrupt grant) counts as denied and is logged.
func (s *Service) ObjectPrivileges(ctx context.Context, metalake string, obj semcat.ObjectRef) (*ObjectAccess, error) {
	rules := privilegesOf(obj.Type)
	if rules == nil {
		return nil, semcat.Errorf(semcat.EINVALID, "type: unsupported object type '%s' (want catalog, schema, table or semantic_model)", obj.Type)
	}
	// A non-member is answered as for a metalake that does not exist (SPEC
	// §6, revision 3), before anything about the object.
	if err := s.member(ctx, metalake); err != nil {
		return nil, err
	}
	if _, err := s.checkSee(ctx, metalake, obj); err != nil {
		return nil, semcat.NoSuchMetadataObject(err)
	}
	a, _, alter, err := s.objectAccess(ctx, metalake, obj)
	if err != nil {
		return nil, err
	}
	allowed := func(what string, rule func(*semcat.Access) (bool, error)) bool {
		ok, err := rule(a)
		if err != nil {
			s.logger.Error("authorization: cannot evaluate a rule; denying", "user", user(ctx), "operation", what, "object", obj.FullName, "err", err)
			return false
		}
		return ok
	}
	out := &ObjectAccess{User: user(ctx), Privileges: []semcat.Privilege{}}
	merr := s.manageGrants(ctx, metalake)
	if merr != nil && semcat.ErrorCode(merr) != semcat.EFORBIDDEN {
		return nil, merr
	}
	manages := merr == nil
	for _, r := range rules {
		if r.rule == nil && manages || r.rule != nil && allowed(string(r.privilege), r.rule) {
			out.Privileges = append(out.Privileges, r.privilege)
		}
	}
	out.Alter = allowed("alter", alter)
	switch obj.Type {
	case semcat.KindTable:
		out.Drop = a.CanDropTable()
	case semcat.KindSemanticModel:
		out.Drop = a.CanDropSemanticModel()
	default: // catalogs and schemas: their owners and those above, as Alter
		out.Drop = out.Alter
	}
	out.SetOwner = manages || a.OwnsAny(allLevels...)
	return out, nil
}
