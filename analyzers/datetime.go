package analyzers

import (
	"errors"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// DateTimeParserNone is the name of a date parser that parses nothing. An
// index mapping names it as its default so that Bleve's dynamic mapping,
// which indexes every string its default parser accepts as a datetime,
// indexes a date-like property value ("2024-01-15", a creation-time) as
// text like any other value (SPEC §5.2); as a datetime, key:2024 and
// key:"2024-01-15" could not find it.
const DateTimeParserNone = "semcat_no_datetime"

// errNotParsed is every answer of noDateTimeParser.
var errNotParsed = errors.New("property values are text, never dates")

type noDateTimeParser struct{}

func (noDateTimeParser) ParseDateTime(string) (time.Time, string, error) {
	return time.Time{}, "", errNotParsed
}

func init() {
	mustRegister(registry.RegisterDateTimeParser(DateTimeParserNone,
		func(map[string]interface{}, *registry.Cache) (analysis.DateTimeParser, error) {
			return noDateTimeParser{}, nil
		}))
}
