package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/semcat/semcat"
	apiclient "github.com/semcat/semcat/client"
)

// Exit codes of the command line.
const (
	exitError    = 1 // any failure
	exitUsage    = 2 // bad flags or arguments, unknown command
	exitNotFound = 3 // the server answered 404: no such entity
)

// usageError is a mistake on the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// report writes err as the one line "semcat: <message>" to w and returns
// the exit code: 0 for no error (and for -h, whose usage flag has already
// printed), 2 for a usage error (or an argument the server refused as
// invalid, 400), 3 when something does not exist, 1 otherwise. A semcat error shows only its message.
func report(w io.Writer, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	msg := errorMessage(err)
	if errors.Is(err, syscall.ECONNREFUSED) {
		msg += " (is semcat serve running there? set --server or SEMCAT_URL)"
	}
	fmt.Fprintln(w, "semcat:", msg)
	var usage *usageError
	switch {
	case errors.As(err, &usage), errors.Is(err, apiclient.ErrInvalid):
		// A request the server refused as invalid carried a bad argument.
		return exitUsage
	case errors.Is(err, apiclient.ErrNotFound):
		return exitNotFound
	}
	return exitError
}

// errorMessage returns the message of a semcat error, which is written for
// people, or else the error's text.
func errorMessage(err error) string {
	var e *semcat.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// remote holds the flags of every command that talks to a running server.
// Each has an environment variable that gives its default.
type remote struct {
	server   string
	user     string
	token    string
	metalake string
	json     bool
}

// newRemote returns the defaults of the remote flags: SEMCAT_URL, or the
// address semcat serve would listen on (SEMCAT_ADDR, else 127.0.0.1:8090);
// SEMCAT_USER, SEMCAT_TOKEN, SEMCAT_METALAKE (or SEMCAT_DEFAULT_METALAKE).
func newRemote(getenv func(string) string) *remote {
	r := &remote{server: getenv("SEMCAT_URL"), user: getenv("SEMCAT_USER"), token: getenv("SEMCAT_TOKEN"), metalake: getenv("SEMCAT_METALAKE")}
	if r.server == "" {
		addr := getenv("SEMCAT_ADDR")
		if addr == "" {
			addr = DefaultConfig().Addr
		}
		r.server = "http://" + addr
	}
	if r.metalake == "" {
		r.metalake = getenv("SEMCAT_DEFAULT_METALAKE")
	}
	return r
}

// register adds the remote flags to fs, with their current values as
// defaults, so that flags given before the command carry over.
func (r *remote) register(fs *pflag.FlagSet) {
	fs.StringVar(&r.server, "server", r.server, "base URL of the semcat server (env SEMCAT_URL)")
	fs.StringVar(&r.user, "user", r.user, "user name, for a server with --auth simple (env SEMCAT_USER)")
	fs.StringVar(&r.token, "token", r.token, "bearer token, for a server with --auth jwt (env SEMCAT_TOKEN)")
	fs.StringVar(&r.metalake, "metalake", r.metalake, "metalake of names given without one (env SEMCAT_METALAKE; default: the server's only metalake)")
}

// client returns a client of the server with the credentials of the flags.
func (r *remote) client() (*apiclient.Client, error) {
	var opts []apiclient.Option
	switch {
	case r.user != "" && r.token != "":
		return nil, usagef("give --user or --token, not both")
	case r.user != "":
		opts = append(opts, apiclient.WithUser(r.user))
	case r.token != "":
		opts = append(opts, apiclient.WithToken(r.token))
	}
	if !strings.Contains(r.server, "://") {
		return nil, usagef("--server: %q has no scheme: give the server's URL, http://%s", r.server, r.server)
	}
	c, err := apiclient.New(r.server, opts...)
	if err != nil {
		return nil, usagef("--server: %s", strings.TrimPrefix(err.Error(), "client: "))
	}
	return c, nil
}

// defaultMetalake returns --metalake, or else the server's only metalake.
func (r *remote) defaultMetalake(ctx context.Context, c *apiclient.Client) (string, error) {
	if r.metalake != "" {
		return r.metalake, nil
	}
	ms, err := c.ListMetalakes(ctx)
	if err != nil {
		return "", err
	}
	switch len(ms) {
	case 1:
		return ms[0].Name, nil
	case 0:
		return "", semcat.Errorf(semcat.ENOTFOUND, "the server at %s has no metalake", r.server)
	}
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return "", usagef("the server has several metalakes (%s): name one in the identifier, with --metalake or with SEMCAT_METALAKE", strings.Join(names, ", "))
}

// resolve splits a dotted identifier whose full form, shape, names want
// levels from the metalake down ("metalake.catalog.schema.table" is 4). One
// level fewer means the default metalake.
func (r *remote) resolve(ctx context.Context, c *apiclient.Client, id, shape string) ([]string, error) {
	want := strings.Count(shape, ".") + 1
	parts := strings.Split(id, ".")
	if len(parts) == want-1 {
		m, err := r.defaultMetalake(ctx, c)
		if err != nil {
			return nil, err
		}
		if parts[0] == m {
			// demo.hr.people for a table: the metalake and one level short,
			// not a catalog named like the metalake.
			return nil, usagef("'%s': want %s (the metalake may be left out); this starts with the metalake %s and names only %d levels", id, shape, m, len(parts))
		}
		parts = append([]string{m}, parts...)
	}
	if len(parts) != want {
		return nil, usagef("'%s': want %s (the metalake may be left out)", id, shape)
	}
	for _, p := range parts {
		if err := semcat.ValidateName("name", p); err != nil {
			return nil, usagef("'%s': %s", id, semcat.ErrorMessage(err))
		}
	}
	return parts, nil
}

// command is one run of a command that talks to a server: its flags, its
// name (after "semcat ") and where it writes.
type command struct {
	*remote
	name           string
	stdout, stderr io.Writer
}

// signalContext is the context of a command: canceled by SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
}

// printJSON writes v as indented JSON, without HTML escaping, as the server
// writes it.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table writes aligned columns. Cells are kept to one line.
type table struct {
	tw *tabwriter.Writer
}

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	t.row(header...)
	return t
}

var cellCleaner = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = cellCleaner.Replace(c)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

// clip shortens s to n characters for a table cell.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// formatProperties writes a property map as "k=v, ..." sorted by key.
func formatProperties(props map[string]string) string {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + props[k]
	}
	return strings.Join(parts, ", ")
}

// listFlag is a flag that may be given more than once, each value also split
// at commas.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Type names the flag's value in help: words, commas between.
func (l *listFlag) Type() string { return "a,b" }

func (l *listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// repeatedFlag is a flag that may be given more than once; values are kept
// whole.
type repeatedFlag []string

func (l *repeatedFlag) String() string { return strings.Join(*l, " ") }

func (l *repeatedFlag) Type() string { return "string" }

func (l *repeatedFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// isTerminal reports whether w is a terminal, where progress is drawn.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
