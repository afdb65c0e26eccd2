package catalogdb

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// UserGrants loads a user's grants and ownerships in a metalake, in one
// snapshot. A missing metalake or user has none. The owner of the metalake
// sees everything in it, whatever else it owns or is granted: its Grants
// hold that ownership alone, so that its searches do not carry (nor load)
// one term per object it created.
func (s *Store) UserGrants(ctx context.Context, metalake, user string) (*semcat.Grants, error) {
	g := &semcat.Grants{Owned: map[semcat.EntityKind][]int64{}}
	err := s.read(ctx, func(tx pgx.Tx) error {
		var mid int64
		var ownsMetalake bool
		err := tx.QueryRow(ctx, `SELECT m.metalake_id,
				EXISTS (SELECT 1 FROM user_meta u WHERE u.metalake_id = m.metalake_id AND u.user_name = $2 AND u.deleted_at = 0),
				EXISTS (SELECT 1 FROM owner_meta o WHERE o.object_type = 'metalake' AND o.object_id = m.metalake_id
					AND o.metalake_id = m.metalake_id AND o.owner_type = 'USER' AND o.owner_name = $2)
			FROM metalake_meta m WHERE m.metalake_name = $1 AND m.deleted_at = 0`, metalake, user).Scan(&mid, &g.Member, &ownsMetalake)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		if ownsMetalake {
			g.Owned[semcat.KindMetalake] = []int64{mid}
			return nil
		}
		rows, err := tx.Query(ctx, `SELECT rp.object_type, rp.object_id, rp.privilege, rp.condition
			FROM user_meta u
			JOIN user_role ur ON ur.user_id = u.user_id
			JOIN role_meta r ON r.role_id = ur.role_id AND r.deleted_at = 0
			JOIN role_privilege rp ON rp.role_id = r.role_id
			WHERE u.metalake_id = $1 AND u.user_name = $2 AND u.deleted_at = 0`, mid, user)
		if err != nil {
			return err
		}
		var (
			gr               semcat.Grant
			kind, priv, cond string
		)
		if _, err := pgx.ForEachRow(rows, []any{&kind, &gr.ID, &priv, &cond}, func() error {
			gr.Kind, gr.Privilege, gr.Condition = semcat.EntityKind(kind), semcat.Privilege(priv), semcat.Condition(cond)
			g.Bindings = append(g.Bindings, gr)
			return nil
		}); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT object_type, object_id FROM owner_meta
			WHERE metalake_id = $1 AND owner_type = 'USER' AND owner_name = $2`, mid, user)
		if err != nil {
			return err
		}
		var id int64
		_, err = pgx.ForEachRow(rows, []any{&kind, &id}, func() error {
			g.Owned[semcat.EntityKind(kind)] = append(g.Owned[semcat.EntityKind(kind)], id)
			return nil
		})
		return err
	})
	g.Member = g.Member || len(g.Owned[semcat.KindMetalake]) > 0
	return g, err
}
