package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The relevance benchmark (`make bench-relevance`): semcat's ranking on
// several real catalogs, judged, side by side with two field-boosted BM25
// baselines (bm25.go, bm25lucene.go) over the same text, in one run.
//
// For each catalog (relevanceCatalogs: GitLab's, the one the ranking was
// tuned on, and the held-out ones under benchmarks/relevance/<name>/; -catalogs
// picks some) it loads the corpus into a fresh semcat with `semcat import`,
// runs every query of the catalog's queries.jsonl through the search API
// (the defaults a user gets: relevance order, every type) and through the
// baselines, and scores the lists against its judgments.tsv (how the
// judgments were made: the JUDGING.md beside them). Each catalog is reported
// on its own, overall and by query kind, with a paired randomization test
// of semcat against each baseline (signif.go). In GitLab's catalog, queries
// with odd numbers are the tuning half, even ones the held-out half.
//
// With -pool DIR it writes each query's judging pool into DIR/<catalog>/
// instead: the union of every system's top -pool-depth (20 by default), a
// wide-recall run's (poolSearch) and the name matches, with each document's
// text, for the judges.

// relevanceQuery is a line of queries.jsonl.
type relevanceQuery struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"` // gitlab: keyword, natural, identifier; the others: topical, natural, known_item, identifier, column, metric, compound, acronym, typo
	Query  string `json:"query"`
	Intent string `json:"intent"`
}

// half is the half of the query set a query belongs to: "tune" for odd
// numbers, "held-out" for even ones.
func (q relevanceQuery) half() string {
	n, _ := strconv.Atoi(strings.TrimLeft(q.ID, "q"))
	if n%2 == 1 {
		return "tune"
	}
	return "held-out"
}

// Depths of the measures, and of the lists the pools take.
const (
	relevanceDepth = 10
	poolDepth      = 20
	poolWideDepth  = 25
)

// RelevanceResults is the report of a relevance run: each catalog on its
// own.
type RelevanceResults struct {
	Started  time.Time          `json:"started"`
	Commit   string             `json:"commit"`
	Machine  Machine            `json:"machine"`
	Systems  []string           `json:"systems"`
	Catalogs []CatalogRelevance `json:"catalogs"`
}

// CatalogRelevance is one catalog's measures.
type CatalogRelevance struct {
	Name      string                `json:"name"`
	Role      string                `json:"role"` // tuning or held-out
	Corpus    string                `json:"corpus"`
	Documents int                   `json:"documents"`
	Queries   int                   `json:"queries"`
	Judged    int                   `json:"judgments"`
	Summary   []RelevanceSummary    `json:"summary"`
	Tests     []SignificanceTest    `json:"tests"`
	PerQuery  []RelevanceQueryScore `json:"perQuery"`
}

// SignificanceTest is semcat against a baseline over a set of queries: the
// mean per-query difference of nDCG@10 and the two-sided p of a paired
// randomization test (signif.go).
type SignificanceTest struct {
	Set      string  `json:"set"`
	Against  string  `json:"against"`
	Queries  int     `json:"queries"`
	MeanDiff float64 `json:"meanDiff"`
	P        float64 `json:"p"`
}

// RelevanceSummary is one system's measures over a set of queries.
type RelevanceSummary struct {
	System   string  `json:"system"`
	Set      string  `json:"set"` // all, tune, held-out, or a kind
	Queries  int     `json:"queries"`
	NDCG10   float64 `json:"ndcg10"`
	MRR10    float64 `json:"mrr10"`
	P5       float64 `json:"p5"`
	ZeroRate float64 `json:"zeroResultRate"`
	// Unjudged is the share of top-10 results that have no judgment
	// (counted as not relevant).
	Unjudged float64 `json:"unjudgedTop10"`
}

// RelevanceQueryScore is one query's nDCG@10 by system.
type RelevanceQueryScore struct {
	ID    string              `json:"id"`
	Kind  string              `json:"kind"`
	Half  string              `json:"half,omitempty"` // the tuning catalog's halves
	Query string              `json:"query"`
	NDCG  map[string]float64  `json:"ndcg10"`
	Top3  map[string][]string `json:"top3"`
}

