package query

import "slices"

// Leaf is a term of the index that a matching document can contain: a
// term of Field, or with Prefix any term of Field starting with Text.
// Search explains each hit of a page ("matches") from its stored metadata
// and the leaves, so that neither the index nor the search carries term
// locations.
type Leaf struct {
	Field  string
	Text   string
	Prefix bool
}

// Leaves returns the leaves of the plan's positive terms that need no
// index to know: their exact terms and prefixes (an evaluation's Leaves
// add the word forms and typos it found).
func (p *Plan) Leaves() []Leaf {
	s := &LeafSet{seen: map[Leaf]bool{}}
	for _, t := range append(slices.Clip(p.Required), p.Optional...) {
		for _, g := range t.Groups {
			for _, c := range g.Clauses {
				switch c.Mode {
				case MatchTerm:
					s.Add(c.Field, c.Term, false)
				case MatchPrefix:
					s.Add(c.Field, c.Term, true)
				}
			}
		}
	}
	return s.list
}

// LeafSet collects leaves, each once; a nil set collects nothing.
type LeafSet struct {
	seen map[Leaf]bool
	list []Leaf
}

func (s *LeafSet) Add(field, text string, prefix bool) {
	if s == nil {
		return
	}
	l := Leaf{Field: field, Text: text, Prefix: prefix}
	if !s.seen[l] {
		s.seen[l] = true
		s.list = append(s.list, l)
	}
}

// NewLeafSet returns an empty set.
func NewLeafSet() *LeafSet { return &LeafSet{seen: map[Leaf]bool{}} }

// List returns the leaves collected, in the order first added.
func (s *LeafSet) List() []Leaf { return s.list }
