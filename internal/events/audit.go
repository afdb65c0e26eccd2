package events

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/semcat/semcat"
)

// AuditLog is the structured audit log: a Listener that writes each event
// as one JSON object per line (JSON Lines).
type AuditLog struct {
	mu     sync.Mutex // serialises writes, so that lines never interleave
	w      io.Writer
	closer io.Closer // the file NewAuditLogFile opened; nil otherwise
}

var _ semcat.Listener = (*AuditLog)(nil)

// NewAuditLog returns an audit log that writes to w.
func NewAuditLog(w io.Writer) *AuditLog {
	return &AuditLog{w: w}
}

// NewAuditLogFile returns an audit log that appends to the file at path,
// creating it (mode 0600: the log names users) if needed. Close closes the
// file.
func NewAuditLogFile(path string) (*AuditLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening audit log: %w", err)
	}
	return &AuditLog{w: f, closer: f}, nil
}

// auditRecord is the JSON form of one event in the audit log.
type auditRecord struct {
	Time        time.Time `json:"time"`
	Operation   string    `json:"operation"`
	Phase       string    `json:"phase"`
	User        string    `json:"user"`
	Metalake    string    `json:"metalake,omitempty"`
	Identifier  []string  `json:"identifier"`
	DurationMs  *float64  `json:"durationMs,omitempty"`
	ResultCount *int      `json:"resultCount,omitempty"`
	Error       string    `json:"error,omitempty"`
	ErrorCode   string    `json:"errorCode,omitempty"`
	Interface   string    `json:"interface"`
}

// OnEvent writes e as one line.
func (a *AuditLog) OnEvent(_ context.Context, e semcat.Event) error {
	rec := auditRecord{
		Time:        e.Time.UTC(),
		Operation:   e.Operation,
		Phase:       string(e.Phase),
		User:        e.User,
		Metalake:    e.Metalake,
		Identifier:  e.Identifier,
		ResultCount: e.ResultCount,
		Error:       e.Error,
		ErrorCode:   e.ErrorCode,
		Interface:   e.Interface,
	}
	if rec.Interface == "" {
		rec.Interface = semcat.InterfaceREST
	}
	if rec.Identifier == nil {
		rec.Identifier = []string{}
	}
	if e.Phase != semcat.EventPre {
		ms := float64(e.Duration) / float64(time.Millisecond)
		rec.DurationMs = &ms
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encoding audit record: %w", err)
	}
	line = append(line, '\n')

	a.mu.Lock()
	defer a.mu.Unlock()
	// One Write per line: with O_APPEND, lines from other processes
	// appending to the same file do not interleave with ours either.
	if _, err := a.w.Write(line); err != nil {
		return fmt.Errorf("writing audit log: %w", err)
	}
	return nil
}

// Close closes the file of an audit log made by NewAuditLogFile; for one
// made by NewAuditLog it does nothing. Close the Bus first.
func (a *AuditLog) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closer == nil {
		return nil
	}
	err := a.closer.Close()
	a.closer = nil
	return err
}
