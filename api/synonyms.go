package api

import (
	"net/http"

	"github.com/semcat/semcat"
)

// The synonym routes (SPEC §2.6): GET and PUT /api/metalakes/{m}/synonyms.

func (h *handler) getSynonyms(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	sets, err := h.svc.Synonyms.GetSynonyms(r.Context(), metalake)
	if err != nil {
		return err
	}
	RecordCount(r, len(sets))
	return ok(w, "synonyms", nonNil(sets))
}

// setSynonyms replaces the sets: {"synonyms": [["mau", "monthly active
// users"], …]}; an empty list clears them.
func (h *handler) setSynonyms(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	var req semcat.SynonymsBody
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := semcat.ValidateSynonyms(req.Synonyms); err != nil {
		return err
	}
	pos, err := h.svc.Synonyms.SetSynonyms(r.Context(), metalake, req.Synonyms)
	if err != nil {
		return err
	}
	return written(w, pos, "synonyms", req.Synonyms)
}
