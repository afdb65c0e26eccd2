package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	q "github.com/semcat/semcat/query"
)

// ---- Search by query kind ------------------------------------------------

// queryKind is one kind of search, with a sampler of varied queries of that
// kind and the equivalent PostgreSQL full-text query.
type queryKind struct {
	Name string
	// Exact kinds have the same predicate in both engines by construction:
	// their totals must agree, or the run fails.
	Exact bool
	gen   func(*sampler) queryCase
}

// queryCase is one query in both engines; want, if set, is the ID of the
// one entity both must return.
type queryCase struct {
	semcat SearchParams
	pg     pgQuery
	want   string
}

// queryKinds are the search scenarios, in report order.
var queryKinds = []queryKind{
	{Name: "word", gen: func(s *sampler) queryCase {
		w := s.word()
		return queryCase{semcat: SearchParams{Query: w}, pg: pgQuery{column: "doc", tsquery: "to_tsquery('simple', $1)", arg: w}}
	}},
	{Name: "prefix", gen: func(s *sampler) queryCase {
		p := s.word()[:3]
		return queryCase{semcat: SearchParams{Query: p + "*"}, pg: pgQuery{column: "doc", tsquery: "to_tsquery('simple', $1)", arg: p + ":*"}}
	}},
	{Name: "key:value", Exact: true, gen: func(s *sampler) queryCase {
		// A word of a property value of an existing entity: at least one hit.
		e := s.entity()
		keys := sortedKeys(e.Properties)
		var k string
		for k == "" || k == refKey {
			k = keys[s.r.IntN(len(keys))]
		}
		ws := strings.Fields(e.Properties[k])
		w := ws[s.r.IntN(len(ws))]
		return queryCase{semcat: SearchParams{Query: k + ":" + w}, pg: pgQuery{column: "kv", tsquery: "$1::tsquery", arg: lexemeQuery(k + "=" + w)}}
	}},
	{Name: "key:value (unique)", Exact: true, gen: func(s *sampler) queryCase {
		e := s.entity()
		v := e.Properties[refKey]
		return queryCase{semcat: SearchParams{Query: refKey + ":" + v},
			pg: pgQuery{column: "kv", tsquery: "$1::tsquery", arg: lexemeQuery(refKey + "=" + v)}, want: e.ID()}
	}},
	{Name: "whole-value phrase", gen: func(s *sampler) queryCase {
		v := s.phrase()
		return queryCase{semcat: SearchParams{Query: `"` + v + `"`}, pg: pgQuery{column: "doc", tsquery: "phraseto_tsquery('simple', $1)", arg: v}}
	}},
	{Name: "tag", Exact: true, gen: func(s *sampler) queryCase {
		t := s.tag()
		return queryCase{semcat: SearchParams{Query: "tags:" + t}, pg: pgQuery{column: "tags", tsquery: "$1::tsquery", arg: lexemeQuery(t)}}
	}},
	{Name: "schema field", Exact: true, gen: func(s *sampler) queryCase {
		t := s.table()
		f := t.Fields[s.r.IntN(len(t.Fields))]
		return queryCase{semcat: SearchParams{Query: "schema:" + f}, pg: pgQuery{column: "fields", tsquery: "$1::tsquery", arg: lexemeQuery(f)}}
	}},
	{Name: "schema:* type=table", Exact: true, gen: func(s *sampler) queryCase {
		return queryCase{semcat: SearchParams{Query: "schema:*", Types: "table"}, pg: pgQuery{}}
	}},
	{Name: "word + 3 facets", gen: func(s *sampler) queryCase {
		w := s.word()
		return queryCase{semcat: SearchParams{Query: w, Facets: "type,catalog,tags"},
			pg: pgQuery{column: "doc", tsquery: "to_tsquery('simple', $1)", arg: w, facets: true}}
	}},
}

// sampler draws query terms: words by their Zipf frequency in the data, and
// values, tags and fields of randomly chosen existing entities.
type sampler struct {
	g      *Generator
	r      *rand.Rand
	words  *rand.Zipf
	tables []SchemaRef // schemas with tables
	models []SchemaRef // schemas with models
}