// relevanceCatalog is one judged catalog of the benchmark: its corpus, and
// the folder holding its queries.jsonl and judgments.tsv.
type relevanceCatalog struct {
	Name   string
	Corpus string
	Dir    string
	// Tuning is true for the catalog the ranking was tuned on (GitLab's);
	// every other one is held out.
	Tuning bool
}

// relevanceCatalogs are the benchmark's catalogs: GitLab's (the tuning
// catalog; its corpus is -corpus, by default ../shared/data/catalog-corpus.jsonl
// from the module) and the held-out ones under benchmarks/relevance/<name>/
// (corpus.jsonl, SOURCE.md, queries.jsonl, judgments.tsv, JUDGING.md).
func relevanceCatalogs(o options, root string) ([]relevanceCatalog, error) {
	dir := filepath.Join(root, "benchmarks", "relevance")
	gitlab := o.corpus
	if gitlab == "" {
		gitlab = filepath.Join(root, "..", "shared", "data", "catalog-corpus.jsonl")
	}
	all := []relevanceCatalog{{Name: "gitlab", Corpus: gitlab, Dir: dir, Tuning: true}}
	for _, name := range []string{"tuva", "mitol"} {
		all = append(all, relevanceCatalog{Name: name, Corpus: filepath.Join(dir, name, "corpus.jsonl"), Dir: filepath.Join(dir, name)})
	}
	if o.catalogs == "" {
		return all, nil
	}
	var out []relevanceCatalog
	for _, name := range strings.Split(o.catalogs, ",") {
		i := slices.IndexFunc(all, func(c relevanceCatalog) bool { return c.Name == strings.TrimSpace(name) })
		if i < 0 {
			return nil, fmt.Errorf("-catalogs: no catalog %q (have gitlab, tuva, mitol)", name)
		}
		out = append(out, all[i])
	}
	return out, nil
}

// relevance runs the relevance benchmark over each catalog in turn, each in
// a fresh semcat of its own (so that no catalog's words weigh on another's
// ranking). It sets *srv as soon as a server runs, so the caller stops it
// whatever happens.
func relevance(ctx context.Context, o options, root, tmp string, srv **Server, clusterDir *string) error {
	cats, err := relevanceCatalogs(o, root)
	if err != nil {
		return err
	}
	logf("building ./cmd/semcat")
	bin, err := buildSemcat(ctx, root, tmp)
	if err != nil {
		return err
	}
	res := &RelevanceResults{Started: time.Now().UTC(), Commit: gitCommit(root), Machine: machine(), Systems: relevanceSystems}
	for _, c := range cats {
		cr, err := relevanceCatalogRun(ctx, o, c, bin, filepath.Join(tmp, c.Name), srv, clusterDir)
		if err != nil {
			return fmt.Errorf("catalog %s: %w", c.Name, err)
		}
		// Each catalog's server goes before the next one starts.
		s := *srv
		*srv = nil
		if err := s.Stop(90 * time.Second); err != nil {
			return err
		}
		if err := s.stopOrphanedPostgres(60 * time.Second); err != nil {
			return err
		}
		if !o.keep {
			if err := s.removeOutsideCluster(*clusterDir); err != nil {
				logf("warning: %v", err)
			}
		}
		if cr != nil {
			res.Catalogs = append(res.Catalogs, *cr)
		}
	}
	if o.pool != "" {
		return nil
	}
	out := o.out
	if out == "" {
		out = filepath.Join(root, "benchmarks", "results")
	}
	if err := res.write(out); err != nil {
		return err
	}
	fmt.Print(res.Markdown())
	logf("wrote %s/relevance.{md,json}", out)
	return nil
}

// relevanceSystems are the systems compared, semcat first.
var relevanceSystems = []string{"semcat", "bm25", "bm25-lucene"}

