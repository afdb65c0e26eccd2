package catalogdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

const modelWhat = "semantic models"

// modelRow is a semantic model as loaded: the meta row and its current
// version snapshot.
type modelRow struct {
	model       semcat.SemanticModel
	lastVersion int64
}

const modelSelect = `SELECT m.semantic_model_id, m.semantic_model_name, m.current_version, m.last_version, m.audit_info,
		v.semantic_model_comment, v.datasets, v.relationships, v.metrics, v.ai_context, v.custom_extensions, v.properties
	FROM semantic_model_meta m
	JOIN semantic_model_version_info v ON v.semantic_model_id = m.semantic_model_id AND v.version = m.current_version`

func scanModel(row pgx.Row) (*modelRow, error) {
	var r modelRow
	m := &r.model
	var datasets, relationships, metrics, aiContext, extensions []byte
	if err := row.Scan(&m.ID, &m.Name, &m.Version, &r.lastVersion, &m.Audit,
		&m.Comment, &datasets, &relationships, &metrics, &aiContext, &extensions, &m.Properties); err != nil {
		return nil, err
	}
	if m.Properties == nil {
		m.Properties = map[string]string{}
	}
	d := &m.Definition
	for _, part := range []struct {
		name string
		raw  []byte
		dst  any
	}{
		{"datasets", datasets, &d.Datasets},
		{"relationships", relationships, &d.Relationships},
		{"metrics", metrics, &d.Metrics},
		{"custom_extensions", extensions, &d.CustomExtensions},
	} {
		if part.raw == nil {
			continue
		}
		if err := json.Unmarshal(part.raw, part.dst); err != nil {
			return nil, fmt.Errorf("semantic model %d version %d: decode %s: %w", m.ID, m.Version, part.name, err)
		}
	}
	if aiContext != nil {
		d.AIContext = json.RawMessage(aiContext)
	}
	return &r, nil
}

func noSuchModel(ns semcat.Namespace, name string) error {
	return semcat.NoSuchSemanticModel(ns, name)
}

func getModel(ctx context.Context, q querier, schemaID int64, name string) (*modelRow, error) {
	return scanModel(q.QueryRow(ctx, modelSelect+`
		WHERE m.schema_id = $1 AND m.semantic_model_name = $2 AND m.deleted_at = 0`, schemaID, name))
}

// definitionParts encodes each part of a definition for its own column; an
// absent optional part is SQL NULL.
func definitionParts(d *semcat.Definition) (datasets, relationships, metrics, aiContext, extensions []byte, err error) {
	if datasets, err = json.Marshal(d.Datasets); err != nil {
		return
	}
	if relationships, err = jsonOrNull(d.Relationships); err != nil {
		return
	}
	if metrics, err = jsonOrNull(d.Metrics); err != nil {
		return
	}
	if extensions, err = jsonOrNull(d.CustomExtensions); err != nil {
		return
	}
	if d.AIContext != nil {
		aiContext = []byte(d.AIContext)
	}
	return
}

