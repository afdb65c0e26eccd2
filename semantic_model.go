package semcat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// SemanticModel is a named business model over the tables of a schema: its
// datasets, the relationships between them, and the metrics defined on them.
type SemanticModel struct {
	ID         int64             `json:"-"`
	Version    int64             `json:"-"`
	Name       string            `json:"name"`
	Comment    *string           `json:"comment"`
	Definition Definition        `json:"definition"`
	Properties map[string]string `json:"properties"`
	Audit      Audit             `json:"audit"`
}

// SemanticModelCreate is the body of a semantic model creation request.
type SemanticModelCreate struct {
	Name       string            `json:"name"`
	Comment    *string           `json:"comment"`
	Definition *Definition       `json:"definition"`
	Properties map[string]string `json:"properties"`
}

// Validate checks everything that needs no storage: names, properties and
// the structure of the definition. Sources are checked by ValidateSources.
func (c *SemanticModelCreate) Validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	if c.Definition == nil {
		return Errorf(EINVALID, "definition: a semantic model needs a definition")
	}
	if err := c.Definition.Validate(); err != nil {
		return err
	}
	return ValidateProperties("properties", c.Properties)
}

// Definition is the content of a semantic model. Optional arrays are nil
// when absent (or null) and non-nil when given, even empty, so that null and
// [] survive a round trip; `omitzero` leaves out only the absent ones.
type Definition struct {
	Datasets         []Dataset         `json:"datasets"`
	Relationships    []Relationship    `json:"relationships,omitzero"`
	Metrics          []Metric          `json:"metrics,omitzero"`
	AIContext        json.RawMessage   `json:"aiContext,omitzero"`
	CustomExtensions []CustomExtension `json:"customExtensions,omitzero"`
}

// Dataset is a logical table of a model, backed by a source table.
type Dataset struct {
	Name             string            `json:"name"`
	Source           *Source           `json:"source"`
	PrimaryKey       []string          `json:"primaryKey,omitzero"`
	UniqueKeys       [][]string        `json:"uniqueKeys,omitzero"`
	Description      *string           `json:"description,omitzero"`
	AIContext        json.RawMessage   `json:"aiContext,omitzero"`
	Fields           []Field           `json:"fields,omitzero"`
	CustomExtensions []CustomExtension `json:"customExtensions,omitzero"`
}

// Source names the table behind a dataset: namespace [catalog, schema] and
// the table name, in the model's metalake.
type Source struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

// Field is a column-like attribute of a dataset.
type Field struct {
	Name             string            `json:"name"`
	Expression       *Expression       `json:"expression"`
	Dimension        *Dimension        `json:"dimension,omitzero"`
	Label            *string           `json:"label,omitzero"`
	Description      *string           `json:"description,omitzero"`
	Datatype         *Datatype         `json:"datatype,omitzero"`
	AIContext        json.RawMessage   `json:"aiContext,omitzero"`
	CustomExtensions []CustomExtension `json:"customExtensions,omitzero"`
}

// Dimension marks a field as a dimension. IsTime is nil when the definition
// does not say (Gravitino's DimensionDTO has a nullable isTime): an unknown
// is not false, and an absent isTime stays absent on the way back.
type Dimension struct {
	IsTime *bool `json:"isTime,omitempty"`
}

// Relationship joins two datasets of the same model.
type Relationship struct {
	Name             string            `json:"name"`
	From             string            `json:"from"`
	To               string            `json:"to"`
	FromColumns      []string          `json:"fromColumns"`
	ToColumns        []string          `json:"toColumns"`
	AIContext        json.RawMessage   `json:"aiContext,omitzero"`
	CustomExtensions []CustomExtension `json:"customExtensions,omitzero"`
}

// Metric is a named, aggregated business measure.
type Metric struct {
	Name             string            `json:"name"`
	Expression       *Expression       `json:"expression"`
	Description      *string           `json:"description,omitzero"`
	Datatype         *Datatype         `json:"datatype,omitzero"`
	AIContext        json.RawMessage   `json:"aiContext,omitzero"`
	CustomExtensions []CustomExtension `json:"customExtensions,omitzero"`
}

// Expression holds one SQL text per dialect, kept verbatim.
type Expression struct {
	Dialects []DialectExpression `json:"dialects"`
}

// DialectExpression is an expression in one SQL dialect. The dialect is an
// open set (ANSI_SQL, SNOWFLAKE, TRINO, ...).
type DialectExpression struct {
	Dialect    string `json:"dialect"`
	Expression string `json:"expression"`
}

// CustomExtension carries vendor-specific data, opaque to semcat. Both
// members are required but may be empty, as in Gravitino.
type CustomExtension struct {
	VendorName *string `json:"vendorName"`
	Data       *string `json:"data"`
}

