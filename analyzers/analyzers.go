// Package analyzers holds semcat's custom Bleve tokenizers and analyzers.
//
// Each is registered with Bleve's registry by name when the package is
// initialised, so the index mapping refers to them only by the names below;
// importing the package (even for its constants alone) is what registers them.
// Every analyzer lower-cases with Unicode case folding (as strings.ToLower
// does), collapses runs of whitespace, and emits each distinct term at most
// once per input, never longer than MaxTermBytes.
package analyzers

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// Analyzer names, for the Analyzer field of a Bleve field mapping.
const (
	// AnalyzerValue indexes a property value as its whitespace-separated
	// words and each word's parts split at - _ . , : ; / (SPEC §5.2; the
	// whole value goes to AnalyzerExact's fields): "tag12-tag33 X" yields
	// "tag12-tag33", "tag12", "tag33", "x".
	AnalyzerValue = "semcat_value"
	// AnalyzerExact indexes the whole value, lower-cased and
	// whitespace-collapsed, as one term, a long value cut and hashed;
	// WholeTerm(Normalize(v)) computes that term.
	AnalyzerExact = "semcat_exact"
	// AnalyzerSchemaField indexes one "dotted.path:type" schema entry as
	// the field's name, its dotted path, name:type and path:type (SPEC
	// §5.3): "EmpContact.EmpTel:integer" yields "emptel",
	// "empcontact.emptel", "emptel:integer", "empcontact.emptel:integer".
	AnalyzerSchemaField = "semcat_schema_field"
	// AnalyzerName indexes an entity's name as its identifier parts
	// (IdentifierParts): "gitlab_dotcom_users" yields gitlab, dotcom,
	// users; "EmpTel" yields emptel, emp, tel.
	AnalyzerName = "semcat_name"
	// AnalyzerText indexes prose (descriptions, column comments) and
	// column names: each word whole when it is a compound (TextWord),
	// then its identifier parts.
	AnalyzerText = "semcat_text"
)

// Tokenizer names. Each analyzer above is its tokenizer with no filters; the
// tokenizers are registered too, for mappings that compose their own.
const (
	TokenizerValue       = "semcat_value"
	TokenizerExact       = "semcat_exact"
	TokenizerSchemaField = "semcat_schema_field"
	TokenizerName        = "semcat_name"
	TokenizerText        = "semcat_text"
)

// MaxTermBytes bounds every term these analyzers emit: longer terms are cut
// at the last whole UTF-8 character that fits. Bleve rejects terms over
// about 32KB; a query term for an exact or prefix match must be cut the same
// way, which Normalize does.
const MaxTermBytes = 4096

func init() {
	tokenizers := map[string]analysis.Tokenizer{
		TokenizerValue:       valueTokenizer{},
		TokenizerExact:       exactTokenizer{},
		TokenizerSchemaField: schemaFieldTokenizer{},
		TokenizerName:        nameTokenizer{},
		TokenizerText:        textTokenizer{},
	}
	for name, tok := range tokenizers {
		mustRegister(registry.RegisterTokenizer(name,
			func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
				return tok, nil
			}))
	}

	analyzers := map[string]string{
		AnalyzerValue:       TokenizerValue,
		AnalyzerExact:       TokenizerExact,
		AnalyzerSchemaField: TokenizerSchemaField,
		AnalyzerName:        TokenizerName,
		AnalyzerText:        TokenizerText,
	}
	for name, tokName := range analyzers {
		mustRegister(registry.RegisterAnalyzer(name,
			func(_ map[string]interface{}, cache *registry.Cache) (analysis.Analyzer, error) {
				tok, err := cache.TokenizerNamed(tokName)
				if err != nil {
					return nil, fmt.Errorf("analyzer %s: %w", name, err)
				}
				return &analysis.DefaultAnalyzer{Tokenizer: tok}, nil
			}))
	}
}

// mustRegister panics on a registration error, as Bleve's own packages do:
// it means another package took one of these names.
func mustRegister(err error) {
	if err != nil {
		panic(fmt.Sprintf("analyzers: %v", err))
	}
}
