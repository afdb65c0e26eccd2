package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/semcat/semcat"
)

// Errors to compare with errors.Is: a *semcat.Error is one of these when its
// code is theirs (semcat.Error.Is compares codes), whatever its message.
var (
	ErrInvalid       = &semcat.Error{Code: semcat.EINVALID}
	ErrUnauthorized  = &semcat.Error{Code: semcat.EUNAUTHORIZED}
	ErrForbidden     = &semcat.Error{Code: semcat.EFORBIDDEN}
	ErrNotFound      = &semcat.Error{Code: semcat.ENOTFOUND}
	ErrAlreadyExists = &semcat.Error{Code: semcat.EEXISTS}
	ErrNotEmpty      = &semcat.Error{Code: semcat.ENOTEMPTY}
	ErrConflict      = &semcat.Error{Code: semcat.ECONFLICT}
	ErrUnsupported   = &semcat.Error{Code: semcat.EUNSUPPORTED}
	ErrNotInUse      = &semcat.Error{Code: semcat.ENOTINUSE}
	ErrInUse         = &semcat.Error{Code: semcat.EINUSE}
	ErrTooLarge      = &semcat.Error{Code: semcat.ETOOLARGE}
	ErrNotCaughtUp   = &semcat.Error{Code: semcat.ENOTCAUGHTUP}
	ErrDeadline      = &semcat.Error{Code: semcat.EDEADLINE}
	ErrInternal      = &semcat.Error{Code: semcat.EINTERNAL}
	ErrConnection    = &semcat.Error{Code: semcat.ECONNFAILED}
)

// codes maps the Gravitino error codes of SPEC §2 back to semcat's.
var codes = map[int]string{
	1001: semcat.EINVALID,
	1002: semcat.EINTERNAL,
	1003: semcat.ENOTFOUND,
	1004: semcat.EEXISTS,
	1005: semcat.ENOTEMPTY,
	1006: semcat.EUNSUPPORTED,
	1007: semcat.ECONNFAILED,
	1008: semcat.EFORBIDDEN,
	1009: semcat.ENOTINUSE,
	1010: semcat.EINUSE,
	1011: semcat.EUNAUTHORIZED,
	1012: semcat.ECONFLICT,
	1013: semcat.ENOTCAUGHTUP,
}

// statusCodes is the fallback for an answer without a semcat error body
// (from a proxy, say): the code the server would have sent with that status.
var statusCodes = map[int]string{
	http.StatusBadRequest:            semcat.EINVALID,
	http.StatusUnauthorized:          semcat.EUNAUTHORIZED,
	http.StatusForbidden:             semcat.EFORBIDDEN,
	http.StatusNotFound:              semcat.ENOTFOUND,
	http.StatusMethodNotAllowed:      semcat.EUNSUPPORTED,
	http.StatusRequestEntityTooLarge: semcat.ETOOLARGE,
}

// entityKinds are the kinds an exception name can be about.
var entityKinds = []semcat.EntityKind{
	semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel,
	semcat.KindMetric, semcat.KindTag, semcat.KindUser, semcat.KindRole,
}

// decodeError turns a failed answer into a *semcat.Error: the code of its
// Gravitino code (a 413 is ETOOLARGE, although its code is 1001's), the
// entity its exception names, and the server's message.
func decodeError(status int, body []byte) error {
	var wire struct {
		Code    int    `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &wire); err != nil || wire.Code == 0 {
		code, ok := statusCodes[status]
		if !ok {
			code = semcat.EINTERNAL
		}
		return &semcat.Error{Code: code, Message: fmt.Sprintf("the server answered %d %s without an error body: %.200s",
			status, http.StatusText(status), strings.TrimSpace(string(body)))}
	}
	code, ok := codes[wire.Code]
	switch {
	case status == http.StatusRequestEntityTooLarge:
		code = semcat.ETOOLARGE
	case wire.Code == 1013 && wire.Type == "ServiceUnavailableException":
		code = semcat.EDEADLINE // 1013 is also the index's not-caught-up
	case !ok:
		code = semcat.EINTERNAL
	}
	return &semcat.Error{Code: code, Entity: exceptionEntity(wire.Type), Message: wire.Message}
}

// exceptionEntity returns the entity a NoSuchXxxException or
// XxxAlreadyExistsException is about, or "" for other exceptions.
func exceptionEntity(typ string) semcat.EntityKind {
	name, ok := strings.CutPrefix(typ, "NoSuch")
	if ok {
		name, ok = strings.CutSuffix(name, "Exception")
	} else {
		name, ok = strings.CutSuffix(typ, "AlreadyExistsException")
	}
	if !ok {
		return ""
	}
	for _, k := range entityKinds {
		if k.Title() == name {
			return k
		}
	}
	return ""
}