func newSampler(g *Generator, r *rand.Rand) *sampler {
	s := &sampler{g: g, r: r, words: rand.NewZipf(r, zipfS, zipfV, uint64(len(g.Words)-1))}
	for ci, cp := range g.Plan.Catalogs {
		for si, sp := range cp.Schemas {
			if sp.Tables > 0 {
				s.tables = append(s.tables, SchemaRef{ci, si})
			}
			if len(sp.Metrics) > 0 {
				s.models = append(s.models, SchemaRef{ci, si})
			}
		}
	}
	return s
}

func (s *sampler) word() string { return s.g.Words[s.words.Uint64()] }

func (s *sampler) table() *Table {
	ref := s.tables[s.r.IntN(len(s.tables))]
	return s.g.Table(ref.Catalog, ref.Schema, s.r.IntN(s.g.Plan.Catalogs[ref.Catalog].Schemas[ref.Schema].Tables))
}

// entity draws a table (70%), model (15%), schema (10%) or catalog (5%).
func (s *sampler) entity() *Entity {
	switch x := s.r.IntN(100); {
	case x < 70:
		return &s.table().Entity
	case x < 85:
		ref := s.models[s.r.IntN(len(s.models))]
		return &s.g.Model(ref.Catalog, ref.Schema, s.r.IntN(len(s.g.Plan.Catalogs[ref.Catalog].Schemas[ref.Schema].Metrics))).Entity
	case x < 95:
		ref := s.tables[s.r.IntN(len(s.tables))]
		return s.g.Schema(ref.Catalog, ref.Schema)
	default:
		return s.g.Catalog(s.r.IntN(len(s.g.Plan.Catalogs)))
	}
}

// phrase draws a whole property value of two or more words.
func (s *sampler) phrase() string {
	for {
		e := s.entity()
		for _, k := range sortedKeys(e.Properties) {
			if v := e.Properties[k]; strings.Contains(v, " ") {
				return v
			}
		}
	}
}

// tag draws a tag of an entity that has tags.
func (s *sampler) tag() string {
	for {
		if e := s.entity(); len(e.Tags) > 0 {
			return e.Tags[s.r.IntN(len(e.Tags))]
		}
	}
}

// QueryResult is the outcome of one query kind.
type QueryResult struct {
	Kind     string  `json:"kind"`
	Example  string  `json:"example"`
	Exact    bool    `json:"exact"`
	Semcat   Stats   `json:"semcat"`
	PG       Stats   `json:"postgres"`
	RatioP50 float64 `json:"ratioP50"` // PostgreSQL / semcat: > 1 means semcat is faster
	RatioP99 float64 `json:"ratioP99"`
	// Agree counts the queries whose totals were equal in both engines;
	// MeanSemcatTotal and MeanPGTotal show how broad the queries were.
	Agree           int     `json:"totalsAgree"`
	MeanSemcatTotal float64 `json:"meanSemcatTotal"`
	MeanPGTotal     float64 `json:"meanPostgresTotal"`
	// Disagreements are a few queries whose totals differed (non-exact
	// kinds, where some difference is expected).
	Disagreements []string `json:"disagreements,omitempty"`
	// Server is semcat's own time per search, from its audit log.
	Server Stats `json:"semcatServerSide"`
	// Faulted counts the measured searches during which the server read
	// index pages back from disk (major page faults), MajorFaults those
	// faults, and FaultedP50 / FaultedMax the client time of those
	// searches: slow searches that faulted waited for the disk.
	Faulted     int     `json:"faultedSearches"`
	MajorFaults int64   `json:"majorFaults"`
	FaultedP50  float64 `json:"faultedP50Ms,omitempty"`
	FaultedMax  float64 `json:"faultedMaxMs,omitempty"`
	// Reads is what a search of the kind read of the index on average,
	// field by field, the most bytes first (profileQueries more queries
	// run with profile=true after the measured ones).
	Reads  []FieldRead `json:"reads,omitempty"`
	window window
}

// profileQueries is how many queries of each kind are run again with
// profile=true, untimed, for QueryResult.Reads.
const profileQueries = 20

