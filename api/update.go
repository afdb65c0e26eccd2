package api

import (
	"net/http"

	"github.com/semcat/semcat"
)

// decodeUpdates reads the body of an alter request and checks its update
// list with validate before any service is called.
func (h *handler) decodeUpdates(w http.ResponseWriter, r *http.Request, validate func([]semcat.Update) error) ([]semcat.Update, error) {
	var req semcat.UpdatesRequest
	if err := h.decode(w, r, &req); err != nil {
		return nil, err
	}
	if err := validate(req.Updates); err != nil {
		return nil, err
	}
	return req.Updates, nil
}

// commonUpdates checks the updates of a metalake, catalog or schema.
func commonUpdates(updates []semcat.Update) error {
	return semcat.ValidateUpdates(updates, semcat.CommonUpdates...)
}
