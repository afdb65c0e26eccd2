package semcat

import "context"

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
	Comment    *string           `json:"comment"`
	Properties map[string]string `json:"properties"`
	Audit      Audit             `json:"audit"`
}

// CatalogCreate is the body of a catalog creation request.
type CatalogCreate struct {
	Name       string            `json:"name"`
	Type       CatalogType       `json:"type"`
	Comment    *string           `json:"comment"`
	Properties map[string]string `json:"properties"`
}

// Validate checks the request.
func (c *CatalogCreate) Validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	if c.Type == "" {
		return Errorf(EINVALID, "type: catalog type is required (relational, fileset, messaging or model)")
	}
	if !c.Type.Valid() {
		return Errorf(EINVALID, "type: unknown catalog type '%s' (want relational, fileset, messaging or model)", c.Type)
	}
	return ValidateProperties("properties", c.Properties)
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
}