// runQueries runs n queries of every kind (after warmup unmeasured ones) in
// both engines, alternating which engine goes first. Wrong results of exact
// kinds are returned as failures. faults returns the server's major page
// faults so far.
func runQueries(ctx context.Context, c *Client, pg *PGFTS, g *Generator, n, warmup int, seed uint64, faults func() int64, logf func(string, ...any)) ([]QueryResult, []string, error) {
	var results []QueryResult
	var failures []string
	for ki, kind := range queryKinds {
		s := newSampler(g, rand.New(rand.NewPCG(seed, 1000+uint64(ki))))
		res := QueryResult{Kind: kind.Name, Exact: kind.Exact}
		var semT, pgT, faultedT []time.Duration
		var semSum, pgSum float64
		var err error
		bad := 0
		for i := range warmup + n {
			if i == warmup {
				// A pause on each side of the measured queries keeps the
				// audit events of other queries out of their window.
				time.Sleep(20 * time.Millisecond)
				res.window.from = time.Now()
			}
			qc := kind.gen(s)
			if i == 0 {
				res.Example = qc.semcat.Query
				if qc.semcat.Types != "" {
					res.Example += " &type=" + qc.semcat.Types
				}
				if qc.semcat.Facets != "" {
					res.Example += " &facets=" + qc.semcat.Facets
				}
			}
			var sr *SearchResponse
			var pa pgAnswer
			var semD, pgD time.Duration
			var semFaults int64
			runSemcat := func() error {
				f0, t0 := faults(), time.Now()
				var err error
				sr, err = c.Search(ctx, g.Plan.Metalake, qc.semcat)
				semD = time.Since(t0)
				semFaults = faults() - f0
				return err
			}
			runPG := func() error {
				t0 := time.Now()
				var err error
				pa, err = pg.Search(ctx, qc.pg)
				pgD = time.Since(t0)
				return err
			}
			if err := alternate(i, runSemcat, runPG); err != nil {
				return nil, nil, fmt.Errorf("%s query %q: %w", kind.Name, qc.semcat.Query, err)
			}
			problem := ""
			switch {
			case kind.Exact && sr.Total != uint64(pa.Total):
				problem = fmt.Sprintf("semcat total %d, PostgreSQL total %d", sr.Total, pa.Total)
			case qc.want != "" && !(equalStrings(sr.IDs(), []string{qc.want}) && equalStrings(pa.IDs, []string{qc.want})):
				problem = fmt.Sprintf("want only %s; semcat returned %v, PostgreSQL %v", qc.want, sr.IDs(), pa.IDs)
			}
			if problem != "" {
				bad++
				if bad <= 5 {
					failures = append(failures, fmt.Sprintf("search %s: query %q: %s", kind.Name, qc.semcat.Query, problem))
				}
			}
			if i < warmup {
				continue
			}
			semT, pgT = append(semT, semD), append(pgT, pgD)
			if semFaults > 0 {
				res.Faulted++
				res.MajorFaults += semFaults
				faultedT = append(faultedT, semD)
			}
			semSum += float64(sr.Total)
			pgSum += float64(pa.Total)
			if sr.Total == uint64(pa.Total) {
				res.Agree++
			} else if len(res.Disagreements) < 3 {
				res.Disagreements = append(res.Disagreements, fmt.Sprintf("`%s` semcat %d, PostgreSQL %d", qc.semcat.Query, sr.Total, pa.Total))
			}
		}
		time.Sleep(20 * time.Millisecond)
		res.window.to = time.Now()
		if bad > 5 {
			failures = append(failures, fmt.Sprintf("search %s: %d more wrong results", kind.Name, bad-5))
		}
		res.Semcat, res.PG = summarize(semT), summarize(pgT)
		if len(faultedT) > 0 {
			ft := summarize(faultedT)
			res.FaultedP50, res.FaultedMax = ft.P50, ft.Max
		}
		if res.Reads, err = profileKind(ctx, c, g, kind, s); err != nil {
			return nil, nil, err
		}
		res.RatioP50, res.RatioP99 = res.PG.P50/res.Semcat.P50, res.PG.P99/res.Semcat.P99
		res.MeanSemcatTotal, res.MeanPGTotal = semSum/float64(n), pgSum/float64(n)
		logf("  %-20s semcat p50 %7.2f ms p99 %8.2f ms | PostgreSQL p50 %8.2f ms p99 %8.2f ms | totals agree %d/%d | %d searches with %d major faults",
			kind.Name, res.Semcat.P50, res.Semcat.P99, res.PG.P50, res.PG.P99, res.Agree, n, res.Faulted, res.MajorFaults)
		results = append(results, res)
	}
	return results, failures, nil
}

