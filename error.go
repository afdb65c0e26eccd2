package semcat

import (
	"context"
	"errors"
	"fmt"
)

// Error codes. Each names a class of failure that the API maps to one HTTP
// status and one Gravitino-compatible code (see api/error.go).
const (
	EINVALID      = "invalid"        // bad argument, body or validation failure
	EUNAUTHORIZED = "unauthorized"   // not authenticated
	EFORBIDDEN    = "forbidden"      // authenticated but not allowed
	ENOTFOUND     = "not_found"      // no such entity
	EEXISTS       = "already_exists" // an entity with that name already exists
	ENOTEMPTY     = "not_empty"      // drop of a non-empty parent without force/cascade
	ECONFLICT     = "conflict"       // concurrent modification (optimistic lock)
	EUNSUPPORTED  = "unsupported"    // operation unsupported for the catalog type
	ENOTINUSE     = "not_in_use"     // an operation under a disabled metalake or catalog
	EINUSE        = "in_use"         // drop of an enabled metalake or catalog without force
	ETOOLARGE     = "too_large"      // request body over the configured limit
	EMEDIATYPE    = "media_type"     // a request body of a type the API does not take
	ENOTCAUGHTUP  = "not_caught_up"  // search consistency wait timed out
	EDEADLINE     = "deadline"       // the request's deadline passed before it finished
	ECANCELED     = "canceled"       // the client went away before the answer
	EUNAVAILABLE  = "unavailable"    // the service is starting, or a part it needs is down
	EINTERNAL     = "internal"       // storage failure or any other internal error
)

// Error is semcat's one error type. Message is safe to show to users; it never
// carries SQL or stack traces. Entity names the kind of entity a not-found or
// already-exists error is about, so the API can name the exception
// (NoSuchSchemaException, TableAlreadyExistsException, ...).
type Error struct {
	Code    string
	Entity  EntityKind
	Message string
	// Type, when set, is the exception name the API reports, for the
	// errors Gravitino names apart from their code's class
	// (IllegalPrivilegeException, NoSuchMetadataObjectException, ...).
	Type string
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("semcat error: code=%s message=%s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, &Error{Code: ENOTFOUND}) asks for the class of a failure
// whatever its message, also through wrapping.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code string, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound returns an ENOTFOUND error for an entity of the given kind.
func NotFound(kind EntityKind, format string, args ...any) *Error {
	return &Error{Code: ENOTFOUND, Entity: kind, Message: fmt.Sprintf(format, args...)}
}

// AlreadyExists returns an EEXISTS error for an entity of the given kind.
func AlreadyExists(kind EntityKind, format string, args ...any) *Error {
	return &Error{Code: EEXISTS, Entity: kind, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err if it is (or wraps) an *Error;
// EDEADLINE or ECANCELED for a context's deadline or cancellation, and
// EINTERNAL otherwise; nil has no code.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	} else if errors.Is(err, context.DeadlineExceeded) {
		return EDEADLINE
	} else if errors.Is(err, context.Canceled) {
		return ECANCELED
	}
	return EINTERNAL
}

// ErrorMessage returns the user-safe message of err: the message of an *Error,
// or a generic text for anything else.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	} else if errors.Is(err, context.DeadlineExceeded) {
		return "the request's deadline passed before it finished; narrow the request or try again later"
	} else if errors.Is(err, context.Canceled) {
		return "the request was cancelled by its client"
	}
	return "internal error"
}

// ErrorEntity returns the entity kind an *Error is about, if any.
func ErrorEntity(err error) EntityKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Entity
	}
	return ""
}

// The not-found errors of the catalog's objects, one message shape for
// each kind: the store answers them for a missing object, and
// authorization for one the caller may not see (SPEC §6, no existence
// oracles).

// NoSuchMetalake is the error of a metalake that does not exist.
func NoSuchMetalake(name string) error {
	return NotFound(KindMetalake, "metalake '%s' does not exist", name)
}

// NoSuchMetadataObject turns the not-found error of an object of a grant
// or an owner into Gravitino's error for it (NoSuchMetadataObjectException,
// the message unchanged); any other error is returned as it is.
func NoSuchMetadataObject(err error) error {
	if ErrorCode(err) != ENOTFOUND {
		return err
	}
	return &Error{Code: ENOTFOUND, Type: "NoSuchMetadataObjectException", Entity: ErrorEntity(err), Message: ErrorMessage(err)}
}

// NoSuchCatalog is the error of a catalog that does not exist.
func NoSuchCatalog(metalake, name string) error {
	return NotFound(KindCatalog, "catalog '%s.%s' does not exist", metalake, name)
}

// NoSuchSchema is the error of a schema of catalog ns that does not exist.
func NoSuchSchema(ns Namespace, name string) error {
	return NotFound(KindSchema, "schema '%s.%s.%s' does not exist", ns.Metalake, ns.Catalog, name)
}

// NoSuchTable is the error of a table of schema ns that does not exist.
func NoSuchTable(ns Namespace, name string) error {
	return NotFound(KindTable, "table '%s.%s.%s.%s' does not exist", ns.Metalake, ns.Catalog, ns.Schema, name)
}

// NoSuchSemanticModel is the error of a semantic model of schema ns that
// does not exist.
func NoSuchSemanticModel(ns Namespace, name string) error {
	return NotFound(KindSemanticModel, "semantic model '%s.%s.%s.%s' does not exist", ns.Metalake, ns.Catalog, ns.Schema, name)
}

// MetalakeNotInUse is the error of an operation under a disabled metalake.
func MetalakeNotInUse(name string) error {
	return &Error{Code: ENOTINUSE, Entity: KindMetalake, Message: fmt.Sprintf("metalake '%s' is disabled (in-use is false); enable it first", name)}
}

// CatalogNotInUse is the error of an operation under a disabled catalog.
func CatalogNotInUse(metalake, name string) error {
	return &Error{Code: ENOTINUSE, Entity: KindCatalog, Message: fmt.Sprintf("catalog '%s.%s' is disabled (in-use is false); enable it first", metalake, name)}
}
