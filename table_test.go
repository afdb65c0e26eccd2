package semcat_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/semcat/semcat"
)

func TestColumnsRoundTrip(t *testing.T) {
	in := `[{"name":"EmpName","type":"string","nullable":true},` +
		`{"name":"EmpContact","type":{"type":"struct","fields":[{"name":"EmpTel","type":"integer","nullable":true},{"name":"EmpAddr","type":"varchar(200)"}]},"comment":"c","nullable":false},` +
		`{"name":"tags","type":{"type":"list","elementType":"string","containsNull":true},"nullable":true},` +
		`{"name":"attrs","type":{"type":"map","keyType":"string","valueType":{"type":"struct","fields":[]}},"nullable":true},` +
		`{"name":"u","type":{"type":"union","types":["integer","decimal(10,2)"]},"nullable":true}]`
	var cols []semcat.Column
	if err := json.Unmarshal([]byte(in), &cols); err != nil {
		t.Fatal(err)
	}
	if err := semcat.ValidateColumns("columns", cols); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(cols)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("round trip:\n in: %s\nout: %s", in, out)
	}
}

func TestColumnsValidate(t *testing.T) {
	deep := `"integer"`
	for i := 0; i < semcat.MaxTypeDepth; i++ {
		deep = fmt.Sprintf(`{"type":"list","elementType":%s}`, deep)
	}
	tests := []struct {
		in, wantPrefix string
	}{
		{`[{"name":"a","type":"integer"},{"name":"a","type":"string"}]`, "columns[1].name: duplicate column name 'a'"},
		{`[{"name":"a","type":"int"}]`, "columns[0].type: unknown type 'int'"},
		{`[{"name":"a"}]`, "columns[0].type: column type is required"},
		{`[{"name":"","type":"string"}]`, "columns[0].name:"},
		{`[{"name":"a","type":"decimal(50,2)"}]`, "columns[0].type: invalid decimal"},
		{`[{"name":"a","type":{"type":"struct","fields":[{"name":"x","type":"string"},{"name":"x","type":"string"}]}}]`,
			"columns[0].type.fields[1].name: duplicate field name 'x'"},
		{`[{"name":"a","type":{"type":"union","types":[]}}]`, "columns[0].type.types:"},
		{`[{"name":"a","type":` + deep + `}]`, "columns[0].type"},
		// Paths through every kind of nesting, spelled out only on error.
		{`[{"name":"a","type":"string"},{"name":"b","type":{"type":"map","keyType":"string","valueType":{"type":"list","elementType":{"type":"union","types":["integer",{"type":"struct","fields":[{"name":"ok","type":"string"},{"name":"*","type":"string"}]}]}}}}]`,
			"columns[1].type.valueType.elementType.types[1].fields[1].name: '*' is a reserved name"},
		{`[{"name":"a","type":{"type":"struct","fields":[{"name":"x","type":{"type":"list","elementType":"varchar(0)"}}]}}]`,
			"columns[0].type.fields[0].type.elementType: invalid length in 'varchar(0)'"},
		{`[{"name":"a","type":{"type":"map","keyType":"strin","valueType":"string"}}]`, "columns[0].type.keyType: unknown type 'strin'"},
		{`[{"name":"a b","type":"string"}]`, "columns[0].name: invalid name 'a b'"},
	}
	for _, tt := range tests {
		var cols []semcat.Column
		if err := json.Unmarshal([]byte(tt.in), &cols); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		err := semcat.ValidateColumns("columns", cols)
		if msg := semcat.ErrorMessage(err); semcat.ErrorCode(err) != semcat.EINVALID || !strings.HasPrefix(msg, tt.wantPrefix) {
			t.Errorf("%.60s: got %q, want prefix %q", tt.in, msg, tt.wantPrefix)
		}
	}
	var tooMany []semcat.Column
	for i := 0; i <= semcat.MaxLeafFields; i++ {
		tooMany = append(tooMany, semcat.Column{Name: fmt.Sprintf("c%d", i), Type: &semcat.Type{Name: "string"}})
	}
	if err := semcat.ValidateColumns("columns", tooMany); semcat.ErrorCode(err) != semcat.EINVALID {
		t.Errorf("%d leaf fields accepted", len(tooMany))
	}
}

