package catalogdb

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/semcat/semcat"
)

var _ semcat.MetricDiscoveryService = (*Store)(nil)

// Schema-level discovery (SPEC §2.4) answers for a whole schema at once —
// 1,000 models × 20 metrics is the size DESIGN §6 sets targets for — so it
// reads rows as raw bytes and sorts in Go: PostgreSQL's collated sorts and
// json_array_elements cost more than the whole Go side.

// discoveryModelsSQL lists a schema's live models in byte order of name.
const discoveryModelsSQL = `SELECT semantic_model_id, semantic_model_name
	FROM semantic_model_meta
	WHERE schema_id = $1 AND deleted_at = 0
	ORDER BY semantic_model_name COLLATE "C"`

// discoveryIdentitiesSQL lists the live metric identities of a schema, in
// no order: it never reads a model definition.
const discoveryIdentitiesSQL = `SELECT semantic_model_id, metric_name
	FROM semantic_model_metric_meta
	WHERE schema_id = $1 AND deleted_at = 0`

// discoveryDefinitionsSQL reads only the metrics column of each live
// model's current version, models in byte order of name.
const discoveryDefinitionsSQL = `SELECT m.semantic_model_id, m.semantic_model_name, v.metrics
	FROM semantic_model_meta m
	JOIN semantic_model_version_info v ON v.semantic_model_id = m.semantic_model_id AND v.version = m.current_version
	WHERE m.schema_id = $1 AND m.deleted_at = 0
	ORDER BY m.semantic_model_name COLLATE "C"`

