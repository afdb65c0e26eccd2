package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The comparison: the alternative a user would otherwise pick, PostgreSQL
// full-text search, on the same managed PostgreSQL semcat runs on, over the
// same generated entities. Each entity is one row of bench_fts:
//
//	doc     to_tsvector('simple', name, property values, tags, field names,
//	        dataset names, metric descriptions) — word, prefix (:*), phrase
//	tags    its tags only          — tags:t, the same set as semcat's
//	kv      key=token lexemes      — key:value, the same set as semcat's
//	fields  schema field names     — schema:f, the same set as semcat's
//
// each with a GIN index, plus a B-tree on (type, name, id) for the
// filtered match-all. Queries return the top 20 by ts_rank with the total
// count, as semcat does. It lives in its own database, semcat_bench, so it
// cannot disturb semcat's.

const pgDatabase = "semcat_bench"

// PGFTS is a connection to the comparison database.
type PGFTS struct {
	conn    *pgx.Conn
	Version string
}

// PGLoadStats describe building the comparison table.
type PGLoadStats struct {
	Rows       int     `json:"rows"`
	Seconds    float64 `json:"seconds"`
	TableBytes int64   `json:"tableBytes"`
	IndexBytes int64   `json:"indexBytes"`
}

// openPGFTS (re)creates the comparison database on the server's managed
// PostgreSQL and connects to it.
func openPGFTS(ctx context.Context, s *Server) (*PGFTS, error) {
	adminURL, err := s.PostgresURL("semcat")
	if err != nil {
		return nil, err
	}
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return nil, fmt.Errorf("connecting to semcat's PostgreSQL: %w", err)
	}
	defer admin.Close(ctx)
	for _, sql := range []string{"DROP DATABASE IF EXISTS " + pgDatabase, "CREATE DATABASE " + pgDatabase} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			return nil, fmt.Errorf("%s: %w", sql, err)
		}
	}
	benchURL, _ := s.PostgresURL(pgDatabase)
	conn, err := pgx.Connect(ctx, benchURL)
	if err != nil {
		return nil, err
	}
	p := &PGFTS{conn: conn}
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&p.Version); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return p, nil
}

// Ping is one round trip that asks for no work: SELECT 1.
func (p *PGFTS) Ping(ctx context.Context) error {
	var one int
	return p.conn.QueryRow(ctx, "SELECT 1").Scan(&one)
}

// Close closes the connection.
func (p *PGFTS) Close(ctx context.Context) { p.conn.Close(ctx) }

// pgRow is the source row of one entity.
type pgRow struct {
	id, kind, catalog, name string
	hasSchema               bool
	body                    string
	tags, kv, fields        []string
	meta                    []byte
}

// rowOf derives an entity's comparison row from its generated metadata.
func rowOf(e *Entity) pgRow {
	text := []string{e.Name}
	keys := sortedKeys(e.Properties)
	var kv []string
	for _, k := range keys {
		v := e.Properties[k]
		text = append(text, v)
		for _, w := range strings.Fields(strings.ToLower(v)) {
			kv = append(kv, strings.ToLower(k)+"="+w)
		}
	}
	text = append(text, e.Tags...)
	text = append(text, e.Fields...)
	text = append(text, e.Text...)
	var tags, fields []string
	for _, t := range e.Tags {
		tags = append(tags, strings.ToLower(t))
	}
	for _, f := range e.Fields {
		fields = append(fields, strings.ToLower(f))
	}
	props := e.Properties
	if props == nil {
		props = map[string]string{}
	}
	meta, _ := json.Marshal(map[string]any{"properties": props, "tags": nonNilStrings(e.Tags)})
	return pgRow{id: e.ID(), kind: e.Kind, catalog: e.Catalog, name: e.Name, hasSchema: len(e.Fields) > 0,
		body: strings.Join(text, " "), tags: dedupe(tags), kv: dedupe(kv), fields: dedupe(fields), meta: meta}
}

