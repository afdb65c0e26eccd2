package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/spf13/cobra"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/semcat/semcat"
	apiclient "github.com/semcat/semcat/client"
)

// importLine is one line of an import file (JSON Lines): an entity to
// create under a parent, and the tags to attach to it.
//
//	{"type":"catalog","namespace":"demo","entity":{"name":"wh","type":"relational"}}
//	{"type":"table","namespace":"demo.wh.sales","entity":{...},"tags":["pii"]}
//
// type is metalake, catalog, schema, table, semantic_model or tag; entity is
// the body of the matching create request of the REST API; namespace is
// the dotted parent ("" for a metalake, the metalake for catalogs and tags).
type importLine struct {
	Type      string          `json:"type"`
	Namespace string          `json:"namespace"`
	Entity    json.RawMessage `json:"entity"`
	Tags      []string        `json:"tags"`
}

// importOp is a parsed line, ready to send.
type importOp struct {
	line int
	typ  string
	// count is how many entities run creates: 1, or a batch's tables.
	count int
	// table and ns are a table line's request and schema, for batches.
	table *semcat.TableBatchItem
	ns    semcat.Namespace
	// run creates the entity and attaches its tags; with skipExisting an
	// entity that exists already is not an error (existed), and still gets
	// its tags, so that a rerun completes what a failed run left undone.
	run func(ctx context.Context, c *apiclient.Client, skipExisting bool) (existed bool, err error)
}

// importStats count what an import did.
type importStats struct {
	Created int64 `json:"created"`
	Skipped int64 `json:"skipped"`
	TookMs  int64 `json:"tookMs"`
}

// runImport runs `semcat import`: it creates the entities of a JSON Lines
// file in file order, several at a time. Consecutive lines of one type are
// sent concurrently, and each new type waits for the lines before it, so a
// file that lists parents before children (catalogs, then schemas, then
// tables and models) loads correctly. Consecutive tables of one schema go
// up to importTableBatch at a time in one batch create, all or none of
// them. It stops at the first failure, naming the line; --skip-existing
// passes over entities that already exist (tables then one by one).
func importCommand(r *remote) *cobra.Command {
	var concurrency int
	var skipExisting bool
	c := &cobra.Command{
		Use:   "import [--concurrency N] [--skip-existing] FILE|-",
		Short: "create the entities of a JSON Lines file",
		Long: `create the entities of a JSON Lines file (- for stdin), one per line:
{"type":"table","namespace":"m.c.s","entity":{...},"tags":[...]}`,
		Args: argsBetween(1, 1),
		RunE: func(cc *cobra.Command, pos []string) error {
			return runImport(r.command(cc), pos[0], concurrency, skipExisting)
		},
	}
	c.Flags().IntVar(&concurrency, "concurrency", 4, "requests in flight")
	c.Flags().BoolVar(&skipExisting, "skip-existing", false, "count entities that already exist as skipped instead of failing")
	c.AddCommand(importDBTCommand(r))
	return c
}

func runImport(cmd *command, file string, concurrency int, skipExisting bool) error {
	stdout, stderr := cmd.stdout, cmd.stderr
	if concurrency < 1 {
		return usagef("import: --concurrency must be at least 1")
	}
	c, err := cmd.client()
	if err != nil {
		return err
	}
	in, total, closeIn, err := openImport(file)
	if err != nil {
		return err
	}
	defer closeIn()
	ctx, stop := signalContext()
	defer stop()

	var done atomic.Int64
	label := "importing " + file
	stopProgress := startProgress(stderr, label, func() (int64, int64, bool) { return done.Load(), total, total > 0 })
	started := time.Now()
	stats, err := importEntities(ctx, c, in, concurrency, skipExisting, &done)
	stopProgress()
	stats.TookMs = time.Since(started).Milliseconds()
	if err != nil {
		if stats.Created+stats.Skipped > 0 {
			fmt.Fprintf(stderr, "semcat: %d entities were created before the failure\n", stats.Created)
		}
		return err
	}
	if cmd.json {
		return printJSON(stdout, stats)
	}
	rate := float64(stats.Created+stats.Skipped) / max(time.Since(started).Seconds(), 1e-3)
	fmt.Fprintf(stdout, "imported %d entities (%d skipped as existing) in %s, %.0f/s\n",
		stats.Created, stats.Skipped, time.Duration(stats.TookMs)*time.Millisecond, rate)
	return nil
}

