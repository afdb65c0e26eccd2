package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/search"
	"github.com/semcat/semcat/searchdoc"
)

// Where an index's bytes and build CPU go (issue 28's first step): the
// same records indexed whole, and again without each group of fields; what
// a group costs is the difference. Leaving a field out also saves what it
// shares with the others (a term dictionary's entry of a term only it
// has), so the groups' costs need not sum to the whole.

// FieldGroup is index fields a breakdown leaves out together: fields by
// name, and the fields of property maps by their map (u, ux, s, sx).
type FieldGroup struct {
	Name   string   `json:"name"`
	Fields []string `json:"fields"`
}

// BreakdownGroups are the groups a breakdown measures: every field of the
// mapping is in one.
var BreakdownGroups = []FieldGroup{
	{"stored payload", []string{searchdoc.FieldStored}},
	{"schema fields", []string{searchdoc.FieldSchemaFields, searchdoc.FieldHas}},
	{"column names and comments", []string{searchdoc.FieldColumns}},
	{"value words", []string{searchdoc.FieldUserValues, searchdoc.FieldSystemValues}},
	{"whole values, keys and tags", []string{searchdoc.FieldNameExact, searchdoc.FieldUserExact, searchdoc.FieldSystemExact, searchdoc.FieldUserKeys, searchdoc.FieldSystemKeys, searchdoc.FieldTagsExact, searchdoc.FieldSystemTagsExact}},
	{"property fields (key:value)", []string{trim(searchdoc.UserPropertyPrefix), trim(searchdoc.UserPropertyExactPrefix), trim(searchdoc.SystemPropertyPrefix), trim(searchdoc.SystemPropertyExactPrefix)}},
	{"name and description words", []string{searchdoc.FieldName, searchdoc.FieldDescription}},
	{"facet and sort columns (doc values)", []string{searchdoc.FieldType, searchdoc.FieldCatalog, searchdoc.FieldSchema, searchdoc.FieldOwner, searchdoc.FieldTags, searchdoc.FieldSystemTags, searchdoc.FieldSortKey, searchdoc.FieldCreated}},
	{"ids and metalake", []string{searchdoc.FieldMetalake, searchdoc.FieldMetalakeID, searchdoc.FieldCatalogID, searchdoc.FieldSchemaID, searchdoc.FieldTableID, searchdoc.FieldModelID}},
}

// IndexCost is the size and build CPU of one index of a breakdown.
type IndexCost struct {
	Bytes    int64   `json:"bytes"`
	Segments int     `json:"segments"`
	CPU      float64 `json:"cpuSeconds"` // this process's, building and merging
}

// GroupCost is what one field group costs: the whole index's figures less
// those of the index without it.
type GroupCost struct {
	Group   FieldGroup `json:"group"`
	Without IndexCost  `json:"without"`
	Bytes   int64      `json:"bytes"`
	CPU     float64    `json:"cpuSeconds"`
}

// Breakdown is where an index of Docs records puts its bytes and CPU.
type Breakdown struct {
	Docs  int       `json:"docs"`
	Whole IndexCost `json:"whole"`
	// WholeCPUs are the CPU seconds of the whole index's two builds.
	WholeCPUs []float64   `json:"wholeCpuSeconds"`
	Groups    []GroupCost `json:"groups"`
}

// MeasureBreakdown indexes records into fresh indexes under dir: whole,
// then without each of BreakdownGroups, each merged into one segment.
func MeasureBreakdown(ctx context.Context, records []*semcat.EntityRecord, dir string) (*Breakdown, error) {
	docs := make([]map[string]any, len(records))
	ids := make([]string, len(records))
	for i, r := range records {
		d, err := searchdoc.Document(r)
		if err != nil {
			return nil, err
		}
		docs[i], ids[i] = d, DocID(r.Kind, r.ID)
	}
	b := &Breakdown{Docs: len(docs)}
	// The whole index is built first and again last: the first build of a
	// process pays for warming up (its heap growing, code and data paged
	// in), which once made every group look a sixth of the CPU or more.
	// The faster of the two is the whole's CPU; both are reported, as a
	// measure of the noise.
	first, err := buildMeasured(ctx, filepath.Join(dir, "whole"), documents, ids, docs)
	if err != nil {
		return nil, err
	}
	var withouts []IndexCost
	for i, g := range BreakdownGroups {
		without, err := buildMeasured(ctx, filepath.Join(dir, fmt.Sprintf("without-%d", i)), documents.without(g.Fields), ids, docs)
		if err != nil {
			return nil, fmt.Errorf("without %s: %w", g.Name, err)
		}
		withouts = append(withouts, without)
	}
	last, err := buildMeasured(ctx, filepath.Join(dir, "whole"), documents, ids, docs)
	if err != nil {
		return nil, err
	}
	b.Whole, b.WholeCPUs = first, []float64{first.CPU, last.CPU}
	b.Whole.CPU = min(first.CPU, last.CPU)
	for i, g := range BreakdownGroups {
		w := withouts[i]
		b.Groups = append(b.Groups, GroupCost{Group: g, Without: w, Bytes: b.Whole.Bytes - w.Bytes, CPU: b.Whole.CPU - w.CPU})
	}
	return b, nil
}

