package catalogdb

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// OpenTraced opens a store like Open whose connections report their
// statements to tracer.
func OpenTraced(ctx context.Context, connString string, tracer pgx.QueryTracer) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig.Tracer = tracer
	return openConfig(ctx, cfg, slog.New(slog.DiscardHandler))
}

// PollOutboxSQL is the query that reads the outbox after a cursor.
const PollOutboxSQL = pollOutboxSQL

// RecordQueries are the queries that load entities' records by id, and
// RecordTagsSQL the one that loads their tags.
var RecordQueries = recordQueries

const RecordTagsSQL = recordTagsSQL
