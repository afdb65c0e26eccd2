package semcat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// CustomStatisticPrefix starts the name of every statistic a caller sets,
// as in Gravitino (its other names are reserved for the statistics it
// computes; semcat computes none).
const CustomStatisticPrefix = "custom-"

// MaxStatisticsPerRequest bounds the statistics of one update or drop.
const MaxStatisticsPerRequest = 1000

// Bounds of a table's statistics (SPEC §2.11): at most
// MaxStatisticsPerTable of them, whatever number of updates set them, and
// at most MaxStatisticValueBytes of JSON a value.
const (
	MaxStatisticsPerTable  = 1000
	MaxStatisticValueBytes = 64 << 10
)

// TooManyStatistics is the error of an update that would leave a table
// with more than MaxStatisticsPerTable statistics (n: how many it would).
func TooManyStatistics(n int) error {
	return Errorf(EINVALID, "updates: a table holds at most %d statistics; this update would leave it %d (drop some first)", MaxStatisticsPerTable, n)
}

// Statistic is one statistic of a table (Gravitino's StatisticDTO): a name
// and a JSON value (a boolean, number, string, list or object).
type Statistic struct {
	Name       string          `json:"name"`
	Value      json.RawMessage `json:"value,omitempty"`
	Reserved   bool            `json:"reserved"`
	Modifiable bool            `json:"modifiable"`
	Audit      Audit           `json:"audit"`
}

// StatisticsUpdate is the body of an update of a table's statistics: each
// named statistic is set, created or replaced.
type StatisticsUpdate struct {
	Updates map[string]json.RawMessage `json:"updates"`
}

// Validate checks the names (custom ones, IllegalStatisticNameException
// otherwise) and that every value is one (not null).
func (u StatisticsUpdate) Validate() error {
	if len(u.Updates) == 0 {
		return Errorf(EINVALID, "updates: at least one statistic is required")
	}
	if len(u.Updates) > MaxStatisticsPerRequest {
		return Errorf(EINVALID, "updates: at most %d statistics in one request, got %d", MaxStatisticsPerRequest, len(u.Updates))
	}
	for name, v := range u.Updates {
		if err := validateStatisticName("updates."+name, name); err != nil {
			return err
		}
		if !strings.HasPrefix(name, CustomStatisticPrefix) {
			return &Error{Code: EINVALID, Type: "IllegalStatisticNameException",
				Message: fmt.Sprintf("updates.%s: a statistic's name must start with '%s'", name, CustomStatisticPrefix)}
		}
		if t := bytes.TrimSpace(v); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			return Errorf(EINVALID, "updates.%s: a statistic's value must not be null", name)
		}
		if len(v) > MaxStatisticValueBytes {
			return Errorf(EINVALID, "updates.%s: a statistic's value must be at most %d bytes of JSON, got %d", name, MaxStatisticValueBytes, len(v))
		}
	}
	return nil
}

// StatisticsDrop is the body of a drop of a table's statistics.
type StatisticsDrop struct {
	Names []string `json:"names"`
}

// Validate checks the names.
func (d StatisticsDrop) Validate() error {
	if len(d.Names) == 0 {
		return Errorf(EINVALID, "names: at least one statistic name is required")
	}
	if len(d.Names) > MaxStatisticsPerRequest {
		return Errorf(EINVALID, "names: at most %d statistics in one request, got %d", MaxStatisticsPerRequest, len(d.Names))
	}
	for i, n := range d.Names {
		if err := validateStatisticName(fmt.Sprintf("names[%d]", i), n); err != nil {
			return err
		}
	}
	return nil
}

// MaxStatisticNameLength bounds a statistic's name.
const MaxStatisticNameLength = 256

func validateStatisticName(path, name string) error {
	if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > MaxStatisticNameLength {
		return Errorf(EINVALID, "%s: a statistic's name must be 1-%d characters, not blank", path, MaxStatisticNameLength)
	}
	return nil
}
