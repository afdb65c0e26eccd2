package semcat

import (
	"context"
	"time"
)

// EventPhase says where in an operation an Event was emitted (SPEC §7).
type EventPhase string

// Every operation emits EventPre before it runs and then exactly one of
// EventSuccess or EventFailure.
const (
	EventPre     EventPhase = "pre"
	EventSuccess EventPhase = "success"
	EventFailure EventPhase = "failure"
)

// Event is one phase of one operation, as delivered to every Listener.
type Event struct {
	// Operation is the operation name: "createTable",
	// "listSemanticModelMetrics", "search", ...
	Operation string
	Phase     EventPhase
	// User is the authenticated user the operation runs as.
	User string
	// Metalake is the metalake the operation is in; "" for operations above
	// metalakes (listMetalakes, createMetalake).
	Metalake string
	// Identifier is the full path of the object or namespace the operation
	// addresses, from the metalake down: ["m", "c", "s", "t"] for a table,
	// ["m", "c", "s"] for the listing or creation of its tables.
	Identifier []string
	// Time is when the event was emitted.
	Time time.Time
	// Duration is how long the operation took; set on success and failure.
	Duration time.Duration
	// ResultCount is, on the success of a listing, how many items it returned.
	ResultCount *int
	// Error is, on failure, the user-safe message of the error.
	Error string
	// ErrorCode is, on failure, the semcat error code (see ErrorCode).
	ErrorCode string
	// Interface is how the operation was called: InterfaceREST or
	// InterfaceMCP (an MCP tool call is named after the REST operation it
	// stands for, SPEC §2.8). "" is InterfaceREST.
	Interface string
}

// The interfaces an operation is called through.
const (
	InterfaceREST = "rest"
	InterfaceMCP  = "mcp"
)

// Listener receives events. It must not assume it runs on the request's
// goroutine, and it should return once ctx is done. A returned error is
// logged and counted by whoever delivers the event; it never fails the
// operation.
type Listener interface {
	OnEvent(ctx context.Context, e Event) error
}
