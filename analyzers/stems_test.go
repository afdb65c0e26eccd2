package analyzers_test

import (
	"strings"
	"testing"

	"github.com/semcat/semcat/analyzers"
)

func TestStemKey(t *testing.T) {
	// Derived forms meet at one key (SPEC §5.2, revision 3), which starts
	// with FormPrefix no more than MaxStemTail letters before the end.
	for _, forms := range [][]string{
		{"cancelled", "cancellation", "cancellations", "cancel", "canceled", "cancelling"},
		{"delivered", "delivery", "deliveries", "deliver", "delivering"},
		{"validate", "validated", "validation", "valid"},
		{"shipment", "shipped", "ship", "shipping"},
		{"renewal", "renewed", "renew", "renewals"},
		{"active", "activity", "activities", "activation"},
		{"opportunity", "opportunities"},
		{"enrollment", "enrolled", "enroll"},
		{"created", "creation"},
	} {
		want := analyzers.StemKey(forms[0])
		for _, f := range forms {
			got := analyzers.StemKey(f)
			if got != want {
				t.Errorf("StemKey(%q) = %q, StemKey(%q) = %q: want them equal", f, got, forms[0], want)
			}
			p := analyzers.FormPrefix(got)
			if !strings.HasPrefix(f, p) {
				t.Errorf("%q does not start with FormPrefix %q", f, p)
			} else if len(f)-len(p) > analyzers.MaxStemTail {
				t.Errorf("%q has %d letters after %q, more than MaxStemTail", f, len(f)-len(p), p)
			}
		}
	}
	// Nouns of agents, and short words, keep apart.
	for _, pair := range [][2]string{{"customer", "custom"}, {"vendor", "vend"}, {"total", "tot"}, {"payment", "pay"}, {"status", "stat"}, {"month", "monthly"}} {
		if analyzers.StemKey(pair[0]) == analyzers.StemKey(pair[1]) {
			t.Errorf("%q and %q share the key %q", pair[0], pair[1], analyzers.StemKey(pair[0]))
		}
	}
	if got := analyzers.StemKey("zip_code"); got != "zip_code" {
		t.Errorf("StemKey(zip_code) = %q, want it whole", got)
	}
}

func TestAcronymTerms(t *testing.T) {
	// The initials of runs of 2–6 words, and of an identifier's segments,
	// are indexed as acronym terms; a run stops at punctuation.
	terms := func(analyzer, in string) map[string]bool {
		t.Helper()
		out := map[string]bool{}
		for _, tok := range analyzeAll(t, analyzer, in) {
			if a, ok := strings.CutPrefix(tok, analyzers.AcronymMarker); ok {
				out[a] = true
			}
		}
		return out
	}
	got := terms(analyzers.AnalyzerText, "Count of monthly active users. Point of sale")
	for _, want := range []string{"mau", "au", "ma", "omau", "comau", "pos", "po", "os"} {
		if !got[want] {
			t.Errorf("text: no acronym %q in %v", want, got)
		}
	}
	for _, not := range []string{"up", "aup", "uo"} { // across the full stop
		if got[not] {
			t.Errorf("text: acronym %q across a sentence's end", not)
		}
	}
	if got := terms(analyzers.AnalyzerName, "monthly_active_users"); !got["mau"] || len(got) != 1 {
		t.Errorf("name monthly_active_users: acronyms %v, want mau", got)
	}
	if got := terms(analyzers.AnalyzerText, "user_id2 x"); len(got) != 0 {
		t.Errorf("user_id2 x: acronyms %v, want none (not all letters, one word)", got)
	}
	if !analyzers.IsAcronymWord("mau") || analyzers.IsAcronymWord("m") || analyzers.IsAcronymWord("abcdefg") || analyzers.IsAcronymWord("a1") {
		t.Error("IsAcronymWord: want 2–6 letters a–z")
	}
}