// relevanceCatalogRun loads one catalog into a fresh semcat under tmp and
// measures it, or with -pool writes its judging pools (and returns nil).
func relevanceCatalogRun(ctx context.Context, o options, c relevanceCatalog, bin, tmp string, srv **Server, clusterDir *string) (*CatalogRelevance, error) {
	metalake, docs, err := readCorpus(c.Corpus)
	if err != nil {
		return nil, err
	}
	queries, err := readQueries(filepath.Join(c.Dir, "queries.jsonl"))
	if err != nil {
		return nil, err
	}
	var judgments map[string]map[string]int
	if o.pool == "" || o.unjudged {
		if judgments, err = readJudgments(filepath.Join(c.Dir, "judgments.tsv")); err != nil {
			return nil, err
		}
	}
	logf("catalog %s: corpus %s: %d documents; %d queries", c.Name, c.Corpus, len(docs), len(queries))
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	s, err := startServer(ctx, bin, tmp, false)
	*srv = s
	if err != nil {
		return nil, err
	}
	if *clusterDir, err = s.ClusterDir(); err != nil {
		return nil, err
	}
	logf("importing the corpus into semcat at %s", s.URL)
	imp := exec.CommandContext(ctx, bin, "import", c.Corpus, "--server", s.URL)
	if out, err := imp.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("semcat import: %w\n%s", err, out)
	}
	client := newClient(s.URL)
	// A last write, then wait until search covers it and so everything
	// imported before it.
	pos, err := client.do(ctx, "POST", "/api/metalakes", map[string]any{"name": "relevance_sync"}, nil)
	if err != nil {
		return nil, err
	}
	if err := client.WaitSearchable(ctx, "relevance_sync", pos, 5*time.Minute); err != nil {
		return nil, err
	}
	base, err := newBM25Baseline(docs)
	if err != nil {
		return nil, err
	}
	defer base.Close()
	lucene := newLuceneBM25(docs)

	depth := poolDepth
	if o.poolDepth > 0 {
		depth = o.poolDepth
	}
	ranked := make([]map[string][]string, len(queries))
	for i, q := range queries {
		r, err := client.Search(ctx, metalake, SearchParams{Query: q.Query, Limit: depth})
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", q.ID, q.Query, err)
		}
		ranked[i] = map[string][]string{"semcat": r.IDs(), "bm25-lucene": lucene.Search(q.Query, depth)}
		if ranked[i]["bm25"], err = base.Search(q.Query, depth); err != nil {
			return nil, err
		}
		if o.pool != "" {
			if ranked[i]["wide"], err = base.poolSearch(q.Query, depth+depth/4); err != nil {
				return nil, err
			}
		}
	}

	if o.pool != "" && o.unjudged {
		return nil, writeUnjudged(filepath.Join(o.pool, c.Name), queries, docs, ranked, judgments, depth)
	}
	if o.pool != "" {
		return nil, writePools(filepath.Join(o.pool, c.Name), queries, docs, ranked, depth)
	}

	cr := &CatalogRelevance{Name: c.Name, Role: "held-out", Corpus: filepath.Base(c.Corpus), Documents: len(docs), Queries: len(queries)}
	if c.Tuning {
		cr.Role = "tuning"
	}
	for _, g := range judgments {
		cr.Judged += len(g)
	}
	var kinds []string
	for qi, q := range queries {
		if judgments[q.ID] == nil {
			return nil, fmt.Errorf("%s %q has no judgments", q.ID, q.Query)
		}
		if !slices.Contains(kinds, q.Kind) {
			kinds = append(kinds, q.Kind)
		}
		qs := RelevanceQueryScore{ID: q.ID, Kind: q.Kind, Query: q.Query, NDCG: map[string]float64{}, Top3: map[string][]string{}}
		if c.Tuning {
			qs.Half = q.half()
		}
		for _, sys := range relevanceSystems {
			l := ranked[qi][sys]
			qs.NDCG[sys], _ = ndcgAt(relevanceDepth, l, judgments[q.ID])
			qs.Top3[sys] = l[:min(3, len(l))]
		}
		cr.PerQuery = append(cr.PerQuery, qs)
	}
	sets := []string{"all"}
	if c.Tuning {
		sets = append(sets, "tune", "held-out")
	}
	sets = append(sets, kinds...)
	for _, set := range sets {
		in := func(q relevanceQuery) bool {
			return set == "all" || set == q.Kind || c.Tuning && set == q.half()
		}
		for _, sys := range relevanceSystems {
			sum := RelevanceSummary{System: sys, Set: set}
			var ndcgN, top int
			for qi, q := range queries {
				if !in(q) {
					continue
				}
				g, list := judgments[q.ID], ranked[qi][sys]
				sum.Queries++
				if v, ok := ndcgAt(relevanceDepth, list, g); ok {
					sum.NDCG10 += v
					ndcgN++
				}
				sum.MRR10 += reciprocalRankAt(relevanceDepth, list, g)
				sum.P5 += precisionAt(5, list, g)
				if len(list) == 0 {
					sum.ZeroRate++
				}
				for _, k := range list[:min(relevanceDepth, len(list))] {
					top++
					if _, ok := g[k]; !ok {
						sum.Unjudged++
					}
				}
			}
			if sum.Queries == 0 {
				continue
			}
			if ndcgN > 0 {
				sum.NDCG10 /= float64(ndcgN)
			}
			n := float64(sum.Queries)
			sum.MRR10, sum.P5, sum.ZeroRate = sum.MRR10/n, sum.P5/n, sum.ZeroRate/n
			if top > 0 {
				sum.Unjudged /= float64(top)
			}
			cr.Summary = append(cr.Summary, sum)
		}
		// semcat against each baseline, paired over the set's queries that
		// have a judged relevant document.
		for _, other := range relevanceSystems[1:] {
			var diffs []float64
			for qi, q := range queries {
				a, ok := ndcgAt(relevanceDepth, ranked[qi]["semcat"], judgments[q.ID])
				if !in(q) || !ok {
					continue
				}
				b, _ := ndcgAt(relevanceDepth, ranked[qi][other], judgments[q.ID])
				diffs = append(diffs, a-b)
			}
			mean, p := pairedRandomization(diffs, randomizationRounds, 1)
			cr.Tests = append(cr.Tests, SignificanceTest{Set: set, Against: other, Queries: len(diffs), MeanDiff: mean, P: p})
		}
	}
	return cr, nil
}