// Datatype is the logical type of a field or metric.
type Datatype string

var datatypes = map[Datatype]bool{
	"String": true, "Integer": true, "Decimal": true, "Float": true, "Boolean": true,
	"Date": true, "Time": true, "DateTime": true, "DateTimeTz": true, "Opaque": true,
}

// MetricNames returns the metric names of the definition, in order.
func (d *Definition) MetricNames() []string {
	names := make([]string, len(d.Metrics))
	for i, m := range d.Metrics {
		names[i] = m.Name
	}
	return names
}

// Validate checks the structural rules of SPEC §1. Every message starts with
// the JSON path of the offending value, relative to the definition.
func (d *Definition) Validate() error {
	if len(d.Datasets) == 0 {
		return Errorf(EINVALID, "datasets: a definition needs at least one dataset")
	}
	if err := validateAIContext("aiContext", d.AIContext); err != nil {
		return err
	}
	if err := validateExtensions("customExtensions", d.CustomExtensions); err != nil {
		return err
	}
	datasets := map[string]bool{}
	for i, ds := range d.Datasets {
		p := fmt.Sprintf("datasets[%d]", i)
		if err := validateInnerName(p+".name", ds.Name); err != nil {
			return err
		}
		if datasets[ds.Name] {
			return IllegalSemanticModel("%s.name: duplicate dataset name '%s'", p, ds.Name)
		}
		datasets[ds.Name] = true
		if err := ds.validate(p); err != nil {
			return err
		}
	}
	rels := map[string]bool{}
	for i, r := range d.Relationships {
		p := fmt.Sprintf("relationships[%d]", i)
		if err := validateInnerName(p+".name", r.Name); err != nil {
			return err
		}
		if rels[r.Name] {
			return IllegalSemanticModel("%s.name: duplicate relationship name '%s'", p, r.Name)
		}
		rels[r.Name] = true
		if !datasets[r.From] {
			return IllegalSemanticModel("%s.from: '%s' is not a dataset of this model", p, r.From)
		}
		if !datasets[r.To] {
			return IllegalSemanticModel("%s.to: '%s' is not a dataset of this model", p, r.To)
		}
		if len(r.FromColumns) == 0 {
			return Errorf(EINVALID, "%s.fromColumns: at least one column is required", p)
		}
		if len(r.ToColumns) != len(r.FromColumns) {
			return Errorf(EINVALID, "%s.toColumns: has %d columns but fromColumns has %d", p, len(r.ToColumns), len(r.FromColumns))
		}
		if err := validateColumnNames(p+".fromColumns", r.FromColumns); err != nil {
			return err
		}
		if err := validateColumnNames(p+".toColumns", r.ToColumns); err != nil {
			return err
		}
		if err := validateAIContext(p+".aiContext", r.AIContext); err != nil {
			return err
		}
		if err := validateExtensions(p+".customExtensions", r.CustomExtensions); err != nil {
			return err
		}
	}
	metrics := map[string]bool{}
	for i, m := range d.Metrics {
		p := fmt.Sprintf("metrics[%d]", i)
		if err := validateInnerName(p+".name", m.Name); err != nil {
			return err
		}
		if metrics[m.Name] {
			return IllegalSemanticModel("%s.name: duplicate metric name '%s'", p, m.Name)
		}
		metrics[m.Name] = true
		if err := m.Validate(p); err != nil {
			return err
		}
	}
	return nil
}

