// Package dbt imports a dbt project's artifacts — manifest.json, catalog.json
// and semantic_manifest.json from its target directory — into a semcat
// catalog, through semcat's REST API, so that events, the outbox and
// authorization apply to every write (SPEC §2.12).
//
// The mapping, in short (the README and Plan's comments say more):
//   - a model, seed, snapshot or source becomes a table named like its
//     relation (alias, or a source's identifier) in the semcat schema named
//     like its dbt schema; the dbt database is kept as a property, so two
//     relations of one schema and name in different databases collide and
//     the second is reported;
//   - descriptions become comments, catalog.json gives the columns' types
//     and order (else the manifest's data_type), dbt tags become semcat tags,
//     meta.owner becomes the object's owner when that user exists, and the
//     rest of meta, the materialization, the upstream nodes and the dbt
//     identity become "dbt.*" properties;
//   - each dbt semantic model becomes a semantic model in its node's schema,
//     every metric a metric of the model of its (first) input, with SQL for
//     its aggregation and its dbt definition (inputs, filter, window, label)
//     kept in customExtensions (vendor "dbt").
package dbt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// Artifacts are the parts of a dbt project's artifacts the importer reads.
type Artifacts struct {
	Manifest Manifest
	// Catalog is nil without catalog.json.
	Catalog *Catalog
	// Semantic is the semantic layer: semantic_manifest.json, or else the
	// semantic_models and metrics of manifest.json.
	Semantic SemanticManifest
	// SemanticFile names where Semantic came from ("" for nowhere).
	SemanticFile string
}

// Manifest is manifest.json: nodes, sources and the semantic layer.
type Manifest struct {
	Metadata struct {
		DBTVersion  string `json:"dbt_version"`
		ProjectName string `json:"project_name"`
		AdapterType string `json:"adapter_type"`
	} `json:"metadata"`
	Nodes          map[string]*Node           `json:"nodes"`
	Sources        map[string]*Node           `json:"sources"`
	SemanticModels map[string]*SemanticModel  `json:"semantic_models"`
	Metrics        map[string]*Metric         `json:"metrics"`
	SavedQueries   map[string]json.RawMessage `json:"saved_queries"`
	Exposures      map[string]json.RawMessage `json:"exposures"`
}

// Node is a model, seed, snapshot, source (or a node of another kind,
// which the importer leaves out).
type Node struct {
	UniqueID         string         `json:"unique_id"`
	ResourceType     string         `json:"resource_type"`
	PackageName      string         `json:"package_name"`
	Name             string         `json:"name"`
	Alias            string         `json:"alias"`
	Identifier       string         `json:"identifier"`
	Database         string         `json:"database"`
	Schema           string         `json:"schema"`
	Description      string         `json:"description"`
	OriginalFilePath string         `json:"original_file_path"`
	Tags             []string       `json:"tags"`
	Meta             map[string]any `json:"meta"`
	SourceName       string         `json:"source_name"`
	Loader           string         `json:"loader"`
	Config           struct {
		Materialized string         `json:"materialized"`
		Meta         map[string]any `json:"meta"`
		Tags         any            `json:"tags"`
		Enabled      *bool          `json:"enabled"`
	} `json:"config"`
	Columns   Columns `json:"columns"`
	DependsOn struct {
		Nodes []string `json:"nodes"`
	} `json:"depends_on"`
}

// Column is a column the manifest documents.
type Column struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	DataType    *string        `json:"data_type"`
	Meta        map[string]any `json:"meta"`
	Tags        []string       `json:"tags"`
	// Constraints are a contract's (dbt 1.5 and later): not_null and
	// primary_key make the column not nullable.
	Constraints []struct {
		Type string `json:"type"`
	} `json:"constraints"`
}

// notNull reports whether the column's constraints forbid nulls.
func (c *Column) notNull() bool {
	for _, k := range c.Constraints {
		if k.Type == "not_null" || k.Type == "primary_key" {
			return true
		}
	}
	return false
}

// Columns are a node's documented columns in the order the manifest lists
// them (a JSON object, whose order a Go map would lose).
type Columns []Column

// UnmarshalJSON reads the columns object in order.
func (cs *Columns) UnmarshalJSON(b []byte) error {
	*cs = nil
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("columns: want an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var c Column
		if err := dec.Decode(&c); err != nil {
			return fmt.Errorf("columns.%v: %w", t, err)
		}
		if c.Name == "" {
			c.Name, _ = t.(string)
		}
		*cs = append(*cs, c)
	}
	return nil
}

// Catalog is catalog.json: the warehouse's view of each relation.
type Catalog struct {
	Nodes   map[string]*CatalogTable `json:"nodes"`
	Sources map[string]*CatalogTable `json:"sources"`
}

// CatalogTable is one relation of catalog.json.
type CatalogTable struct {
	Metadata struct {
		Type    string  `json:"type"`
		Comment *string `json:"comment"`
	} `json:"metadata"`
	Columns map[string]CatalogColumn `json:"columns"`
}

// CatalogColumn is a column as the warehouse describes it.
type CatalogColumn struct {
	Name    string  `json:"name"`
	Type    string  `json:"type"`
	Index   int     `json:"index"`
	Comment *string `json:"comment"`
}

