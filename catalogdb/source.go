package catalogdb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// The store's side of catalogs mirrored from an external source (SPEC
// §2.12, DESIGN §8.2): the connector reads the source and decides what
// changed; the store writes it, in ordinary transactions with outbox rows,
// so that search, discovery, authorization and events need nothing new.

// SourceCatalog is a catalog with an external source, as its connector
// needs it.
type SourceCatalog struct {
	ID         int64
	MetalakeID int64
	Metalake   string
	Name       string
	Provider   string
	Properties map[string]string
	InUse      bool
	// Secret is the source's password, kept out of the catalog's
	// properties.
	Secret string
	// Creator is the user who created the catalog: the owner of what its
	// scheduled refreshes create.
	Creator string
	// LastRefresh (Unix milliseconds, 0 for never), LastError (empty after
	// a refresh that succeeded) and RefreshErrors (failed refreshes so far)
	// are the state of its refreshes.
	LastRefresh   int64
	LastError     string
	RefreshErrors int64
}

// CreateSourceCatalog creates a catalog with an external source, as
// CreateCatalog does, and keeps secret (the source's password) apart from
// its properties.
func (s *Store) CreateSourceCatalog(ctx context.Context, metalake string, req semcat.CatalogCreate, secret string) (*semcat.Catalog, semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Catalog
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		r := &namedRow{Name: req.Name, Comment: req.Comment, Properties: props(cloneProps(req.Properties)),
			Audit: semcat.NewAudit(actor(ctx), s.Now()), Extra: string(req.Type), Provider: req.ProviderOrDefault(), InUse: true}
		if err := catalogs.insert(ctx, tx, r, map[string]int64{"metalake_id": mid}, "catalog"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO source_catalog (catalog_id, secret) VALUES ($1, $2)`, r.ID, secret); err != nil {
			return err
		}
		out = catalogFromRow(r)
		return tx.emitCreated(ctx, mid, semcat.KindCatalog, r.ID, actor(ctx))
	})
	return out, pos, err
}

const sourceCatalogColumns = `c.catalog_id, c.metalake_id, m.metalake_name, c.catalog_name, c.provider, c.properties, c.in_use,
	s.secret, c.audit_info->>'creator', s.last_refresh, s.last_error, s.refresh_errors`

const sourceCatalogFrom = ` FROM source_catalog s JOIN catalog_meta c ON c.catalog_id = s.catalog_id AND c.deleted_at = 0
	JOIN metalake_meta m ON m.metalake_id = c.metalake_id AND m.deleted_at = 0`

func scanSourceCatalog(row pgx.Row) (*SourceCatalog, error) {
	c := &SourceCatalog{}
	var creator *string
	err := row.Scan(&c.ID, &c.MetalakeID, &c.Metalake, &c.Name, &c.Provider, &c.Properties, &c.InUse,
		&c.Secret, &creator, &c.LastRefresh, &c.LastError, &c.RefreshErrors)
	if creator != nil {
		c.Creator = *creator
	}
	return c, err
}

// SourceCatalogOf loads the live catalog metalake.catalog if it has an
// external source; nil (and no error) if it has none, ENOTFOUND if there
// is no such catalog.
func (s *Store) SourceCatalogOf(ctx context.Context, metalake, catalog string) (*SourceCatalog, error) {
	var out *SourceCatalog
	err := s.read(ctx, func(tx pgx.Tx) error {
		c, err := scanSourceCatalog(tx.QueryRow(ctx, `SELECT `+sourceCatalogColumns+sourceCatalogFrom+`
			WHERE m.metalake_name = $1 AND c.catalog_name = $2`, metalake, catalog))
		if errors.Is(err, pgx.ErrNoRows) {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM catalog_meta c JOIN metalake_meta m ON m.metalake_id = c.metalake_id
				WHERE m.metalake_name = $1 AND c.catalog_name = $2 AND c.deleted_at = 0 AND m.deleted_at = 0)`, metalake, catalog).Scan(&exists); err != nil {
				return err
			}
			if !exists {
				return semcat.NoSuchCatalog(metalake, catalog)
			}
			return nil
		}
		out = c
		return err
	})
	return out, err
}

