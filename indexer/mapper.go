package indexer

import (
	"fmt"
	"unsafe"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/searchdoc"
)

// mapper turns the field map Document builds into a Bleve document by the
// index mapping's rules, as Batch.Index does, but without walking the map
// by reflection on every write, and with one difference the mapping cannot
// express: the fields of a property map (u.<key>, s.<key>, …), which Bleve
// maps dynamically, are indexed without term vectors. Bleve's dynamic text
// fields always keep them, and nothing reads them: search explains hits
// from stored metadata (search.Evaluation.Leaves), and every location was
// one more thing to build, merge and map for each of those fields' terms.
type mapper struct {
	// fields maps a document key to the fields it is indexed as (a field
	// and its prefix field share a key).
	fields map[string][]fieldRule
	// dynamic maps a property map's key to the rule of each of its fields,
	// named key + "." + property key.
	dynamic map[string]fieldRule
	// dropped names the document keys whose values are left out (a
	// breakdown's mapper: breakdown.go).
	dropped map[string]bool
}

// fieldRule is how one field is indexed.
type fieldRule struct {
	name     string // the field's name; "" for the document key's own
	analyzer analysis.Analyzer
	options  index.FieldIndexingOptions
}

// documents is the mapper of the indexer's mapping; mappings are fixed
// when the package is built, so one is enough.
var documents = newMapper(newMapping().(*mapping.IndexMappingImpl))

// newMapper reads im's default document mapping.
func newMapper(im *mapping.IndexMappingImpl) *mapper {
	m := &mapper{fields: map[string][]fieldRule{}, dynamic: map[string]fieldRule{}}
	analyzer := func(name string) analysis.Analyzer {
		if name == "" {
			name = im.DefaultAnalyzer
		}
		a := im.AnalyzerNamed(name)
		if a == nil {
			panic("indexer: the mapping names an unknown analyzer " + name)
		}
		return a
	}
	for key, dm := range im.DefaultMapping.Properties {
		if !dm.Enabled {
			continue
		}
		if dm.Dynamic && len(dm.Properties) == 0 && len(dm.Fields) == 0 {
			m.dynamic[key] = fieldRule{analyzer: analyzer(dm.DefaultAnalyzer), options: index.IndexField}
			continue
		}
		for _, fm := range dm.Fields {
			m.fields[key] = append(m.fields[key], fieldRule{name: fm.Name, analyzer: analyzer(fm.Analyzer), options: fm.Options()})
		}
	}
	return m
}

// document maps a document's fields: each value a string or a list of
// strings, and each property map a map of them. A key the mapping does not
// name is an error, not a field silently left out of the index.
func (m *mapper) document(id string, fields map[string]any) (*document.Document, error) {
	doc := document.NewDocument(id)
	for key, v := range fields {
		if m.dropped[key] {
			continue
		}
		if rules, ok := m.fields[key]; ok {
			if err := addValues(doc, key, rules, v); err != nil {
				return nil, err
			}
			continue
		}
		rule, ok := m.dynamic[key]
		if !ok {
			return nil, fmt.Errorf("indexer: document field %q is not in the index mapping", key)
		}
		props, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("indexer: document field %q holds %T, want a property map", key, v)
		}
		rules := []fieldRule{rule}
		for k, pv := range props {
			if err := addValues(doc, key+"."+k, rules, pv); err != nil {
				return nil, err
			}
		}
	}
	doc.SetIndexed()
	return doc, nil
}

// addValues adds a string or each string of a list as the fields of rules.
func addValues(doc *document.Document, key string, rules []fieldRule, v any) error {
	var values []string
	switch v := v.(type) {
	case string:
		values = []string{v}
	case []string:
		values = v
	default:
		return fmt.Errorf("indexer: document field %q holds %T, want a string or strings", key, v)
	}
	for _, r := range rules {
		name := r.name
		if name == "" {
			name = key
		}
		if len(values) > 1 && r.options&(index.StoreField|index.IncludeTermVectors) == 0 {
			doc.AddField(&multiField{name: name, values: values, rule: r})
			continue
		}
		for _, s := range values {
			doc.AddField(document.NewTextFieldCustom(name, nil, []byte(s), r.options, r.analyzer))
		}
	}
	return nil
}