// Ordered returns the columns in the relation's order.
func (t *CatalogTable) Ordered() []CatalogColumn {
	cols := make([]CatalogColumn, 0, len(t.Columns))
	for k, c := range t.Columns {
		if c.Name == "" {
			c.Name = k
		}
		cols = append(cols, c)
	}
	sort.SliceStable(cols, func(i, j int) bool {
		if cols[i].Index != cols[j].Index {
			return cols[i].Index < cols[j].Index
		}
		return cols[i].Name < cols[j].Name
	})
	return cols
}

// SemanticManifest is semantic_manifest.json (the manifest's maps of
// semantic models and metrics read into the same shape).
type SemanticManifest struct {
	SemanticModels []*SemanticModel  `json:"semantic_models"`
	Metrics        []*Metric         `json:"metrics"`
	SavedQueries   []json.RawMessage `json:"saved_queries"`
}

// SemanticModel is a dbt semantic model. Both specs share it: before dbt
// 1.12 it lists measures, from 1.12 on measures is empty and the metrics
// carry their aggregation.
type SemanticModel struct {
	Name         string       `json:"name"`
	Description  *string      `json:"description"`
	Label        *string      `json:"label"`
	NodeRelation NodeRelation `json:"node_relation"`
	Defaults     *struct {
		AggTimeDimension string `json:"agg_time_dimension"`
	} `json:"defaults"`
	PrimaryEntity *string     `json:"primary_entity"`
	Entities      []Entity    `json:"entities"`
	Measures      []Measure   `json:"measures"`
	Dimensions    []Dimension `json:"dimensions"`
	DependsOn     struct {
		Nodes []string `json:"nodes"`
	} `json:"depends_on"`
	Config struct {
		Meta map[string]any `json:"meta"`
	} `json:"config"`
	UniqueID string `json:"unique_id"`
}

// NodeRelation names the relation a semantic model reads.
type NodeRelation struct {
	Alias        string `json:"alias"`
	SchemaName   string `json:"schema_name"`
	Database     string `json:"database"`
	RelationName string `json:"relation_name"`
}

// Entity is a join key of a semantic model.
type Entity struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Expr        *string `json:"expr"`
	Description *string `json:"description"`
	Label       *string `json:"label"`
	Role        *string `json:"role"`
}

// Measure is an aggregation of a semantic model (dbt before 1.12).
type Measure struct {
	Name                 string          `json:"name"`
	Agg                  string          `json:"agg"`
	Expr                 *string         `json:"expr"`
	Description          *string         `json:"description"`
	Label                *string         `json:"label"`
	CreateMetric         bool            `json:"create_metric"`
	AggParams            *AggParams      `json:"agg_params"`
	AggTimeDimension     *string         `json:"agg_time_dimension"`
	NonAdditiveDimension json.RawMessage `json:"non_additive_dimension"`
}

// AggParams are a percentile aggregation's parameters.
type AggParams struct {
	Percentile            *float64 `json:"percentile"`
	UseDiscretePercentile bool     `json:"use_discrete_percentile"`
}

// Dimension is a categorical or time attribute of a semantic model.
type Dimension struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Expr        *string `json:"expr"`
	Description *string `json:"description"`
	Label       *string `json:"label"`
	IsPartition bool    `json:"is_partition"`
	TypeParams  *struct {
		TimeGranularity string          `json:"time_granularity"`
		ValidityParams  json.RawMessage `json:"validity_params"`
	} `json:"type_params"`
}

// Metric is a dbt metric of either spec. Raw keeps the whole definition
// for customExtensions.
type Metric struct {
	Name        string          `json:"name"`
	Description *string         `json:"description"`
	Label       *string         `json:"label"`
	Type        string          `json:"type"`
	TypeParams  TypeParams      `json:"type_params"`
	Filter      *Filter         `json:"filter"`
	UniqueID    string          `json:"unique_id"`
	Raw         json.RawMessage `json:"-"`

	// The dbt_metrics spec's (dbt before 1.6, legacy.go).
	CalculationMethod string         `json:"calculation_method"`
	Expression        string         `json:"expression"`
	SQL               string         `json:"sql"`
	Filters           []LegacyFilter `json:"filters"`
	Timestamp         string         `json:"timestamp"`
	Dimensions        []string       `json:"dimensions"`
	DependsOn         struct {
		Nodes []string `json:"nodes"`
	} `json:"depends_on"`
}

