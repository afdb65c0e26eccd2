package semcat

import (
	"context"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CatalogType is the kind of data a catalog holds. Only relational catalogs
// hold tables and semantic models.
type CatalogType string

// Catalog types.
const (
	CatalogRelational CatalogType = "relational"
	CatalogFileset    CatalogType = "fileset"
	CatalogMessaging  CatalogType = "messaging"
	CatalogModel      CatalogType = "model"
)

// Valid reports whether t is a known catalog type.
func (t CatalogType) Valid() bool {
	switch t {
	case CatalogRelational, CatalogFileset, CatalogMessaging, CatalogModel:
		return true
	}
	return false
}

// Catalog is a named source of metadata inside a metalake.
type Catalog struct {
	ID         int64             `json:"-"`
	Name       string            `json:"name"`
	Type       CatalogType       `json:"type"`
	Provider   string            `json:"provider"`
	Comment    *string           `json:"comment"`
	Properties map[string]string `json:"properties"`
	Audit      Audit             `json:"audit"`
	// InUse is false for a disabled catalog (SPEC §2.10); the API shows it
	// as the property "in-use".
	InUse bool `json:"-"`
}

// UnmarshalJSON reads a catalog as the API writes it, InUse from its
// "in-use" property (absent: enabled).
func (c *Catalog) UnmarshalJSON(b []byte) error {
	type plain Catalog
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	c.InUse = c.Properties[PropertyInUse] != "false"
	return nil
}

// DefaultProvider is the provider of a catalog created without one.
const DefaultProvider = "semcat"

// MaxProviderLength bounds a catalog's provider name.
const MaxProviderLength = 128

// CatalogCreate is the body of a catalog creation request.
type CatalogCreate struct {
	Name string      `json:"name"`
	Type CatalogType `json:"type"`
	// Provider names the connector behind the catalog in Gravitino
	// ("jdbc-postgresql", "hive"); semcat keeps it as given. Absent:
	// DefaultProvider.
	Provider   *string           `json:"provider"`
	Comment    *string           `json:"comment"`
	Properties map[string]string `json:"properties"`
}

// Validate checks the request and puts the type in its canonical
// (lower-case) spelling: enum values are read in any letter case.
func (c *CatalogCreate) Validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	if c.Type == "" {
		return Errorf(EINVALID, "type: catalog type is required (relational, fileset, messaging or model)")
	}
	if t := CatalogType(strings.ToLower(string(c.Type))); t.Valid() {
		c.Type = t
	} else {
		return Errorf(EINVALID, "type: unknown catalog type '%s' (want relational, fileset, messaging or model)", c.Type)
	}
	if c.Provider != nil {
		p := *c.Provider
		switch {
		case strings.TrimSpace(p) == "":
			return Errorf(EINVALID, "provider: must not be empty (leave it out for the default, '%s')", DefaultProvider)
		case utf8.RuneCountInString(p) > MaxProviderLength:
			return Errorf(EINVALID, "provider: longer than %d characters", MaxProviderLength)
		case strings.IndexFunc(p, unicode.IsControl) >= 0:
			return Errorf(EINVALID, "provider: must not contain control characters")
		}
	}
	if err := ValidateProperties("properties", c.Properties); err != nil {
		return err
	}
	return noReservedProperty("properties", c.Properties)
}

// ProviderOrDefault is the provider the catalog is created with.
func (c *CatalogCreate) ProviderOrDefault() string {
	if c.Provider == nil {
		return DefaultProvider
	}
	return *c.Provider
}

// RequireRelational fails with EUNSUPPORTED unless the catalog type holds
// tables and semantic models.
func RequireRelational(catalog string, t CatalogType, what string) error {
	if t != CatalogRelational {
		return Errorf(EUNSUPPORTED, "catalog '%s' is of type %s: %s are supported only in relational catalogs", catalog, t, what)
	}
	return nil
}

// CatalogService manages catalogs.
type CatalogService interface {
	CreateCatalog(ctx context.Context, metalake string, req CatalogCreate) (*Catalog, Position, error)
	GetCatalog(ctx context.Context, metalake, name string) (*Catalog, error)
	ListCatalogs(ctx context.Context, metalake string) ([]*Catalog, error)
	AlterCatalog(ctx context.Context, metalake, name string, updates []Update) (*Catalog, Position, error)
	DropCatalog(ctx context.Context, metalake, name string, force bool) (bool, Position, error)
	// SetCatalogInUse enables or disables a catalog; doing what is already
	// done succeeds.
	SetCatalogInUse(ctx context.Context, metalake, name string, inUse bool) (Position, error)
}
