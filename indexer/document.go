package indexer

import (
	"strconv"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
)

// DocID is the id of an entity's document: its kind and id. A metric's id is
// its stable identity.
func DocID(kind semcat.EntityKind, id int64) string {
	return string(kind) + ":" + strconv.FormatInt(id, 10)
}

func refDocID(r catalogdb.EntityRef) string { return DocID(r.Kind, r.ID) }
