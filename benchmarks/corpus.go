package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// The relevance benchmark's corpus: a file in `semcat import` format
// (../shared/data/catalog-corpus.jsonl), read here a second time into plain
// documents, so that the BM25 baseline and the judges see the text semcat
// was given, not semcat's own reading of it.

// corpusDoc is one searchable entity of the corpus: a catalog, schema,
// table, semantic model or metric.
type corpusDoc struct {
	Key         string   `json:"key"` // "type:catalog.schema.name", as SearchResponse.IDs
	Type        string   `json:"type"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"` // comment; a metric's description and label
	Columns     []column `json:"columns,omitempty"`     // at any depth; a model's datasets' fields
	Tags        []string `json:"tags,omitempty"`
	// Other is the rest of what a person wrote about it: property values,
	// a metric's expressions and AI context, a model's dataset names.
	Other []string `json:"other,omitempty"`
}

// column is a column (or a model's field) by its dotted path.
type column struct {
	Path    string `json:"path"`
	Comment string `json:"comment,omitempty"`
}

// importLine is one line of an import file.
type importLine struct {
	Type      string          `json:"type"`
	Namespace string          `json:"namespace"`
	Entity    json.RawMessage `json:"entity"`
	Tags      []string        `json:"tags"`
}

// corpusEntity is the part of an imported entity's body the documents use.
type corpusEntity struct {
	Name       string            `json:"name"`
	Comment    string            `json:"comment"`
	Properties map[string]string `json:"properties"`
	Columns    []corpusField     `json:"columns"`
	Definition *struct {
		Datasets []struct {
			Name        string        `json:"name"`
			Description string        `json:"description"`
			Fields      []corpusField `json:"fields"`
		} `json:"datasets"`
		Metrics []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Label       string          `json:"label"`
			Expression  json.RawMessage `json:"expression"`
			AIContext   json.RawMessage `json:"aiContext"`
		} `json:"metrics"`
	} `json:"definition"`
}

// corpusField is a table column or a dataset field, with the nested types
// a column's type may hold.
type corpusField struct {
	Name        string          `json:"name"`
	Comment     string          `json:"comment"`
	Description string          `json:"description"`
	Type        json.RawMessage `json:"type"`
}

// nestedType is the part of a nested column type that holds more fields.
type nestedType struct {
	Fields      []corpusField     `json:"fields"`
	ElementType json.RawMessage   `json:"elementType"`
	ValueType   json.RawMessage   `json:"valueType"`
	Types       []json.RawMessage `json:"types"`
}

// readCorpus reads the documents of an import file, in file order, and
// names the metalake it creates.
func readCorpus(path string) (metalake string, docs []corpusDoc, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var l importLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return "", nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		var e corpusEntity
		if err := json.Unmarshal(l.Entity, &e); err != nil {
			return "", nil, fmt.Errorf("%s:%d: entity: %w", path, n, err)
		}
		ns := strings.Split(l.Namespace, ".")
		if l.Type == "metalake" {
			metalake = e.Name
			continue
		}
		if l.Type == "tag" {
			continue
		}
		prefix := strings.Join(ns[1:], ".")
		if prefix != "" {
			prefix += "."
		}
		d := corpusDoc{Key: l.Type + ":" + prefix + e.Name, Type: l.Type, Name: e.Name, Description: e.Comment, Tags: l.Tags}
		for _, k := range sortedKeys(e.Properties) {
			d.Other = append(d.Other, e.Properties[k])
		}
		d.Columns = flattenColumns("", e.Columns)
		if def := e.Definition; def != nil {
			for _, ds := range def.Datasets {
				d.Other = append(d.Other, ds.Name)
				if ds.Description != "" {
					d.Other = append(d.Other, ds.Description)
				}
				d.Columns = append(d.Columns, flattenColumns(ds.Name+".", ds.Fields)...)
			}
			for _, m := range def.Metrics {
				md := corpusDoc{Key: "metric:" + prefix + e.Name + "." + m.Name, Type: "metric", Name: m.Name,
					Description: strings.TrimSpace(m.Description + " " + m.Label), Other: []string{e.Name}}
				md.Other = append(md.Other, jsonStrings(m.Expression)...)
				md.Other = append(md.Other, jsonStrings(m.AIContext)...)
				docs = append(docs, md)
			}
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		return "", nil, err
	}
	if metalake == "" {
		return "", nil, fmt.Errorf("%s: no metalake line", path)
	}
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].Key < docs[j].Key })
	return metalake, docs, nil
}

// flattenColumns lists fields and the fields nested in their types, by
// dotted path.
func flattenColumns(prefix string, fields []corpusField) []column {
	var out []column
	for _, f := range fields {
		comment := f.Comment
		if comment == "" {
			comment = f.Description
		}
		out = append(out, column{Path: prefix + f.Name, Comment: comment})
		out = append(out, nestedColumns(prefix+f.Name+".", f.Type)...)
	}
	return out
}

func nestedColumns(prefix string, raw json.RawMessage) []column {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var t nestedType
	if json.Unmarshal(raw, &t) != nil {
		return nil
	}
	out := flattenColumns(prefix, t.Fields)
	out = append(out, nestedColumns(prefix, t.ElementType)...)
	out = append(out, nestedColumns(prefix, t.ValueType)...)
	for _, u := range t.Types {
		out = append(out, nestedColumns(prefix, u)...)
	}
	return out
}

// jsonStrings returns every string in a JSON value, in order.
func jsonStrings(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, k := range sortedAnyKeys(v) {
				walk(v[k])
			}
		}
	}
	walk(v)
	return out
}

func sortedAnyKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
