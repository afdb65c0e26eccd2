package semcat

import (
	"strconv"
	"strings"
)

// Position is how far a write (or an index) has got in PostgreSQL's
// transaction order: the id of the committing transaction. Clients see it as
// the opaque X-Semcat-Position token.
type Position struct {
	TxID uint64
}

// IsZero reports whether p is the zero position (nothing written).
func (p Position) IsZero() bool { return p.TxID == 0 }

// String returns the opaque token.
func (p Position) String() string {
	if p.TxID == 0 {
		return ""
	}
	return "t" + strconv.FormatUint(p.TxID, 36)
}

// ParsePosition reads a token made by String.
func ParsePosition(field, s string) (Position, error) {
	if !strings.HasPrefix(s, "t") {
		return Position{}, Errorf(EINVALID, "%s: malformed position token", field)
	}
	n, err := strconv.ParseUint(s[1:], 36, 64)
	if err != nil || n == 0 {
		return Position{}, Errorf(EINVALID, "%s: malformed position token", field)
	}
	return Position{TxID: n}, nil
}
