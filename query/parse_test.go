package query

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want string // the printed tree; "" means Parse must fail
	}{
		// SPEC §5.1, term by term.
		{"word", "word"},
		{"wor*", "wor*"},
		{`"Alpha Tango Charlie"`, `"Alpha Tango Charlie"`},
		{`"Alpha Tan*"`, `"Alpha Tan*"`},
		{"key:word", "key:word"},
		{"key:wor*", "key:wor*"},
		{`key:"whole value"`, `key:"whole value"`},
		{`key:"whole val*"`, `key:"whole val*"`},
		{"key:*", "key:*"},
		{"tags:t", "tags:t"},
		{"tags:t*", "tags:t*"},
		{"tags:*", "tags:*"},
		{"policies:p", "policies:p"},
		{"Policies:Retention_30d*", "policies:Retention_30d*"},
		{"policies:*", "policies:*"},
		{"schema:f", "schema:f"},
		{"schema:f*", "schema:f*"},
		{"schema:*", "schema:*"},
		{"EmpTel:integer", "EmpTel:integer"},
		{"schema:EmpTel:integer", "schema:EmpTel:integer"},
		{"schema:EmpContact.EmpTel", "schema:EmpContact.EmpTel"},
		{"schema:EmpContact.EmpTel:integer", "schema:EmpContact.EmpTel:integer"},
		{"properties:key", "properties:key"},
		{"properties:*", "properties:*"},
		{"*", "*"},

		// Several terms: alternatives, required, excluded.
		{"a b c", "(or a b c)"},
		{"+a +b", "(and a b)"},
		{"+a b c", "(and a (optional (or b c)))"},
		{"+a b -c", "(and a (optional b) (not c))"},
		{"a -c", "(and a (not c))"},
		{"a b -c -d", "(and (or a b) (not c) (not d))"},
		{"-c a", "(and a (not c))"},
		{"+a", "a"},
		{"* -x", "(and * (not x))"},
		{"--x a", "(and a (not -x))"},

		// "key: value" binds the next term only.
		{"Codename: Alpha Tango Charlie", "(or Codename:Alpha Tango Charlie)"},
		{"Codename: Alpha Tang*", "(or Codename:Alpha Tang*)"},
		{`Codename: "Alpha Tango Charlie"`, `Codename:"Alpha Tango Charlie"`},
		{"Codename:   \t Alpha", "Codename:Alpha"},
		{"schema: EmpTel:integer", "schema:EmpTel:integer"},
		{"key: -x", "key:-x"},
		{"+key: value other", "(and key:value (optional other))"},
		{"-key: value other", "(and other (not key:value))"},

		// Quotes.
		{`"a  b"`, `"a  b"`},
		{`""`, `""`},
		{`"a b" c`, `(or "a b" c)`},
		{`+"a b" -"c d"`, `(and "a b" (not "c d"))`},
		{`"a:b"`, `"a:b"`},
		{`"a b":c`, `"a b:c"`},
		{`ab"c d"e`, `"abc de"`},
		{`key:"a b"c`, `key:"a bc"`},
		{`"*"`, "*"},
		{`key:"*"`, "key:*"},
		{`tags:"a b"`, `tags:"a b"`},
		{`tags:""`, `tags:""`},

		// Lone + and - are literal; so are * inside a word and ?.
		{"+", "+"},
		{"-", "-"},
		{"a + b", "(or a + b)"},
		{"a - b", "(or a - b)"},
		{"a -", "(or a -)"},
		{"++a", "+a"},
		{"a*b", "a*b"},
		{"a*b*", "a*b*"},
		{"a**", "a**"},
		{"a?b", "a?b"},
		{"?", "?"},
		{"*a", "*a"},

		// Separators only: parsed as written; Simplify makes them Nothing.
		{",", ","},
		{"- _ . , : ; /", "(or - _ . , : ; /)"},
		{"--", ""}, // excludes the word "-", and nothing is left
		{":x", ":x"},

		// Keys: case kept; reserved keys in any case.
		{"TAGS:Tag1", "tags:Tag1"},
		{"Schema:EmpTel", "schema:EmpTel"},
		{"PROPERTIES:Codename", "properties:Codename"},
		{"a:b:c", "a:b:c"},
		{"schema:f:", "schema:f"},
		{"properties:cod*", "properties:cod*"},

		// Errors.
		{"", ""},
		{"   \t\n", ""},
		{`"abc`, ""},
		{`a "b c`, ""},
		{`key:"abc`, ""},
		{"-x", ""},
		{"-a -b", ""},
		{"key:", ""},
		{"a key:", ""},
		{"a key:  ", ""},
		{strings.Repeat("a", MaxQueryLength+1), ""},
	}
	for _, tt := range tests {
		q, err := Parse(tt.in)
		got := ""
		if err == nil {
			got = q.String()
		}
		if got != tt.want {
			t.Errorf("Parse(%q) = %q (err %v), want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		want ParseError
	}{
		{"", ParseError{0, "empty query"}},
		{"  \t ", ParseError{0, "empty query"}},
		{`Codename "Alpha Tango`, ParseError{9, "unterminated quote"}},
		{`a key:"x`, ParseError{6, "unterminated quote"}},
		{`"a" "b`, ParseError{4, "unterminated quote"}},
		{"  -x", ParseError{2, "no positive term (every term is excluded)"}},
		{"-a -b", ParseError{0, "no positive term (every term is excluded)"}},
		{"a  x:", ParseError{3, "key 'x' has no value"}},
		{"+Codename:  ", ParseError{1, "key 'Codename' has no value"}},
		{strings.Repeat("a", 4097), ParseError{4096, "too long: more than 4096 characters"}},
		// Characters, not bytes: ä is two bytes.
		{strings.Repeat("ä", 4097), ParseError{8192, "too long: more than 4096 characters"}},
		// 1,365 one-letter prefixes in 4,094 characters: the 65th term is
		// refused, quoted and key:value terms counted alike.
		{strings.Repeat("a* ", 1365), ParseError{3 * 64, "too many terms: at most 64"}},
		{strings.Repeat(`"a b" `, 64) + "k:v", ParseError{6 * 64, "too many terms: at most 64"}},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%.20q): err = %v, want a *ParseError", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, *pe); diff != "" {
			t.Errorf("Parse(%.20q) error (-want +got):\n%s", tt.in, diff)
		}
	}

	_, err := Parse(`Codene "x`)
	if got, want := err.Error(), "query: unterminated quote at position 7"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestParseLength(t *testing.T) {
	// 4,096 characters is allowed, however many bytes they take.
	for _, in := range []string{
		strings.Repeat("a", MaxQueryLength),
		strings.Repeat("ä", MaxQueryLength),
		strings.Repeat("a", MaxQueryLength-MaxTerms*2) + strings.Repeat(" a", MaxTerms-1),
	} {
		if _, err := Parse(in); err != nil {
			t.Errorf("Parse(%d characters, %d bytes): %v", MaxQueryLength, len(in), err)
		}
	}
}