// randomizationRounds is the paired randomization test's sample of sign
// flips.
const randomizationRounds = 100000

// writePools writes each query's judging pool into dir: the union of each
// system's top depth, the wide-recall run's top depth+depth/4 and the name
// matches (nameMatches), sorted by key so that no system's order shows,
// each document with its text.
func writePools(dir string, queries []relevanceQuery, docs []corpusDoc, ranked []map[string][]string, depth int) error {
	byKey := map[string]*corpusDoc{}
	for i := range docs {
		byKey[docs[i].Key] = &docs[i]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	total := 0
	for i, q := range queries {
		var pool []*corpusDoc
		seen := map[string]bool{}
		lists := [][]string{nameMatches(docs, q.Query, depth+depth/2, depth/2)}
		for _, sys := range append(slices.Clone(relevanceSystems), "wide") {
			lists = append(lists, ranked[i][sys])
		}
		for _, l := range lists {
			for _, k := range l {
				if seen[k] {
					continue
				}
				seen[k] = true
				d := byKey[k]
				if d == nil {
					return fmt.Errorf("%s: result %s is not a corpus document", q.ID, k)
				}
				pool = append(pool, d)
			}
		}
		sort.Slice(pool, func(a, b int) bool { return pool[a].Key < pool[b].Key })
		total += len(pool)
		b, err := json.MarshalIndent(map[string]any{"query": q, "documents": pool}, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, q.ID+".json"), b, 0o644); err != nil {
			return err
		}
	}
	logf("wrote %d pools (%d documents to judge) to %s", len(queries), total, dir)
	return nil
}

