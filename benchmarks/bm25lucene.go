package main

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// A second baseline, "bm25-lucene": Lucene's BM25 exactly (Lucene 8 and
// later, as Elasticsearch and OpenSearch score): per field,
//
//	idf(t)  = ln(1 + (N - n + 0.5) / (n + 0.5))
//	score   = idf(t) * f / (f + k1 * (1 - b + b * dl / avgdl))
//
// with N the documents that have the field, n those holding t, f the
// term's count in the field, dl the field's length in words and avgdl the
// field's mean length over the documents that have it; k1 = 1.2, b = 0.75.
// The query is a multi_match of type most_fields over name^3,
// description^2, columns, tags (the same fields, boosts, words and sum as
// the Bleve baseline in bm25.go, which differs from Lucene in taking
// sqrt(tf) and the average length from the field's vocabulary). Lucene's
// lossy one-byte encoding of a document's length is not reproduced.
type LuceneBM25 struct {
	keys   []string
	fields []luceneField
}

type luceneField struct {
	boost    float64
	docs     float64 // documents that have the field
	avgLen   float64
	lens     []float64
	postings map[string][]lucenePosting
}

type lucenePosting struct {
	doc  int
	freq float64
}

const (
	luceneK1 = 1.2
	luceneB  = 0.75
)

// luceneWords splits at every rune that is not a letter or a digit and
// lower-cases, as the Bleve baseline's analyzer.
func luceneWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// newLuceneBM25 indexes the documents' name, description, columns (paths
// and comments) and tags.
func newLuceneBM25(docs []corpusDoc) *LuceneBM25 {
	l := &LuceneBM25{keys: make([]string, len(docs))}
	texts := make([][]string, len(bm25Fields))
	for i, d := range docs {
		l.keys[i] = d.Key
		var cols []string
		for _, c := range d.Columns {
			cols = append(cols, c.Path, c.Comment)
		}
		texts[0] = append(texts[0], d.Name)
		texts[1] = append(texts[1], d.Description)
		texts[2] = append(texts[2], strings.Join(cols, "\n"))
		texts[3] = append(texts[3], strings.Join(d.Tags, " "))
	}
	for fi, f := range bm25Fields {
		lf := luceneField{boost: f.boost, lens: make([]float64, len(docs)), postings: map[string][]lucenePosting{}}
		var total float64
		for doc, text := range texts[fi] {
			words := luceneWords(text)
			if len(words) == 0 {
				continue
			}
			lf.docs++
			lf.lens[doc] = float64(len(words))
			total += float64(len(words))
			counts := map[string]float64{}
			for _, w := range words {
				counts[w]++
			}
			for w, n := range counts {
				lf.postings[w] = append(lf.postings[w], lucenePosting{doc, n})
			}
		}
		if lf.docs > 0 {
			lf.avgLen = total / lf.docs
		}
		l.fields = append(l.fields, lf)
	}
	return l
}

// Search returns the keys of the top limit documents for text, ties by
// key.
func (l *LuceneBM25) Search(text string, limit int) []string {
	scores := map[int]float64{}
	for _, f := range l.fields {
		for _, w := range luceneWords(text) {
			ps := f.postings[w]
			if len(ps) == 0 {
				continue
			}
			n := float64(len(ps))
			idf := math.Log(1 + (f.docs-n+0.5)/(n+0.5))
			for _, p := range ps {
				norm := luceneK1 * (1 - luceneB + luceneB*f.lens[p.doc]/f.avgLen)
				scores[p.doc] += f.boost * idf * p.freq / (p.freq + norm)
			}
		}
	}
	docs := make([]int, 0, len(scores))
	for d := range scores {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(a, b int) bool {
		if sa, sb := scores[docs[a]], scores[docs[b]]; sa != sb {
			return sa > sb
		}
		return l.keys[docs[a]] < l.keys[docs[b]]
	})
	out := make([]string, 0, min(limit, len(docs)))
	for _, d := range docs[:min(limit, len(docs))] {
		out = append(out, l.keys[d])
	}
	return out
}
