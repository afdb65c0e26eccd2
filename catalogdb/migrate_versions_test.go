package catalogdb

import (
	"io/fs"
	"strconv"
	"strings"
	"testing"
)

// TestMigrationVersionsUnique: every migration has its own version number;
// the second of two files with one number would never be applied (migrate
// records versions, not file names).
func TestMigrationVersionsUnique(t *testing.T) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("no migrations: %v", err)
	}
	seen := map[int]string{}
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			t.Errorf("%s: no version number", base)
			continue
		}
		if other, ok := seen[v]; ok {
			t.Errorf("%s and %s share version %d", other, base, v)
		}
		seen[v] = base
	}
}
