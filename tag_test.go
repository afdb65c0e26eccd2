package semcat_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/semcat/semcat"
)

// TestTagValuesAssociation checks Gravitino's tag-values request: its
// validation, naming the field, and the change it makes.
func TestTagValuesAssociation(t *testing.T) {
	tests := []struct {
		body, wantErr, wantAdd, wantRemove string
	}{
		{`{"tagsToAdd":[{"name":"tier","value":"gold"},{"name":"pii"}],"tagsToRemove":[{"name":"tier","value":"silver"}]}`, "", "tier=gold pii", "tier=silver"},
		{`{"tagsToAdd":[{"name":"a","value":"1"},{"name":"a","value":"2"}],"tagsToRemove":[{"name":"a"}]}`, "", "a=1 a=2", "a"},
		{`{"tagsToAdd":[],"tagsToRemove":null}`, "tagsToAdd, tagsToRemove: give at least one tag value", "", ""},
		{`{"tagsToAdd":[{"name":"a b"}]}`, "tagsToAdd[0].name: invalid name 'a b'", "", ""},
		{`{"tagsToRemove":[{"name":"a","value":" "}]}`, "tagsToRemove[0].value: must be 1-256 characters, not blank", "", ""},
		{`{"tagsToAdd":[{"name":"a","value":"` + strings.Repeat("v", 257) + `"}]}`, "tagsToAdd[0].value: must be 1-256 characters", "", ""},
		{`{"tagsToAdd":[{"name":"a","value":"1"},{"name":"a"}]}`, "tagsToAdd[1]: tag 'a' is added both with and without a value", "", ""},
		{`{"tagsToAdd":[{"name":"a","value":"1"}],"tagsToRemove":[{"name":"b"},{"name":"a","value":"1"}]}`, "tagsToRemove[1]: the same tag value is in tagsToAdd", "", ""},
	}
	show := func(vs []semcat.TagValue) string {
		var out []string
		for _, v := range vs {
			if v.Value != nil {
				out = append(out, v.Name+"="+*v.Value)
			} else {
				out = append(out, v.Name)
			}
		}
		return strings.Join(out, " ")
	}
	for _, tt := range tests {
		var req semcat.TagValuesAssociation
		if err := json.Unmarshal([]byte(tt.body), &req); err != nil {
			t.Fatal(err)
		}
		err := req.Validate()
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.body, err)
		case tt.wantErr != "" && !strings.HasPrefix(semcat.ErrorMessage(err), tt.wantErr):
			t.Errorf("%s: error %v, want %q", tt.body, err, tt.wantErr)
		case err == nil:
			a := req.Assignments()
			if got := show(a.Add); got != tt.wantAdd || show(a.Remove) != tt.wantRemove || !a.Valued {
				t.Errorf("%s: change +%q -%q valued %v, want +%q -%q", tt.body, got, show(a.Remove), a.Valued, tt.wantAdd, tt.wantRemove)
			}
		}
	}
}

// TestTagAssociationAssignments: a tag-names request drops names in both
// lists from both, as Gravitino does, and is not a tag-values change.
func TestTagAssociationAssignments(t *testing.T) {
	a := semcat.TagAssociation{TagsToAdd: []string{"a", "both", "c"}, TagsToRemove: []string{"both", "d"}}.Assignments()
	if got := fmt.Sprint(a.Add, a.Remove, a.Valued); got != "[{a <nil>} {c <nil>}] [{d <nil>}] false" {
		t.Errorf("change %s", got)
	}
}
