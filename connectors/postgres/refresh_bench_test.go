package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat/connectors/postgres"
)

// BenchmarkNoChangeRefresh times the parts of a refresh that finds nothing
// changed over a source of 2,000 tables of 8 columns: reading the source's
// catalog, and the comparison with the mirror (make bench -pgsource times
// the whole refresh over 10,000).
func BenchmarkNoChangeRefresh(b *testing.B) {
	h := newHarness(b)
	var sql strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sql, `CREATE TABLE public.t%05d (id bigint PRIMARY KEY, name text NOT NULL, amount numeric(12,2) DEFAULT 0,
			created_at timestamptz NOT NULL DEFAULT now(), status varchar(20), flags boolean, notes text, ref integer UNIQUE);
			COMMENT ON TABLE public.t%05d IS 'Table %d';`, i, i, i)
	}
	h.exec(sql.String())
	h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://"+h.srcUser+"@"+h.proxy.addr+"/"+h.srcDB+"?sslmode=disable")
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := postgres.ReadSnapshot(ctx, conn); err != nil {
				b.Fatal(err)
			}
		}
	})
	snap, _ := postgres.ReadSnapshot(ctx, conn)
	b.Run("fingerprints", func(b *testing.B) {
		for b.Loop() {
			for _, t := range snap.Tables {
				t.Fingerprint()
			}
		}
	})
	b.Run("stamps", func(b *testing.B) {
		known := map[int64]string{}
		snap, _ := postgres.Read(ctx, conn, nil)
		for oid, st := range snap.Stamps {
			known[oid] = st
		}
		for b.Loop() {
			s, err := postgres.Read(ctx, conn, known)
			if err != nil || len(s.Tables) != 0 {
				b.Fatal(err, len(s.Tables))
			}
		}
	})
	b.Run("refresh", func(b *testing.B) {
		for b.Loop() {
			h.ok("POST", pg+"/refresh", nil)
		}
	})
}
