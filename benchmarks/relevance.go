package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The relevance benchmark (`make bench-relevance`): semcat's ranking on a
// real catalog, judged, side by side with a field-boosted BM25 baseline
// (bm25.go) over the same text, in one run.
//
// It loads the corpus into a fresh semcat with `semcat import`, runs every
// query of benchmarks/relevance/queries.jsonl through the search API (the
// defaults a user gets: relevance order, every type) and through the
// baseline, and scores both lists against benchmarks/relevance/judgments.tsv
// (how the judgments were made: benchmarks/relevance/JUDGING.md). Queries
// with odd numbers are the tuning half, even ones the held-out half.
//
// With -pool DIR it writes each query's judging pool instead: the union of
// both systems' top 20 and a wide-recall run's top 25 (poolSearch), with
// each document's text, for the judges.

// relevanceQuery is a line of queries.jsonl.
type relevanceQuery struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"` // keyword, natural, identifier
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

// RelevanceResults is the report of a relevance run.
type RelevanceResults struct {
	Started   time.Time             `json:"started"`
	Commit    string                `json:"commit"`
	Machine   Machine               `json:"machine"`
	Corpus    string                `json:"corpus"`
	Documents int                   `json:"documents"`
	Queries   int                   `json:"queries"`
	Judged    int                   `json:"judgments"`
	Systems   []string              `json:"systems"`
	Summary   []RelevanceSummary    `json:"summary"`
	PerQuery  []RelevanceQueryScore `json:"perQuery"`
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
	Half  string              `json:"half"`
	Query string              `json:"query"`
	NDCG  map[string]float64  `json:"ndcg10"`
	Top3  map[string][]string `json:"top3"`
}

