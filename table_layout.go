package semcat

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A table's physical layout as Gravitino describes it (SPEC §2.10):
// partitioning, distribution, sort orders and indexes, and a column's
// default value and auto-increment. semcat keeps them as given (after
// checking their shape) and returns them; it does not act on them.

// FunctionArg is Gravitino's function argument (an expression): a literal, a field
// reference, a function call or an unparsed expression.
type FunctionArg struct {
	Type string `json:"type"`
	// literal
	DataType json.RawMessage `json:"dataType,omitempty"`
	Value    *string         `json:"value,omitempty"`
	// field
	FieldName []string `json:"fieldName,omitempty"`
	// function
	FuncName string        `json:"funcName,omitempty"`
	FuncArgs []FunctionArg `json:"funcArgs,omitempty"`
	// unparsed
	UnparsedExpression *string `json:"unparsedExpression,omitempty"`
}

// MarshalJSON writes the members of the expression's type only, a
// function's funcArgs always (Gravitino's readers require them).
func (e FunctionArg) MarshalJSON() ([]byte, error) {
	m := map[string]any{"type": e.Type}
	switch e.Type {
	case "literal":
		m["dataType"], m["value"] = e.DataType, e.Value
	case "field":
		m["fieldName"] = e.FieldName
	case "function":
		m["funcName"] = e.FuncName
		args := e.FuncArgs
		if args == nil {
			args = []FunctionArg{}
		}
		m["funcArgs"] = args
	case "unparsed":
		m["unparsedExpression"] = e.UnparsedExpression
	}
	return json.Marshal(m)
}