// TestPrimitiveTypeNames: the sized types' grammar, with the whole message
// of each kind of error. (A number with a leading zero is decimal: before
// the types were parsed by hand, fmt.Sscan read "08" as an octal number
// that failed, and rejected decimal(08,2); Gravitino's Integer.parseInt
// reads 8.)
func TestPrimitiveTypeNames(t *testing.T) {
	const (
		badDecimal = "invalid decimal precision/scale in '%s' (1 <= p <= 38, 0 <= s <= p)"
		badLength  = "invalid length in '%s'"
		unknown    = "unknown type '%s'"
	)
	tests := []struct{ typ, want string }{
		{"string", ""}, {"timestamp_tz", ""}, {"decimal(10,2)", ""}, {"decimal(1, 0)", ""},
		{"decimal(38,38)", ""}, {"decimal(7,\t3)", ""}, {"decimal(08,2)", ""}, {"decimal(09,09)", ""},
		{"varchar(1)", ""}, {"char(123456789)", ""},
		{"decimal(0,0)", badDecimal}, {"decimal(39,1)", badDecimal}, {"decimal(5,6)", badDecimal},
		{"decimal(5,09)", badDecimal},
		{"varchar(0)", badLength}, {"varchar(01)", badLength}, {"char(007)", badLength},
		{"decimal(100,2)", unknown}, {"decimal(10 ,2)", unknown}, {"decimal(10,2", unknown},
		{"decimal(1,2,3)", unknown}, {"decimal(,2)", unknown}, {"varchar(1234567890)", unknown},
		{"varchar()", unknown}, {"varchar(-1)", unknown}, {"Varchar(3)", unknown},
		{"varchar(3) ", unknown}, {"char(x)", unknown}, {"int", unknown}, {"", unknown},
	}
	for _, tt := range tests {
		err := semcat.ValidateColumns("columns", []semcat.Column{{Name: "c", Type: &semcat.Type{Name: tt.typ}}})
		want := ""
		if tt.want != "" {
			want = "columns[0].type: " + fmt.Sprintf(tt.want, tt.typ)
		}
		if got := semcat.ErrorMessage(err); got != want {
			t.Errorf("%q: got %q, want %q", tt.typ, got, want)
		}
	}
}

