package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// Snapshot is a source database's catalog as one transaction saw it.
type Snapshot struct {
	Schemas map[string]*Schema
	Tables  map[int64]*Table
}

// Schema is a schema of the source.
type Schema struct {
	Name    string
	Comment *string
}

// Table is a table, view, materialized view or foreign table of the
// source, in semcat's terms.
type Table struct {
	OID     int64
	Schema  string
	Name    string
	Type    string // the table-type property
	Comment *string
	Columns []semcat.Column
	Indexes []semcat.Index
}

// Fingerprint identifies what the mirror holds of the table: equal
// fingerprints, nothing to write.
func (t *Table) Fingerprint() string {
	b, _ := json.Marshal(struct {
		Schema, Name, Type string
		Comment            *string
		Columns            []semcat.Column
		Indexes            []semcat.Index
	}{t.Schema, t.Name, t.Type, t.Comment, t.Columns, t.Indexes})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// PropertyTableType is the property naming what kind of relation a
// mirrored table is.
const PropertyTableType = "table-type"

// tableTypes are the relation kinds mirrored, by pg_class.relkind, with the
// names PostgreSQL's JDBC driver gives them.
var tableTypes = map[string]string{
	"r": "TABLE",
	"p": "PARTITIONED TABLE",
	"v": "VIEW",
	"m": "MATERIALIZED VIEW",
	"f": "FOREIGN TABLE",
}

// userNamespaces is the condition on a pg_namespace row n that keeps the
// schemas of the database's users.
const userNamespaces = `n.nspname NOT IN ('pg_catalog', 'information_schema')
	AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp%'`

// mirroredRelations is the condition on a pg_class row c (of a namespace
// n) that keeps the relations mirrored as tables: not partitions, whose
// parent is the table.
const mirroredRelations = userNamespaces + ` AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition`

// ReadSnapshot reads the source's catalog (pg_namespace, pg_class,
// pg_attribute, pg_attrdef, pg_constraint, pg_description) in one
// repeatable-read, read-only transaction: a few queries, however many
// tables there are.
func ReadSnapshot(ctx context.Context, conn *pgx.Conn) (*Snapshot, error) {
	snap := &Snapshot{Schemas: map[string]*Schema{}, Tables: map[int64]*Table{}}
	err := pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT n.nspname, d.description FROM pg_namespace n
			LEFT JOIN pg_description d ON d.objoid = n.oid AND d.classoid = 'pg_namespace'::regclass AND d.objsubid = 0
			WHERE `+userNamespaces)
		if err != nil {
			return err
		}
		var sc Schema
		if _, err := pgx.ForEachRow(rows, []any{&sc.Name, &sc.Comment}, func() error {
			s := sc
			snap.Schemas[s.Name] = &s
			return nil
		}); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT c.oid::bigint, n.nspname, c.relname, c.relkind::text, d.description
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			LEFT JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
			WHERE `+mirroredRelations)
		if err != nil {
			return err
		}
		var (
			t    Table
			kind string
		)
		if _, err := pgx.ForEachRow(rows, []any{&t.OID, &t.Schema, &t.Name, &kind, &t.Comment}, func() error {
			tt := t
			tt.Type = tableTypes[kind]
			tt.Columns, tt.Indexes = []semcat.Column{}, nil
			snap.Tables[tt.OID] = &tt
			return nil
		}); err != nil {
			return err
		}
		// Columns in order; a domain's type is its base type's.
		rows, err = tx.Query(ctx, `SELECT a.attrelid::bigint, a.attname,
				CASE WHEN ty.typtype = 'd' THEN format_type(ty.typbasetype, ty.typtypmod) ELSE format_type(a.atttypid, a.atttypmod) END,
				a.attnotnull, a.attidentity::text, a.attgenerated::text, pg_get_expr(ad.adbin, ad.adrelid), d.description
			FROM pg_attribute a
			JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
			JOIN pg_type ty ON ty.oid = a.atttypid
			LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
			LEFT JOIN pg_description d ON d.objoid = a.attrelid AND d.classoid = 'pg_class'::regclass AND d.objsubid = a.attnum
			WHERE a.attnum > 0 AND NOT a.attisdropped AND `+mirroredRelations+`
			ORDER BY a.attrelid, a.attnum`)
		if err != nil {
			return err
		}
		var (
			rel                 int64
			col                 sourceColumn
			identity, generated string
		)
		if _, err := pgx.ForEachRow(rows, []any{&rel, &col.name, &col.typ, &col.notNull, &identity, &generated, &col.def, &col.comment}, func() error {
			tbl := snap.Tables[rel]
			if tbl == nil {
				return nil
			}
			col.identity = identity != ""
			col.generated = generated != ""
			tbl.Columns = append(tbl.Columns, col.column())
			return nil
		}); err != nil {
			return err
		}
		// Primary and unique keys, their columns in key order.
		rows, err = tx.Query(ctx, `SELECT con.conrelid::bigint, con.conname, con.contype::text,
				array(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
					JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord)
			FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE con.contype IN ('p', 'u') AND `+mirroredRelations+`
			ORDER BY con.conrelid, con.contype, con.conname`)
		if err != nil {
			return err
		}
		var (
			name, ctype string
			cols        []string
		)
		_, err = pgx.ForEachRow(rows, []any{&rel, &name, &ctype, &cols}, func() error {
			tbl := snap.Tables[rel]
			if tbl == nil {
				return nil
			}
			idx := semcat.Index{IndexType: "UNIQUE_KEY", Name: &name}
			if ctype == "p" {
				idx.IndexType = "PRIMARY_KEY"
			}
			n := name
			idx.Name = &n
			for _, c := range cols {
				idx.FieldNames = append(idx.FieldNames, []string{c})
			}
			tbl.Indexes = append(tbl.Indexes, idx)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, t := range snap.Tables {
		sort.SliceStable(t.Indexes, func(i, j int) bool { return t.Indexes[i].IndexType < t.Indexes[j].IndexType })
	}
	return snap, nil
}
