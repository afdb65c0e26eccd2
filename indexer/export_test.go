package indexer

import "github.com/semcat/semcat"

// PayloadEntity decodes the entity of a stored payload, for the external
// tests.
func PayloadEntity(payload string) (semcat.SearchEntity, error) {
	st, err := decodePayload(payload)
	if err != nil {
		return semcat.SearchEntity{}, err
	}
	return st.Entity, nil
}
