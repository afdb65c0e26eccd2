package jobs

import (
	"context"
	"log/slog"

	"github.com/semcat/semcat/catalogdb"
)

// RetentionJob returns a job that purges, per p, the catalog rows dropped or
// retired longer ago than the retention period and old model versions, and
// logs how many rows of each kind it deleted (also when it fails part-way).
func RetentionJob(store *catalogdb.Store, p catalogdb.RetentionPolicy, logger *slog.Logger) func(ctx context.Context) error {
	if logger == nil {
		logger = slog.Default()
	}
	return func(ctx context.Context) error {
		st, err := store.Purge(ctx, p)
		logger.Info("retention purge",
			"metric_identities", st.MetricIdentities, "model_versions", st.ModelVersions, "models", st.Models,
			"tables", st.Tables, "schemas", st.Schemas, "catalogs", st.Catalogs, "metalakes", st.Metalakes,
			"tags", st.Tags, "users", st.Users, "groups", st.Groups, "roles", st.Roles, "policies", st.Policies, "complete", err == nil)
		return err
	}
}