// UnmarshalJSON keeps the raw definition besides the parsed one.
func (m *Metric) UnmarshalJSON(b []byte) error {
	type plain Metric
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*m = Metric(p)
	m.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// TypeParams are a metric's type-specific parameters.
type TypeParams struct {
	Measure                 *Input          `json:"measure"`
	Numerator               *Input          `json:"numerator"`
	Denominator             *Input          `json:"denominator"`
	Expr                    *string         `json:"expr"`
	Window                  json.RawMessage `json:"window"`
	GrainToDate             json.RawMessage `json:"grain_to_date"`
	Metrics                 []Input         `json:"metrics"`
	ConversionTypeParams    *ConversionParams
	CumulativeTypeParams    *CumulativeParams
	MetricAggregationParams *MetricAggregationParams
}

// UnmarshalJSON reads the snake_case members into the nested structs.
func (t *TypeParams) UnmarshalJSON(b []byte) error {
	type plain TypeParams
	var p struct {
		plain
		Conversion  *ConversionParams        `json:"conversion_type_params"`
		Cumulative  *CumulativeParams        `json:"cumulative_type_params"`
		Aggregation *MetricAggregationParams `json:"metric_aggregation_params"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*t = TypeParams(p.plain)
	t.ConversionTypeParams, t.CumulativeTypeParams, t.MetricAggregationParams = p.Conversion, p.Cumulative, p.Aggregation
	return nil
}

// Input is a measure or metric a metric is built on: an object with a
// name, or (in older manifests) just the name.
type Input struct {
	Name          string          `json:"name"`
	Filter        *Filter         `json:"filter"`
	Alias         *string         `json:"alias"`
	OffsetWindow  json.RawMessage `json:"offset_window"`
	OffsetToGrain json.RawMessage `json:"offset_to_grain"`
}

// UnmarshalJSON accepts a bare name as well.
func (in *Input) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*in = Input{Name: s}
		return nil
	}
	type plain Input
	var p plain
	err := json.Unmarshal(b, &p)
	*in = Input(p)
	return err
}

// Filter is a where filter: Jinja SQL templates, all of which must hold.
type Filter struct {
	WhereFilters []struct {
		WhereSQLTemplate string `json:"where_sql_template"`
	} `json:"where_filters"`
}

// Templates returns the filter's SQL templates.
func (f *Filter) Templates() []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, w := range f.WhereFilters {
		out = append(out, w.WhereSQLTemplate)
	}
	return out
}

// ConversionParams are a conversion metric's: the base and conversion
// events (measures before 1.12, metrics after) and how they are related.
type ConversionParams struct {
	BaseMeasure       *Input          `json:"base_measure"`
	ConversionMeasure *Input          `json:"conversion_measure"`
	BaseMetric        *Input          `json:"base_metric"`
	ConversionMetric  *Input          `json:"conversion_metric"`
	Entity            string          `json:"entity"`
	Calculation       string          `json:"calculation"`
	Window            json.RawMessage `json:"window"`
}

// CumulativeParams are a cumulative metric's; Metric is its input from
// dbt 1.12 on (before, type_params.measure).
type CumulativeParams struct {
	Window      json.RawMessage `json:"window"`
	GrainToDate json.RawMessage `json:"grain_to_date"`
	PeriodAgg   string          `json:"period_agg"`
	Metric      *Input          `json:"metric"`
}

// MetricAggregationParams is a simple metric's own aggregation (dbt 1.12
// and later); the aggregated expression is type_params.expr.
type MetricAggregationParams struct {
	SemanticModel    string     `json:"semantic_model"`
	Agg              string     `json:"agg"`
	AggParams        *AggParams `json:"agg_params"`
	AggTimeDimension *string    `json:"agg_time_dimension"`
	Expr             *string    `json:"expr"`
}

// Read reads the artifacts of dir: a dbt target directory, or a project
// directory with a target/ holding manifest.json. manifest.json is
// required; catalog.json and semantic_manifest.json are optional.
func Read(dir string) (*Artifacts, error) {
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(dir, "target", "manifest.json")); err == nil {
			dir = filepath.Join(dir, "target")
		}
	}
	a := &Artifacts{}
	if err := decodeFile(filepath.Join(dir, "manifest.json"), &a.Manifest); err != nil {
		return nil, err
	}
	var cat Catalog
	switch err := decodeFile(filepath.Join(dir, "catalog.json"), &cat); {
	case err == nil:
		a.Catalog = &cat
	case !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	semPath := filepath.Join(dir, "semantic_manifest.json")
	switch err := decodeFile(semPath, &a.Semantic); {
	case err == nil:
		a.SemanticFile = "semantic_manifest.json"
	case errors.Is(err, os.ErrNotExist):
		// The manifest holds the same semantic layer, keyed by unique id.
		if len(a.Manifest.SemanticModels)+len(a.Manifest.Metrics) > 0 {
			a.SemanticFile = "manifest.json"
			for _, k := range sortedKeys(a.Manifest.SemanticModels) {
				a.Semantic.SemanticModels = append(a.Semantic.SemanticModels, a.Manifest.SemanticModels[k])
			}
			for _, k := range sortedKeys(a.Manifest.Metrics) {
				a.Semantic.Metrics = append(a.Semantic.Metrics, a.Manifest.Metrics[k])
			}
			for _, k := range sortedKeys(a.Manifest.SavedQueries) {
				a.Semantic.SavedQueries = append(a.Semantic.SavedQueries, a.Manifest.SavedQueries[k])
			}
		}
	default:
		return nil, err
	}
	return a, nil
}

// decodeFile decodes one JSON file in a single streaming pass: a manifest
// of a large project is tens of MB, of which only the parts above are kept.
func decodeFile(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := json.NewDecoder(f).Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