// multiField is the values of a multi-valued field as one Bleve field:
// their terms counted in one map, as Bleve's segment builder counts them
// when each value is a field of its own (it merges the maps of a
// document's fields of one name). A table's schema entries, up to hundreds
// of values for each of two fields, were as many analyses, maps and
// merges: in a rebuild's profile, the merges alone (TokenFrequencies.MergeAll)
// took 7% of the CPU. Only for fields neither stored nor keeping term
// vectors, whose values and positions nothing reads back.
//
// Rebuilding 100k entities (wall, CPU, peak RSS of a freshly started
// server; runs alternated): a field per value 137-143 s, 259-268 s,
// 1.27-1.42 GB (3 runs); multiField 121-128 s, 226-237 s, 1.00-1.06 GB
// (2 runs).
type multiField struct {
	name string
	// values is the document's own slice, read when Bleve analyses the
	// batch: Document builds fresh slices for every document, and nothing
	// changes them after.
	values []string
	rule   fieldRule
	length int
	freqs  index.TokenFrequencies
	// freqsSize is freqs.Size(), counted in Analyze: Bleve asks a batch's
	// fields for their size, and TokenFrequencies.Size walks every term
	// (2% of a rebuild's CPU when this field asked it).
	freqsSize int
}

func (f *multiField) Name() string                                     { return f.name }
func (f *multiField) ArrayPositions() []uint64                         { return nil }
func (f *multiField) Options() index.FieldIndexingOptions              { return f.rule.options }
func (f *multiField) Value() []byte                                    { return nil }
func (f *multiField) EncodedFieldType() byte                           { return 't' }
func (f *multiField) AnalyzedLength() int                              { return f.length }
func (f *multiField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }

func (f *multiField) NumPlainTextBytes() uint64 {
	var n uint64
	for _, v := range f.values {
		n += uint64(len(v))
	}
	return n
}

// Size is the field's memory, as Bleve accounts for a batch's.
func (f *multiField) Size() int {
	n := int(unsafe.Sizeof(*f)) + len(f.name) + int(f.NumPlainTextBytes()) + len(f.values)*int(unsafe.Sizeof(""))
	return n + f.freqsSize
}

// Analyze counts the terms of every value; a term's frequency is its
// count over all values, unless the field keeps no frequencies, and the
// field's length is the number of terms of all values. The map is sized,
// and its entries allocated, once for all the values' terms.
func (f *multiField) Analyze() {
	streams := make([]analysis.TokenStream, len(f.values))
	n := 0
	for i, v := range f.values {
		streams[i] = f.rule.analyzer.Analyze([]byte(v))
		n += len(streams[i])
	}
	counts := !f.rule.options.SkipFreqNorm()
	f.length = n
	f.freqs = make(index.TokenFrequencies, n)
	entries := make([]index.TokenFreq, 0, n)
	termBytes := 0
	for _, tokens := range streams {
		for _, t := range tokens {
			tf, ok := f.freqs[string(t.Term)]
			if !ok {
				entries = append(entries, index.TokenFreq{Term: t.Term})
				tf = &entries[len(entries)-1]
				f.freqs[string(t.Term)] = tf
				termBytes += len(t.Term)
			}
			if counts {
				tf.SetFrequency(tf.Frequency() + 1)
			}
		}
	}
	f.freqsSize = freqsSize(len(f.freqs), termBytes)
}

// freqsSize is what TokenFrequencies.Size says of a map of terms holding
// termBytes bytes in all, without locations: the map, and each term as a
// key, a pointer and a TokenFreq holding the term again.
func freqsSize(terms, termBytes int) int {
	const word = int(unsafe.Sizeof(uintptr(0)))
	return word + terms*(int(unsafe.Sizeof(""))+word+int(unsafe.Sizeof(index.TokenFreq{}))) + 2*termBytes
}

// addDocument adds the search document of r to b.
func addDocument(b *bleve.Batch, r *semcat.EntityRecord) error {
	doc, err := searchdoc.Document(r)
	if err != nil {
		return err
	}
	return addMapped(b, DocID(r.Kind, r.ID), doc)
}

// addMapped adds a document's fields to b under id.
func addMapped(b *bleve.Batch, id string, fields map[string]any) error {
	doc, err := documents.document(id, fields)
	if err != nil {
		return err
	}
	return b.IndexAdvanced(doc)
}