// profileKind runs profileQueries more queries of kind with profile=true
// and returns what one read of the index on average, field by field.
func profileKind(ctx context.Context, c *Client, g *Generator, kind queryKind, s *sampler) ([]FieldRead, error) {
	sums := map[string]*FieldRead{}
	for range profileQueries {
		qc := kind.gen(s)
		qc.semcat.Profile = true
		sr, err := c.Search(ctx, g.Plan.Metalake, qc.semcat)
		if err != nil {
			return nil, fmt.Errorf("%s query %q with its profile: %w", kind.Name, qc.semcat.Query, err)
		}
		if sr.Profile == nil {
			return nil, fmt.Errorf("%s query %q: no profile in the answer", kind.Name, qc.semcat.Query)
		}
		for _, f := range sr.Profile.Fields {
			sum := sums[f.Field]
			if sum == nil {
				sum = &FieldRead{Field: f.Field}
				sums[f.Field] = sum
			}
			sum.Lists += f.Lists / profileQueries
			sum.Bytes += f.Bytes / profileQueries
			sum.Terms += f.Terms / profileQueries
		}
	}
	out := make([]FieldRead, 0, len(sums))
	for _, f := range sums {
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b FieldRead) int { return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Field, b.Field)) })
	return out, nil
}

// FloorResult is what a request costs each engine when it asks for no
// work: semcat's GET /healthz over HTTP (the searches' client and
// connection pool; the server's cheapest route, without the API's
// authentication and middleware, so a lower bound for any API call) and
// PostgreSQL's SELECT 1 on the comparison's connection. No search can
// answer faster than its engine's floor, so a target below semcat's floor
// cannot be met over HTTP whatever the index does.
type FloorResult struct {
	HTTP Stats `json:"semcatHealthz"`
	PG   Stats `json:"postgresSelect1"`
}

// runFloor times n round trips of each engine (after warmup unmeasured
// ones), alternating which goes first, as runQueries does.
func runFloor(ctx context.Context, c *Client, pg *PGFTS, n, warmup int) (FloorResult, error) {
	var httpT, pgT []time.Duration
	for i := range warmup + n {
		var httpD, pgD time.Duration
		runHTTP := func() error {
			t0 := time.Now()
			_, _, err := c.fetch(ctx, http.MethodGet, "/healthz", nil)
			httpD = time.Since(t0)
			return err
		}
		runPG := func() error {
			t0 := time.Now()
			err := pg.Ping(ctx)
			pgD = time.Since(t0)
			return err
		}
		if err := alternate(i, runHTTP, runPG); err != nil {
			return FloorResult{}, fmt.Errorf("round trip floor: %w", err)
		}
		if i >= warmup {
			httpT, pgT = append(httpT, httpD), append(pgT, pgD)
		}
	}
	return FloorResult{HTTP: summarize(httpT), PG: summarize(pgT)}, nil
}

