package postgres

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/semcat/semcat"
)

// sourceColumn is a column as pg_attribute and pg_attrdef describe it.
type sourceColumn struct {
	name      string
	typ       string // format_type's text
	notNull   bool
	identity  bool
	generated bool
	def       *string // pg_get_expr of the default
	comment   *string
}

// column maps the source's column to Gravitino's: its type, nullability,
// comment, default value, and identity or serial columns as
// autoIncrement.
func (c sourceColumn) column() semcat.Column {
	t := mapType(c.typ)
	nullable := !c.notNull
	col := semcat.Column{Name: c.name, Type: t, Comment: c.comment, Nullable: &nullable}
	auto := c.identity
	if c.def != nil && !c.generated {
		if strings.HasPrefix(*c.def, "nextval(") {
			auto = true
		} else {
			col.DefaultValue = defaultValue(*c.def, t)
		}
	}
	if auto {
		col.AutoIncrement = &auto
	}
	return col
}

var (
	numericRE   = regexp.MustCompile(`^numeric\((\d+),(\d+)\)$`)
	varcharRE   = regexp.MustCompile(`^character varying\((\d+)\)$`)
	charRE      = regexp.MustCompile(`^character\((\d+)\)$`)
	timeRE      = regexp.MustCompile(`^time(\(\d+\))? without time zone$`)
	timestampRE = regexp.MustCompile(`^timestamp(\(\d+\))? without time zone$`)
	timestampTZ = regexp.MustCompile(`^timestamp(\(\d+\))? with time zone$`)
)

// simpleTypes maps format_type's names of PostgreSQL's types to
// Gravitino's.
var simpleTypes = map[string]string{
	"boolean": "boolean", "smallint": "short", "integer": "integer", "bigint": "long",
	"real": "float", "double precision": "double", "date": "date", "text": "string",
	"character varying": "string", "bytea": "binary", "uuid": "uuid",
}

// UnparsedType is the type of a column whose PostgreSQL type Gravitino has
// no name for.
const UnparsedType = "unparsed"

// mapType maps a PostgreSQL type (format_type's text) to Gravitino's:
// arrays as lists, anything without a Gravitino name as unparsed.
func mapType(pg string) *semcat.Type {
	if elem, ok := strings.CutSuffix(pg, "[]"); ok {
		f := false
		return &semcat.Type{Name: "list", ElementType: mapType(elem), ContainsNull: &f}
	}
	if s, ok := simpleTypes[pg]; ok {
		return &semcat.Type{Name: s}
	}
	switch {
	case numericRE.MatchString(pg):
		m := numericRE.FindStringSubmatch(pg)
		if len(m[1]) <= 2 && m[1] != "0" && atoi(m[1]) <= 38 {
			return &semcat.Type{Name: "decimal(" + m[1] + "," + m[2] + ")"}
		}
	case varcharRE.MatchString(pg):
		return &semcat.Type{Name: "varchar(" + varcharRE.FindStringSubmatch(pg)[1] + ")"}
	case charRE.MatchString(pg):
		return &semcat.Type{Name: "char(" + charRE.FindStringSubmatch(pg)[1] + ")"}
	case timeRE.MatchString(pg):
		return &semcat.Type{Name: "time"}
	case timestampRE.MatchString(pg):
		return &semcat.Type{Name: "timestamp"}
	case timestampTZ.MatchString(pg):
		return &semcat.Type{Name: "timestamp_tz"}
	}
	return &semcat.Type{Name: UnparsedType, UnparsedType: pg}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// literalRE is a constant default: a quoted string with an optional cast,
// or a number.
var (
	quotedRE = regexp.MustCompile(`^'((?:[^']|'')*)'(?:::[a-z ]+(?:\(\d+(?:,\d+)?\))?)?$`)
	numberRE = regexp.MustCompile(`^\(?(-?\d+(?:\.\d+)?)\)?(?:::[a-z ]+)?$`)
)

// defaultValue is a column default as Gravitino writes one: a literal of
// the column's type for a constant, the expression unparsed otherwise.
func defaultValue(expr string, t *semcat.Type) *semcat.FunctionArg {
	typ, _ := json.Marshal(t)
	if m := quotedRE.FindStringSubmatch(expr); m != nil {
		v := strings.ReplaceAll(m[1], "''", "'")
		return &semcat.FunctionArg{Type: "literal", DataType: typ, Value: &v}
	}
	if m := numberRE.FindStringSubmatch(expr); m != nil {
		v := m[1]
		return &semcat.FunctionArg{Type: "literal", DataType: typ, Value: &v}
	}
	switch expr {
	case "true", "false":
		v := expr
		return &semcat.FunctionArg{Type: "literal", DataType: typ, Value: &v}
	}
	e := expr
	return &semcat.FunctionArg{Type: "unparsed", UnparsedExpression: &e}
}

// sqlType is the PostgreSQL type of a Gravitino type, for DDL; a type
// PostgreSQL has no equivalent for is EINVALID naming field.
func sqlType(field string, t *semcat.Type) (string, error) {
	if t == nil {
		return "", semcat.Errorf(semcat.EINVALID, "%s: a type is required", field)
	}
	switch t.Name {
	case "boolean":
		return "boolean", nil
	case "byte", "short":
		return "smallint", nil
	case "integer":
		return "integer", nil
	case "long":
		return "bigint", nil
	case "float":
		return "real", nil
	case "double":
		return "double precision", nil
	case "date":
		return "date", nil
	case "time":
		return "time", nil
	case "timestamp":
		return "timestamp", nil
	case "timestamp_tz":
		return "timestamptz", nil
	case "string":
		return "text", nil
	case "uuid":
		return "uuid", nil
	case "binary":
		return "bytea", nil
	case UnparsedType:
		return t.UnparsedType, nil // validated: one type name
	case "list":
		elem, err := sqlType(field+".elementType", t.ElementType)
		if err != nil {
			return "", err
		}
		return elem + "[]", nil
	}
	if args, ok := strings.CutPrefix(t.Name, "decimal("); ok {
		return "numeric(" + args, nil
	}
	if args, ok := strings.CutPrefix(t.Name, "varchar("); ok {
		return "varchar(" + args, nil
	}
	if args, ok := strings.CutPrefix(t.Name, "char("); ok {
		return "char(" + args, nil
	}
	return "", semcat.Errorf(semcat.EINVALID, "%s: PostgreSQL has no type for '%s'", field, t.Name)
}

// sqlDefault is the SQL of a Gravitino default value.
func sqlDefault(field string, v *semcat.FunctionArg) (string, error) {
	switch v.Type {
	case "literal":
		if v.Value == nil {
			return "NULL", nil
		}
		return quoteLiteral(*v.Value), nil
	case "unparsed":
		if v.UnparsedExpression != nil {
			return *v.UnparsedExpression, nil
		}
	case "function":
		if len(v.FuncArgs) == 0 {
			return v.FuncName + "()", nil
		}
	}
	return "", semcat.Errorf(semcat.EINVALID, "%s: a default PostgreSQL cannot take (give a literal or an unparsed expression)", field)
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteLiteral quotes a PostgreSQL string literal.
func quoteLiteral(s string) string {
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}
