package api_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/internal/events"
)

// eventUser is the user of the requests whose events a test looks at;
// newStoreServer's seeding requests run as someone else.
const eventUser = "eve"

// eventAuth makes the X-Event-User header, if any, the request's user.
func eventAuth(r *http.Request) (string, error) {
	if u := r.Header.Get("X-Event-User"); u != "" {
		return u, nil
	}
	return "seed", nil
}

// eventSink collects the events of eventUser's requests.
type eventSink chan semcat.Event

func (s eventSink) publish(e semcat.Event) {
	if e.User != eventUser {
		return
	}
	select {
	case s <- e:
	default:
		panic("eventSink is full")
	}
}

// next returns the next event. The timeout only keeps a broken test from
// hanging: the events of a request are published before or right after its
// answer.
func (s eventSink) next(tb testing.TB) semcat.Event {
	tb.Helper()
	select {
	case e := <-s:
		return e
	case <-time.After(30 * time.Second):
		tb.Fatal("no event")
		return semcat.Event{}
	}
}

func intPtr(n int) *int { return &n }

func TestEventsOverHTTP(t *testing.T) {
	t.Parallel()
	sink := make(eventSink, 100)
	c, _ := newStoreServer(t, api.Config{Authenticate: eventAuth, Middleware: []api.Middleware{api.EventMiddleware(sink.publish)}})
	c.MustOK("POST", salesPath+"/semantic-models", metricModel("model", "m1", "m2"))
	tests := []struct {
		name         string
		method, path string
		body         any
		status       int
		want         semcat.Event // the outcome event; pre is the same without its outcome
	}{
		{"list", "GET", salesPath + "/tables", nil, 200, semcat.Event{Operation: "listTables", Phase: semcat.EventSuccess,
			Metalake: "m", Identifier: []string{"m", "rel", "sales"}, ResultCount: intPtr(2)}},
		{"list of a missing schema", "GET", "/api/metalakes/m/catalogs/rel/schemas/nope/tables", nil, 404, semcat.Event{Operation: "listTables",
			Phase: semcat.EventFailure, Metalake: "m", Identifier: []string{"m", "rel", "nope"},
			Error: "schema 'm.rel.nope' does not exist", ErrorCode: semcat.ENOTFOUND}},
		{"create", "POST", salesPath + "/tables", `{"name":"t3","columns":[{"name":"id","type":"long"}]}`, 200, semcat.Event{
			Operation: "createTable", Phase: semcat.EventSuccess, Metalake: "m", Identifier: []string{"m", "rel", "sales"}}},
		{"load", "GET", salesPath + "/tables/t3", nil, 200, semcat.Event{Operation: "loadTable", Phase: semcat.EventSuccess,
			Metalake: "m", Identifier: []string{"m", "rel", "sales", "t3"}}},
		{"escaped name", "GET", salesPath + "/tables/a%2Fb", nil, 404, semcat.Event{Operation: "loadTable", Phase: semcat.EventFailure,
			Metalake: "m", Identifier: []string{"m", "rel", "sales", "a/b"}, Error: "table 'm.rel.sales.a/b' does not exist", ErrorCode: semcat.ENOTFOUND}},
		{"invalid argument", "DELETE", "/api/metalakes/m/catalogs/rel?force=maybe", nil, 400, semcat.Event{Operation: "dropCatalog",
			Phase: semcat.EventFailure, Metalake: "m", Identifier: []string{"m", "rel"},
			Error: "force: expected true or false (in any letter case), got 'maybe'", ErrorCode: semcat.EINVALID}},
		{"list above metalakes", "GET", "/api/metalakes", nil, 200, semcat.Event{Operation: "listMetalakes", Phase: semcat.EventSuccess,
			ResultCount: intPtr(1)}},
		{"details listing", "GET", "/api/metalakes/m/catalogs?details=true", nil, 200, semcat.Event{Operation: "listCatalogs",
			Phase: semcat.EventSuccess, Metalake: "m", Identifier: []string{"m"}, ResultCount: intPtr(2)}},
		{"metric identifiers", "GET", salesPath + "/semantic-model-metrics", nil, 200, semcat.Event{Operation: "listSemanticModelMetrics",
			Phase: semcat.EventSuccess, Metalake: "m", Identifier: []string{"m", "rel", "sales"}, ResultCount: intPtr(2)}},
		{"metric details", "GET", salesPath + "/semantic-model-metrics?details=true", nil, 200, semcat.Event{Operation: "listSemanticModelMetrics",
			Phase: semcat.EventSuccess, Metalake: "m", Identifier: []string{"m", "rel", "sales"}, ResultCount: intPtr(2)}},
		{"metric identifiers of a missing schema", "GET", "/api/metalakes/m/catalogs/rel/schemas/nope/semantic-model-metrics", nil, 404, semcat.Event{
			Operation: "listSemanticModelMetrics", Phase: semcat.EventFailure, Metalake: "m", Identifier: []string{"m", "rel", "nope"},
			Error: "schema 'm.rel.nope' does not exist", ErrorCode: semcat.ENOTFOUND}},
		{"metric details of a missing schema", "GET", "/api/metalakes/m/catalogs/rel/schemas/nope/semantic-model-metrics?details=true", nil, 404, semcat.Event{
			Operation: "listSemanticModelMetrics", Phase: semcat.EventFailure, Metalake: "m", Identifier: []string{"m", "rel", "nope"},
			Error: "schema 'm.rel.nope' does not exist", ErrorCode: semcat.ENOTFOUND}},
		{"object tags", "GET", "/api/metalakes/m/objects/table/rel.sales.orders/tags", nil, 200, semcat.Event{Operation: "listObjectTags",
			Phase: semcat.EventSuccess, Metalake: "m", Identifier: []string{"m", "rel", "sales", "orders"}, ResultCount: intPtr(0)}},
		{"create policy", "POST", "/api/metalakes/m/policies", `{"name":"p1","policyType":"custom","content":{"supportedObjectTypes":["TABLE"]}}`, 200,
			semcat.Event{Operation: "createPolicy", Phase: semcat.EventSuccess, Metalake: "m", Identifier: []string{"m"}}},
		{"associate policies", "POST", "/api/metalakes/m/objects/table/rel.sales.orders/policies", `{"policiesToAdd":["p1"]}`, 200,
			semcat.Event{Operation: "associatePolicies", Phase: semcat.EventSuccess, Metalake: "m", Identifier: []string{"m", "rel", "sales", "orders"}}},
		{"disable a missing policy", "PATCH", "/api/metalakes/m/policies/nope", `{"enable":false}`, 404, semcat.Event{Operation: "setPolicy",
			Phase: semcat.EventFailure, Metalake: "m", Identifier: []string{"m", "nope"}, Error: "policy 'm.nope' does not exist", ErrorCode: semcat.ENOTFOUND}},
		{"object policies", "GET", "/api/metalakes/m/objects/table/rel.sales.orders/policies", nil, 200, semcat.Event{Operation: "listObjectPolicies",
			Phase: semcat.EventSuccess, Metalake: "m", Identifier: []string{"m", "rel", "sales", "orders"}, ResultCount: intPtr(1)}},
	}
	ignoreTimes := cmpopts.IgnoreFields(semcat.Event{}, "Time", "Duration")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := time.Now()
			status, _, resp := c.Do(tt.method, tt.path, tt.body, "X-Event-User", eventUser)
			if status != tt.status {
				t.Fatalf("status %d, want %d: %v", status, tt.status, resp)
			}
			tt.want.User, tt.want.Interface = eventUser, semcat.InterfaceREST
			wantPre := semcat.Event{Operation: tt.want.Operation, Phase: semcat.EventPre, User: eventUser,
				Metalake: tt.want.Metalake, Identifier: tt.want.Identifier, Interface: semcat.InterfaceREST}

			pre, post := sink.next(t), sink.next(t)
			if diff := cmp.Diff(wantPre, pre, ignoreTimes); diff != "" {
				t.Errorf("pre event (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, post, ignoreTimes); diff != "" {
				t.Errorf("outcome event (-want +got):\n%s", diff)
			}
			if pre.Time.Before(before) || post.Time.Before(pre.Time) || post.Duration != post.Time.Sub(pre.Time) {
				t.Errorf("times: request at %v, pre %v, post %v after %v", before, pre.Time, post.Time, post.Duration)
			}
		})
	}
}

