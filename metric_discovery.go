package semcat

import (
	"context"
	"encoding/json"
)

// SchemaMetric is one metric found by schema-level discovery: the model it
// belongs to and its name, and for a detailed listing its definition exactly
// as stored.
type SchemaMetric struct {
	ModelID int64 // internal; used to apply the model's visibility
	Model   string
	Name    string
	// Definition is valid, compact JSON (the API writes it as is), nil
	// unless details were asked for.
	Definition json.RawMessage
}

// MetricDiscoveryService lists the metrics of every semantic model of a
// schema in one request, sorted by model name then metric name (byte order).
type MetricDiscoveryService interface {
	ListSchemaMetrics(ctx context.Context, ns Namespace, details bool) ([]SchemaMetric, error)
}

// MetadataService returns an object's metadata (SPEC §2.5).
type MetadataService interface {
	ObjectMetadata(ctx context.Context, metalake string, obj ObjectRef) (*Metadata, error)
}