func (ds *Dataset) validate(p string) error {
	if ds.Source == nil {
		return Errorf(EINVALID, "%s.source: a dataset needs a source table", p)
	}
	if len(ds.Source.Namespace) != 2 {
		return IllegalSemanticModel("%s.source.namespace: must be [catalog, schema]", p)
	}
	for j, n := range ds.Source.Namespace {
		if err := validateInnerName(fmt.Sprintf("%s.source.namespace[%d]", p, j), n); err != nil {
			return err
		}
	}
	if err := validateInnerName(p+".source.name", ds.Source.Name); err != nil {
		return err
	}
	if err := validateColumnNames(p+".primaryKey", ds.PrimaryKey); err != nil {
		return err
	}
	for j, uk := range ds.UniqueKeys {
		if len(uk) == 0 {
			return Errorf(EINVALID, "%s.uniqueKeys[%d]: a unique key needs at least one column", p, j)
		}
		if err := validateColumnNames(fmt.Sprintf("%s.uniqueKeys[%d]", p, j), uk); err != nil {
			return err
		}
	}
	if err := validateAIContext(p+".aiContext", ds.AIContext); err != nil {
		return err
	}
	if err := validateExtensions(p+".customExtensions", ds.CustomExtensions); err != nil {
		return err
	}
	fields := map[string]bool{}
	for j, f := range ds.Fields {
		fp := fmt.Sprintf("%s.fields[%d]", p, j)
		if err := validateInnerName(fp+".name", f.Name); err != nil {
			return err
		}
		if fields[f.Name] {
			return IllegalSemanticModel("%s.name: duplicate field name '%s' in dataset '%s'", fp, f.Name, ds.Name)
		}
		fields[f.Name] = true
		if err := validateExpression(fp+".expression", f.Expression); err != nil {
			return err
		}
		if err := validateDatatype(fp+".datatype", f.Datatype); err != nil {
			return err
		}
		if err := validateAIContext(fp+".aiContext", f.AIContext); err != nil {
			return err
		}
		if err := validateExtensions(fp+".customExtensions", f.CustomExtensions); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks one metric; p is its JSON path.
func (m *Metric) Validate(p string) error {
	if err := validateExpression(p+".expression", m.Expression); err != nil {
		return err
	}
	if err := validateDatatype(p+".datatype", m.Datatype); err != nil {
		return err
	}
	if err := validateAIContext(p+".aiContext", m.AIContext); err != nil {
		return err
	}
	return validateExtensions(p+".customExtensions", m.CustomExtensions)
}

// MaxInnerNameLength bounds the names inside a definition (datasets,
// fields, relationships, metrics, sources).
const MaxInnerNameLength = 256

// validateInnerName checks a name inside a definition. Gravitino's merged
// definition DTOs ask only that such names be non-empty ("order amount" is
// a valid field name); they are not entity names (SPEC §2.10).
func validateInnerName(p, name string) error {
	switch {
	case name == "":
		return Errorf(EINVALID, "%s: name is required", p)
	case utf8.RuneCountInString(name) > MaxInnerNameLength:
		return Errorf(EINVALID, "%s: name is longer than %d characters", p, MaxInnerNameLength)
	}
	return nil
}

func validateColumnNames(p string, cols []string) error {
	for i, c := range cols {
		if c == "" {
			return Errorf(EINVALID, "%s[%d]: column name must not be empty", p, i)
		}
	}
	return nil
}

func validateExpression(p string, e *Expression) error {
	if e == nil {
		return Errorf(EINVALID, "%s: an expression is required", p)
	}
	if len(e.Dialects) == 0 {
		return Errorf(EINVALID, "%s.dialects: at least one dialect expression is required", p)
	}
	seen := map[string]bool{}
	for i, d := range e.Dialects {
		dp := fmt.Sprintf("%s.dialects[%d]", p, i)
		if d.Dialect == "" {
			return Errorf(EINVALID, "%s.dialect: a dialect is required", dp)
		}
		if seen[d.Dialect] {
			return Errorf(EINVALID, "%s.dialect: duplicate dialect '%s'", dp, d.Dialect)
		}
		seen[d.Dialect] = true
		if d.Expression == "" {
			return Errorf(EINVALID, "%s.expression: an expression text is required", dp)
		}
	}
	return nil
}

func validateDatatype(p string, t *Datatype) error {
	if t != nil && !datatypes[*t] {
		return Errorf(EINVALID, "%s: unknown datatype '%s' (want String, Integer, Decimal, Float, Boolean, Date, Time, DateTime, DateTimeTz or Opaque)", p, *t)
	}
	return nil
}

func validateExtensions(p string, exts []CustomExtension) error {
	for i, e := range exts {
		if e.VendorName == nil {
			return Errorf(EINVALID, "%s[%d].vendorName: a vendor name is required", p, i)
		}
		if e.Data == nil {
			return Errorf(EINVALID, "%s[%d].data: data is required", p, i)
		}
	}
	return nil
}

// validateAIContext accepts null, a string, or an object whose known
// members have the right types; any other members are kept as given.
func validateAIContext(p string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) || raw[0] == '"' {
		return nil
	}
	if raw[0] != '{' {
		return Errorf(EINVALID, "%s: must be a string or an object", p)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return Errorf(EINVALID, "%s: %v", p, err)
	}
	if v, ok := obj["instructions"]; ok && !isNull(v) {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return Errorf(EINVALID, "%s.instructions: must be a string", p)
		}
	}
	for _, key := range []string{"synonyms", "examples"} {
		if v, ok := obj[key]; ok && !isNull(v) {
			var list []string
			if json.Unmarshal(v, &list) != nil {
				return Errorf(EINVALID, "%s.%s: must be an array of strings", p, key)
			}
		}
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// TableColumns looks up the top-level column names of a table of the model's
// metalake; ok is false when the table does not exist.
type TableColumns func(catalog, schema, table string) (columns []string, ok bool, err error)

// ValidateSources checks that every dataset's source is an existing table
// and that every key and relationship column is one of its top-level
// columns.
func (d *Definition) ValidateSources(lookup TableColumns) error {
	cols := make(map[string]map[string]bool, len(d.Datasets))
	for i, ds := range d.Datasets {
		p := fmt.Sprintf("datasets[%d]", i)
		names, ok, err := lookup(ds.Source.Namespace[0], ds.Source.Namespace[1], ds.Source.Name)
		if err != nil {
			return err
		}
		if !ok {
			return NoSuchSource(i, ds.Source)
		}
		set := make(map[string]bool, len(names))
		for _, n := range names {
			set[n] = true
		}
		cols[ds.Name] = set
		check := func(path string, list []string) error {
			for j, c := range list {
				if !set[c] {
					return IllegalSemanticModel("%s[%d]: '%s' is not a top-level column of table '%s.%s.%s'", path, j, c, ds.Source.Namespace[0], ds.Source.Namespace[1], ds.Source.Name)
				}
			}
			return nil
		}
		if err := check(p+".primaryKey", ds.PrimaryKey); err != nil {
			return err
		}
		for j, uk := range ds.UniqueKeys {
			if err := check(fmt.Sprintf("%s.uniqueKeys[%d]", p, j), uk); err != nil {
				return err
			}
		}
	}
	for i, r := range d.Relationships {
		p := fmt.Sprintf("relationships[%d]", i)
		for j, c := range r.FromColumns {
			if !cols[r.From][c] {
				return IllegalSemanticModel("%s.fromColumns[%d]: '%s' is not a top-level column of the source table of dataset '%s'", p, j, c, r.From)
			}
		}
		for j, c := range r.ToColumns {
			if !cols[r.To][c] {
				return IllegalSemanticModel("%s.toColumns[%d]: '%s' is not a top-level column of the source table of dataset '%s'", p, j, c, r.To)
			}
		}
	}
	return nil
}

// SemanticModelUpdates are the update types a semantic model accepts.
var SemanticModelUpdates = append(append([]string{}, CommonUpdates...), UpdateReplaceDefinition)

// ValidateModelUpdates checks a whole update list of a semantic model,
// including every replacement definition, before anything is written.
func ValidateModelUpdates(updates []Update) error {
	if err := ValidateUpdates(updates, SemanticModelUpdates...); err != nil {
		return err
	}
	for i, u := range updates {
		if u.Definition != nil {
			if err := u.Definition.Validate(); err != nil {
				return &Error{Code: EINVALID, Type: ErrorType(err), Message: fmt.Sprintf("updates[%d].definition.%s", i, ErrorMessage(err))}
			}
		}
	}
	return nil
}

// SemanticModelService manages semantic models. Alter and Drop take the
// version the caller expects (from If-Match); 0 means any.
type SemanticModelService interface {
	CreateSemanticModel(ctx context.Context, ns Namespace, req SemanticModelCreate) (*SemanticModel, Position, error)
	GetSemanticModel(ctx context.Context, ns Namespace, name string) (*SemanticModel, error)
	ListSemanticModels(ctx context.Context, ns Namespace) ([]string, error)
	AlterSemanticModel(ctx context.Context, ns Namespace, name string, updates []Update, ifMatch int64) (*SemanticModel, Position, error)
	DropSemanticModel(ctx context.Context, ns Namespace, name string, ifMatch int64) (bool, Position, error)
}

// NoSuchSource is the error of dataset i's source table when it does not
// exist, or the caller may not see it (SPEC §6): the same words, and no
// column names.
func NoSuchSource(i int, src *Source) error {
	return IllegalSemanticModel("datasets[%d].source: table '%s.%s.%s' does not exist", i, src.Namespace[0], src.Namespace[1], src.Name)
}

// IllegalSemanticModel is a 400 of a definition that is well formed but
// does not fit the catalog: a source table that does not exist, a column
// it does not have. Gravitino names it IllegalSemanticModelException;
// request-shape failures stay IllegalArgumentException.
func IllegalSemanticModel(format string, args ...any) *Error {
	return &Error{Code: EINVALID, Type: "IllegalSemanticModelException", Message: fmt.Sprintf(format, args...)}
}

// ModelChangedConcurrently is the 409 of a semantic model alter or drop
// that lost to a concurrent change (an If-Match that no longer holds, or
// retries that ran out of time): Gravitino's OptimisticLockException.
func ModelChangedConcurrently(format string, args ...any) *Error {
	return &Error{Code: ECONFLICT, Type: "OptimisticLockException", Message: fmt.Sprintf(format, args...)}
}

// ErrorType is the exception name an *Error carries apart from its code's
// class, or "".
func ErrorType(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Type
	}
	return ""
}
