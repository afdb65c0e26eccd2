package semcat_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/semcat/semcat"
)

func TestErrorIs(t *testing.T) {
	notFound := semcat.NotFound(semcat.KindTable, "table 't' does not exist")
	wrapped := fmt.Errorf("loading: %w", notFound)
	tests := []struct {
		err    error
		target error
		want   bool
	}{
		{notFound, &semcat.Error{Code: semcat.ENOTFOUND}, true},
		{wrapped, &semcat.Error{Code: semcat.ENOTFOUND}, true},
		{wrapped, semcat.Errorf(semcat.ENOTFOUND, "another message"), true},
		{wrapped, &semcat.Error{Code: semcat.EEXISTS}, false},
		{errors.New("plain"), &semcat.Error{Code: semcat.EINTERNAL}, false},
		{notFound, errors.New("table 't' does not exist"), false},
	}
	for _, tt := range tests {
		if got := errors.Is(tt.err, tt.target); got != tt.want {
			t.Errorf("errors.Is(%v, %v) = %v, want %v", tt.err, tt.target, got, tt.want)
		}
	}
}