// Load builds bench_fts from every generated entity: COPY into a staging
// table, derive the tsvectors in one INSERT … SELECT, then index.
func (p *PGFTS) Load(ctx context.Context, g *Generator) (PGLoadStats, error) {
	start := time.Now()
	ddl := []string{
		`CREATE UNLOGGED TABLE bench_src (id text, type text, catalog text, name text, has_schema bool,
			body text, tag_list text[], kv_list text[], field_list text[], meta jsonb)`,
	}
	for _, sql := range ddl {
		if _, err := p.conn.Exec(ctx, sql); err != nil {
			return PGLoadStats{}, fmt.Errorf("%s: %w", sql, err)
		}
	}
	cols := []string{"id", "type", "catalog", "name", "has_schema", "body", "tag_list", "kv_list", "field_list", "meta"}
	var batch [][]any
	rows := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		n, err := p.conn.CopyFrom(ctx, pgx.Identifier{"bench_src"}, cols, pgx.CopyFromRows(batch))
		rows += int(n)
		batch = batch[:0]
		return err
	}
	err := g.Each(func(e *Entity) error {
		r := rowOf(e)
		batch = append(batch, []any{r.id, r.kind, r.catalog, r.name, r.hasSchema, r.body, r.tags, r.kv, r.fields, string(r.meta)})
		if len(batch) == 5000 {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return PGLoadStats{}, fmt.Errorf("copying entities into PostgreSQL: %w", err)
	}
	build := []string{
		`CREATE TABLE bench_fts AS SELECT id, type, catalog, name, has_schema, tag_list, meta,
			to_tsvector('simple', body) AS doc,
			array_to_tsvector(tag_list) AS tags,
			array_to_tsvector(kv_list) AS kv,
			array_to_tsvector(field_list) AS fields
		 FROM bench_src`,
		`DROP TABLE bench_src`,
		`ALTER TABLE bench_fts ADD PRIMARY KEY (id)`,
		`CREATE INDEX bench_fts_doc ON bench_fts USING gin (doc)`,
		`CREATE INDEX bench_fts_tags ON bench_fts USING gin (tags)`,
		`CREATE INDEX bench_fts_kv ON bench_fts USING gin (kv)`,
		`CREATE INDEX bench_fts_fields ON bench_fts USING gin (fields)`,
		`CREATE INDEX bench_fts_type_name ON bench_fts (type, name, id)`,
		`VACUUM ANALYZE bench_fts`,
	}
	for _, sql := range build {
		if _, err := p.conn.Exec(ctx, sql); err != nil {
			return PGLoadStats{}, fmt.Errorf("%s: %w", strings.Fields(sql)[0:3], err)
		}
	}
	st := PGLoadStats{Rows: rows, Seconds: time.Since(start).Seconds()}
	err = p.conn.QueryRow(ctx, `SELECT pg_table_size('bench_fts'), pg_indexes_size('bench_fts')`).Scan(&st.TableBytes, &st.IndexBytes)
	return st, err
}

// pgQuery is one comparison query: a tsquery over one tsvector column, or
// (column "") the match-all of tables that have a schema.
type pgQuery struct {
	column  string // doc, tags, kv or fields; "" for the filtered match-all
	tsquery string // SQL building the tsquery from $1
	arg     string
	facets  bool // also count type, catalog and tags over all matches
}

// pgAnswer is a comparison query's top results, total and facets.
type pgAnswer struct {
	Total  int
	IDs    []string
	Facets map[string]int // "facet=value" → count; only for facet queries
}

// Search runs q: the top 20 by ts_rank (ties by id) and the total count.
func (p *PGFTS) Search(ctx context.Context, q pgQuery) (pgAnswer, error) {
	var sql string
	args := []any{}
	switch {
	case q.column == "":
		sql = `SELECT id, meta, count(*) OVER () FROM bench_fts
		       WHERE type = 'table' AND has_schema ORDER BY name, id LIMIT 20`
	case q.facets:
		return p.facets(ctx, q)
	default:
		sql = fmt.Sprintf(`SELECT id, meta, count(*) OVER () FROM bench_fts, (SELECT %[2]s AS q) AS t
		       WHERE %[1]s @@ t.q ORDER BY ts_rank(%[1]s, t.q) DESC, id LIMIT 20`, q.column, q.tsquery)
		args = append(args, q.arg)
	}
	rows, err := p.conn.Query(ctx, sql, args...)
	if err != nil {
		return pgAnswer{}, err
	}
	defer rows.Close()
	var a pgAnswer
	for rows.Next() {
		var id string
		var meta []byte
		if err := rows.Scan(&id, &meta, &a.Total); err != nil {
			return a, err
		}
		a.IDs = append(a.IDs, id)
	}
	return a, rows.Err()
}

// facets answers a word query with its top 20, total and the top 10 values
// of the type, catalog and tags facets, in one statement.
func (p *PGFTS) facets(ctx context.Context, q pgQuery) (pgAnswer, error) {
	sql := fmt.Sprintf(`WITH m AS MATERIALIZED (
		  SELECT id, type, catalog, tag_list, meta, ts_rank(%[1]s, t.q) AS r
		  FROM bench_fts, (SELECT %[2]s AS q) AS t WHERE %[1]s @@ t.q)
		(SELECT 'hit' AS k, id AS v, 0::bigint AS n, meta FROM m ORDER BY r DESC, id LIMIT 20)
		UNION ALL (SELECT 'total', '', count(*), NULL FROM m)
		UNION ALL (SELECT 'type', type, count(*), NULL FROM m GROUP BY type ORDER BY 3 DESC, 2 LIMIT 10)
		UNION ALL (SELECT 'catalog', catalog, count(*), NULL FROM m GROUP BY catalog ORDER BY 3 DESC, 2 LIMIT 10)
		UNION ALL (SELECT 'tags', t, count(*), NULL FROM m, unnest(tag_list) AS t GROUP BY t ORDER BY 3 DESC, 2 LIMIT 10)`,
		q.column, q.tsquery)
	rows, err := p.conn.Query(ctx, sql, q.arg)
	if err != nil {
		return pgAnswer{}, err
	}
	defer rows.Close()
	a := pgAnswer{Facets: map[string]int{}}
	for rows.Next() {
		var k, v string
		var n int
		var meta []byte
		if err := rows.Scan(&k, &v, &n, &meta); err != nil {
			return a, err
		}
		switch k {
		case "hit":
			a.IDs = append(a.IDs, v)
		case "total":
			a.Total = n
		default:
			a.Facets[k+"="+v] = n
		}
	}
	return a, rows.Err()
}

// lexemeQuery is a tsquery matching one lexeme exactly.
func lexemeQuery(lexeme string) string { return "'" + strings.ToLower(lexeme) + "'" }

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