// writeUnjudged writes, for a top-up round of judging, the documents of
// each system's top depth that judgments has no grade for: one file per
// query that has any, each document with its text and the systems (and
// ranks) that listed it.
func writeUnjudged(dir string, queries []relevanceQuery, docs []corpusDoc, ranked []map[string][]string, judgments map[string]map[string]int, depth int) error {
	byKey := map[string]*corpusDoc{}
	for i := range docs {
		byKey[docs[i].Key] = &docs[i]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	type entry struct {
		*corpusDoc
		Ranks map[string]int `json:"ranks"`
	}
	total := 0
	for i, q := range queries {
		var pool []*entry
		byDoc := map[string]*entry{}
		for _, sys := range relevanceSystems {
			l := ranked[i][sys]
			for r, k := range l[:min(depth, len(l))] {
				if _, ok := judgments[q.ID][k]; ok {
					continue
				}
				e := byDoc[k]
				if e == nil {
					d := byKey[k]
					if d == nil {
						return fmt.Errorf("%s: result %s is not a corpus document", q.ID, k)
					}
					e = &entry{corpusDoc: d, Ranks: map[string]int{}}
					byDoc[k] = e
					pool = append(pool, e)
				}
				e.Ranks[sys] = r + 1
			}
		}
		if len(pool) == 0 {
			continue
		}
		total += len(pool)
		b, err := json.MarshalIndent(map[string]any{"query": q, "documents": pool}, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, q.ID+".json"), b, 0o644); err != nil {
			return err
		}
	}
	logf("wrote %d unjudged (query, document) pairs to %s", total, dir)
	return nil
}

// nameMatches is the pools' last source: the documents whose name holds
// the query's words joined by "_" (the 30 shortest names), and each word of
// four letters or more (the 10 shortest names each), so that the tables a
// half-remembered name means are judged even when no run ranks them high.
func nameMatches(docs []corpusDoc, query string, joined, perWord int) []string {
	words := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return r == ' ' || r == '*' || r == '"' || r == '\'' || r == '?' })
	shortest := func(sub string, n int) []string {
		var hits []*corpusDoc
		for i := range docs {
			if strings.Contains(strings.ToLower(docs[i].Name), sub) {
				hits = append(hits, &docs[i])
			}
		}
		sort.SliceStable(hits, func(a, b int) bool { return len(hits[a].Name) < len(hits[b].Name) })
		var out []string
		for _, d := range hits[:min(n, len(hits))] {
			out = append(out, d.Key)
		}
		return out
	}
	out := shortest(strings.Join(words, "_"), joined)
	if len(words) > 1 {
		for _, w := range words {
			if len(w) >= 4 {
				out = append(out, shortest(w, perWord)...)
			}
		}
	}
	return out
}

func readQueries(path string) ([]relevanceQuery, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []relevanceQuery
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q relevanceQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, q)
	}
	return out, sc.Err()
}

// readJudgments reads judgments.tsv: "query id <TAB> document key <TAB>
// grade" lines, '#' comments.
func readJudgments(path string) (map[string]map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s:%d: want query, document, grade", path, n)
		}
		g, err := strconv.Atoi(parts[2])
		if err != nil || g < 0 || g > 3 {
			return nil, fmt.Errorf("%s:%d: grade %q is not 0-3", path, n, parts[2])
		}
		if out[parts[0]] == nil {
			out[parts[0]] = map[string]int{}
		}
		out[parts[0]][parts[1]] = g
	}
	return out, sc.Err()
}

// gitCommit is the module's HEAD, with "+dirty" when the tree has changes.
func gitCommit(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}

func (r *RelevanceResults) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "relevance.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "relevance.md"), []byte(r.Markdown()), 0o644)
}