// without returns a mapper that leaves out the named fields, and the
// fields of the named property maps.
func (m *mapper) without(fields []string) *mapper {
	out := &mapper{fields: map[string][]fieldRule{}, dynamic: map[string]fieldRule{}, dropped: map[string]bool{}}
	for key, rules := range m.fields {
		kept := slices.DeleteFunc(slices.Clone(rules), func(r fieldRule) bool {
			name := r.name
			if name == "" {
				name = key
			}
			return slices.Contains(fields, name)
		})
		out.fields[key] = kept
		out.dropped[key] = len(kept) == 0
	}
	for key, rule := range m.dynamic {
		out.dynamic[key] = rule
		out.dropped[key] = slices.Contains(fields, key)
	}
	return out
}

// buildMeasured indexes docs with m into a new index at dir, merges it,
// and returns its size on disk and the CPU this process spent.
func buildMeasured(ctx context.Context, dir string, m *mapper, ids []string, docs []map[string]any) (IndexCost, error) {
	if err := os.RemoveAll(dir); err != nil {
		return IndexCost{}, err
	}
	defer os.RemoveAll(dir)
	start := cpuSeconds()
	idx, err := bleve.NewUsing(dir, newMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, nil)
	if err != nil {
		return IndexCost{}, err
	}
	closed := false
	defer func() {
		if !closed {
			idx.Close()
		}
	}()
	// Large batches, then one segment: segment counts (and so dictionary
	// copies) equal in every index of the breakdown.
	const batchDocs = 5000
	for from := 0; from < len(docs); from += batchDocs {
		if err := ctx.Err(); err != nil {
			return IndexCost{}, err
		}
		batch := idx.NewBatch()
		for i := from; i < min(from+batchDocs, len(docs)); i++ {
			doc, err := m.document(ids[i], docs[i])
			if err != nil {
				return IndexCost{}, err
			}
			if err := batch.IndexAdvanced(doc); err != nil {
				return IndexCost{}, err
			}
		}
		if err := idx.Batch(batch); err != nil {
			return IndexCost{}, err
		}
	}
	s, err := scorchOf(idx)
	if err != nil {
		return IndexCost{}, err
	}
	segments := 0
	for range 10 {
		if err := waitPersisted(ctx, s); err != nil {
			return IndexCost{}, err
		}
		if err := s.ForceMerge(ctx, nil); err != nil { // one segment
			return IndexCost{}, fmt.Errorf("force merge: %w", err)
		}
		_, snap, err := search.OpenSnapshot(idx)
		if err != nil {
			return IndexCost{}, err
		}
		segments = len(snap.Segments())
		snap.Close()
		if segments <= 1 {
			break
		}
	}
	// The files of the index's segments, not those merged away that
	// Scorch has yet to delete.
	bytes, _ := s.StatsMap()["num_bytes_used_disk_by_root"].(uint64)
	closed = true
	if err := idx.Close(); err != nil {
		return IndexCost{}, err
	}
	cpu := cpuSeconds() - start
	return IndexCost{Bytes: int64(bytes), Segments: segments, CPU: cpu}, nil
}

// waitPersisted waits until Scorch has no segment in memory left to
// persist.
func waitPersisted(ctx context.Context, s *scorch.Scorch) error {
	for {
		st := s.StatsMap()
		if n, ok := st["TotMemorySegmentsAtRoot"].(uint64); !ok || n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// cpuSeconds is this process's CPU time so far, user and system.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// trim is a property prefix's sub-document name.
func trim(prefix string) string { return strings.TrimSuffix(prefix, ".") }
