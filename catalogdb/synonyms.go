package catalogdb

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// KindSynonyms is the outbox kind of a change of a metalake's synonym sets
// (entity_id: the metalake's id). No index holds synonyms; the row tells
// every server following the outbox to drop its cached sets
// (WatchSynonyms), and a write's position covers it like any other.
const KindSynonyms semcat.EntityKind = "synonyms"

var _ semcat.SynonymService = (*Store)(nil)

// WatchSynonyms has fn called whenever a metalake's synonym sets may have
// changed: after this store's own writes commit, and when the outbox
// shows another server's change (or a metalake created or dropped) to the
// index consumer reading it. fn must not block.
func (s *Store) WatchSynonyms(fn func()) { s.synonyms.Store(&fn) }

func (s *Store) synonymsChanged() {
	if fn := s.synonyms.Load(); fn != nil {
		(*fn)()
	}
}

// GetSynonyms returns a metalake's synonym sets (SPEC §2.6); none is an
// empty list.
func (s *Store) GetSynonyms(ctx context.Context, metalake string) ([][]string, error) {
	var raw []byte
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		err = tx.QueryRow(ctx, `SELECT synonyms FROM metalake_synonyms WHERE metalake_id = $1`, mid).Scan(&raw)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := [][]string{}
	if raw != nil {
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SetSynonyms replaces a metalake's synonym sets, and writes the outbox
// row that tells every server to drop its cached ones.
func (s *Store) SetSynonyms(ctx context.Context, metalake string, sets [][]string) (semcat.Position, error) {
	if err := semcat.ValidateSynonyms(sets); err != nil {
		return semcat.Position{}, err
	}
	raw, err := json.Marshal(sets)
	if err != nil {
		return semcat.Position{}, err
	}
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		audit := semcat.NewAudit(actor(ctx), s.Now())
		if _, err := tx.Exec(ctx, `INSERT INTO metalake_synonyms (metalake_id, synonyms, audit_info) VALUES ($1, $2, $3)
			ON CONFLICT (metalake_id) DO UPDATE SET synonyms = EXCLUDED.synonyms,
				audit_info = jsonb_set(jsonb_set(metalake_synonyms.audit_info, '{lastModifier}', to_jsonb($4::text)),
					'{lastModifiedTime}', EXCLUDED.audit_info->'lastModifiedTime')`,
			mid, raw, audit, audit.Creator); err != nil {
			return err
		}
		return tx.emit(ctx, KindSynonyms, mid, opUpsert)
	})
	if err == nil {
		s.synonymsChanged()
	}
	return pos, err
}