func TestSimplify(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"a", "a"},
		{",", "(nothing)"},
		{"-", "(nothing)"},
		{"+", "+"},
		{`" - "`, "(nothing)"},
		{`""`, "(nothing)"},
		{"a , b", "(or a b)"},
		{"a -,", "a"},
		{"+a +, b", "(nothing)"},
		{"+a b -", "(and a (optional b))"},
		{"+a ,", "a"},
		{"+a b ,", "(and a (optional b))"},
		{"tags:,", "(nothing)"},
		{"tags:,*", "(nothing)"},
		{"tags:*", "tags:*"},
		{"key:;", "(nothing)"},
		{"schema:.", "(nothing)"},
		{"properties:/", "(nothing)"},
		{"a,b", "a,b"},
		{"+* +a", "a"},
		{"* a", "(or * a)"},
		{"* -a", "(and * (not a))"},
		{"a -*", "(nothing)"},
	}
	for _, tt := range tests {
		q, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := Simplify(q).String(); got != tt.want {
			t.Errorf("Simplify(Parse(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}

	// Trees the parser does not build.
	trees := []struct {
		in   Q
		want string
	}{
		{&Or{Children: []Q{&Word{Text: "a"}, &Or{Children: []Q{&Word{Text: "b"}, &Nothing{}}}}}, "(or a b)"},
		{&And{Children: []Q{&Word{Text: "a"}, &And{Children: []Q{&Word{Text: "b"}, &Not{Child: &Word{Text: "c"}}}}}}, "(and a b (not c))"},
		{&Or{Children: []Q{&Nothing{}, &Word{Text: ","}}}, "(nothing)"},
		{&And{}, "*"},
		{&And{Children: []Q{&All{}, &All{}}}, "*"},
		{&And{Children: []Q{&Optional{Child: &Nothing{}}, &Word{Text: "a"}}}, "a"},
	}
	for _, tt := range trees {
		if got := Simplify(tt.in).String(); got != tt.want {
			t.Errorf("Simplify(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
