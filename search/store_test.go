package search_test

import (
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/search"
)

var _ search.Store = (*catalogdb.Store)(nil)