// alternate runs a then b on even rounds and b then a on odd ones, so
// that neither engine always goes first (warming caches for the other, or
// waiting behind its leftover work); it stops at the first error.
func alternate(round int, a, b func() error) error {
	if round%2 == 1 {
		a, b = b, a
	}
	if err := a(); err != nil {
		return err
	}
	return b()
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ---- Metric discovery ----------------------------------------------------

// DiscoveryResult compares schema-level metric discovery with the loop a
// client runs without it. Each is timed twice: as HTTP calls, from the
// first request until the last response is wholly read (what DESIGN §6's
// targets compare), and with the client's decoding of the responses by
// encoding/json added, which depends on the client's JSON library rather
// than on semcat.
type DiscoveryResult struct {
	Schema         string  `json:"schema"`
	Models         int     `json:"models"`
	Metrics        int     `json:"metrics"`
	Identifiers    Stats   `json:"identifiers"` // one call, details=false
	Details        Stats   `json:"details"`     // one call, details=true
	Loop           Stats   `json:"loop"`        // list models, GET each
	LoopRequests   int     `json:"loopRequests"`
	SpeedupIDsP50  float64 `json:"speedupIdentifiersP50"`
	SpeedupDetP50  float64 `json:"speedupDetailsP50"`
	SpeedupIDsMean float64 `json:"speedupIdentifiersMean"`
	SpeedupDetMean float64 `json:"speedupDetailsMean"`
	// The same, with decoding by encoding/json included.
	IdentifiersDecoded   Stats   `json:"identifiersDecoded"`
	DetailsDecoded       Stats   `json:"detailsDecoded"`
	LoopDecoded          Stats   `json:"loopDecoded"`
	SpeedupIDsDecodedP50 float64 `json:"speedupIdentifiersDecodedP50"`
	SpeedupDetDecodedP50 float64 `json:"speedupDetailsDecodedP50"`
	// Bytes of the two responses.
	IdentifiersBytes int  `json:"identifiersBytes"`
	DetailsBytes     int  `json:"detailsBytes"`
	Agreed           bool `json:"sameResultsAsLoop"`
	// BeforeAnalyze is details=false right after the load, before the
	// harness ran ANALYZE in semcat's database.
	BeforeAnalyze Stats `json:"identifiersBeforeAnalyze"`
	// ServerIdentifiers and ServerDetails are semcat's own time for each
	// call, from its audit log.
	ServerIdentifiers Stats `json:"serverIdentifiers"`
	ServerDetails     Stats `json:"serverDetails"`
}

// timed is the time of a step as HTTP calls, and with decoding added.
type timed struct{ http, decoded time.Duration }

// getTimed GETs path and decodes the response into out, timing both.
func getTimed(ctx context.Context, c *Client, path string, out any) (timed, int, error) {
	t0 := time.Now()
	data, _, err := c.fetch(ctx, http.MethodGet, path, nil)
	if err != nil {
		return timed{}, 0, err
	}
	d := time.Since(t0)
	if err := json.Unmarshal(data, out); err != nil {
		return timed{}, 0, fmt.Errorf("GET %s: decoding the response: %w", path, err)
	}
	return timed{http: d, decoded: time.Since(t0)}, len(data), nil
}

// discoveryWarmup is how many unmeasured rounds discovery runs first.
const discoveryWarmup = 2

// splitRounds splits the server durations of the discovery calls, which
// each round makes in turn (details=false, then details=true), into the
// measured rounds' two kinds.
func splitRounds(ds []time.Duration, warmup int) (identifiers, details Stats) {
	var ids, det []time.Duration
	for i, d := range ds {
		switch {
		case i < 2*warmup:
		case i%2 == 0:
			ids = append(ids, d)
		default:
			det = append(det, d)
		}
	}
	return summarize(ids), summarize(det)
}

// discovered is one metric as a client ends up with it.
type discovered struct {
	Namespace []string
	Name      string
	Def       json.RawMessage
}

// runDiscovery times n rounds of: GET semantic-model-metrics, the same with
// details=true, and the client loop. Every round's results must be equal.
func runDiscovery(ctx context.Context, c *Client, g *Generator, n, warmup int) (DiscoveryResult, []string, error) {
	cp := g.Plan.Catalogs[g.Plan.Discovery.Catalog]
	sp := cp.Schemas[g.Plan.Discovery.Schema]
	base := "/api/metalakes/" + url.PathEscape(g.Plan.Metalake) + "/catalogs/" + cp.Name + "/schemas/" + sp.Name
	res := DiscoveryResult{Schema: cp.Name + "." + sp.Name, Models: len(sp.Metrics)}
	for _, m := range sp.Metrics {
		res.Metrics += m
	}
	var ids, det, loop, idsDec, detDec, loopDec []time.Duration
	var failures []string
	fail := func(format string, args ...any) {
		if len(failures) < 5 {
			failures = append(failures, "metric discovery: "+fmt.Sprintf(format, args...))
		}
	}
	for i := range warmup + n {
		var idResp struct {
			Identifiers []Identifier `json:"identifiers"`
		}
		t1, size1, err := getTimed(ctx, c, base+"/semantic-model-metrics", &idResp)
		if err != nil {
			return res, nil, err
		}
		var detResp struct {
			Metrics []struct {
				Namespace []string        `json:"namespace"`
				Metric    json.RawMessage `json:"metric"`
			} `json:"metrics"`
		}
		t2, size2, err := getTimed(ctx, c, base+"/semantic-model-metrics?details=true", &detResp)
		if err != nil {
			return res, nil, err
		}
		res.IdentifiersBytes, res.DetailsBytes = size1, size2
		got, requests, t3, err := clientLoop(ctx, c, base)
		if err != nil {
			return res, nil, err
		}
		res.LoopRequests = requests

		// What the loop found, in discovery's order: model, then metric name.
		sort.SliceStable(got, func(a, b int) bool {
			if ma, mb := got[a].Namespace[3], got[b].Namespace[3]; ma != mb {
				return ma < mb
			}
			return got[a].Name < got[b].Name
		})
		if len(got) != res.Metrics {
			fail("the loop found %d metrics, the plan has %d", len(got), res.Metrics)
		}
		if len(idResp.Identifiers) != len(got) {
			fail("details=false returned %d metrics, the loop %d", len(idResp.Identifiers), len(got))
		} else {
			for j, id := range idResp.Identifiers {
				if !equalStrings(id.Namespace, got[j].Namespace) || id.Name != got[j].Name {
					fail("details=false result %d is %v %s, the loop's %v %s", j, id.Namespace, id.Name, got[j].Namespace, got[j].Name)
					break
				}
			}
		}
		if len(detResp.Metrics) != len(got) {
			fail("details=true returned %d metrics, the loop %d", len(detResp.Metrics), len(got))
		} else {
			for j, m := range detResp.Metrics {
				if !equalStrings(m.Namespace, got[j].Namespace) || !sameJSON(m.Metric, got[j].Def) {
					fail("details=true result %d is %v %s, the loop's %v %s", j, m.Namespace, m.Metric, got[j].Namespace, got[j].Def)
					break
				}
			}
		}
		if i >= warmup {
			ids, det, loop = append(ids, t1.http), append(det, t2.http), append(loop, t3.http)
			idsDec, detDec, loopDec = append(idsDec, t1.decoded), append(detDec, t2.decoded), append(loopDec, t3.decoded)
		}
	}
	res.Identifiers, res.Details, res.Loop = summarize(ids), summarize(det), summarize(loop)
	res.SpeedupIDsP50, res.SpeedupDetP50 = res.Loop.P50/res.Identifiers.P50, res.Loop.P50/res.Details.P50
	res.SpeedupIDsMean, res.SpeedupDetMean = res.Loop.Mean/res.Identifiers.Mean, res.Loop.Mean/res.Details.Mean
	res.IdentifiersDecoded, res.DetailsDecoded, res.LoopDecoded = summarize(idsDec), summarize(detDec), summarize(loopDec)
	res.SpeedupIDsDecodedP50 = res.LoopDecoded.P50 / res.IdentifiersDecoded.P50
	res.SpeedupDetDecodedP50 = res.LoopDecoded.P50 / res.DetailsDecoded.P50
	return res, failures, nil
}

// clientLoop is what a client does without discovery: list the schema's
// models, load each, and collect its metrics. Its time as HTTP calls
// includes decoding the listing, which the client needs before it can load
// the models; the models' bodies are decoded after the last call.
func clientLoop(ctx context.Context, c *Client, base string) ([]discovered, int, timed, error) {
	var list struct {
		Identifiers []Identifier `json:"identifiers"`
	}
	t0 := time.Now()
	data, _, err := c.fetch(ctx, http.MethodGet, base+"/semantic-models", nil)
	if err != nil {
		return nil, 0, timed{}, err
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, 0, timed{}, err
	}
	bodies := make([][]byte, len(list.Identifiers))
	for i, id := range list.Identifiers {
		if bodies[i], _, err = c.fetch(ctx, http.MethodGet, base+"/semantic-models/"+url.PathEscape(id.Name), nil); err != nil {
			return nil, 0, timed{}, err
		}
	}
	t := timed{http: time.Since(t0)}
	var out []discovered
	for i, id := range list.Identifiers {
		var m struct {
			SemanticModel struct {
				Definition struct {
					Metrics []json.RawMessage `json:"metrics"`
				} `json:"definition"`
			} `json:"semanticModel"`
		}
		if err := json.Unmarshal(bodies[i], &m); err != nil {
			return nil, 0, timed{}, err
		}
		ns := append(append([]string{}, id.Namespace...), id.Name)
		for _, raw := range m.SemanticModel.Definition.Metrics {
			var name struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(raw, &name); err != nil {
				return nil, 0, timed{}, err
			}
			out = append(out, discovered{Namespace: ns, Name: name.Name, Def: raw})
		}
	}
	t.decoded = time.Since(t0)
	return out, 1 + len(list.Identifiers), t, nil
}

// sameJSON compares two JSON documents by value.
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ca, _ := json.Marshal(va)
	cb, _ := json.Marshal(vb)
	return bytes.Equal(ca, cb)
}

