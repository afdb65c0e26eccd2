package main

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	bq "github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// The relevance benchmark's baseline: what DataHub's and OpenMetadata's
// users get from Elasticsearch, a multi_match over name^3, description^2,
// columns and tags scored with BM25 — here Bleve's BM25, over the same
// corpus text. Bleve's BM25 differs from Lucene's in two ways the
// benchmark's notes repeat: it takes sqrt(tf) for the term frequency, and
// the average field length from the field's vocabulary, not from its
// documents. The analyzer splits at every character that is not a letter
// or digit (so snake_case names are words, as DataHub's word-delimiter
// analyzer makes them) and lower-cases; no stems, no stop words, no typo
// tolerance: Elasticsearch's multi_match does none of them by default.

// bm25Analyzer is the baseline's analyzer name; bm25StemAnalyzer adds
// English stems, for the judging pools' wide-recall run (poolSearch).
const (
	bm25Analyzer     = "bench_bm25_words"
	bm25StemAnalyzer = "bench_bm25_stems"
)

func init() {
	err := registry.RegisterTokenizer(bm25Analyzer, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return wordTokenizer{}, nil
	})
	if err == nil {
		err = registry.RegisterAnalyzer(bm25Analyzer, func(_ map[string]interface{}, cache *registry.Cache) (analysis.Analyzer, error) {
			tok, err := cache.TokenizerNamed(bm25Analyzer)
			if err != nil {
				return nil, err
			}
			lower, err := cache.TokenFilterNamed(lowercase.Name)
			if err != nil {
				return nil, err
			}
			return &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: []analysis.TokenFilter{lower}}, nil
		})
	}
	if err == nil {
		err = registry.RegisterAnalyzer(bm25StemAnalyzer, func(_ map[string]interface{}, cache *registry.Cache) (analysis.Analyzer, error) {
			a, err := cache.AnalyzerNamed(bm25Analyzer)
			if err != nil {
				return nil, err
			}
			stem, err := cache.TokenFilterNamed(en.SnowballStemmerName)
			if err != nil {
				return nil, err
			}
			d := *a.(*analysis.DefaultAnalyzer)
			d.TokenFilters = append(slices.Clip(d.TokenFilters), stem)
			return &d, nil
		})
	}
	if err != nil {
		panic(err)
	}
}

// wordTokenizer splits at every rune that is not a letter or a digit.
type wordTokenizer struct{}

func (wordTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	start := -1
	pos := 0
	flush := func(end int) {
		if start >= 0 {
			pos++
			out = append(out, &analysis.Token{Term: append([]byte(nil), input[start:end]...), Start: start, End: end, Position: pos, Type: analysis.AlphaNumeric})
			start = -1
		}
	}
	for i, r := range string(input) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(input))
	return out
}

// bm25Fields are the baseline's fields and their boosts.
var bm25Fields = []struct {
	name  string
	boost float64
}{{"name", 3}, {"description", 2}, {"columns", 1}, {"tags", 1}}

// BM25Baseline is an in-memory Bleve index of the corpus scored with BM25.
type BM25Baseline struct {
	idx bleve.Index
}

// newBM25Baseline indexes docs: the name, the description, the columns'
// paths and comments, the tags.
func newBM25Baseline(docs []corpusDoc) (*BM25Baseline, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	im.DefaultAnalyzer = bm25Analyzer
	dm := bleve.NewDocumentMapping()
	for _, f := range bm25Fields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = bm25Analyzer
		fm.Store = false
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		stems := bleve.NewTextFieldMapping()
		stems.Name = f.name + "_stems"
		stems.Analyzer = bm25StemAnalyzer
		stems.Store = false
		stems.IncludeInAll = false
		stems.IncludeTermVectors = false
		dm.AddFieldMappingsAt(f.name, fm, stems)
	}
	whole := bleve.NewKeywordFieldMapping()
	whole.Store = false
	whole.IncludeInAll = false
	dm.AddFieldMappingsAt("name_whole", whole)
	im.DefaultMapping = dm
	var _ mapping.IndexMapping = im
	idx, err := bleve.NewMemOnly(im)
	if err != nil {
		return nil, err
	}
	b := idx.NewBatch()
	for _, d := range docs {
		var cols []string
		for _, c := range d.Columns {
			cols = append(cols, c.Path, c.Comment)
		}
		if err := b.Index(d.Key, map[string]any{
			"name": d.Name, "name_whole": strings.ToLower(d.Name), "description": d.Description, "columns": strings.Join(cols, "\n"), "tags": strings.Join(d.Tags, " "),
		}); err != nil {
			return nil, err
		}
	}
	if err := idx.Batch(b); err != nil {
		return nil, err
	}
	return &BM25Baseline{idx: idx}, nil
}

// Search returns the keys of the top limit documents for text: a match
// query per field (any of the query's words), boosted, summed.
func (b *BM25Baseline) Search(text string, limit int) ([]string, error) {
	var fields []bq.Query
	for _, f := range bm25Fields {
		m := bq.NewMatchQuery(text)
		m.SetField(f.name)
		m.Analyzer = bm25Analyzer
		m.SetBoost(f.boost)
		fields = append(fields, m)
	}
	return b.top(bq.NewDisjunctionQuery(fields), limit)
}

// top returns the keys of the best limit documents for q, ties by key.
func (b *BM25Baseline) top(q bq.Query, limit int) ([]string, error) {
	req := bleve.NewSearchRequestOptions(q, limit, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := b.idx.Search(req)
	if err != nil {
		return nil, fmt.Errorf("bm25 baseline: %w", err)
	}
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.ID
	}
	return out, nil
}

// poolSearch is a wide-recall run for the judging pools, not a baseline:
// what an engine with stems, typo tolerance and name prefixes could put in
// its top results, so that the judgments cover them too. Per field, the
// query's stems, each word of five letters or more within two edits, and names that start with a word or with the whole query.
func (b *BM25Baseline) poolSearch(text string, limit int) ([]string, error) {
	var qs []bq.Query
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
	for _, f := range bm25Fields {
		m := bq.NewMatchQuery(text)
		m.SetField(f.name + "_stems")
		m.Analyzer = bm25StemAnalyzer
		m.SetBoost(f.boost)
		qs = append(qs, m)
		for _, w := range words {
			for _, part := range strings.Split(w, "_") {
				if n := len([]rune(part)); n >= 5 {
					fz := bq.NewFuzzyQuery(part)
					fz.SetField(f.name)
					fz.Fuzziness = 2 // a transposition is two edits here
					fz.SetBoost(f.boost / 2)
					qs = append(qs, fz)
				}
			}
		}
	}
	for _, w := range append(words, strings.Join(words, "_")) {
		if len(w) >= 3 {
			p := bq.NewPrefixQuery(w)
			p.SetField("name_whole")
			p.SetBoost(3)
			qs = append(qs, p)
		}
	}
	return b.top(bq.NewDisjunctionQuery(qs), limit)
}

// Close releases the index.
func (b *BM25Baseline) Close() error { return b.idx.Close() }