// BenchmarkValidateColumns validates a bulk create's worth of columns: 100
// tables of 12 columns, a few nested.
func BenchmarkValidateColumns(b *testing.B) {
	var cols []semcat.Column
	for i := range 12 {
		typ := &semcat.Type{Name: "varchar(64)"}
		if i%4 == 3 {
			typ = &semcat.Type{Name: "struct", Fields: []semcat.StructField{{Name: "inner", Type: &semcat.Type{Name: "decimal(10,2)"}}, {Name: "tags", Type: &semcat.Type{Name: "list", ElementType: &semcat.Type{Name: "string"}}}}}
		}
		cols = append(cols, semcat.Column{Name: fmt.Sprintf("column_%d", i), Type: typ})
	}
	for b.Loop() {
		for range 100 {
			if err := semcat.ValidateColumns("tables[7].columns", cols); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func TestTypeRejectsUnknownMembers(t *testing.T) {
	var ty semcat.Type
	if err := json.Unmarshal([]byte(`{"type":"list","elementType":"string","bogus":1}`), &ty); err == nil {
		t.Error("unknown member accepted")
	}
	if err := json.Unmarshal([]byte(`42`), &ty); err == nil {
		t.Error("number accepted as a type")
	}
}

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"a", "A_b-c", "x/y=z", "_x", strings.Repeat("a", 64)} {
		if err := semcat.ValidateName("name", ok); err != nil {
			t.Errorf("%q rejected: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "*", "-a", "a b", "a.b", strings.Repeat("a", 65), "é", "a\n", "\na", "/a", "=a", "a\x00"} {
		if err := semcat.ValidateName("name", bad); semcat.ErrorCode(err) != semcat.EINVALID {
			t.Errorf("%q accepted", bad)
		}
	}
	// The same answers as the pattern, on random strings over its
	// characters and their neighbours.
	re := regexp.MustCompile(semcat.NamePattern)
	alphabet := []byte("aZ09_/=-.*é\n \x00\x7f@[`{")
	r := rand.New(rand.NewPCG(3, 5))
	for range 100000 {
		b := make([]byte, r.IntN(70))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		name := string(b)
		if got, want := semcat.ValidateName("name", name) == nil, re.MatchString(name); got != want {
			t.Fatalf("ValidateName(%q) accepts: %v; the pattern: %v", name, got, want)
		}
	}
}

// TestTypeDecodedInOnePass: wherever decoding a nested type in one pass
// succeeds, it gives what decoding it member by member gives, on random
// types with random defects (members in other case, escaped or unknown,
// values of other kinds, nulls, missing or empty "type") at any depth.
func TestTypeDecodedInOnePass(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	var onePass, byMembers int
	for range 20000 {
		in := randomTypeJSON(r, 0)
		if !strings.HasPrefix(in, "{") {
			continue
		}
		got, ok := semcat.TypeFromTree([]byte(in))
		want, err := semcat.TypeByMembers([]byte(in))
		if !ok {
			byMembers++
			continue
		}
		onePass++
		if err != nil {
			t.Fatalf("%s: decoded in one pass, but member by member: %v", in, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("%s:\none pass   %+v\nby members %+v", in, *got, want)
		}
	}
	if onePass < 1000 || byMembers < 1000 {
		t.Errorf("%d types decoded in one pass, %d left to member by member: the sample misses a case", onePass, byMembers)
	}
}

// randomTypeJSON returns the JSON of a random type, now and then with a
// defect.
func randomTypeJSON(r *rand.Rand, depth int) string {
	odd := func() bool { return r.IntN(40) == 0 }
	oddValue := func() string {
		return []string{`null`, `5`, `true`, `[]`, `{}`, `""`, `"x"`, `[null]`}[r.IntN(8)]
	}
	if depth > 3 || r.IntN(3) == 0 {
		if odd() {
			return oddValue()
		}
		return []string{`"integer"`, `"string"`, `"decimal(10,2)"`, `""`, `"t\u00e9xt"`}[r.IntN(5)]
	}
	var members []string
	member := func(key, value string) {
		switch {
		case odd():
			key = strings.ToUpper(key[:1]) + key[1:]
		case odd():
			key = `\u00` + fmt.Sprintf("%x", key[0]) + key[1:]
		case odd():
			value = oddValue()
		}
		members = append(members, `"`+key+`":`+value)
	}
	kind := []string{"struct", "list", "map", "union"}[r.IntN(4)]
	if !odd() {
		member("type", `"`+kind+`"`)
	}
	optionalBool := func(key string) {
		if r.IntN(2) == 0 {
			member(key, []string{"true", "false", "null"}[r.IntN(3)])
		}
	}
	switch kind {
	case "struct":
		var fields []string
		for i := range r.IntN(4) {
			var fm []string
			fm = append(fm, fmt.Sprintf(`"name":"f%d"`, i), `"type":`+randomTypeJSON(r, depth+1))
			if r.IntN(2) == 0 {
				fm = append(fm, `"nullable":`+[]string{"true", "false", "null"}[r.IntN(3)])
			}
			if r.IntN(3) == 0 {
				fm = append(fm, `"comment":`+[]string{`"c"`, `null`}[r.IntN(2)])
			}
			if odd() {
				fm = append(fm, `"`+[]string{"Name", "bogus", "type"}[r.IntN(3)]+`":`+oddValue())
			}
			r.Shuffle(len(fm), func(i, j int) { fm[i], fm[j] = fm[j], fm[i] })
			fields = append(fields, "{"+strings.Join(fm, ",")+"}")
		}
		if odd() {
			fields = append(fields, oddValue())
		}
		member("fields", "["+strings.Join(fields, ",")+"]")
	case "list":
		member("elementType", randomTypeJSON(r, depth+1))
		optionalBool("containsNull")
	case "map":
		member("keyType", randomTypeJSON(r, depth+1))
		member("valueType", randomTypeJSON(r, depth+1))
		optionalBool("valueContainsNull")
	case "union":
		var types []string
		for range r.IntN(3) {
			types = append(types, randomTypeJSON(r, depth+1))
		}
		member("types", "["+strings.Join(types, ",")+"]")
	}
	if odd() {
		member("bogus", "1")
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return "{" + strings.Join(members, ",") + "}"
}

// TestTypeEncodedInOnePass: columns and types encode to the bytes that
// encoding/json writes for their wire structs (refType, the former
// encoding), on random types with odd strings and members.
func TestTypeEncodedInOnePass(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for range 5000 {
		col := semcat.Column{Name: randomText(r), Type: randomType(r, 0), Comment: maybe(r, randomText(r)), Nullable: maybe(r, r.IntN(2) == 0)}
		got, err := col.MarshalJSON() // as is: json.Marshal would compact it
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(struct {
			Name     string  `json:"name"`
			Type     refType `json:"type"`
			Comment  *string `json:"comment,omitempty"`
			Nullable bool    `json:"nullable"`
		}{col.Name, refType{col.Type}, col.Comment, col.IsNullable()})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("column encoded as\n%s\nwant\n%s", got, want)
		}
	}
}

// refType encodes a type through encoding/json's wire structs.
type refType struct{ t *semcat.Type }

type refField struct {
	Name     string  `json:"name"`
	Type     refType `json:"type"`
	Nullable *bool   `json:"nullable,omitempty"`
	Comment  *string `json:"comment,omitempty"`
}

func (r refType) MarshalJSON() ([]byte, error) {
	t := r.t
	if t == nil {
		return []byte("null"), nil
	}
	if !t.IsNested() {
		return json.Marshal(t.Name)
	}
	if t.Name == "struct" {
		fields := []refField{}
		for _, f := range t.Fields {
			fields = append(fields, refField{f.Name, refType{f.Type}, f.Nullable, f.Comment})
		}
		return json.Marshal(struct {
			Type   string     `json:"type"`
			Fields []refField `json:"fields"`
		}{t.Name, fields})
	}
	ref := func(t *semcat.Type) *refType {
		if t == nil {
			return nil
		}
		return &refType{t}
	}
	var types []refType
	for _, e := range t.Types {
		types = append(types, refType{e})
	}
	return json.Marshal(struct {
		Type              string    `json:"type"`
		ElementType       *refType  `json:"elementType,omitempty"`
		ContainsNull      *bool     `json:"containsNull,omitempty"`
		KeyType           *refType  `json:"keyType,omitempty"`
		ValueType         *refType  `json:"valueType,omitempty"`
		ValueContainsNull *bool     `json:"valueContainsNull,omitempty"`
		Types             []refType `json:"types,omitempty"`
	}{t.Name, ref(t.ElementType), t.ContainsNull, ref(t.KeyType), ref(t.ValueType), t.ValueContainsNull, types})
}

// randomType returns a random type, nil now and then, with every member
// set at random (also those its kind does not use).
func randomType(r *rand.Rand, depth int) *semcat.Type {
	if r.IntN(12) == 0 {
		return nil
	}
	if depth > 3 || r.IntN(3) == 0 {
		return &semcat.Type{Name: []string{"integer", "decimal(10,2)", randomText(r)}[r.IntN(3)]}
	}
	t := &semcat.Type{Name: []string{"struct", "list", "map", "union"}[r.IntN(4)]}
	if r.IntN(4) > 0 {
		t.Fields = []semcat.StructField{}
		for range r.IntN(4) {
			t.Fields = append(t.Fields, semcat.StructField{Name: randomText(r), Type: randomType(r, depth+1),
				Nullable: maybe(r, r.IntN(2) == 0), Comment: maybe(r, randomText(r))})
		}
	}
	if r.IntN(2) == 0 {
		t.ElementType = randomType(r, depth+1)
	}
	t.ContainsNull = maybe(r, r.IntN(2) == 0)
	if r.IntN(2) == 0 {
		t.KeyType, t.ValueType = randomType(r, depth+1), randomType(r, depth+1)
	}
	t.ValueContainsNull = maybe(r, r.IntN(2) == 0)
	if r.IntN(3) > 0 {
		t.Types = []*semcat.Type{}
		for range r.IntN(3) {
			t.Types = append(t.Types, randomType(r, depth+1))
		}
	}
	return t
}

// randomText returns a short string, now and then with characters JSON
// or HTML escape, other runes or invalid UTF-8.
func randomText(r *rand.Rand) string {
	parts := []string{"emp", "Tel", "_", " ", "é", "<b>", "&", `"`, `\`, "\n", "\x00", "\xff", "\u2028", "日本"}
	var b strings.Builder
	for range r.IntN(4) {
		if r.IntN(3) == 0 {
			b.WriteString(parts[r.IntN(len(parts))])
		} else {
			b.WriteString(parts[r.IntN(3)])
		}
	}
	return b.String()
}

// maybe returns &v or, half the time, nil.
func maybe[T any](r *rand.Rand, v T) *T {
	if r.IntN(2) == 0 {
		return nil
	}
	return &v
}

func BenchmarkEncodeColumns(b *testing.B) {
	var cols []semcat.Column
	if err := json.Unmarshal(nestedColumns(60), &cols); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(cols); err != nil {
			b.Fatal(err)
		}
	}
}

// nestedColumns returns the JSON of n columns, every third a struct of
// structs and lists, like the benchmark's generated tables.
func nestedColumns(n int) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `{"name":"col_%d","type":"decimal(10,2)","comment":"amount in cents","nullable":false}`, i)
		case 1:
			fmt.Fprintf(&b, `{"name":"col_%d","type":{"type":"list","elementType":"string","containsNull":true}}`, i)
		default:
			fmt.Fprintf(&b, `{"name":"col_%d","type":{"type":"struct","fields":[`+
				`{"name":"street","type":"string","nullable":true},`+
				`{"name":"geo","type":{"type":"struct","fields":[{"name":"lat","type":"double"},{"name":"lon","type":"double"}]}},`+
				`{"name":"phones","type":{"type":"list","elementType":{"type":"struct","fields":[{"name":"kind","type":"string"},{"name":"number","type":"varchar(20)","comment":"E.164"}]}}}]}}`, i)
		}
	}
	b.WriteByte(']')
	return []byte(b.String())
}

func BenchmarkDecodeColumns(b *testing.B) {
	in := nestedColumns(60)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		var cols []semcat.Column
		if err := json.Unmarshal(in, &cols); err != nil {
			b.Fatal(err)
		}
	}
}
