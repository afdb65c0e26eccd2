package catalogdb

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// Grant is one privilege bound, through one of a user's roles, on an
// object.
type Grant struct {
	Kind      semcat.EntityKind
	ID        int64
	Privilege semcat.Privilege
	Condition semcat.Condition
}

// Grants is everything that decides what a user may see in a metalake:
// the bindings of its roles and the objects it owns, by kind.
type Grants struct {
	Bindings []Grant
	Owned    map[semcat.EntityKind][]int64
	// Member: the user is a member of the metalake or owns it (and so may
	// know it exists).
	Member bool
}

// UserGrants loads a user's grants and ownerships in a metalake, in one
// snapshot. A missing metalake or user has none.
func (s *Store) UserGrants(ctx context.Context, metalake, user string) (*Grants, error) {
	g := &Grants{Owned: map[semcat.EntityKind][]int64{}}
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT rp.object_type, rp.object_id, rp.privilege, rp.condition
			FROM metalake_meta m
			JOIN user_meta u ON u.metalake_id = m.metalake_id AND u.user_name = $2 AND u.deleted_at = 0
			JOIN user_role ur ON ur.user_id = u.user_id
			JOIN role_meta r ON r.role_id = ur.role_id AND r.deleted_at = 0
			JOIN role_privilege rp ON rp.role_id = r.role_id
			WHERE m.metalake_name = $1 AND m.deleted_at = 0`, metalake, user)
		if err != nil {
			return err
		}
		for rows.Next() {
			var gr Grant
			var kind, priv, cond string
			if err := rows.Scan(&kind, &gr.ID, &priv, &cond); err != nil {
				rows.Close()
				return err
			}
			gr.Kind, gr.Privilege, gr.Condition = semcat.EntityKind(kind), semcat.Privilege(priv), semcat.Condition(cond)
			g.Bindings = append(g.Bindings, gr)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT o.object_type, o.object_id FROM metalake_meta m
			JOIN owner_meta o ON o.metalake_id = m.metalake_id AND o.owner_type = 'USER' AND o.owner_name = $2
			WHERE m.metalake_name = $1 AND m.deleted_at = 0`, metalake, user)
		if err != nil {
			return err
		}
		for rows.Next() {
			var kind string
			var id int64
			if err := rows.Scan(&kind, &id); err != nil {
				rows.Close()
				return err
			}
			g.Owned[semcat.EntityKind(kind)] = append(g.Owned[semcat.EntityKind(kind)], id)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM metalake_meta m
			JOIN user_meta u ON u.metalake_id = m.metalake_id AND u.user_name = $2 AND u.deleted_at = 0
			WHERE m.metalake_name = $1 AND m.deleted_at = 0)`, metalake, user).Scan(&g.Member)
	})
	g.Member = g.Member || len(g.Owned[semcat.KindMetalake]) > 0
	return g, err
}