// eventListenerFunc adapts a function to semcat.Listener.
type eventListenerFunc func(ctx context.Context, e semcat.Event) error

func (f eventListenerFunc) OnEvent(ctx context.Context, e semcat.Event) error { return f(ctx, e) }

// TestEventListenersDoNotChangeAnswers runs the same requests against a
// server without events and one whose bus has a panicking, a failing and a
// stuck listener: the answers are the same, and they all arrive while the
// stuck listener still holds its first event.
func TestEventListenersDoNotChangeAnswers(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	bus := events.NewBus(slog.New(slog.NewTextHandler(io.Discard, nil)), reg, 4)
	entered, release := make(chan struct{}, 1), make(chan struct{})
	bus.Register("panics", eventListenerFunc(func(context.Context, semcat.Event) error { panic("listener panic") }))
	bus.Register("fails", eventListenerFunc(func(context.Context, semcat.Event) error { return errors.New("listener error") }))
	bus.Register("stuck", eventListenerFunc(func(ctx context.Context, _ semcat.Event) error {
		select {
		case entered <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}))
	bus.Register("metrics", events.NewMetrics(reg))
	bus.Start()
	closed := false
	closeBus := func() {
		if !closed {
			closed = true
			close(release)
			if err := bus.Close(context.Background()); err != nil {
				t.Error(err)
			}
		}
	}
	// Registered before the server's cleanup, so it runs after the server
	// has stopped.
	t.Cleanup(closeBus)

	plain, _ := newStoreServer(t, api.Config{})
	withEvents, _ := newStoreServer(t, api.Config{Middleware: []api.Middleware{api.EventMiddleware(bus.Publish)}})
	<-entered // the stuck listener holds a seeding event from here on

	requests := []struct {
		method, path string
		body         any
		compareBody  bool // bodies with audit times differ between the servers
	}{
		{"GET", salesPath + "/tables", nil, true},
		{"GET", "/api/metalakes/m/catalogs/rel/schemas/nope/tables", nil, true},
		{"POST", salesPath + "/tables", `{"name":"t3","columns":[{"name":"id","type":"long"}]}`, false},
		{"POST", salesPath + "/tables", `{"name":"t3","columns":[]}`, true},
		{"GET", salesPath + "/tables/t3", nil, false},
		{"DELETE", salesPath + "/tables/t3", nil, true},
		{"GET", "/api/metalakes/m/tags", nil, true},
		{"GET", "/api/metalakes/m/catalogs/rel/schemas", nil, true},
	}
	// Each round creates and drops t3, so the rounds are alike.
	for round := range 3 {
		for _, rq := range requests {
			wantStatus, _, wantBody := plain.Do(rq.method, rq.path, rq.body)
			status, _, body := withEvents.Do(rq.method, rq.path, rq.body)
			if status != wantStatus || (rq.compareBody && canonical(t, body) != canonical(t, wantBody)) {
				t.Errorf("round %d, %s %s: with events %d %v, without %d %v", round, rq.method, rq.path, status, body, wantStatus, wantBody)
			}
		}
	}

	// Every request above was answered while the stuck listener held its
	// event; now let it go and drain, then read the counters over /metrics.
	closeBus()
	metrics := httptest.NewServer(api.MetricsHandler(reg))
	defer metrics.Close()
	res, err := http.Get(metrics.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	text, _ := io.ReadAll(res.Body)
	for _, series := range []string{
		`semcat_events_dropped_total{listener="stuck"}`,
		`semcat_event_listener_errors_total{listener="panics"}`,
		`semcat_event_listener_errors_total{listener="fails"}`,
		`semcat_operations_total{code="",interface="rest",operation="listTables",phase="pre"}`,
	} {
		if v := metricValue(string(text), series); v <= 0 {
			t.Errorf("%s = %v, want > 0", series, v)
		}
	}
}

// metricValue returns the value of one series in a Prometheus text
// exposition, or -1 if it is absent.
func metricValue(text, series string) float64 {
	for line := range strings.Lines(text) {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

// TestEventPublishPanics: a publish function that panics does not change the
// answer.
func TestEventPublishPanics(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Middleware: []api.Middleware{api.EventMiddleware(func(semcat.Event) { panic("publish panic") })}})
	_, resp := c.MustOK("GET", salesPath+"/tables", nil)
	if ids, _ := resp["identifiers"].([]any); len(ids) != 2 {
		t.Errorf("answer %v", resp)
	}
	if status, _, _ := c.Do("GET", salesPath+"/tables/nope", nil); status != 404 {
		t.Errorf("missing table: status %d", status)
	}
}
