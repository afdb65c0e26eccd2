package client

import (
	"context"
	"net/http"

	"github.com/semcat/semcat"
)

var _ semcat.CatalogService = (*Client)(nil)

// catalogsPath returns the path of the catalogs of a metalake.
func catalogsPath(metalake string) (string, error) {
	p, err := metalakePath(metalake)
	return p + "/catalogs", err
}

// catalogPath returns the path of a catalog.
func catalogPath(metalake, name string) (string, error) {
	p, err := catalogsPath(metalake)
	if err != nil {
		return "", err
	}
	return child(p, name)
}

// CreateCatalog creates a catalog in a metalake.
func (c *Client) CreateCatalog(ctx context.Context, metalake string, req semcat.CatalogCreate) (*semcat.Catalog, semcat.Position, error) {
	p, err := catalogsPath(metalake)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Catalog](ctx, c, request{method: http.MethodPost, path: p, body: req}, "catalog")
}

// ListCatalogs lists the catalogs of a metalake with their details, sorted
// by name.
func (c *Client) ListCatalogs(ctx context.Context, metalake string) ([]*semcat.Catalog, error) {
	p, err := catalogsPath(metalake)
	if err != nil {
		return nil, err
	}
	return get[[]*semcat.Catalog](ctx, c, request{method: http.MethodGet, path: p, query: trueParam("details", true)}, "catalogs")
}

// GetCatalog loads a catalog.
func (c *Client) GetCatalog(ctx context.Context, metalake, name string) (*semcat.Catalog, error) {
	p, err := catalogPath(metalake, name)
	if err != nil {
		return nil, err
	}
	return get[*semcat.Catalog](ctx, c, request{method: http.MethodGet, path: p}, "catalog")
}

// AlterCatalog applies updates to a catalog, in order, all or nothing.
func (c *Client) AlterCatalog(ctx context.Context, metalake, name string, updates []semcat.Update) (*semcat.Catalog, semcat.Position, error) {
	p, err := catalogPath(metalake, name)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Catalog](ctx, c, request{method: http.MethodPut, path: p, body: semcat.UpdatesRequest{Updates: updates}}, "catalog")
}

// DropCatalog drops a catalog; a non-empty one only with force. It reports
// false if there was no such catalog.
func (c *Client) DropCatalog(ctx context.Context, metalake, name string, force bool) (bool, semcat.Position, error) {
	p, err := catalogPath(metalake, name)
	if err != nil {
		return false, semcat.Position{}, err
	}
	return write[bool](ctx, c, request{method: http.MethodDelete, path: p, query: trueParam("force", force)}, "dropped")
}

// SetCatalogInUse enables or disables a catalog (SPEC §2.10).
func (c *Client) SetCatalogInUse(ctx context.Context, metalake, name string, inUse bool) (semcat.Position, error) {
	p, err := catalogPath(metalake, name)
	if err != nil {
		return semcat.Position{}, err
	}
	return writeNothing(ctx, c, request{method: http.MethodPatch, path: p, body: semcat.InUseRequest{InUse: &inUse}})
}

var _ semcat.ConnectionService = (*Client)(nil)

// TestConnection tests the source a catalog created with req would have
// (Gravitino's testConnection); nothing is created. A source that cannot
// be reached is an ECONNFAILED error with its reason.
func (c *Client) TestConnection(ctx context.Context, metalake string, req semcat.CatalogCreate) error {
	p, err := catalogsPath(metalake)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, request{method: http.MethodPost, path: p + "/testConnection", body: req})
	return err
}

// TestCatalogConnection tests the source of an existing catalog.
func (c *Client) TestCatalogConnection(ctx context.Context, metalake, catalog string) error {
	p, err := catalogPath(metalake, catalog)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, request{method: http.MethodPost, path: p + "/testConnection"})
	return err
}

// RefreshCatalog reads a source-backed catalog's source again (a
// jdbc-postgresql catalog's database) and mirrors what changed; it
// returns the position of the mirror's write, zero when nothing changed or
// the catalog has no source.
func (c *Client) RefreshCatalog(ctx context.Context, metalake, catalog string) (semcat.Position, error) {
	p, err := catalogPath(metalake, catalog)
	if err != nil {
		return semcat.Position{}, err
	}
	return writeNothing(ctx, c, request{method: http.MethodPost, path: p + "/refresh"})
}
