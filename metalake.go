package semcat

import "context"

// Metalake is the top of the catalog hierarchy: a tenant holding catalogs,
// tags, users and roles.
type Metalake struct {
	ID         int64             `json:"-"`
	Name       string            `json:"name"`
	Comment    *string           `json:"comment"`
	Properties map[string]string `json:"properties"`
	Audit      Audit             `json:"audit"`
}

// MetalakeCreate is the body of a metalake creation request.
type MetalakeCreate struct {
	Name       string            `json:"name"`
	Comment    *string           `json:"comment"`
	Properties map[string]string `json:"properties"`
}

// Validate checks the request.
func (c *MetalakeCreate) Validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	return ValidateProperties("properties", c.Properties)
}

// MetalakeService manages metalakes.
type MetalakeService interface {
	CreateMetalake(ctx context.Context, req MetalakeCreate) (*Metalake, Position, error)
	GetMetalake(ctx context.Context, name string) (*Metalake, error)
	ListMetalakes(ctx context.Context) ([]*Metalake, error)
	AlterMetalake(ctx context.Context, name string, updates []Update) (*Metalake, Position, error)
	DropMetalake(ctx context.Context, name string, force bool) (bool, Position, error)
}
