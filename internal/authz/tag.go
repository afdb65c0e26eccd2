package authz

import (
	"context"

	"github.com/semcat/semcat"
)

func mlNS(metalake string) semcat.Namespace { return semcat.Namespace{Metalake: metalake} }

// CreateTag: the metalake's owner.
func (s *Service) CreateTag(ctx context.Context, metalake string, req semcat.TagCreate) (*semcat.Tag, semcat.Position, error) {
	if err := s.check(ctx, mlNS(metalake), owns(metalakeLevel...), "create tags in '"+metalake+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.CreateTag(ctx, metalake, req)
}

// GetTag: members of the metalake.
func (s *Service) GetTag(ctx context.Context, metalake, name string) (*semcat.Tag, error) {
	if err := s.check(ctx, mlNS(metalake), isMember, "see tags of '"+metalake+"'"); err != nil {
		return nil, err
	}
	return s.inner.GetTag(ctx, metalake, name)
}

// ListTags: members of the metalake.
func (s *Service) ListTags(ctx context.Context, metalake string) ([]string, error) {
	if err := s.check(ctx, mlNS(metalake), isMember, "see tags of '"+metalake+"'"); err != nil {
		return nil, err
	}
	return s.inner.ListTags(ctx, metalake)
}

// DropTag: the metalake's owner.
func (s *Service) DropTag(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	if err := s.check(ctx, mlNS(metalake), owns(metalakeLevel...), "drop tags in '"+metalake+"'"); err != nil {
		return false, semcat.Position{}, err
	}
	return s.inner.DropTag(ctx, metalake, name)
}

// objectRules returns the facts about a taggable or ownable object and the
// rules to see and to alter it.
func (s *Service) objectAccess(ctx context.Context, metalake string, obj semcat.ObjectRef) (a *semcat.Access, see, alter func(*semcat.Access) (bool, error), err error) {
	if obj.Type == semcat.KindColumn {
		obj, _ = obj.ColumnOf() // a column is seen and altered with its table
	}
	if obj.Type == semcat.KindMetalake || obj.Type == semcat.KindTag || obj.Type == semcat.KindRole {
		a, err = s.at(ctx, mlNS(metalake))
		return a, isMember, owns(metalakeLevel...), err
	}
	_, ns, name, err := semcat.ParseObjectRef(metalake, string(obj.Type), obj.FullName)
	if err != nil {
		return nil, nil, nil, err
	}
	switch obj.Type {
	case semcat.KindCatalog:
		a, err = s.at(ctx, catalogNS(metalake, name))
		return a, (*semcat.Access).CanUseCatalog, owns(catalogLevels...), err
	case semcat.KindSchema:
		a, err = s.at(ctx, schemaNS(ns, name))
		return a, (*semcat.Access).CanUseSchema, owns(schemaLevels...), err
	case semcat.KindTable:
		a, err = s.object(ctx, ns, semcat.KindTable, name)
		return a, (*semcat.Access).CanSeeTable, (*semcat.Access).CanAlterTable, err
	}
	a, err = s.object(ctx, ns, semcat.KindSemanticModel, name)
	return a, (*semcat.Access).CanSeeSemanticModel, (*semcat.Access).CanAlterSemanticModel, err
}

// checkSee fails unless the user may see the object, as for a missing
// object when it may not (seeObject), and reports whether it exists.
func (s *Service) checkSee(ctx context.Context, metalake string, obj semcat.ObjectRef) (bool, error) {
	if obj.Type == semcat.KindColumn {
		obj, _ = obj.ColumnOf() // the store answers for a column that is not
	}
	// A metalake's members see it and its tags and roles (whose owners
	// they may ask for); the store answers for a tag or role that is not.
	if obj.Type == semcat.KindMetalake || obj.Type == semcat.KindTag || obj.Type == semcat.KindRole {
		a, err := s.at(ctx, mlNS(metalake))
		if err != nil {
			return false, err
		}
		return true, s.memberBy(ctx, metalake, a)
	}
	_, ns, name, err := semcat.ParseObjectRef(metalake, string(obj.Type), obj.FullName)
	if err != nil {
		return false, err
	}
	var see func() (bool, error)
	switch obj.Type {
	case semcat.KindCatalog:
		see = func() (bool, error) { return s.seeCatalog(ctx, metalake, name) }
	case semcat.KindSchema:
		see = func() (bool, error) { return s.seeSchema(ctx, ns, name) }
	case semcat.KindTable:
		see = func() (bool, error) { return s.seeTable(ctx, ns, name) }
	default:
		see = func() (bool, error) { return s.seeModel(ctx, ns, name) }
	}
	return see()
}

// ListObjectTags: whoever may see the object.
func (s *Service) ListObjectTags(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]string, error) {
	if _, err := s.checkSee(ctx, metalake, obj); err != nil {
		return nil, err
	}
	return s.inner.ListObjectTags(ctx, metalake, obj)
}

