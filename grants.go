package semcat

// Grant is one privilege bound, through one of a user's roles, on an
// object of the metalake.
type Grant struct {
	Kind      EntityKind
	ID        int64
	Privilege Privilege
	Condition Condition
}

// Grants is everything that decides what a user may see in a metalake, as
// a whole (Access is the same facts about one object and its ancestors):
// the bindings of its roles and the objects it owns, by kind. Search
// compiles them into one filter over the index.
type Grants struct {
	Bindings []Grant
	Owned    map[EntityKind][]int64
	// Member: the user is a member of the metalake or owns it (and so may
	// know it exists).
	Member bool
}
