package api

import (
	"mime"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/semcat/semcat"
)

func (h *handler) createTag(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	var req semcat.TagCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	t, pos, err := h.svc.Tags.CreateTag(r.Context(), metalake, req)
	if err != nil {
		return err
	}
	return written(w, pos, "tag", t)
}

func (h *handler) listTags(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	details, err := boolParam(r, "details")
	if err != nil {
		return err
	}
	if details {
		ts, err := h.svc.Tags.ListTagInfos(r.Context(), metalake)
		if err != nil {
			return err
		}
		RecordCount(r, len(ts))
		return ok(w, "tags", nonNil(ts))
	}
	names, err := h.svc.Tags.ListTags(r.Context(), metalake)
	if err != nil {
		return err
	}
	RecordCount(r, len(names))
	return ok(w, "names", nonNil(names))
}

func (h *handler) alterTag(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "tag")
	if err != nil {
		return err
	}
	updates, err := h.decodeUpdates(w, r, commonUpdates)
	if err != nil {
		return err
	}
	t, pos, err := h.svc.Tags.AlterTag(r.Context(), n[0], n[1], updates)
	if err != nil {
		return err
	}
	return written(w, pos, "tag", t)
}

// tagObjects answers {"metadataObjects": [{"type", "fullName"}]}; ?value
// keeps the objects with an assignment of that value.
func (h *handler) tagObjects(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "tag")
	if err != nil {
		return err
	}
	q, err := queryValues(r, "value")
	if err != nil {
		return err
	}
	value := ""
	if vs, given := q["value"]; given {
		if value = vs[0]; strings.TrimSpace(value) == "" || len([]rune(value)) > semcat.MaxTagValueLength {
			return semcat.Errorf(semcat.EINVALID, "value: must be 1-%d characters, not blank", semcat.MaxTagValueLength)
		}
	}
	select {
	case listingSlots <- struct{}{}:
	case <-r.Context().Done():
		return r.Context().Err()
	}
	// The slot is given back, after its rest, once the body is encoded:
	// a client reading it slowly costs no work.
	start := time.Now()
	release := sync.OnceFunc(func() {
		rest := min(listingRest*time.Since(start), maxListingRest)
		afterRest(rest, func() { <-listingSlots })
	})
	defer release()
	objs, err := h.svc.Tags.TagObjects(r.Context(), n[0], n[1], value)
	if err != nil {
		return err
	}
	RecordCount(r, len(objs))
	return respondEncoded(w, http.StatusOK, "metadataObjects", nonNil(objs), release)
}

// listingSlots admits the listings no request bounds in size (a tag's
// objects: 10,000 tables and more) to half the machine's cores, as search
// admits its costliest queries, so that callers listing back to back leave
// cores and database connections to everyone else (SPEC §2.11). A listing
// waits for a slot within its own deadline.
//
// A slot rests after each listing for listingRest times as long as the
// listing worked, until its answer was encoded (at most maxListingRest): a
// listing alone answers at once, but listings back to back, however cheap
// each one (the store answers a repeated one from its cache in a few
// milliseconds), take at most a tenth of their slots' time. Without the
// rest, four callers listing a 10,000-row tag in a loop ran 220 listings a
// second, and a normal search's p99 beside them rose from 2 to 19 ms on
// two cores; with it, 20 to 55 listings a second, and the p99 1.4 to 1.9
// times its idle value.
var listingSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))

const (
	listingRest    = 9
	maxListingRest = time.Second
)

// afterRest calls f once a slot's rest is over; tests watch the rests.
var afterRest = func(rest time.Duration, f func()) { time.AfterFunc(rest, f) }

func (h *handler) loadTag(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "tag")
	if err != nil {
		return err
	}
	t, err := h.svc.Tags.GetTag(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return ok(w, "tag", t)
}

func (h *handler) dropTag(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "tag")
	if err != nil {
		return err
	}
	dropped, pos, err := h.svc.Tags.DropTag(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return written(w, pos, "dropped", dropped)
}

