package semcat

import "context"

// Schema groups tables and semantic models inside a catalog.
type Schema struct {
	ID         int64             `json:"-"`
	Name       string            `json:"name"`
	Comment    *string           `json:"comment"`
	Properties map[string]string `json:"properties"`
	Audit      Audit             `json:"audit"`
}

// SchemaCreate is the body of a schema creation request.
type SchemaCreate struct {
	Name       string            `json:"name"`
	Comment    *string           `json:"comment"`
	Properties map[string]string `json:"properties"`
}

// Validate checks the request.
func (c *SchemaCreate) Validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	return ValidateProperties("properties", c.Properties)
}

// SchemaService manages schemas.
type SchemaService interface {
	CreateSchema(ctx context.Context, ns Namespace, req SchemaCreate) (*Schema, Position, error)
	GetSchema(ctx context.Context, ns Namespace, name string) (*Schema, error)
	ListSchemas(ctx context.Context, ns Namespace) ([]string, error)
	AlterSchema(ctx context.Context, ns Namespace, name string, updates []Update) (*Schema, Position, error)
	DropSchema(ctx context.Context, ns Namespace, name string, cascade bool) (bool, Position, error)
}
