package api

import (
	_ "embed"
	"net/http"
	"strconv"
)

// openAPIDocument is the OpenAPI 3 description of every route NewHandler
// serves (SPEC §2.8). TestOpenAPIDocumentsEveryRoute keeps it in step with
// the router, TestOpenAPIValidatesResponses with what the handlers answer.
//
//go:embed openapi.yaml
var openAPIDocument []byte

// openAPIPath is where NewHandler serves the document.
const openAPIPath = "/api/openapi.yaml"

// serveOpenAPI answers GET /api/openapi.yaml. Like /healthz it needs no
// credentials: the document describes the API, not its contents.
func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Content-Length", strconv.Itoa(len(openAPIDocument)))
	w.WriteHeader(http.StatusOK)
	w.Write(openAPIDocument)
}

// Route is one operation NewHandler serves: its name (the OpenAPI
// operationId, and what Operation reports for /api routes), its method and
// its path template in gorilla/mux syntax ("/api/metalakes/{metalake}").
type Route struct {
	Name, Method, Path string
}

// Routes lists every route NewHandler serves, so that tests (and tools) can
// check the OpenAPI document against the router without reaching into it.
func Routes() []Route {
	out := []Route{
		{"healthz", http.MethodGet, "/healthz"},
		{"readyz", http.MethodGet, "/readyz"},
		{"getOpenAPI", http.MethodGet, openAPIPath},
	}
	for _, rt := range (&handler{}).routes() {
		out = append(out, Route{Name: rt.name, Method: rt.method, Path: rt.path})
	}
	return out
}
