package semcat

import (
	"context"
	"encoding/json"
)

// Metalake is the top of the catalog hierarchy: a tenant holding catalogs,
// tags, users and roles.
type Metalake struct {
	ID         int64             `json:"-"`
	Name       string            `json:"name"`
	Comment    *string           `json:"comment"`
	Properties map[string]string `json:"properties"`
	Audit      Audit             `json:"audit"`
	// InUse is false for a disabled metalake (SPEC §2.10); the API shows it
	// as the property "in-use".
	InUse bool `json:"-"`
}

// UnmarshalJSON reads a metalake as the API writes it, InUse from its
// "in-use" property (absent: enabled).
func (m *Metalake) UnmarshalJSON(b []byte) error {
	type plain Metalake
	if err := json.Unmarshal(b, (*plain)(m)); err != nil {
		return err
	}
	m.InUse = m.Properties[PropertyInUse] != "false"
	return nil
}

// InUseRequest is the body of PATCH on a metalake or catalog: enable
// (true) or disable (false) it.
type InUseRequest struct {
	InUse *bool `json:"inUse"`
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
	if err := ValidateProperties("properties", c.Properties); err != nil {
		return err
	}
	return noReservedProperty("properties", c.Properties)
}

// MetalakeService manages metalakes.
type MetalakeService interface {
	CreateMetalake(ctx context.Context, req MetalakeCreate) (*Metalake, Position, error)
	GetMetalake(ctx context.Context, name string) (*Metalake, error)
	ListMetalakes(ctx context.Context) ([]*Metalake, error)
	AlterMetalake(ctx context.Context, name string, updates []Update) (*Metalake, Position, error)
	DropMetalake(ctx context.Context, name string, force bool) (bool, Position, error)
	// SetMetalakeInUse enables or disables a metalake; doing what is
	// already done succeeds.
	SetMetalakeInUse(ctx context.Context, name string, inUse bool) (Position, error)
}

// PropertyInUse is the property that shows whether a metalake or catalog
// is enabled ("true") or disabled ("false"). The server sets it; a request
// that sets or removes it is refused.
const PropertyInUse = "in-use"

// WithInUse returns a copy of props with PropertyInUse set from inUse.
func WithInUse(props map[string]string, inUse bool) map[string]string {
	out := make(map[string]string, len(props)+1)
	for k, v := range props {
		out[k] = v
	}
	out[PropertyInUse] = "false"
	if inUse {
		out[PropertyInUse] = "true"
	}
	return out
}

// noReservedProperty refuses a property the server sets itself.
func noReservedProperty(field string, props map[string]string) error {
	if _, ok := props[PropertyInUse]; ok {
		return Errorf(EINVALID, "%s.%s: the property is reserved: it shows whether the entity is enabled; use PATCH {\"inUse\": true|false}", field, PropertyInUse)
	}
	return nil
}

// ValidateToggledUpdates checks the updates of a metalake or catalog: the
// common ones, none of which may set or remove PropertyInUse.
func ValidateToggledUpdates(updates []Update) error {
	if err := ValidateUpdates(updates, CommonUpdates...); err != nil {
		return err
	}
	for i, u := range updates {
		if (u.Type == UpdateSetProperty || u.Type == UpdateRemoveProperty) && u.Property != nil && *u.Property == PropertyInUse {
			return Errorf(EINVALID, "updates[%d].property: '%s' is reserved: it shows whether the entity is enabled; use PATCH {\"inUse\": true|false}", i, PropertyInUse)
		}
	}
	return nil
}
