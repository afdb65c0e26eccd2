package client

import (
	"net/url"
	"strings"

	"github.com/semcat/semcat"
)

// ParseNamespace reads a dotted namespace from the metalake down:
// "metalake", "metalake.catalog" or "metalake.catalog.schema".
func ParseNamespace(s string) (semcat.Namespace, error) {
	parts := strings.Split(s, ".")
	if len(parts) > 3 {
		return semcat.Namespace{}, semcat.Errorf(semcat.EINVALID, "namespace '%s': want metalake[.catalog[.schema]]", s)
	}
	for _, p := range parts {
		if err := semcat.ValidateName("namespace", p); err != nil {
			return semcat.Namespace{}, err
		}
	}
	var ns semcat.Namespace
	for i, dst := range []*string{&ns.Metalake, &ns.Catalog, &ns.Schema}[:len(parts)] {
		*dst = parts[i]
	}
	return ns, nil
}

// ParseIdentifier reads the dotted identifier of an entity from the metalake
// down ("metalake.catalog.schema.table") into the namespace of its parent
// and its name. A single name is a metalake: an empty namespace.
func ParseIdentifier(s string) (semcat.Namespace, string, error) {
	i := strings.LastIndexByte(s, '.')
	if i < 0 {
		return semcat.Namespace{}, s, semcat.ValidateName("name", s)
	}
	ns, err := ParseNamespace(s[:i])
	if err != nil {
		return semcat.Namespace{}, "", err
	}
	if err := semcat.ValidateName("name", s[i+1:]); err != nil {
		return semcat.Namespace{}, "", err
	}
	return ns, s[i+1:], nil
}

// FormatNamespace writes ns dotted from the metalake down, as ParseNamespace
// reads it.
func FormatNamespace(ns semcat.Namespace) string {
	return strings.Join(ns.Path(), ".")
}

// Namespace depths: how many levels a namespace names.
const (
	inMetalake = 1 // Namespace{Metalake}: catalogs
	inCatalog  = 2 // Namespace{Metalake, Catalog}: schemas
	inSchema   = 3 // Namespace{Metalake, Catalog, Schema}: tables, models
)

// namespacePath returns the escaped path of ns, which must name exactly
// depth levels; what names the entities it holds, for the error.
func namespacePath(ns semcat.Namespace, depth int, what string) (string, error) {
	levels := []string{ns.Metalake, ns.Catalog, ns.Schema}
	for i, l := range levels {
		if (l != "") != (i < depth) {
			want := []string{"metalake", "metalake.catalog", "metalake.catalog.schema"}[depth-1]
			return "", semcat.Errorf(semcat.EINVALID, "namespace: the namespace of %s is %s, got '%s'", what, want, strings.Join(nonEmpty(levels), "."))
		}
	}
	p := "/api/metalakes/" + url.PathEscape(ns.Metalake)
	if depth >= inCatalog {
		p += "/catalogs/" + url.PathEscape(ns.Catalog)
	}
	if depth >= inSchema {
		p += "/schemas/" + url.PathEscape(ns.Schema)
	}
	return p, nil
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// metalakePath returns the escaped path of a metalake.
func metalakePath(metalake string) (string, error) {
	if metalake == "" {
		return "", semcat.Errorf(semcat.EINVALID, "metalake: a metalake name is required")
	}
	return "/api/metalakes/" + url.PathEscape(metalake), nil
}

// objectPath returns the escaped path of an object of a metalake under
// section: "objects" for tags and metadata, "owners" for owners.
func objectPath(metalake, section string, obj semcat.ObjectRef) (string, error) {
	p, err := metalakePath(metalake)
	if err != nil {
		return "", err
	}
	if obj.Type == "" || obj.FullName == "" {
		return "", semcat.Errorf(semcat.EINVALID, "object: a type and a full name are required, got '%s' '%s'", obj.Type, obj.FullName)
	}
	return p + "/" + section + "/" + url.PathEscape(string(obj.Type)) + "/" + url.PathEscape(obj.FullName), nil
}

// child returns the path of the entity name in the collection at path.
func child(path, name string) (string, error) {
	if name == "" {
		return "", semcat.Errorf(semcat.EINVALID, "name: a name is required")
	}
	return path + "/" + url.PathEscape(name), nil
}