// ---- Write → searchable lag ----------------------------------------------

// LagResult is the time from a write's response until search returns it.
type LagResult struct {
	TargetRate   float64 `json:"targetWritesPerSec"`
	AchievedRate float64 `json:"achievedWritesPerSec"`
	Writes       int     `json:"writes"`
	Lag          Stats   `json:"lag"`
	Write        Stats   `json:"writeLatency"`
	PollMs       float64 `json:"pollIntervalMs"`
	Searches     int     `json:"searches"`
	NotFound     int     `json:"notFound"`
}

// runLag creates small tables in the lag schema at rate per second for dur,
// each with a unique lagref property, while one poller searches for all
// pending values every poll interval (without minPosition) and records when
// each first appears.
func runLag(ctx context.Context, c *Client, g *Generator, rate float64, dur, poll time.Duration) (LagResult, error) {
	cp := g.Plan.Catalogs[g.Plan.Lag.Catalog]
	sp := cp.Schemas[g.Plan.Lag.Schema]
	path := "/api/metalakes/" + url.PathEscape(g.Plan.Metalake) + "/catalogs/" + cp.Name + "/schemas/" + sp.Name + "/tables"
	total := int(rate * dur.Seconds())
	res := LagResult{TargetRate: rate, Writes: total, PollMs: float64(poll) / float64(time.Millisecond)}

	type written struct {
		i  int
		at time.Time
	}
	var mu sync.Mutex
	pending := map[int]time.Time{} // write index → its response time
	var lags, writes []time.Duration
	acked := make(chan written, total)
	errc := make(chan error, 1)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64) // bounds writes in flight if the server falls behind
	start := time.Now()
	var issued time.Duration // from the first write's start to the last's
	wg.Go(func() {
		tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
		defer tick.Stop()
		for i := range total {
			if i > 0 {
				select {
				case <-tick.C:
				case <-ctx.Done():
					return
				}
			}
			sem <- struct{}{}
			mu.Lock()
			issued = time.Since(start)
			mu.Unlock()
			wg.Go(func() {
				defer func() { <-sem }()
				body := map[string]any{"name": fmt.Sprintf("lag_%d", i),
					"columns":    []Column{{Name: "id", Type: "long"}, {Name: "payload", Type: "string"}},
					"properties": map[string]string{"lagref": lagValue(i)}}
				t0 := time.Now()
				if _, err := c.do(ctx, http.MethodPost, path, body, nil); err != nil {
					select {
					case errc <- err:
					default:
					}
					cancel()
					return
				}
				now := time.Now()
				mu.Lock()
				writes = append(writes, now.Sub(t0))
				mu.Unlock()
				acked <- written{i, now}
			})
		}
	})

	// The poller: one search for every pending value, each poll interval.
	found := 0
	deadline := time.Now().Add(dur + time.Minute)
	for found < total && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(poll)
	drain:
		for {
			select {
			case w := <-acked:
				pending[w.i] = w.at
			default:
				break drain
			}
		}
		if len(pending) == 0 {
			continue
		}
		// One search per query.MaxTerms pending values (the most a query
		// may have), at most three a poll: a backlog is searched in turn.
		var terms []string
		for i := range pending {
			terms = append(terms, "lagref:"+lagValue(i))
			if len(terms) == 3*q.MaxTerms {
				break
			}
		}
		for chunk := range slices.Chunk(terms, q.MaxTerms) {
			sr, err := c.Search(ctx, g.Plan.Metalake, SearchParams{Query: strings.Join(chunk, " "), Limit: 1000})
			if err != nil {
				cancel()
				wg.Wait()
				return res, err
			}
			now := time.Now()
			res.Searches++
			for _, h := range sr.Results {
				var i int
				if _, err := fmt.Sscanf(h.Entity.Name, "lag_%d", &i); err != nil {
					continue
				}
				if at, ok := pending[i]; ok {
					lags = append(lags, now.Sub(at))
					delete(pending, i)
					found++
				}
			}
		}
	}
	cancel()
	wg.Wait()
	select {
	case err := <-errc:
		return res, fmt.Errorf("lag write: %w", err)
	default:
	}
	res.NotFound = total - found
	if total > 1 && issued > 0 {
		res.AchievedRate = float64(total-1) / issued.Seconds()
	}
	res.Lag, res.Write = summarize(lags), summarize(writes)
	return res, nil
}

