package semcat

import "encoding/json"

// TypeFromTree decodes a nested type object in one pass, as
// Type.UnmarshalJSON tries first; ok is false where it leaves the object
// to member-by-member decoding.
func TypeFromTree(b []byte) (t *Type, ok bool) {
	var tree any
	if json.Unmarshal(b, &tree) != nil {
		return nil, false
	}
	members := 0
	t, ok = typeFromTree(tree, 0, &members)
	return t, ok && members == countMembers(b)
}

// TypeByMembers decodes a nested type object member by member.
func TypeByMembers(b []byte) (Type, error) {
	var t Type
	err := t.unmarshalMembers(b)
	return t, err
}
