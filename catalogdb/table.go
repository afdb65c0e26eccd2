package catalogdb

import (
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

const tableColumns = `table_id, table_name, comment, columns, properties, audit_info, layout`

func scanTable(row pgx.Row) (*semcat.Table, error) {
	t := &semcat.Table{}
	var layout *semcat.TableLayout
	if err := row.Scan(&t.ID, &t.Name, &t.Comment, &t.Columns, &t.Properties, &t.Audit, &layout); err != nil {
		return nil, err
	}
	if t.Properties == nil {
		t.Properties = map[string]string{}
	}
	if layout != nil {
		t.TableLayout = *layout
	}
	t.TableLayout = t.TableLayout.WithDefaults()
	return t, nil
}

// storedLayout is what the layout column holds: NULL for a table without
// one (most tables), so that they cost nothing.
func storedLayout(l semcat.TableLayout) *semcat.TableLayout {
	if l.IsEmpty() {
		return nil
	}
	return &l
}

func noSuchTable(ns semcat.Namespace, name string) error {
	return semcat.NoSuchTable(ns, name)
}

func getTable(ctx context.Context, q querier, schemaID int64, name, lock string) (*semcat.Table, error) {
	return scanTable(q.QueryRow(ctx, `SELECT `+tableColumns+` FROM table_meta
		WHERE schema_id = $1 AND table_name = $2 AND deleted_at = 0`+lock, schemaID, name))
}

// CreateTable creates a table in a schema of a relational catalog.
func (s *Store) CreateTable(ctx context.Context, ns semcat.Namespace, req semcat.TableCreate) (*semcat.Table, semcat.Position, error) {
	var out *semcat.Table
	pos, err := s.write(ctx, func(tx *writeTx) error {
		p, err := s.resolveSchema(ctx, tx, ns, shareLock, "tables")
		if err != nil {
			return err
		}
		if err := req.Validate(); err != nil {
			return err
		}
		t := &semcat.Table{Name: req.Name, Comment: req.Comment, Columns: req.Columns,
			Properties: props(cloneProps(req.Properties)), Audit: semcat.NewAudit(actor(ctx), s.Now()),
			TableLayout: req.TableLayout.WithDefaults()}
		err = tx.QueryRow(ctx, `INSERT INTO table_meta (table_name, metalake_id, catalog_id, schema_id, comment, columns, properties, audit_info, layout)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING table_id`,
			t.Name, p.metalakeID, p.catalogID, p.schemaID, t.Comment, t.Columns, t.Properties, t.Audit, storedLayout(t.TableLayout)).Scan(&t.ID)
		if uniqueViolation(err) {
			return semcat.AlreadyExists(semcat.KindTable, "table '%s.%s.%s.%s' already exists", ns.Metalake, ns.Catalog, ns.Schema, t.Name)
		} else if err != nil {
			return err
		}
		out = t
		return tx.emitCreated(ctx, p.metalakeID, semcat.KindTable, t.ID, actor(ctx))
	})
	return out, pos, err
}

// CreateTables creates a batch of tables in a schema of a relational
// catalog, in one transaction: each table with its owner (the caller), its
// tags and its outbox row in one statement, and the statements of all
// tables sent in one round trip. Any failure leaves none of them.
func (s *Store) CreateTables(ctx context.Context, ns semcat.Namespace, req semcat.TableBatchCreate) ([]*semcat.Table, semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	var out []*semcat.Table
	pos, err := s.write(ctx, func(tx *writeTx) error {
		p, err := s.resolveSchema(ctx, tx, ns, shareLock, "tables")
		if err != nil {
			return err
		}
		tagIDs, err := batchTagIDs(ctx, tx, ns.Metalake, p.metalakeID, req.Tables)
		if err != nil {
			return err
		}
		user, now := actor(ctx), s.Now()
		out = make([]*semcat.Table, len(req.Tables))
		batch := &pgx.Batch{}
		for i, item := range req.Tables {
			t := &semcat.Table{Name: item.Name, Comment: item.Comment, Columns: item.Columns,
				Properties: props(cloneProps(item.Properties)), Audit: semcat.NewAudit(user, now),
				TableLayout: item.TableLayout.WithDefaults()}
			out[i] = t
			batch.Queue(createTableSQL, t.Name, p.metalakeID, p.catalogID, p.schemaID, t.Comment, t.Columns, t.Properties, t.Audit,
				ownerTypeUser, user, tagIDs[i], storedLayout(t.TableLayout))
		}
		results := tx.SendBatch(ctx, batch)
		for i, t := range out {
			if err := tx.learnTxID(func(txid *uint64) error { return results.QueryRow().Scan(&t.ID, txid) }); err != nil {
				results.Close()
				if uniqueViolation(err) {
					return semcat.AlreadyExists(semcat.KindTable, "tables[%d].name: table '%s.%s.%s.%s' already exists", i, ns.Metalake, ns.Catalog, ns.Schema, t.Name)
				}
				return err
			}
		}
		return results.Close()
	})
	if err != nil {
		return nil, pos, err
	}
	return out, pos, nil
}

// createTableSQL inserts a table ($1-$8 as CreateTable's, its layout $12),
// makes the user $10 (owner type $9) its owner, associates the tags of ids
// $11 and writes its outbox row, returning the table's id and the transaction's id.
const createTableSQL = `WITH t AS (
		INSERT INTO table_meta (table_name, metalake_id, catalog_id, schema_id, comment, columns, properties, audit_info, layout)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $12) RETURNING table_id),
	owner AS (
		INSERT INTO owner_meta (metalake_id, object_type, object_id, owner_type, owner_name)
		SELECT $2, 'table', table_id, $9, $10 FROM t ` + ownerReplaces + `),
	tags AS (
		INSERT INTO tag_relation (tag_id, object_type, object_id)
		SELECT unnest($11::bigint[]), 'table', table_id FROM t
		ON CONFLICT DO NOTHING),
	event AS (
		INSERT INTO outbox (entity_kind, entity_id, operation)
		SELECT 'table', table_id, 'upsert' FROM t RETURNING txid)
	SELECT t.table_id, event.txid::text::bigint FROM t, event`

// batchTagIDs returns the ids of each table's tags, each tag once, locking
// them against a concurrent drop; a tag that does not exist is ENOTFOUND,
// and one that takes values only EINVALID (these assignments carry none),
// named by its path in the batch.
func batchTagIDs(ctx context.Context, tx querier, metalake string, metalakeID int64, items []semcat.TableBatchItem) ([][]int64, error) {
	var names []string
	for _, item := range items {
		names = append(names, item.Tags...)
	}
	found := map[string]lockedTag{}
	if len(names) > 0 {
		var err error
		if found, err = lockTags(ctx, tx, metalakeID, names); err != nil {
			return nil, err
		}
	}
	out := make([][]int64, len(items))
	for i, item := range items {
		out[i] = []int64{}
		for j, name := range item.Tags {
			t, ok := found[name]
			if !ok {
				return nil, semcat.NotFound(semcat.KindTag, "tables[%d].tags[%d]: tag '%s.%s' does not exist", i, j, metalake, name)
			}
			if err := t.admits(semcat.TagValue{Name: name}); err != nil {
				return nil, semcat.Errorf(semcat.EINVALID, "tables[%d].tags[%d]: %s", i, j, semcat.ErrorMessage(err))
			}
			if !slices.Contains(out[i], t.id) {
				out[i] = append(out[i], t.id)
			}
		}
	}
	return out, nil
}

// GetTable loads a table.
func (s *Store) GetTable(ctx context.Context, ns semcat.Namespace, name string) (*semcat.Table, error) {
	var out *semcat.Table
	err := s.read(ctx, func(tx pgx.Tx) error {
		p, err := s.resolveSchema(ctx, tx, ns, noLock, "tables")
		if err != nil {
			return err
		}
		out, err = getTable(ctx, tx, p.schemaID, name, noLock)
		if errors.Is(err, pgx.ErrNoRows) {
			return noSuchTable(ns, name)
		}
		return err
	})
	return out, err
}

// ListTables lists the names of a schema's live tables in byte order.
func (s *Store) ListTables(ctx context.Context, ns semcat.Namespace) ([]string, error) {
	var out []string
	err := s.read(ctx, func(tx pgx.Tx) error {
		p, err := s.resolveSchema(ctx, tx, ns, noLock, "tables")
		if err != nil {
			return err
		}
		out, err = listNames(ctx, tx, `SELECT table_name FROM table_meta WHERE schema_id = $1 AND deleted_at = 0 ORDER BY table_name COLLATE "C"`, p.schemaID)
		return err
	})
	return out, err
}

// AlterTable applies updates to a table, all or nothing.
func (s *Store) AlterTable(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update) (*semcat.Table, semcat.Position, error) {
	var out *semcat.Table
	pos, err := s.write(ctx, func(tx *writeTx) error {
		p, err := s.resolveSchema(ctx, tx, ns, shareLock, "tables")
		if err != nil {
			return err
		}
		if err := semcat.ValidateTableUpdates(updates); err != nil {
			return err
		}
		t, err := getTable(ctx, tx, p.schemaID, name, updateLock)
		if errors.Is(err, pgx.ErrNoRows) {
			return noSuchTable(ns, name)
		} else if err != nil {
			return err
		}
		if err := semcat.ApplyTableUpdates(t, updates); err != nil {
			return err
		}
		// A rename with newSchemaName moves the table within its catalog.
		into, schemaID := ns, p.schemaID
		if into.Schema = semcat.TargetSchema(updates, ns.Schema); into.Schema != ns.Schema {
			q, err := s.resolveSchema(ctx, tx, into, shareLock, "tables")
			if err != nil {
				return err
			}
			schemaID = q.schemaID
		}
		t.Audit.Touch(actor(ctx), s.Now())
		_, err = tx.Exec(ctx, `UPDATE table_meta SET table_name = $2, comment = $3, columns = $4, properties = $5, audit_info = $6,
			layout = $7, schema_id = $8 WHERE table_id = $1`, t.ID, t.Name, t.Comment, t.Columns, t.Properties, t.Audit, storedLayout(t.TableLayout), schemaID)
		if uniqueViolation(err) {
			return semcat.AlreadyExists(semcat.KindTable, "table '%s.%s.%s.%s' already exists", into.Metalake, into.Catalog, into.Schema, t.Name)
		} else if err != nil {
			return err
		}
		if err := columnIDsAfter(ctx, tx, t.ID, updates, t.Columns); err != nil {
			return err
		}
		out = t
		return tx.emit(ctx, semcat.KindTable, t.ID, opUpsert)
	})
	return out, pos, err
}

// DropTable drops a table. A missing table is not an error: dropped is false.
func (s *Store) DropTable(ctx context.Context, ns semcat.Namespace, name string) (bool, semcat.Position, error) {
	dropped := false
	pos, err := s.write(ctx, func(tx *writeTx) error {
		dropped = false
		p, err := s.resolveSchema(ctx, tx, ns, shareLock, "tables")
		if err != nil {
			if semcat.ErrorCode(err) == semcat.ENOTFOUND {
				return nil
			}
			return err
		}
		var id int64
		err = tx.QueryRow(ctx, `UPDATE table_meta SET deleted_at = $3 WHERE schema_id = $1 AND table_name = $2 AND deleted_at = 0
			RETURNING table_id`, p.schemaID, name, s.nowMillis()).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		dropped = true
		return tx.emit(ctx, semcat.KindTable, id, opDelete)
	})
	return dropped, pos, err
}

// listNames runs a query returning one text column.
func listNames(ctx context.Context, q querier, sql string, args ...any) ([]string, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if names == nil {
		names = []string{}
	}
	return names, err
}
