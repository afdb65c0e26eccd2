package analyzers_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat/analyzers"
)

func TestNameAnalyzer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"gitlab_dotcom_users_xf", []string{"gitlab", "dotcom", "users", "xf"}},
		{"EmpTel", []string{"emptel", "emp", "tel"}},
		{"dim_crm_account", []string{"dim", "crm", "account"}},
		{"av4_av5", []string{"av4", "av", "4", "av5", "5"}},
		{"HTTPServer-log", []string{"httpserver", "http", "server", "log"}},
		{"SampleHiveDataset", []string{"samplehivedataset", "sample", "hive", "dataset"}},
		{"is_service_ping_license_in_customerDot", []string{"is", "service", "ping", "license", "in", "customerdot", "customer", "dot"}},
		{"__", nil},
	} {
		if diff := cmp.Diff(tc.want, analyze(t, analyzers.AnalyzerName, tc.in)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestTextAnalyzer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Connect `dim_crm_account_id` to the user's email.", []string{"connect", "dim_crm_account_id", "dim", "crm", "account", "id", "to", "the", "user", "email"}},
		{"GitLab's (CI) builds", []string{"gitlab", "git", "lab", "ci", "builds"}},
		{"Unique key of CI Build", []string{"unique", "key", "of", "ci", "build"}},
		{"--- ... ", nil},
	} {
		if diff := cmp.Diff(tc.want, analyze(t, analyzers.AnalyzerText, tc.in)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestFormKey(t *testing.T) {
	// Word forms meet at one key (SPEC §5.2), which starts with FormPrefix.
	for _, forms := range [][]string{
		{"opportunity", "opportunities"},
		{"booking", "bookings", "book", "books"},
		{"invoice", "invoices", "invoiced", "invoicing"},
		{"subscription", "subscriptions"},
		{"plan", "planned", "plans"},
		{"bill", "billing", "bills"},
		{"address", "addresses"},
		{"merge", "merged", "merges", "merging"},
		{"country", "countries"},
		{"hire", "hired", "hiring"},
	} {
		want := analyzers.FormKey(forms[0])
		for _, f := range forms {
			got := analyzers.FormKey(f)
			if got != want {
				t.Errorf("FormKey(%q) = %q, FormKey(%q) = %q: want them equal", f, got, forms[0], want)
			}
			if p := analyzers.FormPrefix(got); !strings.HasPrefix(f, p) {
				t.Errorf("%q does not start with FormPrefix %q", f, p)
			}
		}
	}
	for _, pair := range [][2]string{{"customer", "custom"}, {"status", "stat"}, {"thing", "th"}, {"string", "str"}, {"class", "cla"}} {
		if analyzers.FormKey(pair[0]) == analyzers.FormKey(pair[1]) {
			t.Errorf("%q and %q share the key %q", pair[0], pair[1], analyzers.FormKey(pair[0]))
		}
	}
}

func TestStopWords(t *testing.T) {
	for _, w := range []string{"the", "by", "which", "of"} {
		if !analyzers.IsStopWord(w) {
			t.Errorf("%q is not a stop word", w)
		}
	}
	for _, w := range []string{"churn", "customer", "user"} {
		if analyzers.IsStopWord(w) {
			t.Errorf("%q is a stop word", w)
		}
	}
}

// TestFormTail: every word starts with the FormPrefix of its FormKey and
// has at most MaxFormTail letters after it, which the search's iteration
// over a word's forms relies on. It tries every ending of up to seven
// letters that FormKey looks at, after a few stems.
func TestFormTail(t *testing.T) {
	const letters = "bdeginsy" // the endings' letters, a consonant to double and a vowel
	longest := ""
	var try func(w string, more int)
	try = func(w string, more int) {
		p := analyzers.FormPrefix(analyzers.FormKey(w))
		if !strings.HasPrefix(w, p) {
			t.Fatalf("%q does not start with %q, the form prefix of its form key", w, p)
		}
		if len(w)-len(p) > analyzers.MaxFormTail {
			t.Fatalf("%q has %d letters after %q, more than MaxFormTail", w, len(w)-len(p), p)
		}
		if len(w)-len(p) > len(longest) {
			longest = w[len(p):]
		}
		for i := 0; more > 0 && i < len(letters); i++ {
			try(w+letters[i:i+1], more-1)
		}
	}
	for _, stem := range []string{"a", "ka", "kab"} {
		try(stem, 7)
	}
	if len(longest) != analyzers.MaxFormTail {
		t.Errorf("the longest ending is %q: MaxFormTail %d is not tight", longest, analyzers.MaxFormTail)
	}
}

func TestNamePartStarts(t *testing.T) {
	for name, want := range map[string][]int{
		"customer_orders": {0, 9},
		"EmpTel":          {0, 3},
		"HTTPServer2":     {0, 4, 10},
		"av4-x.y":         {0, 2, 4, 6},
		"_lead":           {1},
		"Größe_x":         {0, 8},
	} {
		if got := analyzers.NamePartStarts(name); !slices.Equal(got, want) {
			t.Errorf("NamePartStarts(%q) = %v, want %v", name, got, want)
		}
		if n := analyzers.NamePartCount(name); n != len(want) {
			t.Errorf("%q: %d starts, NamePartCount %d", name, len(want), n)
		}
	}
}
