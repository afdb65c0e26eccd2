package analyzers

import (
	"bytes"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
)

// schemaFieldTokenizer is AnalyzerSchemaField's tokenizer (SPEC §5.3). Its
// input is one schema entry, "dotted.path:type": path segments never hold
// '.' or ':', so the type is everything after the last ':' and the field's
// name is the path's last segment. It emits the name, the path, name:type
// and path:type, lower-cased; an entry without ':' has no type, and a
// top-level field's name is its path, emitted once.
type schemaFieldTokenizer struct{}

func (schemaFieldTokenizer) Tokenize(input []byte) analysis.TokenStream {
	pathEnd, typeStart := len(input), len(input)
	if i := bytes.LastIndexByte(input, ':'); i >= 0 {
		pathEnd, typeStart = i, i+1
	}
	nameStart := bytes.LastIndexByte(input[:pathEnd], '.') + 1

	// Each piece is lower-cased, trimmed and whitespace-collapsed on its
	// own into one buffer; the combined terms are appended after them.
	buf := make([]byte, 0, 3*len(input)+2)
	var path, name, typ piece
	buf, path = lowerPiece(buf, input, 0, pathEnd)
	buf, name = lowerPiece(buf, input, nameStart, pathEnd)
	buf, typ = lowerPiece(buf, input, typeStart, len(input))

	s := newStream(3*len(buf), 4)
	s.emit(buf[name.low:name.lowEnd], name.start, name.end)
	s.emit(buf[path.low:path.lowEnd], path.start, path.end)
	if typ.lowEnd == typ.low {
		return s.tokens
	}
	for _, p := range [...]piece{name, path} {
		if p.lowEnd == p.low {
			continue
		}
		from := len(buf)
		buf = append(buf, buf[p.low:p.lowEnd]...)
		buf = append(buf, ':')
		buf = append(buf, buf[typ.low:typ.lowEnd]...)
		s.emit(buf[from:], p.start, typ.end)
	}
	return s.tokens
}

// EndsName reports whether c ends a field name in a term of
// AnalyzerSchemaField: the names of a path's segments and of a type hold no
// '.' or ':', and every field name at any depth is a term of its own (a
// top-level field's name is its path). So the terms that start with a
// prefix holding neither have, for every entity, a field name starting with
// it among them, and a prefix expansion can skip the paths and typed terms
// after it. (A model's "dataset.field" entries are the exception: the
// dataset's name is not a field name, and schema:f* does not look for it.)
func EndsName(c byte) bool { return c == '.' || c == ':' }

// piece is one part of a schema entry: its trimmed byte range in the input
// and the range of its lower-cased form in the tokenizer's buffer.
type piece struct {
	start, end  int
	low, lowEnd int
}

// lowerPiece appends input[start:end] to buf lower-cased, trimmed and
// whitespace-collapsed, and says where it came from and went.
func lowerPiece(buf, input []byte, start, end int) ([]byte, piece) {
	var words [wordsOnStack]span
	from := len(buf)
	buf, ws := lowerWords(buf, input[start:end], words[:0])
	p := piece{start: start, end: start, low: from, lowEnd: len(buf)}
	if len(ws) > 0 {
		p.start += ws[0].start
		p.end = start + ws[len(ws)-1].end
	}
	return buf, p
}

// SchemaFieldName returns the field name AnalyzerSchemaField indexes for a
// schema entry ("dotted.path:type"): the path's last segment, lower-cased,
// trimmed and whitespace-collapsed.
func SchemaFieldName(entry string) string {
	input := []byte(entry)
	pathEnd := len(input)
	if i := bytes.LastIndexByte(input, ':'); i >= 0 {
		pathEnd = i
	}
	nameStart := bytes.LastIndexByte(input[:pathEnd], '.') + 1
	buf, name := lowerPiece(nil, input, nameStart, pathEnd)
	return string(buf[name.low:name.lowEnd])
}

// WordsNotIn returns value without the words whose only term under
// AnalyzerValue is one of terms: words without a separator whose
// lower-cased form is in terms. The other words are kept as they are, one
// space apart, so AnalyzerValue indexes the result as it indexes value,
// less those words' terms. A table's schema text repeats its field names,
// which its schema entries index already (AnalyzerSchemaField emits each
// name, and a prefix of one, which holds no '.' or ':', expands to it);
// indexing them twice was most of a table's terms.
func WordsNotIn(value string, terms map[string]struct{}) string {
	var buf [wordsOnStack]span
	low, words := lowerString(make([]byte, 0, len(value)), value, buf[:0])
	out := make([]byte, 0, len(value))
	for _, w := range words {
		word := value[w.start:w.end]
		if !strings.ContainsAny(word, separators) {
			if _, ok := terms[string(low[w.lowStart:w.lowEnd])]; ok {
				continue
			}
		}
		if len(out) > 0 {
			out = append(out, ' ')
		}
		out = append(out, word...)
	}
	return string(out)
}
