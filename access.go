package semcat

import "fmt"

// Binding is a privilege that one of a user's roles binds, with a
// condition, on an object at some level of the hierarchy.
type Binding struct {
	Level     EntityKind
	Privilege Privilege
	Condition Condition
}

// Access is what authorization knows about one user and one object: the
// bindings of the user's roles on the object and each of its ancestors, and
// which of them the user owns. The decision functions below are the rules of
// SPEC §6; they need no I/O.
type Access struct {
	Bindings []Binding
	Owns     map[EntityKind]bool // by level: metalake, catalog, schema, table, semantic_model
	Member   bool                // the user is a user of the metalake
	// PathErr is the error a lookup of a child (of the kind the facts were
	// loaded for) meets in the namespace before the child itself, as the
	// store reports it: a level missing or disabled, or tables or models
	// asked of a catalog that holds none. nil: the namespace resolves, and
	// a child that is not there is simply missing.
	PathErr error
}

// IsMember: a user of the metalake, or its owner.
func (a *Access) IsMember() bool { return a.Member || a.owns(KindMetalake) }

// has reports whether p is allowed at some level and denied at none: DENY at
// any level wins over ALLOW. An unknown privilege or condition is an error,
// so that corrupt grants exclude rather than include.
func (a *Access) has(p Privilege) (bool, error) {
	allowed := false
	for _, b := range a.Bindings {
		if _, ok := privilegeLevels[b.Privilege]; !ok {
			return false, fmt.Errorf("unknown privilege %q", b.Privilege)
		}
		if b.Privilege != p {
			continue
		}
		switch b.Condition {
		case Deny:
			return false, nil
		case Allow:
			allowed = true
		default:
			return false, fmt.Errorf("unknown condition %q", b.Condition)
		}
	}
	return allowed, nil
}

func (a *Access) owns(levels ...EntityKind) bool {
	for _, l := range levels {
		if a.Owns[l] {
			return true
		}
	}
	return false
}

// all is true when every privilege is held.
func (a *Access) all(ps ...Privilege) (bool, error) {
	for _, p := range ps {
		ok, err := a.has(p)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// any is true when some privilege is held.
func (a *Access) any(ps ...Privilege) (bool, error) {
	for _, p := range ps {
		ok, err := a.has(p)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// CanUseCatalog: owner of the metalake or catalog, or USE_CATALOG.
func (a *Access) CanUseCatalog() (bool, error) {
	if a.owns(KindMetalake, KindCatalog) {
		return true, nil
	}
	return a.has(UseCatalog)
}

// CanUseSchema is "schema access": owner of the metalake, catalog or schema,
// or USE_CATALOG and USE_SCHEMA.
func (a *Access) CanUseSchema() (bool, error) {
	if a.owns(KindMetalake, KindCatalog, KindSchema) {
		return true, nil
	}
	return a.all(UseCatalog, UseSchema)
}

// objectRules are the privileges of tables or of semantic models.
type objectRules struct {
	kind                 EntityKind
	create, read, modify Privilege
}

var (
	tableRules = objectRules{KindTable, CreateTable, SelectTable, ModifyTable}
	modelRules = objectRules{KindSemanticModel, CreateSemanticModel, SelectSemanticModel, ModifySemanticModel}
)

func (a *Access) canSee(r objectRules) (bool, error) {
	ok, err := a.CanUseSchema()
	if err != nil || !ok {
		return false, err
	}
	if a.owns(KindMetalake, KindCatalog, KindSchema, r.kind) {
		return true, nil
	}
	return a.any(r.read, r.modify)
}

func (a *Access) canCreate(r objectRules) (bool, error) {
	if a.owns(KindMetalake, KindCatalog) {
		return true, nil
	}
	if a.owns(KindSchema) {
		return a.has(UseCatalog)
	}
	ok, err := a.has(r.create)
	if err != nil || !ok {
		return false, err
	}
	return a.CanUseSchema()
}

func (a *Access) canAlter(r objectRules) (bool, error) {
	if a.owns(KindMetalake, KindCatalog, KindSchema, r.kind) {
		return true, nil
	}
	ok, err := a.has(r.modify)
	if err != nil || !ok {
		return false, err
	}
	return a.CanUseSchema()
}

func (a *Access) canDrop(r objectRules) bool {
	return a.owns(KindMetalake, KindCatalog, KindSchema, r.kind)
}

// CanSeeSemanticModel: schema access, and owner of the model or an
// ancestor, or SELECT_ or MODIFY_SEMANTIC_MODEL.
func (a *Access) CanSeeSemanticModel() (bool, error) { return a.canSee(modelRules) }

// CanCreateSemanticModel: owner of the metalake or catalog, or schema owner
// with USE_CATALOG, or CREATE_SEMANTIC_MODEL with schema access.
func (a *Access) CanCreateSemanticModel() (bool, error) { return a.canCreate(modelRules) }

// CanAlterSemanticModel: owners, or MODIFY_SEMANTIC_MODEL with schema access.
func (a *Access) CanAlterSemanticModel() (bool, error) { return a.canAlter(modelRules) }

// CanDropSemanticModel: owners only.
func (a *Access) CanDropSemanticModel() bool { return a.canDrop(modelRules) }

// CanSeeTable is CanSeeSemanticModel for tables.
func (a *Access) CanSeeTable() (bool, error) { return a.canSee(tableRules) }

// CanCreateTable is CanCreateSemanticModel for tables.
func (a *Access) CanCreateTable() (bool, error) { return a.canCreate(tableRules) }

// CanAlterTable is CanAlterSemanticModel for tables.
func (a *Access) CanAlterTable() (bool, error) { return a.canAlter(tableRules) }

// CanDropTable is CanDropSemanticModel for tables.
func (a *Access) CanDropTable() bool { return a.canDrop(tableRules) }

// CanCreateSchema: owner of the metalake or catalog, or CREATE_SCHEMA with
// USE_CATALOG.
func (a *Access) CanCreateSchema() (bool, error) {
	if a.owns(KindMetalake, KindCatalog) {
		return true, nil
	}
	return a.all(CreateSchema, UseCatalog)
}

// CanCreateCatalog: owner of the metalake, or CREATE_CATALOG.
func (a *Access) CanCreateCatalog() (bool, error) {
	if a.owns(KindMetalake) {
		return true, nil
	}
	return a.has(CreateCatalog)
}

// CanManageGrants: owner of the metalake, or MANAGE_GRANTS.
func (a *Access) CanManageGrants() (bool, error) {
	if a.owns(KindMetalake) {
		return true, nil
	}
	return a.has(ManageGrants)
}

// OwnsAny reports whether the user owns the object or an ancestor; owners may
// alter and drop what they own and everything below it.
func (a *Access) OwnsAny(levels ...EntityKind) bool { return a.owns(levels...) }