// validate checks an expression's shape; path names it.
func (e *FunctionArg) validate(path string, depth int) error {
	if depth > MaxTypeDepth {
		return Errorf(EINVALID, "%s: nested deeper than %d", path, MaxTypeDepth)
	}
	e.Type = strings.ToLower(e.Type)
	switch e.Type {
	case "literal":
		if len(e.DataType) == 0 || e.Value == nil {
			return Errorf(EINVALID, "%s: a literal needs dataType and value", path)
		}
	case "field":
		if len(e.FieldName) == 0 {
			return Errorf(EINVALID, "%s.fieldName: required", path)
		}
	case "function":
		if e.FuncName == "" {
			return Errorf(EINVALID, "%s.funcName: required", path)
		}
		for i := range e.FuncArgs {
			if err := e.FuncArgs[i].validate(fmt.Sprintf("%s.funcArgs[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
	case "unparsed":
		if e.UnparsedExpression == nil {
			return Errorf(EINVALID, "%s.unparsedExpression: required", path)
		}
	default:
		return Errorf(EINVALID, "%s.type: want literal, field, function or unparsed, got '%s'", path, e.Type)
	}
	return nil
}

// Partitioning is one of Gravitino's partition transforms.
type Partitioning struct {
	Strategy    string            `json:"strategy"`
	FieldName   []string          `json:"fieldName,omitempty"`
	FieldNames  [][]string        `json:"fieldNames,omitempty"`
	NumBuckets  *int              `json:"numBuckets,omitempty"`
	Width       *int              `json:"width,omitempty"`
	FuncName    string            `json:"funcName,omitempty"`
	FuncArgs    []FunctionArg     `json:"funcArgs,omitempty"`
	Assignments []json.RawMessage `json:"assignments,omitempty"`
}

func (p *Partitioning) validate(path string) error {
	p.Strategy = strings.ToLower(p.Strategy)
	switch p.Strategy {
	case "identity", "year", "month", "day", "hour", "truncate":
		if len(p.FieldName) == 0 {
			return Errorf(EINVALID, "%s.fieldName: required for %s", path, p.Strategy)
		}
		if p.Strategy == "truncate" && p.Width == nil {
			return Errorf(EINVALID, "%s.width: required for truncate", path)
		}
	case "bucket", "list":
		if len(p.FieldNames) == 0 {
			return Errorf(EINVALID, "%s.fieldNames: required for %s", path, p.Strategy)
		}
		if p.Strategy == "bucket" && p.NumBuckets == nil {
			return Errorf(EINVALID, "%s.numBuckets: required for bucket", path)
		}
	case "range":
		if len(p.FieldName) == 0 {
			return Errorf(EINVALID, "%s.fieldName: required for range", path)
		}
	case "function":
		if p.FuncName == "" {
			return Errorf(EINVALID, "%s.funcName: required for function", path)
		}
		for i := range p.FuncArgs {
			if err := p.FuncArgs[i].validate(fmt.Sprintf("%s.funcArgs[%d]", path, i), 0); err != nil {
				return err
			}
		}
	default:
		return Errorf(EINVALID, "%s.strategy: unknown partitioning '%s'", path, p.Strategy)
	}
	return nil
}

// Distribution is how a table's rows are distributed.
type Distribution struct {
	Strategy string        `json:"strategy"`
	Number   int           `json:"number"`
	FuncArgs []FunctionArg `json:"funcArgs"`
}

// NoDistribution is Gravitino's NONE: what a table created without one
// returns.
func NoDistribution() *Distribution {
	return &Distribution{Strategy: "none", FuncArgs: []FunctionArg{}}
}

func (d *Distribution) validate(path string) error {
	d.Strategy = strings.ToLower(d.Strategy)
	if d.Strategy == "" {
		d.Strategy = "hash" // Gravitino's default
	}
	if d.Strategy == "random" {
		d.Strategy = "even"
	}
	switch d.Strategy {
	case "none", "hash", "range", "even":
	default:
		return Errorf(EINVALID, "%s.strategy: want none, hash, range or even, got '%s'", path, d.Strategy)
	}
	if d.Number < -1 {
		return Errorf(EINVALID, "%s.number: must be -1 or more", path)
	}
	if d.FuncArgs == nil {
		d.FuncArgs = []FunctionArg{}
	}
	for i := range d.FuncArgs {
		if err := d.FuncArgs[i].validate(fmt.Sprintf("%s.funcArgs[%d]", path, i), 0); err != nil {
			return err
		}
	}
	return nil
}

// SortOrder is one sort term of a table.
type SortOrder struct {
	SortTerm     FunctionArg `json:"sortTerm"`
	Direction    string      `json:"direction"`
	NullOrdering string      `json:"nullOrdering"`
}

func (s *SortOrder) validate(path string) error {
	if err := s.SortTerm.validate(path+".sortTerm", 0); err != nil {
		return err
	}
	s.Direction = strings.ToLower(s.Direction)
	switch s.Direction {
	case "":
		s.Direction = "asc"
	case "asc", "desc":
	default:
		return Errorf(EINVALID, "%s.direction: want asc or desc, got '%s'", path, s.Direction)
	}
	s.NullOrdering = strings.ToLower(s.NullOrdering)
	switch s.NullOrdering {
	case "":
		s.NullOrdering = "nulls_first"
		if s.Direction == "desc" {
			s.NullOrdering = "nulls_last"
		}
	case "nulls_first", "nulls_last":
	default:
		return Errorf(EINVALID, "%s.nullOrdering: want nulls_first or nulls_last, got '%s'", path, s.NullOrdering)
	}
	return nil
}

// Index is a primary or unique key of a table.
type Index struct {
	IndexType  string            `json:"indexType"`
	Name       *string           `json:"name,omitempty"`
	FieldNames [][]string        `json:"fieldNames"`
	Properties map[string]string `json:"properties,omitempty"`
}

func (x *Index) validate(path string) error {
	x.IndexType = strings.ToUpper(x.IndexType)
	if x.IndexType != "PRIMARY_KEY" && x.IndexType != "UNIQUE_KEY" {
		return Errorf(EINVALID, "%s.indexType: want PRIMARY_KEY or UNIQUE_KEY, got '%s'", path, x.IndexType)
	}
	if len(x.FieldNames) == 0 {
		return Errorf(EINVALID, "%s.fieldNames: at least one field is required", path)
	}
	return nil
}

// TableLayout is the layout part of a table: stored together, returned in
// Gravitino's empty forms when absent.
type TableLayout struct {
	Partitioning []Partitioning `json:"partitioning"`
	Distribution *Distribution  `json:"distribution"`
	SortOrders   []SortOrder    `json:"sortOrders"`
	Indexes      []Index        `json:"indexes"`
}

// WithDefaults fills what is absent with Gravitino's empty forms.
func (l TableLayout) WithDefaults() TableLayout {
	if l.Partitioning == nil {
		l.Partitioning = []Partitioning{}
	}
	if l.Distribution == nil {
		l.Distribution = NoDistribution()
	}
	if l.SortOrders == nil {
		l.SortOrders = []SortOrder{}
	}
	if l.Indexes == nil {
		l.Indexes = []Index{}
	}
	return l
}

// IsEmpty reports whether the layout says nothing (a table created
// without one, or with Gravitino's empty forms).
func (l TableLayout) IsEmpty() bool {
	return len(l.Partitioning) == 0 && len(l.SortOrders) == 0 && len(l.Indexes) == 0 &&
		(l.Distribution == nil || (l.Distribution.Strategy == "none" && l.Distribution.Number == 0 && len(l.Distribution.FuncArgs) == 0))
}

func (l *TableLayout) validate(path string) error {
	for i := range l.Partitioning {
		if err := l.Partitioning[i].validate(fmt.Sprintf("%spartitioning[%d]", path, i)); err != nil {
			return err
		}
	}
	if l.Distribution != nil {
		if err := l.Distribution.validate(path + "distribution"); err != nil {
			return err
		}
	}
	for i := range l.SortOrders {
		if err := l.SortOrders[i].validate(fmt.Sprintf("%ssortOrders[%d]", path, i)); err != nil {
			return err
		}
	}
	for i := range l.Indexes {
		if err := l.Indexes[i].validate(fmt.Sprintf("%sindexes[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}
