package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bq "github.com/blevesearch/bleve/v2/search/query"
	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
	"github.com/semcat/semcat/indexer"
	"github.com/semcat/semcat/searchdoc"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	pgtest.SetTemplateSetup(catalogdb.MigrateURL)
	pgtest.Main(m)
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func openStore(tb testing.TB, url string) *catalogdb.Store {
	tb.Helper()
	s, err := catalogdb.Open(context.Background(), url, quiet)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

func openIndexer(tb testing.TB, s *catalogdb.Store, dir string) *indexer.Indexer {
	tb.Helper()
	x, err := indexer.Open(context.Background(), indexer.Options{Dir: dir, Store: s, Consumer: "test:" + dir, Logger: quiet})
	if err != nil {
		tb.Fatal(err)
	}
	return x
}

func catchUp(tb testing.TB, x *indexer.Indexer) {
	tb.Helper()
	if err := x.CatchUp(context.Background()); err != nil {
		tb.Fatal(err)
	}
}

// indexContents returns every document id with its stored payload.
func indexContents(tb testing.TB, idx bleve.Index) map[string]string {
	tb.Helper()
	n, err := idx.DocCount()
	if err != nil {
		tb.Fatal(err)
	}
	sr := bleve.NewSearchRequestOptions(bq.NewMatchAllQuery(), int(n)+1, 0, false)
	sr.Fields = []string{"doc"}
	res, err := idx.Search(sr)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, h := range res.Hits {
		out[h.ID], _ = h.Fields["doc"].(string)
	}
	return out
}

// dbContents returns what the index should hold: every live entity's
// document id and payload, built from PostgreSQL now.
func dbContents(tb testing.TB, s *catalogdb.Store) map[string]string {
	tb.Helper()
	out := map[string]string{}
	_, _, err := s.ScanEntities(context.Background(), 500, func(recs []*semcat.EntityRecord) error {
		for _, r := range recs {
			doc, err := searchdoc.Document(r)
			if err != nil {
				return err
			}
			out[indexer.DocID(r.Kind, r.ID)] = doc["doc"].(string)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func assertMatchesDB(tb testing.TB, x *indexer.Indexer, s *catalogdb.Store) {
	tb.Helper()
	got, want := indexContents(tb, x.Index()), dbContents(tb, s)
	if diff := cmp.Diff(want, got); diff != "" {
		tb.Fatalf("index differs from PostgreSQL (-db +index):\n%s", diff)
	}
}

func ids(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var ctx = semcat.NewContextWithUser(context.Background(), "tester")

// checker returns a function that fails the test if a write failed; it
// takes a write's results directly: checker(t)(s.CreateTable(...)).
func checker(tb testing.TB) func(any, semcat.Position, error) {
	return func(_ any, _ semcat.Position, err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// seed creates metalake m with relational catalog rel and schema s.
func seed(tb testing.TB, s *catalogdb.Store) {
	tb.Helper()
	_, _, err := s.CreateMetalake(ctx, semcat.MetalakeCreate{Name: "m"})
	if err == nil {
		_, _, err = s.CreateCatalog(ctx, "m", semcat.CatalogCreate{Name: "rel", Type: semcat.CatalogRelational})
	}
	if err == nil {
		_, _, err = s.CreateSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, semcat.SchemaCreate{Name: "s"})
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// seededIndexer opens a fresh database seeded as seed does and an indexer
// on it, closed when the test ends.
func seededIndexer(tb testing.TB) (*catalogdb.Store, *indexer.Indexer) {
	tb.Helper()
	return seededIndexerWith(tb, indexer.Options{})
}

// seededIndexerWith is seededIndexer with opts; the store, the logger and
// (unless set) the directory and consumer are filled in.
func seededIndexerWith(tb testing.TB, opts indexer.Options) (*catalogdb.Store, *indexer.Indexer) {
	tb.Helper()
	s := openStore(tb, pgtest.NewDatabase(tb))
	seed(tb, s)
	if opts.Dir == "" {
		opts.Dir = tb.TempDir()
	}
	if opts.Consumer == "" {
		opts.Consumer = "test:" + opts.Dir
	}
	opts.Store, opts.Logger = s, quiet
	x, err := indexer.Open(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { x.Close(context.Background()) })
	return s, x
}

var ns = semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "s"}

func table(name string, cols ...string) semcat.TableCreate {
	t := semcat.TableCreate{Name: name}
	for _, c := range cols {
		t.Columns = append(t.Columns, semcat.Column{Name: c, Type: &semcat.Type{Name: "string"}})
	}
	return t
}

func model(name, source string, metrics ...string) semcat.SemanticModelCreate {
	d := &semcat.Definition{Datasets: []semcat.Dataset{{Name: "d", Source: &semcat.Source{Namespace: []string{"rel", "s"}, Name: source}}}}
	for _, m := range metrics {
		d.Metrics = append(d.Metrics, semcat.Metric{Name: m, Expression: &semcat.Expression{Dialects: []semcat.DialectExpression{{Dialect: "ANSI_SQL", Expression: "SUM(" + m + ")"}}}})
	}
	return semcat.SemanticModelCreate{Name: name, Definition: d}
}

// TestOutOfOrderCommit: transaction A writes and stays open, B writes and
// commits, the indexer polls, A commits — both are indexed exactly once, and
// a rolled-back transaction never is.
func TestOutOfOrderCommit(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	var metalakeID int64
	if err := s.Pool().QueryRow(context.Background(), `SELECT metalake_id FROM metalake_meta WHERE metalake_name = 'm'`).Scan(&metalakeID); err != nil {
		t.Fatal(err)
	}
	// A raw transaction that creates catalog "a" as the store would.
	begin := func(name string) (func(commit bool), int64) {
		tx, err := s.Pool().Begin(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var id int64
		err = tx.QueryRow(context.Background(), `INSERT INTO catalog_meta (catalog_name, metalake_id, type, audit_info)
			VALUES ($1, $2, 'relational', '{"creator":"raw","createTime":"2026-01-01T00:00:00Z"}') RETURNING catalog_id`, name, metalakeID).Scan(&id)
		if err == nil {
			_, err = tx.Exec(context.Background(), `INSERT INTO outbox (entity_kind, entity_id, operation) VALUES ('catalog', $1, 'upsert')`, id)
		}
		if err != nil {
			t.Fatal(err)
		}
		return func(commit bool) {
			if commit {
				err = tx.Commit(context.Background())
			} else {
				err = tx.Rollback(context.Background())
			}
			if err != nil {
				t.Fatal(err)
			}
		}, id
	}
	finishA, idA := begin("a")
	finishC, idC := begin("c")
	checker(t)(s.CreateCatalog(ctx, "m", semcat.CatalogCreate{Name: "b", Type: semcat.CatalogRelational}))
	// Poll while A is open: A holds the horizon, so neither A nor B (above
	// it) may be applied yet, and nothing may be skipped.
	if err := x.PollOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := indexContents(t, x.Index())
	if _, ok := before[indexer.DocID(semcat.KindCatalog, idA)]; ok {
		t.Fatal("an uncommitted catalog is indexed")
	}
	finishC(false)
	finishA(true)
	catchUp(t, x)
	got := indexContents(t, x.Index())
	if _, ok := got[indexer.DocID(semcat.KindCatalog, idA)]; !ok {
		t.Errorf("catalog a, committed after b was polled, is missing: %v", ids(got))
	}
	if _, ok := got[indexer.DocID(semcat.KindCatalog, idC)]; ok {
		t.Errorf("the rolled-back catalog c is indexed")
	}
	assertMatchesDB(t, x, s)
}

// TestChurnEndsEqual creates, updates, deletes and recreates the same names
// within one batch and across batches; the index ends equal to PostgreSQL.
func TestChurnEndsEqual(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	tag := func(name string) {
		_, _, err := s.AssociateTags(ctx, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.s." + name}, semcat.TagAssociation{TagsToAdd: []string{"hot"}}.Assignments())
		if err != nil {
			t.Fatal(err)
		}
	}
	checker(t)(s.CreateTag(ctx, "m", semcat.TagCreate{Name: "hot"}))
	for round := range 3 {
		// Within one batch: create, alter, drop, recreate.
		checker(t)(s.CreateTable(ctx, ns, table("t", "a")))
		checker(t)(s.CreateSemanticModel(ctx, ns, model("sm", "t", "x", "y")))
		checker(t)(s.AlterSemanticModel(ctx, ns, "sm", []semcat.Update{{Type: semcat.UpdateReplaceDefinition, Definition: model("", "t", "y", "z").Definition}}, 0))
		tag("t")
		if _, _, err := s.DropSemanticModel(ctx, ns, "sm", 0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.DropTable(ctx, ns, "t"); err != nil {
			t.Fatal(err)
		}
		checker(t)(s.CreateTable(ctx, ns, table("t", "b")))
		checker(t)(s.CreateSemanticModel(ctx, ns, model("sm", "t", "x")))
		catchUp(t, x)
		assertMatchesDB(t, x, s)
		// Across batches: rename, then cascade drop of the schema and its
		// recreation.
		v := fmt.Sprintf("t%d", round)
		checker(t)(s.AlterTable(ctx, ns, "t", []semcat.Update{{Type: semcat.UpdateRename, NewName: &v}}))
		catchUp(t, x)
		if _, _, err := s.DropSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, "s", true); err != nil {
			t.Fatal(err)
		}
		catchUp(t, x)
		assertMatchesDB(t, x, s)
		checker(t)(s.CreateSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, semcat.SchemaCreate{Name: "s"}))
		catchUp(t, x)
		assertMatchesDB(t, x, s)
	}
	// A dropped tag leaves every object it was on.
	checker(t)(s.CreateTable(ctx, ns, table("tagged", "a")))
	tag("tagged")
	catchUp(t, x)
	if _, _, err := s.DropTag(ctx, "m", "hot"); err != nil {
		t.Fatal(err)
	}
	catchUp(t, x)
	assertMatchesDB(t, x, s)
}

// TestBrokenIndexIsRebuilt: a corrupted, deleted or outdated index
// directory is detected at start and rebuilt from PostgreSQL without
// operator action.
func TestBrokenIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	s := openStore(t, pgtest.NewDatabase(t))
	seed(t, s)
	checker(t)(s.CreateTable(ctx, ns, table("t", "a", "b")))
	checker(t)(s.CreateSemanticModel(ctx, ns, model("sm", "t", "x", "y")))
	dir := t.TempDir()
	x := openIndexer(t, s, dir)
	catchUp(t, x)
	assertMatchesDB(t, x, s)
	x.Close(context.Background())

	breakers := map[string]func(gen string){
		"deleted": func(gen string) { os.RemoveAll(dir) },
		"corrupt": func(gen string) {
			filepath.Walk(gen, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() {
					os.WriteFile(p, []byte("garbage"), 0o644)
				}
				return nil
			})
		},
		"emptied": func(gen string) {
			entries, _ := os.ReadDir(gen)
			for _, e := range entries {
				os.RemoveAll(filepath.Join(gen, e.Name()))
			}
		},
		// An index written with an older document layout opens fine but
		// would answer wrongly; here it also lost a document, which only a
		// rebuild brings back.
		"older layout": func(gen string) {
			idx, err := bleve.Open(gen)
			if err != nil {
				t.Fatal(err)
			}
			defer idx.Close()
			b := idx.NewBatch()
			b.SetInternal([]byte("semcat.layout"), []byte("1"))
			for id := range indexContents(t, idx) {
				b.Delete(id)
				break
			}
			if err := idx.Batch(b); err != nil {
				t.Fatal(err)
			}
		},
	}
	for _, name := range []string{"older layout", "corrupt", "emptied", "deleted"} {
		t.Run(name, func(t *testing.T) {
			gen, err := filepath.EvalSymlinks(filepath.Join(dir, "current"))
			if err != nil {
				t.Fatal(err)
			}
			breakers[name](gen)
			x := openIndexer(t, s, dir)
			defer x.Close(context.Background())
			catchUp(t, x)
			assertMatchesDB(t, x, s)
		})
	}
}

// TestMetricDocumentsFollowIdentity: a metric's document id is its stable
// identity, carried across model updates.
func TestMetricDocumentsFollowIdentity(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	checker(t)(s.CreateTable(ctx, ns, table("t", "a")))
	checker(t)(s.CreateSemanticModel(ctx, ns, model("sm", "t", "revenue", "orders")))
	catchUp(t, x)
	metricDocs := func() map[string]string {
		out := map[string]string{}
		for id, payload := range indexContents(t, x.Index()) {
			e, err := indexer.PayloadEntity(payload)
			if err != nil {
				t.Fatal(err)
			}
			if e.Type == "metric" {
				out[e.Name] = id
			}
		}
		return out
	}
	before := metricDocs()
	checker(t)(s.AlterSemanticModel(ctx, ns, "sm", []semcat.Update{{Type: semcat.UpdateReplaceDefinition, Definition: model("", "t", "orders", "revenue", "margin").Definition}}, 0))
	catchUp(t, x)
	after := metricDocs()
	if before["revenue"] != after["revenue"] || before["orders"] != after["orders"] || after["margin"] == "" || len(after) != 3 {
		t.Errorf("metric documents: before %v, after %v", before, after)
	}
	assertMatchesDB(t, x, s)
}

// TestBatchCreatedTablesAreIndexed: every table of a batch reaches the
// index, with its tags, in the documents a rebuild from PostgreSQL would
// make.
func TestBatchCreatedTablesAreIndexed(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	checker(t)(s.CreateTag(ctx, "m", semcat.TagCreate{Name: "pii"}))
	items := make([]semcat.TableBatchItem, 40)
	for i := range items {
		items[i] = semcat.TableBatchItem{TableCreate: table(fmt.Sprintf("t%02d", i), "a", "b")}
		if i%2 == 0 {
			items[i].Tags = []string{"pii"}
		}
	}
	checker(t)(s.CreateTables(ctx, ns, semcat.TableBatchCreate{Tables: items}))
	catchUp(t, x)
	tagged := 0
	for _, payload := range indexContents(t, x.Index()) {
		if strings.Contains(payload, "pii") {
			tagged++
		}
	}
	if tagged != 20 {
		t.Errorf("%d documents hold the tag, want 20", tagged)
	}
	assertMatchesDB(t, x, s)
}

// TestBacklogChunksAppliedTogether: a backlog's poll of many entities is
// applied as several Bleve batches at once; the index ends equal to
// PostgreSQL, and the checkpoint past every row.
func TestBacklogChunksAppliedTogether(t *testing.T) {
	t.Parallel()
	s, x := seededIndexerWith(t, indexer.Options{BatchSize: 1000, TailWorkers: 2})
	for b := range 3 {
		items := make([]semcat.TableBatchItem, 700)
		for i := range items {
			items[i] = semcat.TableBatchItem{TableCreate: table(fmt.Sprintf("t%d_%03d", b, i), "a")}
		}
		checker(t)(s.CreateTables(ctx, ns, semcat.TableBatchCreate{Tables: items}))
	}
	catchUp(t, x)
	assertMatchesDB(t, x, s)
	// Reopened, the index resumes from its checkpoint with nothing to do.
	checker(t)(s.CreateTable(ctx, ns, table("after", "a")))
	catchUp(t, x)
	assertMatchesDB(t, x, s)
}

func catalogOpen(ctx context.Context, url string) (*catalogdb.Store, error) {
	return catalogdb.Open(ctx, url, quiet)
}

func currentGeneration(tb testing.TB, dir string) string {
	tb.Helper()
	gen, err := os.Readlink(filepath.Join(dir, "current"))
	if err != nil {
		tb.Fatal(err)
	}
	return gen
}

// TestMergedSegmentsStayUnderCap: Bleve's merges never make a segment of
// MaxSegmentDocs documents or more. Many small tail batches make many
// small segments; without the cap, merges combine them into ever larger
// ones.
func TestMergedSegmentsStayUnderCap(t *testing.T) {
	t.Parallel()
	const maxDocs = 40
	s, x := seededIndexerWith(t, indexer.Options{BatchSize: 10, MaxSegmentDocs: maxDocs})
	for i := range 400 {
		checker(t)(s.CreateTable(ctx, ns, table(fmt.Sprintf("t%03d", i), "a")))
		if i%10 == 9 {
			catchUp(t, x)
		}
	}
	segmentSizes := func() []uint64 {
		adv, err := x.Index().Advanced()
		if err != nil {
			t.Fatal(err)
		}
		r, err := adv.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var sizes []uint64
		for _, seg := range r.(*scorch.IndexSnapshot).Segments() {
			sizes = append(sizes, seg.Count())
		}
		slices.Sort(sizes)
		return sizes
	}
	// Let the merges settle: the segments unchanged for a second.
	sizes := segmentSizes()
	for stable, deadline := time.Now(), time.Now().Add(30*time.Second); time.Since(stable) < time.Second && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if now := segmentSizes(); !slices.Equal(now, sizes) {
			sizes, stable = now, time.Now()
		}
	}
	if len(sizes) < 2 || sizes[len(sizes)-1] >= maxDocs {
		t.Errorf("segment sizes %v: want several, each under %d documents", sizes, maxDocs)
	}
	assertMatchesDB(t, x, s)
}

// TestStopEndsRebuild: after Stop, a rebuild gives up with the context's
// error and leaves the serving index as it was; a rebuild running when
// Stop is called has returned, whatever its outcome, by the time Stop
// does. (A shutdown waited for a 1M rebuild to finish: its request and its
// PostgreSQL connections ignore the request's cancellation on purpose.)
func TestStopEndsRebuild(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	for i := range 50 {
		checker(t)(s.CreateTable(ctx, ns, table(fmt.Sprintf("t%02d", i), "a", "b")))
	}
	catchUp(t, x)
	done := make(chan error, 1)
	go func() { done <- x.Rebuild(context.WithoutCancel(ctx)) }()
	x.Stop()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the rebuild did not return after Stop")
	}
	before := indexContents(t, x.Index())
	if err := x.Rebuild(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("a rebuild after Stop: %v, want context.Canceled", err)
	}
	if diff := cmp.Diff(before, indexContents(t, x.Index())); diff != "" {
		t.Errorf("the stopped rebuild changed the serving index (-before +after):\n%s", diff)
	}
	assertMatchesDB(t, x, s)
}

// TestReady: an open index is ready; a closed one says so, as EUNAVAILABLE
// (/readyz answers 503 with it).
func TestReady(t *testing.T) {
	_, x := seededIndexer(t)
	if err := x.Ready(); err != nil {
		t.Fatalf("Ready of an open index: %v", err)
	}
	if err := x.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := x.Ready(); semcat.ErrorCode(err) != semcat.EUNAVAILABLE {
		t.Fatalf("Ready of a closed index: %v, want EUNAVAILABLE", err)
	}
}
