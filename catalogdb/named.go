package catalogdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// named describes a table of entities that share the common columns (name,
// comment, properties, audit_info): metalakes, catalogs, schemas and tags.
type named struct {
	kind   semcat.EntityKind
	table  string
	id     string
	name   string
	parent string // the parent id column; empty for metalakes
}

var (
	metalakes = named{semcat.KindMetalake, "metalake_meta", "metalake_id", "metalake_name", ""}
	catalogs  = named{semcat.KindCatalog, "catalog_meta", "catalog_id", "catalog_name", "metalake_id"}
	schemas   = named{semcat.KindSchema, "schema_meta", "schema_id", "schema_name", "catalog_id"}
	tags      = named{semcat.KindTag, "tag_meta", "tag_id", "tag_name", "metalake_id"}
)

// namedRow is the common part of a named entity.
type namedRow struct {
	ID         int64
	Name       string
	Comment    *string
	Properties map[string]string
	Audit      semcat.Audit
	Extra      string // the catalog type, for catalogs
	Provider   string // for catalogs
	InUse      bool   // for metalakes and catalogs
	// AllowedValues, for tags: nil is any value.
	AllowedValues []string
}

// toggles reports whether the entities of n can be disabled (SPEC §2.10).
func (n named) toggles() bool {
	return n.kind == semcat.KindMetalake || n.kind == semcat.KindCatalog
}

func (n named) columns() string {
	cols := fmt.Sprintf("%s, %s, comment, properties, audit_info", n.id, n.name)
	if n.kind == semcat.KindCatalog {
		cols += ", type, provider"
	}
	if n.toggles() {
		cols += ", in_use"
	}
	if n.kind == semcat.KindTag {
		cols += ", allowed_values"
	}
	return cols
}

func (n named) scan(row pgx.Row) (*namedRow, error) {
	r := &namedRow{InUse: true}
	dest := []any{&r.ID, &r.Name, &r.Comment, &r.Properties, &r.Audit}
	if n.kind == semcat.KindCatalog {
		dest = append(dest, &r.Extra, &r.Provider)
	}
	if n.toggles() {
		dest = append(dest, &r.InUse)
	}
	if n.kind == semcat.KindTag {
		dest = append(dest, &r.AllowedValues)
	}
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	if r.Properties == nil {
		r.Properties = map[string]string{}
	}
	return r, nil
}

// get loads a live entity by parent id and name; notFound is returned as is
// when it does not exist.
func (n named) get(ctx context.Context, q querier, parentID int64, name, lock string, notFound error) (*namedRow, error) {
	where := fmt.Sprintf("%s = $1 AND deleted_at = 0", n.name)
	args := []any{name}
	if n.parent != "" {
		where += fmt.Sprintf(" AND %s = $2", n.parent)
		args = append(args, parentID)
	}
	r, err := n.scan(q.QueryRow(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE %s", n.columns(), n.table, where)+lock, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound
	}
	return r, err
}

// list loads every live entity under a parent, sorted by name in byte order.
func (n named) list(ctx context.Context, q querier, parentID int64) ([]*namedRow, error) {
	where := "deleted_at = 0"
	var args []any
	if n.parent != "" {
		where += fmt.Sprintf(" AND %s = $1", n.parent)
		args = append(args, parentID)
	}
	return n.query(ctx, q, fmt.Sprintf(`SELECT %s FROM %s WHERE %s ORDER BY %s COLLATE "C"`, n.columns(), n.table, where, n.name), args...)
}

// byIDs loads the live entities of the given ids, in no order.
func (n named) byIDs(ctx context.Context, q querier, ids []int64) ([]*namedRow, error) {
	return n.query(ctx, q, fmt.Sprintf(`SELECT %s FROM %s WHERE %s = ANY($1) AND deleted_at = 0`, n.columns(), n.table, n.id), ids)
}

// query runs a query selecting n.columns() and scans its rows.
func (n named) query(ctx context.Context, q querier, sql string, args ...any) ([]*namedRow, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*namedRow
	for rows.Next() {
		r, err := n.scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// names lists the live names under a parent in byte order.
func (n named) names(ctx context.Context, q querier, parentID int64) ([]string, error) {
	rows, err := n.list(ctx, q, parentID)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Name
	}
	return out, nil
}

// insert creates a row; ids holds the extra id columns (parent chain) and
// their values. A duplicate live name is EEXISTS.
func (n named) insert(ctx context.Context, q querier, r *namedRow, ids map[string]int64, what string) error {
	cols := []string{n.name, "comment", "properties", "audit_info"}
	args := []any{r.Name, r.Comment, props(r.Properties), r.Audit}
	if n.kind == semcat.KindCatalog {
		cols = append(cols, "type", "provider")
		args = append(args, r.Extra, r.Provider)
	}
	if n.kind == semcat.KindTag {
		values, err := jsonOrNull(r.AllowedValues)
		if err != nil {
			return err
		}
		cols = append(cols, "allowed_values")
		args = append(args, values)
	}
	for c, v := range ids {
		cols = append(cols, c)
		args = append(args, v)
	}
	ph := ""
	for i := range cols {
		if i > 0 {
			ph += ", "
		}
		ph += fmt.Sprintf("$%d", i+1)
	}
	colList := ""
	for i, c := range cols {
		if i > 0 {
			colList += ", "
		}
		colList += c
	}
	err := q.QueryRow(ctx, fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s) RETURNING %s", n.table, colList, ph, n.id), args...).Scan(&r.ID)
	if uniqueViolation(err) {
		return semcat.AlreadyExists(n.kind, "%s '%s' already exists", what, r.Name)
	}
	return err
}

// update writes the common columns of an existing row.
func (n named) update(ctx context.Context, q querier, r *namedRow, what string) error {
	_, err := q.Exec(ctx, fmt.Sprintf("UPDATE %s SET %s = $2, comment = $3, properties = $4, audit_info = $5 WHERE %s = $1", n.table, n.name, n.id),
		r.ID, r.Name, r.Comment, props(r.Properties), r.Audit)
	if uniqueViolation(err) {
		return semcat.AlreadyExists(n.kind, "%s '%s' already exists", what, r.Name)
	}
	return err
}

// alter applies common updates to a row loaded for update and writes it.
func (s *Store) alterNamed(ctx context.Context, tx *writeTx, n named, r *namedRow, updates []semcat.Update, what string) error {
	for _, u := range updates {
		semcat.ApplyCommon(u, &r.Name, &r.Comment, &r.Properties)
	}
	r.Audit.Touch(actor(ctx), s.Now())
	if err := n.update(ctx, tx, r, what); err != nil {
		return err
	}
	return tx.emit(ctx, n.kind, r.ID, opUpsert)
}

// props returns a non-nil property map for storage.
func props(p map[string]string) map[string]string {
	if p == nil {
		return map[string]string{}
	}
	return p
}

// cloneProps copies a property map so a retried attempt starts clean.
func cloneProps(p map[string]string) map[string]string {
	out := make(map[string]string, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

// jsonOrNull encodes v, keeping a nil slice as SQL NULL.
func jsonOrNull[T any](v []T) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}