// ListSchemaMetrics lists every metric of every live semantic model of a
// schema in one read-only transaction (one snapshot). Identifiers come from
// the identity table; details come from the metrics column of each current
// version, and a metric that does not decode fails the whole listing.
func (s *Store) ListSchemaMetrics(ctx context.Context, ns semcat.Namespace, details bool) ([]semcat.SchemaMetric, error) {
	var out []semcat.SchemaMetric
	err := s.read(ctx, func(tx pgx.Tx) error {
		p, err := s.resolveSchema(ctx, tx, ns, noLock, modelWhat)
		if err != nil {
			return err
		}
		if details {
			out, err = listMetricDefinitions(ctx, tx, p.schemaID)
		} else {
			out, err = listMetricIdentifiers(ctx, tx, p.schemaID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// discoveredModel is a live model of the schema being listed.
type discoveredModel struct {
	id      int64
	name    string
	metrics []byte // its stored metrics text; nil when listing identifiers
}

// span is a range of bytes, [start, end).
type span struct{ start, end int }

// discoveredMetric locates one metric of a listing: its model (an index into
// the listing's models), its name in the listing's names and, for details,
// its definition in the model's metrics text.
type discoveredMetric struct {
	model     int
	name, def span
}

// metricListing collects the metrics of a schema before they are sorted.
// It holds positions rather than strings and slices, so that collecting
// and sorting tens of thousands of metrics allocates (and moves) little.
type metricListing struct {
	models  []discoveredModel
	names   []byte // every metric's name, one after the other
	metrics []discoveredMetric
}

func (l *metricListing) addName(name []byte) span {
	l.names = append(grow(l.names, len(name)), name...)
	return span{len(l.names) - len(name), len(l.names)}
}

func (l *metricListing) add(m discoveredMetric) {
	l.metrics = append(grow(l.metrics, 1), m)
}

// grow makes room for n more elements, at least doubling the capacity when
// it must grow: append grows large slices by a quarter at a time, which for
// tens of thousands of metrics allocates five times the final size.
func grow[S ~[]E, E any](s S, n int) S {
	if len(s)+n <= cap(s) {
		return s
	}
	return slices.Grow(s, max(n, len(s), 64))
}

// sorted returns the listing's metrics sorted by model, in the order of
// l.models, then by name in byte order. All names share one string.
func (l *metricListing) sorted() []semcat.SchemaMetric {
	// Lay the metrics out model by model, then sort each model's run.
	starts := make([]int, len(l.models)+1)
	for _, m := range l.metrics {
		starts[m.model+1]++
	}
	for i := range l.models {
		starts[i+1] += starts[i]
	}
	next := slices.Clone(starts[:len(l.models)])
	ordered := make([]discoveredMetric, len(l.metrics))
	for _, m := range l.metrics {
		ordered[next[m.model]] = m
		next[m.model]++
	}
	for i := range l.models {
		slices.SortStableFunc(ordered[starts[i]:starts[i+1]], func(a, b discoveredMetric) int {
			return bytes.Compare(l.names[a.name.start:a.name.end], l.names[b.name.start:b.name.end])
		})
	}
	names := string(l.names)
	out := make([]semcat.SchemaMetric, len(ordered))
	for i, m := range ordered {
		model := &l.models[m.model]
		out[i] = semcat.SchemaMetric{ModelID: model.id, Model: model.name, Name: names[m.name.start:m.name.end]}
		if model.metrics != nil {
			out[i].Definition = json.RawMessage(model.metrics[m.def.start:m.def.end:m.def.end])
		}
	}
	return out
}

// listMetricIdentifiers lists the schema's metric names from the identity
// table, joined in Go with the live models (one batch, one round trip).
func listMetricIdentifiers(ctx context.Context, tx pgx.Tx, schemaID int64) ([]semcat.SchemaMetric, error) {
	batch := &pgx.Batch{}
	batch.Queue(discoveryModelsSQL, schemaID)
	batch.Queue(discoveryIdentitiesSQL, schemaID)
	br := tx.SendBatch(ctx, batch)
	defer br.Close()

	var l metricListing
	index := map[int64]int{}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		v := rows.RawValues()
		id, err := int8Value(rows.FieldDescriptions()[0], v[0])
		if err != nil {
			rows.Close()
			return nil, err
		}
		index[id] = len(l.models)
		l.models = append(l.models, discoveredModel{id: id, name: string(v[1])})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = br.Query()
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		v := rows.RawValues()
		id, err := int8Value(rows.FieldDescriptions()[0], v[0])
		if err != nil {
			rows.Close()
			return nil, err
		}
		if i, live := index[id]; live { // else its model was just dropped
			l.add(discoveredMetric{model: i, name: l.addName(v[1])})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := br.Close(); err != nil {
		return nil, err
	}
	return l.sorted(), nil
}

// listMetricDefinitions lists the schema's metrics with their definitions,
// split out of each current version's metrics column: each definition is
// a slice of its model's stored text, checked and, only if it is not
// already, compacted.
func listMetricDefinitions(ctx context.Context, tx pgx.Tx, schemaID int64) ([]semcat.SchemaMetric, error) {
	rows, err := tx.Query(ctx, discoveryDefinitionsSQL, schemaID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var l metricListing
	for rows.Next() {
		v := rows.RawValues()
		id, err := int8Value(rows.FieldDescriptions()[0], v[0])
		if err != nil {
			return nil, err
		}
		if v[2] == nil {
			continue // no metrics member
		}
		m := discoveredModel{id: id, name: string(v[1])}
		if m.metrics, err = l.addStoredMetrics(len(l.models), slices.Clone(v[2])); err != nil {
			return nil, fmt.Errorf("semantic model %q: stored metrics do not decode: %w", m.name, err)
		}
		l.models = append(l.models, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return l.sorted(), nil
}

// int8Value decodes a bigint column in either wire format.
func int8Value(fd pgconn.FieldDescription, raw []byte) (int64, error) {
	if fd.Format == pgx.BinaryFormatCode {
		if len(raw) != 8 {
			return 0, fmt.Errorf("column %s: bigint of %d bytes", fd.Name, len(raw))
		}
		return int64(binary.BigEndian.Uint64(raw)), nil
	}
	return strconv.ParseInt(string(raw), 10, 64)
}

// addStoredMetrics adds one metric per element of a stored metrics array,
// of the given model. It returns the text the definitions are slices of:
// raw itself or, if raw holds insignificant space, raw compacted.
func (l *metricListing) addStoredMetrics(model int, raw []byte) ([]byte, error) {
	n, size := len(l.metrics), len(l.names)
	space, err := l.splitStoredMetrics(model, raw)
	if err != nil || !space {
		return raw, err
	}
	// Stored metrics are normally compact: compact the whole text and
	// split it again.
	l.metrics, l.names = l.metrics[:n], l.names[:size]
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	_, err = l.splitStoredMetrics(model, buf.Bytes())
	return buf.Bytes(), err
}

// splitStoredMetrics adds the metrics of raw and reports whether raw may
// hold insignificant space.
func (l *metricListing) splitStoredMetrics(model int, raw []byte) (space bool, err error) {
	sc := &metricScanner{b: raw}
	if sc.peek() != '[' {
		return false, errors.New("not an array")
	}
	err = sc.array("metrics", func() error {
		start := sc.i
		name, err := sc.metric()
		if errors.Is(err, errUnusual) {
			// Something the scanner leaves to encoding/json, such as a
			// member name in other case or escaped: decode strictly.
			var elem []byte
			if elem, err = nextValue(raw[start:]); err != nil {
				return err
			}
			sc.i = start + len(elem)
			sc.space = true // not scanned for space
			var decoded string
			if decoded, err = checkMetric(elem); err != nil {
				return err
			}
			name = []byte(decoded)
		} else if err != nil {
			return err
		}
		if len(name) == 0 {
			return errors.New("metric without a name")
		}
		l.add(discoveredMetric{model: model, name: l.addName(name), def: span{start, sc.i}})
		return nil
	})
	if err != nil {
		return false, err
	}
	return sc.space, sc.end()
}

// nextValue returns the JSON value at the start of b (after any space).
func nextValue(b []byte) ([]byte, error) {
	var v json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return b[:dec.InputOffset()], nil
}

// checkMetric decodes a stored metric strictly, so that a corrupt
// definition is reported rather than served, and returns its name. It is
// the reference for metricScanner, which handles the common case faster.
func checkMetric(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var m semcat.Metric
	if err := dec.Decode(&m); err != nil {
		return "", err
	}
	return m.Name, nil
}
