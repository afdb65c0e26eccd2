package semcat

// TypeFromTree decodes a nested type object in one pass, as
// Type.UnmarshalJSON tries first; ok is false where it leaves the object
// to member-by-member decoding.
func TypeFromTree(b []byte) (*Type, bool) { return typeInOnePass(b) }

// TypeByMembers decodes a nested type object member by member.
func TypeByMembers(b []byte) (Type, error) {
	var t Type
	err := t.unmarshalMembers(b)
	return t, err
}

// NamePattern is the pattern of entity names, which ValidateName checks
// without a regular expression.
const NamePattern = namePattern