// listObjectTags answers an object's tag names, or with ?details=true its
// tags, its own and inherited (semcat.ObjectTag).
func (h *handler) listObjectTags(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := taggableTarget(r)
	if err != nil {
		return err
	}
	details, err := boolParam(r, "details")
	if err != nil {
		return err
	}
	if !details {
		names, err := h.svc.Tags.ListObjectTags(r.Context(), metalake, obj)
		if err != nil {
			return err
		}
		RecordCount(r, len(names))
		return ok(w, "names", nonNil(names))
	}
	ts, err := h.svc.Tags.ObjectTagInfos(r.Context(), metalake, obj)
	if err != nil {
		return err
	}
	RecordCount(r, len(ts))
	return ok(w, "tags", nonNil(ts))
}

// loadObjectTag answers one tag of an object, its own or inherited; a tag
// the object does not carry is NoSuchTagException, as in Gravitino.
func (h *handler) loadObjectTag(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := taggableTarget(r)
	if err != nil {
		return err
	}
	tag, err := pathName(r, "tag")
	if err != nil {
		return err
	}
	ts, err := h.svc.Tags.ObjectTagInfos(r.Context(), metalake, obj)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(ts, func(t *semcat.ObjectTag) bool { return t.Name == tag })
	if i < 0 {
		return semcat.NotFound(semcat.KindTag, "tag '%s' is not attached to %s '%s' or its parents", tag, obj.Type, obj.FullName)
	}
	return ok(w, "tag", ts[i])
}

// associateTags takes Gravitino's tag-names request, or its tag-values
// request when sent as semcat.TagValuesMediaType.
func (h *handler) associateTags(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := taggableTarget(r)
	if err != nil {
		return err
	}
	decode := decodeAssignments[semcat.TagAssociation]
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == semcat.TagValuesMediaType {
		decode = decodeAssignments[semcat.TagValuesAssociation]
	}
	change, err := decode(h, w, r)
	if err != nil {
		return err
	}
	names, pos, err := h.svc.Tags.AssociateTags(r.Context(), metalake, obj, change)
	if err != nil {
		return err
	}
	return written(w, pos, "names", nonNil(names))
}

// decodeAssignments decodes and checks an association request of type T
// and returns the change it asks for.
func decodeAssignments[T any, P interface {
	*T
	Validate() error
	Assignments() semcat.TagAssignments
}](h *handler, w http.ResponseWriter, r *http.Request) (semcat.TagAssignments, error) {
	req := P(new(T))
	if err := h.decode(w, r, req); err != nil {
		return semcat.TagAssignments{}, err
	}
	if err := req.Validate(); err != nil {
		return semcat.TagAssignments{}, err
	}
	return req.Assignments(), nil
}

// objectVars returns the metalake, type and full name of an
// /objects/{type}/{fullName} path.
func objectVars(r *http.Request) (metalake, typ, fullName string, err error) {
	if metalake, err = pathName(r, "metalake"); err != nil {
		return "", "", "", err
	}
	if typ, err = pathVar(r, "type"); err != nil {
		return "", "", "", err
	}
	fullName, err = pathVar(r, "fullName")
	return metalake, typ, fullName, err
}

// objectTarget returns the metalake and the object of an
// /objects/{type}/{fullName} path.
func objectTarget(r *http.Request) (string, semcat.ObjectRef, error) {
	metalake, typ, fullName, err := objectVars(r)
	if err != nil {
		return "", semcat.ObjectRef{}, err
	}
	obj, _, _, err := semcat.ParseObjectRef(metalake, typ, fullName)
	return metalake, obj, err
}

// taggableTarget is objectTarget for the tag routes, whose objects include
// columns (semcat.ParseTaggable).
func taggableTarget(r *http.Request) (string, semcat.ObjectRef, error) {
	metalake, typ, fullName, err := objectVars(r)
	if err != nil {
		return "", semcat.ObjectRef{}, err
	}
	obj, err := semcat.ParseTaggable(metalake, typ, fullName)
	return metalake, obj, err
}