// insertVersion writes a complete snapshot of the model as version v.
func insertVersion(ctx context.Context, q querier, p path, m *semcat.SemanticModel, v int64) error {
	datasets, relationships, metrics, aiContext, extensions, err := definitionParts(&m.Definition)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `INSERT INTO semantic_model_version_info (metalake_id, catalog_id, schema_id, semantic_model_id, version,
			semantic_model_name, semantic_model_comment, datasets, relationships, metrics, ai_context, custom_extensions, properties, audit_info)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		p.metalakeID, p.catalogID, p.schemaID, m.ID, v, m.Name, m.Comment,
		datasets, relationships, metrics, aiContext, extensions, props(m.Properties), m.Audit)
	return err
}

// validateSources checks a definition's sources against this metalake's
// live tables, holding a share lock on each so none is dropped before the
// model commits.
func validateSources(ctx context.Context, q querier, metalakeID int64, d *semcat.Definition) error {
	return d.ValidateSources(func(catalog, schema, table string) ([]string, bool, error) {
		var cols []string
		err := q.QueryRow(ctx, `SELECT ARRAY(SELECT c->>'name' FROM jsonb_array_elements(t.columns) c)
			FROM table_meta t
			JOIN schema_meta s ON s.schema_id = t.schema_id AND s.deleted_at = 0
			JOIN catalog_meta c ON c.catalog_id = t.catalog_id AND c.deleted_at = 0
			WHERE c.metalake_id = $1 AND c.catalog_name = $2 AND s.schema_name = $3 AND t.table_name = $4 AND t.deleted_at = 0
			FOR SHARE OF t`, metalakeID, catalog, schema, table).Scan(&cols)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, false, nil
		}
		return cols, err == nil, err
	})
}

// CreateSemanticModel creates a semantic model, its first version and an
// identity for each of its metrics, in one transaction.
func (s *Store) CreateSemanticModel(ctx context.Context, ns semcat.Namespace, req semcat.SemanticModelCreate) (*semcat.SemanticModel, semcat.Position, error) {
	var out *semcat.SemanticModel
	pos, err := s.write(ctx, func(tx *writeTx) error {
		p, err := s.resolveSchema(ctx, tx, ns, shareLock, modelWhat)
		if err != nil {
			return err
		}
		if err := req.Validate(); err != nil {
			return err
		}
		if err := validateSources(ctx, tx, p.metalakeID, req.Definition); err != nil {
			return err
		}
		m := &semcat.SemanticModel{Name: req.Name, Comment: req.Comment, Definition: *req.Definition,
			Properties: props(cloneProps(req.Properties)), Audit: semcat.NewAudit(actor(ctx), s.Now()), Version: 1}
		err = tx.QueryRow(ctx, `INSERT INTO semantic_model_meta (semantic_model_name, metalake_id, catalog_id, schema_id, audit_info, current_version, last_version)
			VALUES ($1, $2, $3, $4, $5, 1, 1) RETURNING semantic_model_id`,
			m.Name, p.metalakeID, p.catalogID, p.schemaID, m.Audit).Scan(&m.ID)
		if uniqueViolation(err) {
			return semcat.AlreadyExists(semcat.KindSemanticModel, "semantic model '%s.%s.%s.%s' already exists", ns.Metalake, ns.Catalog, ns.Schema, m.Name)
		} else if err != nil {
			return err
		}
		if err := insertVersion(ctx, tx, p, m, 1); err != nil {
			return err
		}
		if err := reconcileMetrics(ctx, tx, p, m.ID, m.Definition.MetricNames(), s.nowMillis()); err != nil {
			return err
		}
		out = m
		return tx.emitCreated(ctx, p.metalakeID, semcat.KindSemanticModel, m.ID, actor(ctx))
	})
	return out, pos, err
}

// GetSemanticModel loads a semantic model at its current version.
func (s *Store) GetSemanticModel(ctx context.Context, ns semcat.Namespace, name string) (*semcat.SemanticModel, error) {
	var out *semcat.SemanticModel
	err := s.read(ctx, func(tx pgx.Tx) error {
		p, err := s.resolveSchema(ctx, tx, ns, noLock, modelWhat)
		if err != nil {
			return err
		}
		r, err := getModel(ctx, tx, p.schemaID, name)
		if errors.Is(err, pgx.ErrNoRows) {
			return noSuchModel(ns, name)
		} else if err != nil {
			return err
		}
		out = &r.model
		return nil
	})
	return out, err
}

// ListSemanticModels lists the names of a schema's live semantic models in
// byte order.
func (s *Store) ListSemanticModels(ctx context.Context, ns semcat.Namespace) ([]string, error) {
	var out []string
	err := s.read(ctx, func(tx pgx.Tx) error {
		p, err := s.resolveSchema(ctx, tx, ns, noLock, modelWhat)
		if err != nil {
			return err
		}
		out, err = listNames(ctx, tx, `SELECT semantic_model_name FROM semantic_model_meta
			WHERE schema_id = $1 AND deleted_at = 0 ORDER BY semantic_model_name COLLATE "C"`, p.schemaID)
		return err
	})
	return out, err
}

// errStale reports that another transaction changed the model between our
// read and our compare-and-set; the alter is retried from the start.
var errStale = errors.New("semantic model changed concurrently")

// AlterSemanticModel applies an update list to a semantic model, all or
// nothing. The update list is validated as a whole first. With ifMatch, a
// model at another version fails with ECONFLICT; without it, a concurrent
// change makes the whole alter start again on the new version, for as long
// as ctx allows, so no update is lost.
func (s *Store) AlterSemanticModel(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update, ifMatch int64) (*semcat.SemanticModel, semcat.Position, error) {
	if err := semcat.ValidateModelUpdates(updates); err != nil {
		return nil, semcat.Position{}, err
	}
	for attempt := 1; ; attempt++ {
		out, pos, err := s.alterModelOnce(ctx, ns, name, updates, ifMatch)
		if !errors.Is(err, errStale) {
			return out, pos, err
		}
		if ifMatch != 0 {
			return nil, semcat.Position{}, conflict(ns, name, ifMatch)
		}
		if err := backoff(ctx, attempt); err != nil {
			return nil, semcat.Position{}, semcat.ModelChangedConcurrently("semantic model '%s.%s.%s.%s': %s", ns.Metalake, ns.Catalog, ns.Schema, name, semcat.ErrorMessage(err))
		}
	}
}

func conflict(ns semcat.Namespace, name string, want int64) error {
	return semcat.ModelChangedConcurrently("semantic model '%s.%s.%s.%s' is not at version %d (If-Match)", ns.Metalake, ns.Catalog, ns.Schema, name, want)
}

func (s *Store) alterModelOnce(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update, ifMatch int64) (*semcat.SemanticModel, semcat.Position, error) {
	var out *semcat.SemanticModel
	pos, err := s.write(ctx, func(tx *writeTx) error {
		p, err := s.resolveSchema(ctx, tx, ns, shareLock, modelWhat)
		if err != nil {
			return err
		}
		r, err := getModel(ctx, tx, p.schemaID, name)
		if errors.Is(err, pgx.ErrNoRows) {
			return noSuchModel(ns, name)
		} else if err != nil {
			return err
		}
		m := r.model
		if ifMatch != 0 && m.Version != ifMatch {
			return conflict(ns, name, ifMatch)
		}
		definedAt := -1 // the last replaceDefinition, whose sources must exist
		for i, u := range updates {
			if !semcat.ApplyCommon(u, &m.Name, &m.Comment, &m.Properties) && u.Type == semcat.UpdateReplaceDefinition {
				m.Definition = *u.Definition
				definedAt = i
			}
		}
		if definedAt >= 0 {
			if err := validateSources(ctx, tx, p.metalakeID, &m.Definition); err != nil {
				return atPath(fmt.Sprintf("updates[%d].definition", definedAt), err)
			}
		}
		m.Audit.Touch(actor(ctx), s.Now())
		next := r.lastVersion + 1
		tag, err := tx.Exec(ctx, `UPDATE semantic_model_meta
			SET semantic_model_name = $3, audit_info = $4, current_version = $5, last_version = $5
			WHERE semantic_model_id = $1 AND current_version = $2 AND deleted_at = 0`,
			m.ID, m.Version, m.Name, m.Audit, next)
		if uniqueViolation(err) {
			return semcat.AlreadyExists(semcat.KindSemanticModel, "semantic model '%s.%s.%s.%s' already exists", ns.Metalake, ns.Catalog, ns.Schema, m.Name)
		} else if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var deletedAt int64
			if err := tx.QueryRow(ctx, `SELECT deleted_at FROM semantic_model_meta WHERE semantic_model_id = $1`, m.ID).Scan(&deletedAt); err != nil {
				return err
			}
			if deletedAt != 0 {
				return noSuchModel(ns, name)
			}
			return errStale
		}
		m.Version = next
		if err := insertVersion(ctx, tx, p, &m, next); err != nil {
			return err
		}
		if err := reconcileMetrics(ctx, tx, p, m.ID, m.Definition.MetricNames(), s.nowMillis()); err != nil {
			return err
		}
		out = &m
		return tx.emit(ctx, semcat.KindSemanticModel, m.ID, opUpsert)
	})
	return out, pos, err
}

// DropSemanticModel drops a semantic model and retires its metric
// identities. With ifMatch, a model at another version is not dropped
// (ECONFLICT). A missing model, or schema, is not an error: dropped is
// false; a missing metalake or catalog is (ENOTFOUND), as in Gravitino.
func (s *Store) DropSemanticModel(ctx context.Context, ns semcat.Namespace, name string, ifMatch int64) (bool, semcat.Position, error) {
	dropped := false
	pos, err := s.write(ctx, func(tx *writeTx) error {
		dropped = false
		p, err := s.resolveSchema(ctx, tx, ns, shareLock, modelWhat)
		if err != nil {
			if semcat.ErrorCode(err) == semcat.ENOTFOUND && semcat.ErrorEntity(err) == semcat.KindSchema {
				return nil
			}
			return err
		}
		var id, version int64
		err = tx.QueryRow(ctx, `SELECT semantic_model_id, current_version FROM semantic_model_meta
			WHERE schema_id = $1 AND semantic_model_name = $2 AND deleted_at = 0 FOR UPDATE`, p.schemaID, name).Scan(&id, &version)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		if ifMatch != 0 && version != ifMatch {
			return conflict(ns, name, ifMatch)
		}
		now := s.nowMillis()
		for _, table := range []string{"semantic_model_meta", "semantic_model_version_info", "semantic_model_metric_meta"} {
			if err := softDelete(ctx, tx, table, "semantic_model_id", id, now); err != nil {
				return err
			}
		}
		dropped = true
		return tx.emit(ctx, semcat.KindSemanticModel, id, opDelete)
	})
	return dropped, pos, err
}