// Markdown is the report: each catalog's nDCG@10 side by side with the
// significance tests, then each catalog's measures by set and by query.
func (r *RelevanceResults) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Relevance: semcat against field-boosted BM25 on several catalogs\n\n")
	fmt.Fprintf(&b, "Commit `%s`, %s. Each catalog is loaded alone into a fresh semcat and searched with the defaults a user gets. "+
		"Baselines over the same text (name^3, description^2, columns, tags; words split at every non-alphanumeric, lower-cased, no stems or typos): "+
		"`bm25` is Bleve's BM25 (sqrt(tf), average length from the field's vocabulary; bm25.go), `bm25-lucene` Lucene's BM25 formula, k1 1.2, b 0.75, summed over the fields (bm25lucene.go). "+
		"Relevant: grade ≥ 2 of 0–3; unjudged results count as 0. `gitlab` is the catalog the ranking was tuned on; every other one is held out "+
		"(how each was judged: benchmarks/relevance/JUDGING.md and benchmarks/relevance/<name>/JUDGING.md). "+
		"Δ is semcat's mean per-query nDCG@10 minus the baseline's; p is a two-sided paired randomization test over the queries' nDCG@10 (%d sign flips; signif.go).\n\n",
		r.Commit, r.Started.Format("2006-01-02"), randomizationRounds)
	fmt.Fprintf(&b, "| catalog | role | documents | queries | judgments | semcat | bm25 | Δ | p | bm25-lucene | Δ | p |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.Catalogs {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %.3f |", c.Name, c.Role, c.Documents, c.Queries, c.Judged, c.ndcg("all", "semcat"))
		for _, sys := range r.Systems[1:] {
			t := c.test("all", sys)
			fmt.Fprintf(&b, " %.3f | %+.3f | %s |", c.ndcg("all", sys), t.MeanDiff, fmtP(t.P))
		}
		b.WriteString("\n")
	}
	for _, c := range r.Catalogs {
		fmt.Fprintf(&b, "\n## %s (%s)\n\nCorpus `%s`, %d documents, %d queries, %d judgments.\n\n", c.Name, c.Role, c.Corpus, c.Documents, c.Queries, c.Judged)
		fmt.Fprintf(&b, "| queries | n | semcat | bm25 | Δ | p | bm25-lucene | Δ | p |\n|---|---|---|---|---|---|---|---|---|\n")
		var sets []string
		for _, s := range c.Summary {
			if !slices.Contains(sets, s.Set) {
				sets = append(sets, s.Set)
			}
		}
		for _, set := range sets {
			fmt.Fprintf(&b, "| %s | %d | %.3f |", set, c.test(set, "bm25").Queries, c.ndcg(set, "semcat"))
			for _, sys := range r.Systems[1:] {
				t := c.test(set, sys)
				fmt.Fprintf(&b, " %.3f | %+.3f | %s |", c.ndcg(set, sys), t.MeanDiff, fmtP(t.P))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\n| queries | n | system | nDCG@10 | MRR@10 | P@5 | zero results | unjudged in top 10 |\n|---|---|---|---|---|---|---|---|\n")
		for _, s := range c.Summary {
			fmt.Fprintf(&b, "| %s | %d | %s | %.3f | %.3f | %.3f | %.1f%% | %.1f%% |\n", s.Set, s.Queries, s.System, s.NDCG10, s.MRR10, s.P5, 100*s.ZeroRate, 100*s.Unjudged)
		}
		fmt.Fprintf(&b, "\n### %s by query (nDCG@10)\n\n| id | kind | query | semcat | bm25 | bm25-lucene | semcat's top 3 |\n|---|---|---|---|---|---|---|\n", c.Name)
		for _, q := range c.PerQuery {
			kind := q.Kind
			if q.Half != "" {
				kind += ", " + q.Half
			}
			fmt.Fprintf(&b, "| %s | %s | `%s` | %.3f | %.3f | %.3f | %s |\n", q.ID, kind, q.Query, q.NDCG["semcat"], q.NDCG["bm25"], q.NDCG["bm25-lucene"], strings.Join(q.Top3["semcat"], ", "))
		}
	}
	return b.String()
}

// ndcg is sys's mean nDCG@10 over set.
func (c *CatalogRelevance) ndcg(set, sys string) float64 {
	for _, s := range c.Summary {
		if s.Set == set && s.System == sys {
			return s.NDCG10
		}
	}
	return 0
}

// test is semcat's test against sys over set.
func (c *CatalogRelevance) test(set, sys string) SignificanceTest {
	for _, t := range c.Tests {
		if t.Set == set && t.Against == sys {
			return t
		}
	}
	return SignificanceTest{P: 1}
}

func fmtP(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return fmt.Sprintf("%.3f", p)
}
