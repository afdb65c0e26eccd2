package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/semcat/semcat/api"
)

// countingReader is a body of n bytes of a repeated pattern, counting how
// much of it was read.
type countingReader struct {
	pattern string
	left    int
	read    int
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && c.left > 0 {
		p[n] = c.pattern[c.read%len(c.pattern)]
		n, c.read, c.left = n+1, c.read+1, c.left-1
	}
	return n, nil
}

// TestBodyLimits: a body that nests too deep or holds too many values is
// refused with 413 while it is read, before it is decoded; the same values
// in fewer levels, or fewer of them, are decoded as usual.
func TestBodyLimits(t *testing.T) {
	f := newFake()
	h := api.NewHandler(services(f), api.Config{})
	post := func(body io.Reader) (int, string) {
		req := httptest.NewRequest("POST", schemaPath+"/tables", body)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	deep := `{"name":"t","columns":[{"name":"c","type":` + strings.Repeat(`{"type":"list","elementType":`, 130) + `"integer"` + strings.Repeat("}", 130) + `}]}`
	if status, body := post(strings.NewReader(deep)); status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "nests deeper than 128 levels") {
		t.Errorf("a body 130 types deep: %d %s", status, body)
	}
	// Bare brackets, as deep as JSON decoders allow: refused at the 129th.
	if status, body := post(strings.NewReader(strings.Repeat("[", 20000) + strings.Repeat("]", 20000))); status != http.StatusRequestEntityTooLarge ||
		!strings.Contains(body, "nests deeper than 128 levels (at byte offset 128)") {
		t.Errorf("20,000 brackets: %d %s", status, body)
	}
	// Megabytes of one-byte columns: refused a fraction of the way in.
	many := &countingReader{pattern: `{"name":"a","type":"integer"},`, left: 8 << 20}
	status, body := post(io.MultiReader(strings.NewReader(`{"name":"t","columns":[`), many))
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "more than 500000 JSON values") {
		t.Errorf("8 MiB of tiny columns: %d %s", status, body)
	}
	if many.read > 4<<20 {
		t.Errorf("the server read %d bytes of the body before refusing it, want it to stop at the limit", many.read)
	}
	if len(f.calls) != 0 {
		t.Errorf("a refused body reached the service: %v", f.calls)
	}
	// Within the limits: decoded, and the service sees it.
	ok := `{"name":"t","columns":[{"name":"c","type":` + strings.Repeat(`{"type":"list","elementType":`, 20) + `"integer"` + strings.Repeat("}", 20) + `}]}`
	if status, body := post(strings.NewReader(ok)); status != http.StatusOK {
		t.Errorf("a body 20 types deep: %d %s", status, body)
	}
}
