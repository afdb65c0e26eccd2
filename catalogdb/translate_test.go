package catalogdb_test

import (
	"context"
	"testing"

	"github.com/semcat/semcat"
)

// TestNULIsInvalid: PostgreSQL's text and jsonb cannot hold U+0000, and a
// caller that does not go through the API's checks (which name the field)
// gets an invalid-input error for it, not an internal one, and no
// metalake.
func TestNULIsInvalid(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	ctx := context.Background()
	comment := "a\x00b"
	for name, req := range map[string]semcat.MetalakeCreate{
		"comment":        {Name: "m1", Comment: &comment},
		"property value": {Name: "m2", Properties: map[string]string{"k": "v\x00"}},
	} {
		_, _, err := s.CreateMetalake(ctx, req)
		if code := semcat.ErrorCode(err); code != semcat.EINVALID {
			t.Errorf("%s with U+0000: %v (code %q), want %s", name, err, code, semcat.EINVALID)
		}
		if _, err := s.GetMetalake(ctx, req.Name); semcat.ErrorCode(err) != semcat.ENOTFOUND {
			t.Errorf("%s: the failed create left metalake %s: %v", name, req.Name, err)
		}
	}
}
