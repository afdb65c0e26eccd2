// Package authz enforces semcat's authorization rules (SPEC §6) around the
// catalog services: every operation is checked before it runs, and listings
// (including schema-level metric discovery) are filtered per object. The
// rules themselves are the decision methods of semcat.Access; this package
// loads the facts for the acting user and applies them.
package authz

import (
	"context"
	"log/slog"

	"github.com/semcat/semcat"
)

// AccessSource loads what authorization needs to know about a user at a
// namespace and, optionally, about children of one kind below it (see
// catalogdb.Store.Access).
type AccessSource interface {
	Access(ctx context.Context, user string, ns semcat.Namespace, kind semcat.EntityKind, names []string) (*semcat.Access, map[string]*semcat.Access, error)
	// TagObjectsAccess lists the objects of a tag (as TagService's
	// TagObjects) with, for each, the facts at the namespace that holds it
	// and its own (nil if it is gone), in a fixed number of statements.
	// See catalogdb.Store.TagObjectsAccess.
	TagObjectsAccess(ctx context.Context, user, metalake, name, value string) (objs []semcat.TaggedObject, parents, own []*semcat.Access, err error)
	// MemberOf names the metalakes user is a member of or owns.
	MemberOf(ctx context.Context, user string) (map[string]bool, error)
}

// Inner is the set of services that Service guards.
type Inner interface {
	semcat.MetalakeService
	semcat.CatalogService
	semcat.SchemaService
	semcat.TableService
	semcat.SemanticModelService
	semcat.TagService
	semcat.PolicyService
	semcat.MetricDiscoveryService
	semcat.AccessControlService
	semcat.MetadataService
	semcat.SynonymService
}

// Service implements the catalog services with authorization.
type Service struct {
	inner  Inner
	src    AccessSource
	admins map[string]bool
	logger *slog.Logger
}

var _ Inner = (*Service)(nil)

// New returns inner guarded by the rules. serviceAdmins may create
// metalakes and see every metalake.
func New(inner Inner, src AccessSource, serviceAdmins []string, logger *slog.Logger) *Service {
	if logger == nil {
		logger = slog.Default()
	}
	admins := map[string]bool{}
	for _, a := range serviceAdmins {
		admins[a] = true
	}
	return &Service{inner: inner, src: src, admins: admins, logger: logger}
}

func user(ctx context.Context) string { return semcat.UserFromContext(ctx) }

func forbidden(ctx context.Context, what string) error {
	return semcat.Errorf(semcat.EFORBIDDEN, "user '%s' is not allowed to %s", user(ctx), what)
}

// decide turns a rule's answer into nil or a 403. An error while evaluating
// the rule (a corrupt grant) denies and is logged.
func (s *Service) decide(ctx context.Context, ok bool, err error, what string) error {
	if err != nil {
		s.logger.Error("authorization: cannot evaluate a rule; denying", "user", user(ctx), "operation", what, "err", err)
		return forbidden(ctx, what)
	}
	if !ok {
		return forbidden(ctx, what)
	}
	return nil
}

// at loads the facts about ns itself.
func (s *Service) at(ctx context.Context, ns semcat.Namespace) (*semcat.Access, error) {
	a, _, err := s.access(ctx, ns, "", nil)
	return a, err
}

// access loads the user's facts at ns and about its children of kind
// (names, or all). To a non-member the metalake does not exist (SPEC §6):
// every route under it answers so, before any other rule.
func (s *Service) access(ctx context.Context, ns semcat.Namespace, kind semcat.EntityKind, names []string) (*semcat.Access, map[string]*semcat.Access, error) {
	parent, children, err := s.src.Access(ctx, user(ctx), ns, kind, names)
	if err != nil {
		return nil, nil, err
	}
	if err := s.memberBy(ctx, ns.Metalake, parent); err != nil {
		return nil, nil, err
	}
	return parent, children, nil
}

// object loads the facts about one child of ns; if it does not exist, the
// facts about its ancestors (so owners above it still decide, and the
// operation can answer not-found).
func (s *Service) object(ctx context.Context, ns semcat.Namespace, kind semcat.EntityKind, name string) (*semcat.Access, error) {
	parent, children, err := s.access(ctx, ns, kind, []string{name})
	if err != nil {
		return nil, err
	}
	if c, ok := children[name]; ok {
		return c, nil
	}
	return parent, nil
}

// seeObject lets the user through to read (or change) the child name of
// kind under ns when rule passes on it. Otherwise the answer is the one for
// a child of that name that does not exist (SPEC §6, no existence
// oracles): where parentRule (the user may see ns) fails, the same 403
// whether the child exists or not; else the child is not found (missing,
// the error the inner service returns for a missing one).
//
// A hidden child and a missing one answer alike at the same cost: both
// from the facts already loaded, without the inner service's lookup —
// where ns does not resolve (a level missing or disabled), with the error
// the inner service meets there (Access.PathErr), else with missing. The
// error comes before any rule on changes, as the inner service's would.
// exists is true whenever err is nil.
func (s *Service) seeObject(ctx context.Context, ns semcat.Namespace, kind semcat.EntityKind, name string,
	parentRule func(*semcat.Access) (bool, error), parentWhat string,
	rule func(*semcat.Access) (bool, error), missing func() error) (exists bool, err error) {
	parent, children, err := s.access(ctx, ns, kind, []string{name})
	if err != nil {
		return false, err
	}
	ok, err := parentRule(parent)
	if err := s.decide(ctx, ok, err, parentWhat); err != nil {
		return false, err
	}
	a, exists := children[name]
	if exists {
		ok, err = rule(a)
		if err != nil {
			s.logger.Error("authorization: cannot evaluate a rule; denying", "user", user(ctx), "object", name, "err", err)
		}
		if err == nil && ok {
			return true, nil
		}
	}
	if parent.PathErr != nil {
		return exists, parent.PathErr
	}
	return exists, missing()
}

// filter keeps the names whose Access passes rule; a name whose rule cannot
// be evaluated is left out and logged.
func (s *Service) filter(ctx context.Context, names []string, children map[string]*semcat.Access, rule func(*semcat.Access) (bool, error)) []string {
	out := []string{}
	for _, n := range names {
		a, ok := children[n]
		if !ok {
			continue
		}
		visible, err := rule(a)
		if err != nil {
			s.logger.Error("authorization: cannot evaluate visibility; excluding the object", "user", user(ctx), "object", n, "err", err)
			continue
		}
		if visible {
			out = append(out, n)
		}
	}
	return out
}

func owns(levels ...semcat.EntityKind) func(*semcat.Access) (bool, error) {
	return func(a *semcat.Access) (bool, error) { return a.OwnsAny(levels...), nil }
}