// openImport opens the import file ("-": standard input) and counts its
// lines for the progress bar (0 for standard input, which is read once).
func openImport(name string) (io.Reader, int64, func(), error) {
	if name == "-" {
		return os.Stdin, 0, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, err
	}
	total, err := countLines(f)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, 0, nil, err
	}
	return f, total, func() { f.Close() }, nil
}

// countLines counts the non-blank lines of r.
func countLines(r io.Reader) (int64, error) {
	sc := newLineScanner(r)
	var n int64
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			n++
		}
	}
	return n, sc.Err()
}

// maxImportLine bounds one line: a table with thousands of columns is well
// under it.
const maxImportLine = 16 << 20

func newLineScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxImportLine)
	return sc
}

// importEntities reads and applies the lines of in; done counts the lines
// applied.
func importEntities(ctx context.Context, c *apiclient.Client, in io.Reader, workers int, skipExisting bool, done *atomic.Int64) (importStats, error) {
	var created, skipped atomic.Int64
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ops := make(chan importOp)
	var inflight sync.WaitGroup // the ops of the current run of one type
	var workersDone sync.WaitGroup
	for range workers {
		workersDone.Go(func() {
			for op := range ops {
				n := int64(max(op.count, 1))
				existed, err := op.run(ctx, c, skipExisting)
				var le lineError
				switch {
				case err == nil && existed:
					skipped.Add(n)
				case err == nil:
					created.Add(n)
				case ctx.Err() != nil:
				case errors.As(err, &le):
					cancel(fmt.Errorf("line %d: %s", le.line, le.msg))
				default:
					cancel(fmt.Errorf("line %d: %s", op.line, errorMessage(err)))
				}
				done.Add(n)
				inflight.Done()
			}
		})
	}
	enqueue := func(op importOp) error {
		inflight.Add(1)
		select {
		case ops <- op:
			return nil
		case <-ctx.Done():
			inflight.Done()
			return context.Cause(ctx)
		}
	}
	// Consecutive tables of one schema go importTableBatch at a time in one
	// batch create, unless existing ones are to be skipped one by one.
	var group []importOp
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		op := tableBatch(group)
		group = nil
		return enqueue(op)
	}
	send := func() error {
		sc := newLineScanner(in)
		lineNo, lastType := 0, ""
		for sc.Scan() {
			lineNo++
			raw := bytes.TrimSpace(sc.Bytes())
			if len(raw) == 0 {
				continue
			}
			op, err := parseImportLine(lineNo, raw)
			if err != nil {
				return err
			}
			if op.typ != lastType {
				if err := flush(); err != nil {
					return err
				}
				inflight.Wait() // parents before children
				lastType = op.typ
			}
			if op.table != nil && !skipExisting {
				if len(group) > 0 && (group[0].ns != op.ns || len(group) == importTableBatch) {
					if err := flush(); err != nil {
						return err
					}
				}
				group = append(group, op)
				continue
			}
			if err := enqueue(op); err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("line %d: %w", lineNo+1, err)
		}
		return flush()
	}
	err := send()
	close(ops)
	workersDone.Wait()
	if err == nil {
		err = context.Cause(ctx)
	}
	return importStats{Created: created.Load(), Skipped: skipped.Load()}, err
}

// importTableBatch is the most tables an import sends in one batch create.
const importTableBatch = 100

// lineError is a failure of one line of a batch.
type lineError struct {
	line int
	msg  string
}