// SourceCatalogs lists every live catalog with an external source.
func (s *Store) SourceCatalogs(ctx context.Context) ([]*SourceCatalog, error) {
	var out []*SourceCatalog
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+sourceCatalogColumns+sourceCatalogFrom+` ORDER BY c.catalog_id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			c, err := scanSourceCatalog(rows)
			if err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	return out, err
}

// RecordRefresh keeps the outcome of a refresh of catalog: its time and
// its error ("" for none). It is no change to the catalog's metadata and
// writes no outbox row.
func (s *Store) RecordRefresh(ctx context.Context, catalogID, at int64, refreshErr string) error {
	failed := 0
	if refreshErr != "" {
		failed = 1
	}
	_, err := s.pool.Exec(ctx, `UPDATE source_catalog SET last_refresh = $2, last_error = $3, refresh_errors = refresh_errors + $4
		WHERE catalog_id = $1`, catalogID, at, refreshErr, failed)
	return translate(err)
}

// MirrorState is what a catalog's mirror holds: its schemas by name, and
// its tables by the source's object id.
type MirrorState struct {
	Schemas map[string]MirrorSchema
	Tables  map[int64]MirroredTable
}

// MirrorSchema is a mirrored schema.
type MirrorSchema struct {
	Name    string
	Comment *string
}

// MirroredTable is a mirrored table as the mirror last wrote it.
type MirroredTable struct {
	TableID     int64
	Schema      string
	Name        string
	Fingerprint string
	// Stamp identifies the source's catalog rows the table was read from.
	Stamp string
}

// MirrorState reads the mirror of a catalog in one snapshot.
func (s *Store) MirrorState(ctx context.Context, catalogID int64) (*MirrorState, error) {
	st := &MirrorState{Schemas: map[string]MirrorSchema{}, Tables: map[int64]MirroredTable{}}
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT schema_name, comment FROM schema_meta WHERE catalog_id = $1 AND deleted_at = 0`, catalogID)
		if err != nil {
			return err
		}
		var sc MirrorSchema
		if _, err := pgx.ForEachRow(rows, []any{&sc.Name, &sc.Comment}, func() error {
			st.Schemas[sc.Name] = sc
			return nil
		}); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT st.source_oid, t.table_id, sm.schema_name, t.table_name, st.fingerprint, st.stamp
			FROM source_table st JOIN table_meta t ON t.table_id = st.table_id AND t.deleted_at = 0
			JOIN schema_meta sm ON sm.schema_id = t.schema_id
			WHERE st.catalog_id = $1`, catalogID)
		if err != nil {
			return err
		}
		var (
			oid int64
			mt  MirroredTable
		)
		_, err = pgx.ForEachRow(rows, []any{&oid, &mt.TableID, &mt.Schema, &mt.Name, &mt.Fingerprint, &mt.Stamp}, func() error {
			st.Tables[oid] = mt
			return nil
		})
		return err
	})
	return st, err
}

// MirrorTable is a table as the source has it.
type MirrorTable struct {
	// OID is the source's object id; TableID the mirrored table's id, 0
	// for a table new to the mirror.
	OID     int64
	TableID int64
	Schema  string
	Name    string
	Comment *string
	Columns []semcat.Column
	// SourceProperties are the properties the source gives (table-type);
	// the table's other properties are semcat's own and stay.
	SourceProperties map[string]string
	Indexes          []semcat.Index
	Fingerprint      string
	Stamp            string
	// ColumnNums are the source's numbers of Columns (PostgreSQL's
	// attnum), which stay when a column is renamed.
	ColumnNums []int16
}

// MirrorDiff is what a refresh found changed in the source.
type MirrorDiff struct {
	CreateSchemas []MirrorSchema
	UpdateSchemas []MirrorSchema
	DropSchemas   []string
	Tables        []MirrorTable
	// DropTables are the ids of mirrored tables gone from the source.
	DropTables []int64
	// Stamps are new stamps of tables (by id) whose catalog rows were
	// written without changing what the mirror holds: no outbox row.
	Stamps map[int64]string
}

// Empty reports whether the diff changes nothing.
func (d *MirrorDiff) Empty() bool {
	return len(d.CreateSchemas)+len(d.UpdateSchemas)+len(d.DropSchemas)+len(d.Tables)+len(d.DropTables)+len(d.Stamps) == 0
}

// ApplyMirror writes a refresh's differences to the mirror of catalog in
// one transaction, with an outbox row for each entity it changes. What
// the source does not know of a table (its owner, tags, policies,
// statistics, semcat's own properties) stays; a table the source dropped
// is dropped.
func (s *Store) ApplyMirror(ctx context.Context, catalogID int64, d MirrorDiff) (semcat.Position, error) {
	return s.write(ctx, func(tx *writeTx) error {
		var mid int64
		err := tx.QueryRow(ctx, `SELECT metalake_id FROM catalog_meta WHERE catalog_id = $1 AND deleted_at = 0`+shareLock, catalogID).Scan(&mid)
		if errors.Is(err, pgx.ErrNoRows) {
			return semcat.NotFound(semcat.KindCatalog, "the catalog was dropped during its refresh")
		} else if err != nil {
			return err
		}
		user, now := actor(ctx), s.Now()
		schemaIDs := map[string]int64{}
		rows, err := tx.Query(ctx, `SELECT schema_name, schema_id FROM schema_meta WHERE catalog_id = $1 AND deleted_at = 0`, catalogID)
		if err != nil {
			return err
		}
		var (
			name string
			id   int64
		)
		if _, err := pgx.ForEachRow(rows, []any{&name, &id}, func() error {
			schemaIDs[name] = id
			return nil
		}); err != nil {
			return err
		}
		for _, sc := range d.CreateSchemas {
			r := &namedRow{Name: sc.Name, Comment: sc.Comment, Properties: map[string]string{}, Audit: semcat.NewAudit(user, now)}
			if err := schemas.insert(ctx, tx, r, map[string]int64{"metalake_id": mid, "catalog_id": catalogID}, "schema"); err != nil {
				return err
			}
			schemaIDs[sc.Name] = r.ID
			if err := tx.emitCreated(ctx, mid, semcat.KindSchema, r.ID, user); err != nil {
				return err
			}
		}
		for _, sc := range d.UpdateSchemas {
			if _, err := tx.Exec(ctx, `UPDATE schema_meta SET comment = $2,
				audit_info = audit_info || jsonb_build_object('lastModifier', $3::text, 'lastModifiedTime', $4::text)
				WHERE schema_id = $1`, schemaIDs[sc.Name], sc.Comment, user, auditTime(now)); err != nil {
				return err
			}
			if err := tx.emit(ctx, semcat.KindSchema, schemaIDs[sc.Name], opUpsert); err != nil {
				return err
			}
		}
		if len(d.DropTables) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM source_table WHERE table_id = ANY($1)`, d.DropTables); err != nil {
				return err
			}
			if err := tx.emitQuery(ctx, semcat.KindTable, opDelete, `UPDATE table_meta SET deleted_at = $2 WHERE table_id = ANY($1) AND deleted_at = 0
				RETURNING table_id AS id`, d.DropTables, s.nowMillis()); err != nil {
				return err
			}
		}
		// A table renamed or moved first takes a name of its own, so that
		// names swapped in the source do not collide on the way.
		var moved []int64
		for _, t := range d.Tables {
			if t.TableID != 0 {
				moved = append(moved, t.TableID)
			}
		}
		oldColumns := map[int64]map[string]int16{}
		if len(moved) > 0 {
			if oldColumns, err = mirroredColumns(ctx, tx, moved); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE table_meta SET table_name = '#mirror-' || table_id WHERE table_id = ANY($1)`, moved); err != nil {
				return err
			}
		}
		batch := &pgx.Batch{}
		for _, t := range d.Tables {
			sid, ok := schemaIDs[t.Schema]
			if !ok {
				return fmt.Errorf("catalogdb: mirror: schema %q of table %q is not in the mirror", t.Schema, t.Name)
			}
			layout := storedLayout(semcat.TableLayout{Indexes: t.Indexes}.WithDefaults())
			if t.TableID == 0 {
				p := props(cloneProps(t.SourceProperties))
				batch.Queue(`WITH t AS (
						INSERT INTO table_meta (table_name, metalake_id, catalog_id, schema_id, comment, columns, properties, audit_info, layout)
						VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $12) RETURNING table_id),
					owner AS (
						INSERT INTO owner_meta (metalake_id, object_type, object_id, owner_type, owner_name)
						SELECT $2, 'table', table_id, $9, $10 FROM t `+ownerReplaces+`),
					src AS (
						INSERT INTO source_table (catalog_id, source_oid, table_id, fingerprint, stamp, attnums)
						SELECT $3, $11, table_id, $13, $14, $15 FROM t),
					event AS (
						INSERT INTO outbox (entity_kind, entity_id, operation)
						SELECT 'table', table_id, 'upsert' FROM t RETURNING txid)
					SELECT t.table_id, event.txid::text::bigint FROM t, event`,
					t.Name, mid, catalogID, sid, t.Comment, t.Columns, p, semcat.NewAudit(user, now),
					ownerTypeUser, user, t.OID, layout, t.Fingerprint, t.Stamp, nums(t.ColumnNums))
				continue
			}
			// The source's properties replace what the source gave before;
			// semcat's own stay.
			batch.Queue(`WITH t AS (
					UPDATE table_meta SET table_name = $2, schema_id = $3, comment = $4, columns = $5,
						properties = properties || $6::jsonb, layout = $7,
						audit_info = audit_info || jsonb_build_object('lastModifier', $8::text, 'lastModifiedTime', $9::text)
					WHERE table_id = $1 RETURNING table_id),
				src AS (
					UPDATE source_table SET fingerprint = $10, stamp = $11, attnums = $12 WHERE table_id = $1),
				event AS (
					INSERT INTO outbox (entity_kind, entity_id, operation)
					SELECT 'table', table_id, 'upsert' FROM t RETURNING txid)
				SELECT t.table_id, event.txid::text::bigint FROM t, event`,
				t.TableID, t.Name, sid, t.Comment, t.Columns, props(t.SourceProperties), layout,
				user, auditTime(now), t.Fingerprint, t.Stamp, nums(t.ColumnNums))
		}
		if batch.Len() > 0 {
			results := tx.SendBatch(ctx, batch)
			for _, t := range d.Tables {
				var id int64
				if err := tx.learnTxID(func(txid *uint64) error { return results.QueryRow().Scan(&id, txid) }); err != nil {
					results.Close()
					if uniqueViolation(err) {
						return semcat.AlreadyExists(semcat.KindTable, "table '%s.%s' is in the mirror twice", t.Schema, t.Name)
					}
					return err
				}
			}
			if err := results.Close(); err != nil {
				return err
			}
		}
		for _, t := range d.Tables {
			if t.TableID != 0 {
				if err := followColumns(ctx, tx, t.TableID, oldColumns[t.TableID], t); err != nil {
					return err
				}
			}
		}
		if len(d.Stamps) > 0 {
			ids, stamps := make([]int64, 0, len(d.Stamps)), make([]string, 0, len(d.Stamps))
			for id, st := range d.Stamps {
				ids, stamps = append(ids, id), append(stamps, st)
			}
			if _, err := tx.Exec(ctx, `UPDATE source_table s SET stamp = u.stamp FROM unnest($1::bigint[], $2::text[]) u(id, stamp)
				WHERE s.table_id = u.id`, ids, stamps); err != nil {
				return err
			}
		}
		for _, name := range d.DropSchemas {
			sid, ok := schemaIDs[name]
			if !ok {
				continue
			}
			if _, err := tx.Exec(ctx, `DELETE FROM source_table WHERE table_id IN (SELECT table_id FROM table_meta WHERE schema_id = $1)`, sid); err != nil {
				return err
			}
			ms := s.nowMillis()
			for _, table := range []string{"table_meta", "semantic_model_meta", "semantic_model_version_info", "semantic_model_metric_meta"} {
				if err := softDelete(ctx, tx, table, "schema_id", sid, ms); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, `UPDATE schema_meta SET deleted_at = $2 WHERE schema_id = $1`, sid, ms); err != nil {
				return err
			}
			if err := tx.emit(ctx, semcat.KindSchema, sid, opDelete); err != nil {
				return err
			}
		}
		return nil
	})
}

// auditTime is now as an audit's times are stored.
func auditTime(now time.Time) string {
	return now.UTC().Truncate(time.Millisecond).Format(time.RFC3339Nano)
}

// SetSourceSecret replaces the password of a catalog with an external
// source. It is no change to the catalog's metadata and writes no outbox
// row.
func (s *Store) SetSourceSecret(ctx context.Context, catalogID int64, secret string) error {
	_, err := s.pool.Exec(ctx, `UPDATE source_catalog SET secret = $2 WHERE catalog_id = $1`, catalogID, secret)
	return translate(err)
}

// nums is never NULL.
func nums(n []int16) []int16 {
	if n == nil {
		return []int16{}
	}
	return n
}

// mirroredColumns reads the columns the mirror holds of tables, name to
// the source's column number.
func mirroredColumns(ctx context.Context, tx querier, tableIDs []int64) (map[int64]map[string]int16, error) {
	rows, err := tx.Query(ctx, `SELECT st.table_id, c.name, st.attnums[c.i]
		FROM source_table st JOIN table_meta t ON t.table_id = st.table_id,
		LATERAL jsonb_array_elements(t.columns) WITH ORDINALITY AS e(col, i), LATERAL (SELECT e.col->>'name' AS name, e.i) c
		WHERE st.table_id = ANY($1) AND st.attnums[c.i] IS NOT NULL`, tableIDs)
	if err != nil {
		return nil, err
	}
	out := map[int64]map[string]int16{}
	var (
		id   int64
		name string
		num  int16
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &name, &num}, func() error {
		if out[id] == nil {
			out[id] = map[string]int16{}
		}
		out[id][name] = num
		return nil
	})
	return out, err
}

// followColumns carries the ids (and so the tags) of a mirrored table's
// columns through a refresh: a column the source renamed keeps its id
// under its new name, found by its number; one the source dropped loses
// it with its tags.
func followColumns(ctx context.Context, tx querier, tableID int64, old map[string]int16, t MirrorTable) error {
	rows, err := tx.Query(ctx, `SELECT column_id, column_name FROM column_meta WHERE table_id = $1`, tableID)
	if err != nil {
		return err
	}
	ids := map[int64]string{}
	var (
		id   int64
		name string
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &name}, func() error {
		ids[id] = name
		return nil
	}); err != nil || len(ids) == 0 {
		return err
	}
	now := map[int16]string{}
	for i, c := range t.Columns {
		if i < len(t.ColumnNums) {
			now[t.ColumnNums[i]] = c.Name
		}
	}
	var gone, kept []int64
	var keptNames []string
	for id, name := range ids {
		to, ok := "", false
		if num, known := old[name]; known {
			to, ok = now[num]
		} else {
			ok = slices.ContainsFunc(t.Columns, func(c semcat.Column) bool { return c.Name == name })
			to = name
		}
		if ok {
			kept, keptNames = append(kept, id), append(keptNames, to)
		} else {
			gone = append(gone, id)
		}
	}
	if len(gone) > 0 {
		if _, err := tx.Exec(ctx, `DELETE FROM tag_relation WHERE object_type = 'column' AND object_id = ANY($1)`, gone); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM column_meta WHERE column_id = ANY($1)`, gone); err != nil {
			return err
		}
	}
	// Through names of their own, so that names swapped in the source do
	// not collide on the way.
	if _, err := tx.Exec(ctx, `UPDATE column_meta SET column_name = '#mirror-' || column_id WHERE column_id = ANY($1)`, kept); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE column_meta c SET column_name = u.name FROM unnest($1::bigint[], $2::text[]) AS u(id, name)
		WHERE c.column_id = u.id`, kept, keptNames)
	return err
}

// sourceLockSpace is the first key of the advisory locks that serialise
// the refreshes of one catalog (the second is the catalog's id, as int4):
// apart from migrationLock, which takes the one-key form.
const sourceLockSpace = 0x5e6c

// LockSourceRefresh waits until no other semcat process refreshes the
// catalog, and holds that until unlock is called: two processes over one
// database do not mirror the same change twice.
func (s *Store) LockSourceRefresh(ctx context.Context, catalogID int64) (unlock func(), err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, translate(err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, int32(sourceLockSpace), int32(catalogID)); err != nil {
		conn.Release()
		return nil, translate(err)
	}
	return func() {
		if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1, $2)`, int32(sourceLockSpace), int32(catalogID)); err != nil {
			conn.Conn().Close(context.Background()) // the session's end releases it
		}
		conn.Release()
	}, nil
}
