package dbt

import (
	"strings"

	"github.com/semcat/semcat"
)

// semcatName makes a dbt or warehouse name a valid semcat name (SPEC §1:
// 1-64 characters matching ^\w[\w/=-]*$, \w being ASCII): every other
// character becomes '_', and the result is cut to 64 bytes. changed says
// whether it differs from name; the importer then keeps the original in a
// property and notes the renaming, so nothing is renamed silently.
func semcatName(name string) (out string, changed bool) {
	if semcat.ValidateName("name", name) == nil {
		return name, false
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
			b.WriteByte(c)
		case (c == '/' || c == '=' || c == '-') && b.Len() > 0:
			b.WriteByte(c)
		case c >= 0x80:
			// One '_' for a whole multi-byte character.
			for i+1 < len(name) && name[i+1]&0xC0 == 0x80 {
				i++
			}
			b.WriteByte('_')
		default:
			b.WriteByte('_')
		}
	}
	out = b.String()
	if len(out) > semcat.MaxNameLength {
		out = out[:semcat.MaxNameLength]
	}
	if out == "" {
		out = "_"
	}
	return out, true
}