func (e lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// batchItemRE finds the table a batch create's error names ("tables[3].name: ...").
var batchItemRE = regexp.MustCompile(`^tables\[(\d+)\]\.?`)

// tableBatch is one op creating the tables of group, consecutive table
// lines of one schema, with their tags; a failure names the line of the
// table it is about.
func tableBatch(group []importOp) importOp {
	items := make([]semcat.TableBatchItem, len(group))
	for i, op := range group {
		items[i] = *op.table
	}
	ns := group[0].ns
	return importOp{line: group[0].line, typ: "table", count: len(group),
		run: func(ctx context.Context, c *apiclient.Client, _ bool) (bool, error) {
			_, _, err := c.CreateTables(ctx, ns, semcat.TableBatchCreate{Tables: items})
			if err == nil {
				return false, nil
			}
			msg := errorMessage(err)
			if m := batchItemRE.FindStringSubmatch(msg); m != nil {
				if i, convErr := strconv.Atoi(m[1]); convErr == nil && i < len(group) {
					return false, lineError{line: group[i].line, msg: strings.TrimPrefix(msg[len(m[0]):], " ")}
				}
			}
			return false, err
		}}
}

// parseImportLine decodes one line strictly, so that a misspelt key fails
// the import before anything is sent for it.
func parseImportLine(lineNo int, raw []byte) (importOp, error) {
	fail := func(format string, args ...any) (importOp, error) {
		return importOp{}, fmt.Errorf("line %d: "+format, append([]any{lineNo}, args...)...)
	}
	var l importLine
	if err := strictDecode(raw, &l); err != nil {
		return fail("%v", err)
	}
	if len(l.Entity) == 0 {
		return fail("entity is required")
	}
	depth := map[string]int{"metalake": 0, "catalog": 1, "tag": 1, "schema": 2, "table": 3, "semantic_model": 3}
	want, ok := depth[l.Type]
	if !ok {
		return fail("type: unknown type %q (want metalake, catalog, schema, table, semantic_model or tag)", l.Type)
	}
	var ns semcat.Namespace
	if l.Namespace != "" {
		var err error
		if ns, err = apiclient.ParseNamespace(l.Namespace); err != nil {
			return fail("%s", errorMessage(err))
		}
	}
	if got := strings.Count(l.Namespace, ".") + 1; l.Namespace == "" && want != 0 || l.Namespace != "" && got != want {
		return fail("namespace: a %s goes under a namespace of %d dotted parts, got %q", l.Type, want, l.Namespace)
	}
	if len(l.Tags) > 0 && (l.Type == "metalake" || l.Type == "tag") {
		return fail("tags: a %s carries no tags", l.Type)
	}
	op := importOp{line: lineNo, typ: l.Type}
	var create func(ctx context.Context, c *apiclient.Client) (name string, err error)
	var err error
	switch l.Type {
	case "metalake":
		var req semcat.MetalakeCreate
		err = strictDecode(l.Entity, &req)
		create = func(ctx context.Context, c *apiclient.Client) (string, error) {
			_, _, err := c.CreateMetalake(ctx, req)
			return req.Name, err
		}
	case "catalog":
		var req semcat.CatalogCreate
		err = strictDecode(l.Entity, &req)
		create = func(ctx context.Context, c *apiclient.Client) (string, error) {
			_, _, err := c.CreateCatalog(ctx, ns.Metalake, req)
			return req.Name, err
		}
	case "tag":
		var req semcat.TagCreate
		err = strictDecode(l.Entity, &req)
		create = func(ctx context.Context, c *apiclient.Client) (string, error) {
			_, _, err := c.CreateTag(ctx, ns.Metalake, req)
			return req.Name, err
		}
	case "schema":
		var req semcat.SchemaCreate
		err = strictDecode(l.Entity, &req)
		create = func(ctx context.Context, c *apiclient.Client) (string, error) {
			_, _, err := c.CreateSchema(ctx, ns, req)
			return req.Name, err
		}
	case "table":
		var req semcat.TableCreate
		err = strictDecode(l.Entity, &req)
		create = func(ctx context.Context, c *apiclient.Client) (string, error) {
			_, _, err := c.CreateTable(ctx, ns, req)
			return req.Name, err
		}
		op.table, op.ns = &semcat.TableBatchItem{TableCreate: req, Tags: l.Tags}, ns
	case "semantic_model":
		var req semcat.SemanticModelCreate
		err = strictDecode(l.Entity, &req)
		create = func(ctx context.Context, c *apiclient.Client) (string, error) {
			_, _, err := c.CreateSemanticModel(ctx, ns, req)
			return req.Name, err
		}
	}
	if err != nil {
		return fail("entity: %v", err)
	}
	tags := l.Tags
	op.run = func(ctx context.Context, c *apiclient.Client, skipExisting bool) (bool, error) {
		name, err := create(ctx, c)
		existed := skipExisting && errors.Is(err, apiclient.ErrAlreadyExists)
		if err != nil && !existed {
			return false, err
		}
		if len(tags) == 0 {
			return existed, nil
		}
		// The object's full name is its identifier below the metalake.
		full := strings.Join(append(ns.Path()[1:], name), ".")
		obj := semcat.ObjectRef{Type: semcat.EntityKind(l.Type), FullName: full}
		// A tag-values request skips what the object holds already, so a
		// rerun over existing entities adds only the tags they lack.
		add := make([]semcat.TagValue, len(tags))
		for i, t := range tags {
			add[i] = semcat.TagValue{Name: t}
		}
		_, _, err = c.AssociateTags(ctx, ns.Metalake, obj, semcat.TagAssignments{Add: add, Valued: true})
		return existed, err
	}
	return op, nil
}

// strictDecode decodes one JSON value, refusing unknown keys and trailing
// data.
func strictDecode(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}
