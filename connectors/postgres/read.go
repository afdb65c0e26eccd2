package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// Snapshot is a source database's catalog as one transaction saw it.
type Snapshot struct {
	Schemas map[string]*Schema
	// Tables are the relations read (those whose stamp changed), Stamps
	// every relation's stamp (see stampSQL), by object id.
	Tables map[int64]*Table
	Stamps map[int64]string
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
	// ColumnNums are the columns' numbers in the source (attnum), which
	// stay when a column is renamed.
	ColumnNums []int16
	Indexes    []semcat.Index
}

// Fingerprint identifies what the mirror holds of the table: equal
// fingerprints, nothing to write.
func (t *Table) Fingerprint() string {
	b, _ := json.Marshal(struct {
		Schema, Name, Type string
		Comment            *string
		Columns            []semcat.Column
		ColumnNums         []int16
		Indexes            []semcat.Index
	}{t.Schema, t.Name, t.Type, t.Comment, t.Columns, t.ColumnNums, t.Indexes})
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

// stampSQL gives each mirrored relation a stamp of the catalog rows that
// describe it: the transaction ids (xmin) that last wrote its pg_class
// row, and, for its columns' pg_attribute rows, their types' pg_type
// rows, its defaults (pg_attrdef), comments (pg_description) and keys
// (pg_constraint, and unique indexes in pg_index), how many there are and a sum of their xmins weighted
// by position. DDL on a table writes one of these rows in a newer
// transaction, so an unchanged stamp means an unchanged table; a changed
// one (which VACUUM FREEZE or a wrapped transaction counter may also
// make) means only that its description is read again and compared.
// Sums, not ordered lists: the aggregates need no sort, and the query
// none of format_type's or pg_get_expr's work (10,000 tables: about 0.2 s
// against 0.6 s for ordered lists, loaded 2-core machine).
const stampSQL = `WITH rel AS (
		SELECT c.oid, n.nspname || '/' || c.relname || '/' || c.xmin::text AS s
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ` + mirroredRelations + `),
	att AS (
		SELECT a.attrelid AS oid, count(*) || '.' || sum(a.xmin::text::bigint * a.attnum) || '.' || sum(t.xmin::text::bigint) AS s
		FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
		WHERE a.attrelid >= 16384 AND a.attnum > 0 GROUP BY a.attrelid),
	des AS (
		SELECT d.objoid AS oid, count(*) || '.' || sum(d.xmin::text::bigint * (d.objsubid + 1)) AS s
		FROM pg_description d WHERE d.classoid = 'pg_class'::regclass AND d.objoid >= 16384 GROUP BY d.objoid),
	def AS (
		SELECT ad.adrelid AS oid, count(*) || '.' || sum(ad.xmin::text::bigint * ad.adnum) AS s
		FROM pg_attrdef ad GROUP BY ad.adrelid),
	con AS (
		SELECT con.conrelid AS oid, count(*) || '.' || sum(con.xmin::text::bigint) AS s
		FROM pg_constraint con WHERE con.contype IN ('p', 'u') GROUP BY con.conrelid),
	idx AS (
		SELECT i.indrelid AS oid, count(*) || '.' || sum(i.xmin::text::bigint) AS s
		FROM pg_index i WHERE i.indisunique AND i.indrelid >= 16384 GROUP BY i.indrelid)
	SELECT rel.oid::bigint, rel.s || '/' || coalesce(att.s, '') || '/' || coalesce(des.s, '') || '/' || coalesce(def.s, '') || '/' || coalesce(con.s, '')
		|| '/' || coalesce(idx.s, '')
	FROM rel LEFT JOIN att ON att.oid = rel.oid LEFT JOIN des ON des.oid = rel.oid LEFT JOIN def ON def.oid = rel.oid LEFT JOIN con ON con.oid = rel.oid
		LEFT JOIN idx ON idx.oid = rel.oid`

// ReadSnapshot reads the source's whole catalog (see Read).
func ReadSnapshot(ctx context.Context, conn *pgx.Conn) (*Snapshot, error) {
	return Read(ctx, conn, nil)
}

// Read reads the source's catalog (pg_namespace, pg_class, pg_attribute,
// pg_attrdef, pg_constraint, pg_description) in one repeatable-read,
// read-only transaction: its schemas, every relation's stamp, and the
// description of each relation whose stamp is not the one in known (all
// of them when known is nil). A few queries, however many tables there
// are; when nothing changed, only the schemas and the stamps.
func Read(ctx context.Context, conn *pgx.Conn, known map[int64]string) (*Snapshot, error) {
	snap := &Snapshot{Schemas: map[string]*Schema{}, Tables: map[int64]*Table{}, Stamps: map[int64]string{}}
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
		rows, err = tx.Query(ctx, stampSQL)
		if err != nil {
			return err
		}
		var (
			oid   int64
			stamp string
			read  []int64
		)
		if _, err := pgx.ForEachRow(rows, []any{&oid, &stamp}, func() error {
			snap.Stamps[oid] = stamp
			if known == nil || known[oid] != stamp {
				read = append(read, oid)
			}
			return nil
		}); err != nil {
			return err
		}
		if len(read) == 0 {
			return nil
		}
		return readTables(ctx, tx, snap, read)
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// readTables reads the description of the relations oids.
func readTables(ctx context.Context, tx pgx.Tx, snap *Snapshot, oids []int64) error {
	rows, err := tx.Query(ctx, `SELECT c.oid::bigint, n.nspname, c.relname, c.relkind::text, d.description
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
		WHERE c.oid = ANY($1::bigint[]::oid[])`, oids)
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
	rows, err = tx.Query(ctx, `SELECT a.attrelid::bigint, a.attnum, a.attname,
			CASE WHEN ty.typtype = 'd' THEN format_type(ty.typbasetype, ty.typtypmod) ELSE format_type(a.atttypid, a.atttypmod) END,
			a.attnotnull, a.attidentity::text, a.attgenerated::text, pg_get_expr(ad.adbin, ad.adrelid), d.description
		FROM pg_attribute a
		JOIN pg_type ty ON ty.oid = a.atttypid
		LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
		LEFT JOIN pg_description d ON d.objoid = a.attrelid AND d.classoid = 'pg_class'::regclass AND d.objsubid = a.attnum
		WHERE a.attrelid = ANY($1::bigint[]::oid[]) AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY a.attrelid, a.attnum`, oids)
	if err != nil {
		return err
	}
	var (
		rel                 int64
		num                 int16
		col                 sourceColumn
		identity, generated string
	)
	names := map[int64]map[int16]string{}
	if _, err := pgx.ForEachRow(rows, []any{&rel, &num, &col.name, &col.typ, &col.notNull, &identity, &generated, &col.def, &col.comment}, func() error {
		tbl := snap.Tables[rel]
		if tbl == nil {
			return nil
		}
		if names[rel] == nil {
			names[rel] = map[int16]string{}
		}
		names[rel][num] = col.name
		col.identity = identity != ""
		col.generated = generated != ""
		tbl.Columns = append(tbl.Columns, col.column())
		tbl.ColumnNums = append(tbl.ColumnNums, num)
		return nil
	}); err != nil {
		return err
	}
	// Primary and unique keys, their columns in key order: the
	// constraints, then the unique indexes on plain columns that back none.
	rows, err = tx.Query(ctx, `SELECT * FROM (
			SELECT conrelid::bigint, conname::text, contype::text, conkey FROM pg_constraint
			WHERE conrelid = ANY($1::bigint[]::oid[]) AND contype IN ('p', 'u')
			UNION ALL
			SELECT i.indrelid::bigint, ic.relname::text, 'v', (i.indkey::int2[])[0:i.indnkeyatts - 1] FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
			WHERE i.indrelid = ANY($1::bigint[]::oid[]) AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
				AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = i.indexrelid)) k
		ORDER BY 1, 3, 2`, oids)
	if err != nil {
		return err
	}
	var (
		name, ctype string
		key         []int16
	)
	_, err = pgx.ForEachRow(rows, []any{&rel, &name, &ctype, &key}, func() error {
		tbl := snap.Tables[rel]
		if tbl == nil {
			return nil
		}
		n := name
		idx := semcat.Index{IndexType: "UNIQUE_KEY", Name: &n}
		if ctype == "p" {
			idx.IndexType = "PRIMARY_KEY"
		}
		for _, k := range key {
			idx.FieldNames = append(idx.FieldNames, []string{names[rel][k]})
		}
		tbl.Indexes = append(tbl.Indexes, idx)
		return nil
	})
	return err
}
