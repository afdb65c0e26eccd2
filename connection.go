package semcat

import (
	"context"
	"fmt"
)

// ECONNFAILED is the error code of a catalog whose external source could
// not be reached (502, Gravitino's ConnectionFailedException, code 1007).
const ECONNFAILED = "connection_failed"

// ConnectionFailed is the error of a catalog's source that could not be
// reached; reason is the source's own, and must not hold a secret.
func ConnectionFailed(format string, args ...any) *Error {
	return &Error{Code: ECONNFAILED, Message: fmt.Sprintf(format, args...)}
}

// ConnectionService tests catalogs' connections to their external sources
// (SPEC §2.10, Gravitino's testConnection).
type ConnectionService interface {
	// TestConnection tests the source a catalog created with req would
	// have, in metalake; nothing is stored.
	TestConnection(ctx context.Context, metalake string, req CatalogCreate) error
	// TestCatalogConnection tests the source of an existing catalog.
	TestCatalogConnection(ctx context.Context, metalake, catalog string) error
}

// SourceTester connects to the external source of a catalog of provider
// with properties and reports why it cannot (ConnectionFailed), or that
// the properties do not name a source (EINVALID). A provider without an
// external source (DefaultProvider) succeeds.
type SourceTester func(ctx context.Context, provider string, properties map[string]string) error

// Connections implements ConnectionService over the catalog services, so
// that the metalake and catalog are found, and authorized, as by the other
// catalog operations.
type Connections struct {
	Metalakes MetalakeService
	Catalogs  CatalogService
	// Source tests a source; nil means no catalog has one, and every test
	// succeeds.
	Source SourceTester
	// MayCreateCatalog, when set, says whether the caller may create
	// catalogs in metalake (a test of a catalog not yet created is
	// authorized as its creation); an error refuses.
	MayCreateCatalog func(ctx context.Context, metalake string) error
}

var _ ConnectionService = (*Connections)(nil)

// TestConnection checks the request as a creation would, as Gravitino's
// does: the metalake exists and is in use, the caller may create catalogs
// in it, no catalog has the name yet; then it tests the source the request
// names.
func (c *Connections) TestConnection(ctx context.Context, metalake string, req CatalogCreate) error {
	if err := req.Validate(); err != nil {
		return err
	}
	m, err := c.Metalakes.GetMetalake(ctx, metalake)
	if err != nil {
		return err
	}
	if !m.InUse {
		return MetalakeNotInUse(metalake)
	}
	if c.MayCreateCatalog != nil {
		if err := c.MayCreateCatalog(ctx, metalake); err != nil {
			return err
		}
	}
	// A catalog the caller may not see still holds the name, as a
	// creation would find.
	switch _, err := c.Catalogs.GetCatalog(ctx, metalake, req.Name); ErrorCode(err) {
	case "", EFORBIDDEN:
		return AlreadyExists(KindCatalog, "catalog '%s.%s' already exists", metalake, req.Name)
	case ENOTFOUND:
	default:
		return err
	}
	return c.test(ctx, req.ProviderOrDefault(), req.Properties)
}

// TestCatalogConnection tests the source of a catalog the caller may see.
func (c *Connections) TestCatalogConnection(ctx context.Context, metalake, catalog string) error {
	cat, err := c.Catalogs.GetCatalog(ctx, metalake, catalog)
	if err != nil {
		return err
	}
	provider := cat.Provider
	if provider == "" {
		provider = DefaultProvider
	}
	return c.test(ctx, provider, cat.Properties)
}

func (c *Connections) test(ctx context.Context, provider string, props map[string]string) error {
	if c.Source == nil {
		return nil
	}
	return c.Source(ctx, provider, props)
}