// relevance runs the relevance benchmark. It sets *srv as soon as the
// server runs, so the caller stops it whatever happens.
func relevance(ctx context.Context, o options, root, tmp string, srv **Server, clusterDir *string) error {
	dir := filepath.Join(root, "benchmarks", "relevance")
	corpusPath := o.corpus
	if corpusPath == "" {
		corpusPath = filepath.Join(root, "..", "shared", "data", "catalog-corpus.jsonl")
	}
	metalake, docs, err := readCorpus(corpusPath)
	if err != nil {
		return err
	}
	queries, err := readQueries(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return err
	}
	var judgments map[string]map[string]int
	if o.pool == "" {
		if judgments, err = readJudgments(filepath.Join(dir, "judgments.tsv")); err != nil {
			return err
		}
	}
	logf("corpus %s: %d documents; %d queries", corpusPath, len(docs), len(queries))

	logf("building ./cmd/semcat")
	bin, err := buildSemcat(ctx, root, tmp)
	if err != nil {
		return err
	}
	s, err := startServer(ctx, bin, tmp, false)
	*srv = s
	if err != nil {
		return err
	}
	if *clusterDir, err = s.ClusterDir(); err != nil {
		return err
	}
	logf("importing the corpus into semcat at %s", s.URL)
	imp := exec.CommandContext(ctx, bin, "import", corpusPath, "--server", s.URL)
	if out, err := imp.CombinedOutput(); err != nil {
		return fmt.Errorf("semcat import: %w\n%s", err, out)
	}
	client := newClient(s.URL)
	// A last write, then wait until search covers it and so everything
	// imported before it.
	pos, err := client.do(ctx, "POST", "/api/metalakes", map[string]any{"name": "relevance_sync"}, nil)
	if err != nil {
		return err
	}
	if err := client.WaitSearchable(ctx, "relevance_sync", pos, 5*time.Minute); err != nil {
		return err
	}
	base, err := newBM25Baseline(docs)
	if err != nil {
		return err
	}
	defer base.Close()

	type lists struct{ semcat, bm25, wide []string }
	ranked := make([]lists, len(queries))
	for i, q := range queries {
		r, err := client.Search(ctx, metalake, SearchParams{Query: q.Query, Limit: poolDepth})
		if err != nil {
			return fmt.Errorf("%s %q: %w", q.ID, q.Query, err)
		}
		ranked[i].semcat = r.IDs()
		if ranked[i].bm25, err = base.Search(q.Query, poolDepth); err != nil {
			return err
		}
		if o.pool != "" {
			if ranked[i].wide, err = base.poolSearch(q.Query, poolWideDepth); err != nil {
				return err
			}
		}
	}

	if o.pool != "" {
		byKey := map[string]*corpusDoc{}
		for i := range docs {
			byKey[docs[i].Key] = &docs[i]
		}
		if err := os.MkdirAll(o.pool, 0o755); err != nil {
			return err
		}
		total := 0
		for i, q := range queries {
			var pool []*corpusDoc
			seen := map[string]bool{}
			for _, l := range [][]string{ranked[i].semcat, ranked[i].bm25, ranked[i].wide, nameMatches(docs, q.Query)} {
				for _, k := range l {
					if !seen[k] {
						seen[k] = true
						if d := byKey[k]; d != nil {
							pool = append(pool, d)
						} else {
							return fmt.Errorf("%s: result %s is not a corpus document", q.ID, k)
						}
					}
				}
			}
			// Sorted by key, so the judges see no system's order.
			sort.Slice(pool, func(a, b int) bool { return pool[a].Key < pool[b].Key })
			total += len(pool)
			b, err := json.MarshalIndent(map[string]any{"query": q, "documents": pool}, "", " ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(o.pool, q.ID+".json"), b, 0o644); err != nil {
				return err
			}
		}
		logf("wrote %d pools (%d documents to judge) to %s", len(queries), total, o.pool)
		return nil
	}

	res := &RelevanceResults{Started: time.Now().UTC(), Commit: gitCommit(root), Machine: machine(), Corpus: filepath.Base(corpusPath),
		Documents: len(docs), Queries: len(queries), Systems: []string{"semcat", "bm25"}}
	for _, g := range judgments {
		res.Judged += len(g)
	}
	type scored struct {
		q      relevanceQuery
		system string
		list   []string
	}
	var all []scored
	for i, q := range queries {
		if judgments[q.ID] == nil {
			return fmt.Errorf("%s %q has no judgments", q.ID, q.Query)
		}
		all = append(all, scored{q, "semcat", ranked[i].semcat}, scored{q, "bm25", ranked[i].bm25})
		qs := RelevanceQueryScore{ID: q.ID, Kind: q.Kind, Half: q.half(), Query: q.Query, NDCG: map[string]float64{}, Top3: map[string][]string{}}
		for sys, l := range map[string][]string{"semcat": ranked[i].semcat, "bm25": ranked[i].bm25} {
			qs.NDCG[sys], _ = ndcgAt(relevanceDepth, l, judgments[q.ID])
			qs.Top3[sys] = l[:min(3, len(l))]
		}
		res.PerQuery = append(res.PerQuery, qs)
	}
	for _, set := range []string{"all", "tune", "held-out", "keyword", "natural", "identifier"} {
		for _, sys := range res.Systems {
			sum := RelevanceSummary{System: sys, Set: set}
			var ndcgN, top int
			for _, s := range all {
				if s.system != sys || !(set == "all" || set == s.q.half() || set == s.q.Kind) {
					continue
				}
				g := judgments[s.q.ID]
				sum.Queries++
				if v, ok := ndcgAt(relevanceDepth, s.list, g); ok {
					sum.NDCG10 += v
					ndcgN++
				}
				sum.MRR10 += reciprocalRankAt(relevanceDepth, s.list, g)
				sum.P5 += precisionAt(5, s.list, g)
				if len(s.list) == 0 {
					sum.ZeroRate++
				}
				for _, k := range s.list[:min(relevanceDepth, len(s.list))] {
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
			res.Summary = append(res.Summary, sum)
		}
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

// nameMatches is the pools' last source: the documents whose name holds
// the query's words joined by "_" (the 30 shortest names), and each word of
// four letters or more (the 10 shortest names each), so that the tables a
// half-remembered name means are judged even when no run ranks them high.
func nameMatches(docs []corpusDoc, query string) []string {
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
	out := shortest(strings.Join(words, "_"), 30)
	if len(words) > 1 {
		for _, w := range words {
			if len(w) >= 4 {
				out = append(out, shortest(w, 10)...)
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

// Markdown is the report: the measures side by side, then each query.
func (r *RelevanceResults) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Relevance: semcat against a field-boosted BM25\n\n")
	fmt.Fprintf(&b, "Commit `%s`, %s. Corpus `%s` (%d documents), %d queries, %d judgments (benchmarks/relevance/JUDGING.md). "+
		"Baseline: Bleve's BM25 (sqrt(tf), average length from the field's vocabulary) over name^3, description^2, columns, tags (bm25.go). "+
		"Odd-numbered queries are the tuning half, even ones held out. Relevant: grade ≥ 2 of 0–3; unjudged results count as 0.\n\n",
		r.Commit, r.Started.Format("2006-01-02"), r.Corpus, r.Documents, r.Queries, r.Judged)
	fmt.Fprintf(&b, "| queries | n | system | nDCG@10 | MRR@10 | P@5 | zero results | unjudged in top 10 |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Summary {
		fmt.Fprintf(&b, "| %s | %d | %s | %.3f | %.3f | %.3f | %.1f%% | %.1f%% |\n", s.Set, s.Queries, s.System, s.NDCG10, s.MRR10, s.P5, 100*s.ZeroRate, 100*s.Unjudged)
	}
	fmt.Fprintf(&b, "\n## By query (nDCG@10)\n\n| id | kind | half | query | semcat | bm25 | semcat's top 3 |\n|---|---|---|---|---|---|---|\n")
	for _, q := range r.PerQuery {
		fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %.3f | %.3f | %s |\n", q.ID, q.Kind, q.Half, q.Query, q.NDCG["semcat"], q.NDCG["bm25"], strings.Join(q.Top3["semcat"], ", "))
	}
	return b.String()
}