// ObjectTagInfos: whoever may see the object.
func (s *Service) ObjectTagInfos(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]*semcat.ObjectTag, error) {
	if _, err := s.checkSee(ctx, metalake, obj); err != nil {
		return nil, err
	}
	return s.inner.ObjectTagInfos(ctx, metalake, obj)
}

// AssociateTags: whoever may alter the object.
func (s *Service) AssociateTags(ctx context.Context, metalake string, obj semcat.ObjectRef, req semcat.TagAssignments) ([]string, semcat.Position, error) {
	exists, err := s.checkSee(ctx, metalake, obj)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	if !exists {
		return s.inner.AssociateTags(ctx, metalake, obj, req) // which answers that it is missing
	}
	a, _, alter, err := s.objectAccess(ctx, metalake, obj)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	ok, err := alter(a)
	if err := s.decide(ctx, ok, err, "tag "+string(obj.Type)+" '"+obj.FullName+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.AssociateTags(ctx, metalake, obj, req)
}

// ObjectMetadata: whoever may see the object.
func (s *Service) ObjectMetadata(ctx context.Context, metalake string, obj semcat.ObjectRef) (*semcat.Metadata, error) {
	if _, err := s.checkSee(ctx, metalake, obj); err != nil {
		return nil, err
	}
	return s.inner.ObjectMetadata(ctx, metalake, obj)
}

// AlterTag: the metalake's owner.
func (s *Service) AlterTag(ctx context.Context, metalake, name string, updates []semcat.Update) (*semcat.Tag, semcat.Position, error) {
	if err := s.check(ctx, mlNS(metalake), owns(metalakeLevel...), "alter tags in '"+metalake+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.AlterTag(ctx, metalake, name, updates)
}

// ListTagInfos: members of the metalake.
func (s *Service) ListTagInfos(ctx context.Context, metalake string) ([]*semcat.Tag, error) {
	if err := s.check(ctx, mlNS(metalake), isMember, "see tags of '"+metalake+"'"); err != nil {
		return nil, err
	}
	return s.inner.ListTagInfos(ctx, metalake)
}

// TagObjects: members of the metalake, who see only the objects they may
// see (SPEC §6: nothing invisible, ever). Each object passes as checkSee
// would pass it, with the facts about all of them loaded at once: the
// listing's cost does not grow by a query per object (SPEC §2.11).
func (s *Service) TagObjects(ctx context.Context, metalake, name, value string) ([]semcat.TaggedObject, error) {
	if err := s.check(ctx, mlNS(metalake), isMember, "see tags of '"+metalake+"'"); err != nil {
		return nil, err
	}
	all, parents, own, err := s.src.TagObjectsAccess(ctx, user(ctx), metalake, name, value)
	if err != nil {
		return nil, err
	}
	for _, o := range all {
		see := semcat.ObjectRef(o)
		if see.Type == semcat.KindColumn {
			see, _ = see.ColumnOf()
		}
		if _, _, _, err := semcat.ParseObjectRef(metalake, string(see.Type), see.FullName); err != nil {
			return nil, err // as checkSee answers
		}
	}
	out := make([]semcat.TaggedObject, 0, len(all)) // all is the store's, shared
	for i, o := range all {
		if own[i] != nil && s.sees(ctx, o, parents[i], own[i]) {
			out = append(out, o)
		}
	}
	return out, nil
}

// seeRules are checkSee's rules by kind: the one on the namespace that
// holds an object, and the one on the object.
var seeRules = map[semcat.EntityKind][2]func(*semcat.Access) (bool, error){
	semcat.KindCatalog:       {isMember, (*semcat.Access).CanUseCatalog},
	semcat.KindSchema:        {(*semcat.Access).CanUseCatalog, (*semcat.Access).CanUseSchema},
	semcat.KindTable:         {(*semcat.Access).CanUseSchema, (*semcat.Access).CanSeeTable},
	semcat.KindColumn:        {(*semcat.Access).CanUseSchema, (*semcat.Access).CanSeeTable},
	semcat.KindSemanticModel: {(*semcat.Access).CanUseSchema, (*semcat.Access).CanSeeSemanticModel},
}

// sees reports whether checkSee lets the user see an existing object whose
// namespace's facts are parent and its own a; a rule that cannot be
// evaluated hides the object and is logged, as there.
func (s *Service) sees(ctx context.Context, o semcat.TaggedObject, parent, a *semcat.Access) bool {
	rules, ok := seeRules[o.Type]
	if !ok {
		return false
	}
	for i, on := range []*semcat.Access{parent, a} {
		visible, err := rules[i](on)
		if err != nil {
			s.logger.Error("authorization: cannot evaluate visibility; excluding the object", "user", user(ctx), "object", string(o.Type)+" "+o.FullName, "err", err)
			return false
		}
		if !visible {
			return false
		}
	}
	return true
}
