// Package memcgtest makes up cgroup filesystems for tests of code that
// reads them (package memcg's callers).
package memcgtest

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFiles writes each file under root (a made-up cgroup mount such as
// a t.TempDir()) with its value and a newline, as the kernel writes them,
// making the directories on the way.
func WriteFiles(tb testing.TB, root string, files map[string]string) {
	tb.Helper()
	for path, value := range files {
		path = filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(value+"\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