func lagValue(i int) string { return fmt.Sprintf("lagv%06d", i) }

// ---- Full rebuild --------------------------------------------------------

// RebuildResult is a full rebuild of the index from PostgreSQL.
type RebuildResult struct {
	Entities int     `json:"entities"`
	Seconds  float64 `json:"seconds"` // wall time of POST /api/admin/reindex
	ServerMs int64   `json:"serverTookMs"`
	Rate     float64 `json:"entitiesPerSec"`
	Error    string  `json:"error,omitempty"`
	// SearchAfter times word and prefix searches (the search scenario's
	// kinds, drawn afresh) sent as soon as the rebuild has answered:
	// whether the new index searches as fast as the one it replaced, or
	// still carries a backlog of unmerged segments.
	SearchAfter Stats `json:"searchRightAfter"`
}

// searchAfterRebuild runs n searches, n/2 words then n/2 prefixes, as the
// search scenario draws them, and times them.
func searchAfterRebuild(ctx context.Context, c *Client, g *Generator, n int, seed uint64) (Stats, error) {
	var ds []time.Duration
	for ki, kind := range queryKinds[:2] {
		s := newSampler(g, rand.New(rand.NewPCG(seed, 2000+uint64(ki))))
		for range n / 2 {
			qc := kind.gen(s)
			t0 := time.Now()
			if _, err := c.Search(ctx, g.Plan.Metalake, qc.semcat); err != nil {
				return Stats{}, fmt.Errorf("%s query %q right after the rebuild: %w", kind.Name, qc.semcat.Query, err)
			}
			ds = append(ds, time.Since(t0))
		}
	}
	return summarize(ds), nil
}

// runRebuild rebuilds the index (semcat reindex's request) and times it.
func runRebuild(ctx context.Context, c *Client, entities int) RebuildResult {
	res := RebuildResult{Entities: entities}
	var body struct {
		TookMs int64 `json:"tookMs"`
	}
	// A rebuild of 1M entities outlasts the client's 10-minute timeout:
	// this one request waits for as long as the rebuild takes.
	long := *c
	long.hc = &http.Client{Transport: c.hc.Transport}
	t0 := time.Now()
	_, err := long.do(ctx, http.MethodPost, "/api/admin/reindex", nil, &body)
	res.Seconds = time.Since(t0).Seconds()
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.ServerMs = body.TookMs
	res.Rate = float64(entities) / res.Seconds
	return res
}

// countAll returns search's total for "*": every indexed entity.
func countAll(ctx context.Context, c *Client, m string) (uint64, error) {
	sr, err := c.Search(ctx, m, SearchParams{Query: "*", Limit: 1})
	if err != nil {
		return 0, err
	}
	return sr.Total, nil
}
