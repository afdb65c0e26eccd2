package client

import (
	"context"
	"net/http"

	"github.com/semcat/semcat"
)

var _ semcat.TableService = (*Client)(nil)

// tablesPath returns the path of the tables of the schema
// ns = {Metalake, Catalog, Schema}.
func tablesPath(ns semcat.Namespace) (string, error) {
	p, err := namespacePath(ns, inSchema, "a table")
	return p + "/tables", err
}

// tablePath returns the path of a table.
func tablePath(ns semcat.Namespace, name string) (string, error) {
	p, err := tablesPath(ns)
	if err != nil {
		return "", err
	}
	return child(p, name)
}

// CreateTable creates a table in the schema ns = {Metalake, Catalog, Schema}.
func (c *Client) CreateTable(ctx context.Context, ns semcat.Namespace, req semcat.TableCreate) (*semcat.Table, semcat.Position, error) {
	p, err := tablesPath(ns)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Table](ctx, c, request{method: http.MethodPost, path: p, body: req}, "table")
}

// CreateTables creates a batch of tables, each with its tags, in the schema
// ns: all of them or, on any error, none.
func (c *Client) CreateTables(ctx context.Context, ns semcat.Namespace, req semcat.TableBatchCreate) ([]*semcat.Table, semcat.Position, error) {
	p, err := tablesPath(ns)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[[]*semcat.Table](ctx, c, request{method: http.MethodPost, path: p + batchCreateSuffix, body: req}, "tables")
}

// batchCreateSuffix ends the path of a collection's batch create.
const batchCreateSuffix = ":batchCreate"

// ListTables lists the names of the tables of a schema, sorted.
func (c *Client) ListTables(ctx context.Context, ns semcat.Namespace) ([]string, error) {
	p, err := tablesPath(ns)
	if err != nil {
		return nil, err
	}
	ids, err := get[[]semcat.NameIdentifier](ctx, c, request{method: http.MethodGet, path: p}, "identifiers")
	return names(ids), err
}

// GetTable loads a table.
func (c *Client) GetTable(ctx context.Context, ns semcat.Namespace, name string) (*semcat.Table, error) {
	p, err := tablePath(ns, name)
	if err != nil {
		return nil, err
	}
	return get[*semcat.Table](ctx, c, request{method: http.MethodGet, path: p}, "table")
}

// AlterTable applies updates to a table, in order, all or nothing; besides
// the common updates a table accepts replaceColumns and Gravitino's column
// and index changes (addColumn, renameColumn, updateColumnType, …,
// addTableIndex, deleteTableIndex; see semcat.TableUpdates).
func (c *Client) AlterTable(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update) (*semcat.Table, semcat.Position, error) {
	p, err := tablePath(ns, name)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Table](ctx, c, request{method: http.MethodPut, path: p, body: semcat.UpdatesRequest{Updates: updates}}, "table")
}

// DropTable drops a table. It reports false if there was no such table.
func (c *Client) DropTable(ctx context.Context, ns semcat.Namespace, name string) (bool, semcat.Position, error) {
	p, err := tablePath(ns, name)
	if err != nil {
		return false, semcat.Position{}, err
	}
	return write[bool](ctx, c, request{method: http.MethodDelete, path: p}, "dropped")
}

// statisticsPath returns the path of a table's statistics.
func statisticsPath(ns semcat.Namespace, name string) (string, error) {
	p, err := objectPath(ns.Metalake, "objects", semcat.ObjectRef{Type: semcat.KindTable, FullName: ns.Catalog + "." + ns.Schema + "." + name})
	return p + "/statistics", err
}

// ListTableStatistics lists a table's statistics.
func (c *Client) ListTableStatistics(ctx context.Context, ns semcat.Namespace, name string) ([]*semcat.Statistic, error) {
	p, err := statisticsPath(ns, name)
	if err != nil {
		return nil, err
	}
	return get[[]*semcat.Statistic](ctx, c, request{method: http.MethodGet, path: p}, "statistics")
}

// UpdateTableStatistics sets custom statistics of a table.
func (c *Client) UpdateTableStatistics(ctx context.Context, ns semcat.Namespace, name string, req semcat.StatisticsUpdate) (semcat.Position, error) {
	p, err := statisticsPath(ns, name)
	if err != nil {
		return semcat.Position{}, err
	}
	return writeNothing(ctx, c, request{method: http.MethodPut, path: p, body: req})
}

// DropTableStatistics drops statistics of a table; it reports whether any
// existed.
func (c *Client) DropTableStatistics(ctx context.Context, ns semcat.Namespace, name string, req semcat.StatisticsDrop) (bool, semcat.Position, error) {
	p, err := statisticsPath(ns, name)
	if err != nil {
		return false, semcat.Position{}, err
	}
	return write[bool](ctx, c, request{method: http.MethodPost, path: p, body: req}, "dropped")
}
