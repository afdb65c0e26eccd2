package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/semcat/semcat/api"
)

// TestBrowserGuard: what a page on another origin, or a DNS-rebinding
// name, makes a browser send is refused before any service sees it; the
// server's own pages, programs and allowed origins get through.
func TestBrowserGuard(t *testing.T) {
	f := newFake()
	guard := api.BrowserGuard(api.BrowserConfig{ListenHost: "semcat.internal", AllowedHosts: []string{"catalog.example.com"},
		AllowedOrigins: []string{"https://ui.example.com"}})
	h := guard(api.NewHandler(services(f), api.Config{}))
	const create = `{"name":"m2"}`
	tests := []struct {
		name, method, host, body string
		headers                  []string
		status                   int
		message                  string // a part of the error's message
	}{
		// Programs: no Origin.
		{"curl", "POST", "127.0.0.1:8090", create, []string{"Content-Type", "application/json"}, 200, ""},
		{"a JSON type with parameters", "POST", "localhost:8090", create, []string{"Content-Type", "application/json; charset=utf-8"}, 200, ""},
		{"IPv6 loopback", "GET", "[::1]:8090", "", nil, 200, ""},
		{"the listen address's name", "GET", "semcat.internal:8090", "", nil, 200, ""},
		{"an allowed host", "GET", "catalog.example.com", "", nil, 200, ""},
		{"an empty-bodied POST without a type", "POST", "127.0.0.1:8090", "", nil, 400, "body"},

		// DNS rebinding: the attacker's name for 127.0.0.1.
		{"a foreign Host, read", "GET", "rebind.attacker.example:8090", "", nil, 403, "Host: 'rebind.attacker.example' does not name this server"},
		{"a foreign Host, write", "POST", "rebind.attacker.example", create, []string{"Content-Type", "application/json"}, 403, "Host"},

		// Pages of other origins.
		{"no-cors text/plain", "POST", "127.0.0.1:8090", create, []string{"Content-Type", "text/plain;charset=UTF-8", "Origin", "https://evil.example"}, 403, "Origin: requests from 'https://evil.example'"},
		{"a form", "POST", "127.0.0.1:8090", "name=m2", []string{"Content-Type", "application/x-www-form-urlencoded", "Origin", "null"}, 403, "Origin"},
		{"another port of localhost", "POST", "localhost:8090", create, []string{"Content-Type", "application/json", "Origin", "http://localhost:3000"}, 403, "Origin"},
		{"Sec-Fetch-Site without Origin", "DELETE", "127.0.0.1:8090", "", []string{"Sec-Fetch-Site", "cross-site"}, 403, "a cross-site page"},
		{"a cross-origin read", "GET", "127.0.0.1:8090", "", []string{"Origin", "https://evil.example"}, 200, ""},

		// The server's own page and an allowed origin.
		{"its own page", "POST", "localhost:8090", create, []string{"Content-Type", "application/json", "Origin", "http://localhost:8090", "Sec-Fetch-Site", "same-origin"}, 200, ""},
		{"an allowed origin", "POST", "127.0.0.1:8090", create, []string{"Content-Type", "application/json", "Origin", "https://ui.example.com"}, 200, ""},

		// Bodies that are not JSON, whoever sends them.
		{"text/plain from a program", "POST", "127.0.0.1:8090", create, []string{"Content-Type", "text/plain"}, 415, "Content-Type: a POST request must send application/json, got 'text/plain'"},
		{"a body without a type", "PUT", "127.0.0.1:8090", `{"updates":[]}`, nil, 415, "got none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.calls = nil
			target := "/api/metalakes"
			if tt.method == "GET" {
				target = "/api/metalakes/m"
			} else if tt.method != "POST" {
				target = "/api/metalakes/m"
			}
			status, hdr, body := send(t, h, tt.method, tt.host, target, tt.body, tt.headers...)
			if status != tt.status {
				t.Fatalf("status %d, want %d: %v", status, tt.status, body)
			}
			if tt.status >= 400 && tt.status != 400 {
				msg, _ := body["message"].(string)
				if !strings.Contains(msg, tt.message) {
					t.Errorf("message %q, want it to say %q", msg, tt.message)
				}
				if len(f.calls) > 0 {
					t.Errorf("a refused request reached the service: %v", f.calls)
				}
				wantCode := map[int]float64{403: 1008, 415: 1001}[tt.status]
				if body["code"] != wantCode {
					t.Errorf("code %v, want %v", body["code"], wantCode)
				}
			}
			if got := hdr.Get("Access-Control-Allow-Origin"); (got != "") != (tt.name == "an allowed origin") {
				t.Errorf("Access-Control-Allow-Origin %q", got)
			}
		})
	}

	// The address a connection came in on is the server's.
	srv := httptest.NewServer(h)
	defer srv.Close()
	addr := srv.Listener.Addr().(*net.TCPAddr)
	req, _ := http.NewRequest("GET", srv.URL+"/api/metalakes/m", nil)
	req.Host = net.JoinHostPort(addr.IP.String(), "9999")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("the connection's own address as Host: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// The preflight of an allowed origin is answered; another's is not.
	status, hdr, _ := send(t, h, "OPTIONS", "127.0.0.1:8090", "/api/metalakes", "", "Origin", "https://ui.example.com",
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, authorization")
	if status != http.StatusNoContent || !strings.Contains(hdr.Get("Access-Control-Allow-Headers"), "Authorization") ||
		!strings.Contains(hdr.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight of an allowed origin: %d %v", status, hdr)
	}
	status, hdr, _ = send(t, h, "OPTIONS", "127.0.0.1:8090", "/api/metalakes", "", "Origin", "https://evil.example",
		"Access-Control-Request-Method", "POST")
	if status == http.StatusNoContent || hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight of another origin: %d %v", status, hdr)
	}
}

// send serves one request addressed to host and decodes its JSON answer
// (nil for none).
func send(t *testing.T, h http.Handler, method, host, target, body string, headers ...string) (int, http.Header, map[string]any) {
	t.Helper()
	req := httptest.NewRequestWithContext(context.Background(), method, target, strings.NewReader(body))
	req.Host = host
	if body == "" {
		req.ContentLength = 0
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var m map[string]any
	if rec.Body.Len() > 0 {
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("%s %s: %d, not JSON: %q", method, target, rec.Code, rec.Body.String())
		}
	}
	return rec.Code, rec.Header(), m
}

// TestBodyDeadline: a body dripping a byte at a time is cut at the
// deadline, while a request whose body has arrived may take longer than
// the deadline without losing its context.
func TestBodyDeadline(t *testing.T) {
	const d = 200 * time.Millisecond
	srv := httptest.NewServer(api.BodyDeadline(d)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			w.WriteHeader(http.StatusRequestTimeout)
			return
		}
		time.Sleep(3 * d) // a search waiting for the index, say
		if err := r.Context().Err(); err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "ok")
	})))
	defer srv.Close()

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
	cut := make(chan struct{})
	go func() {
		defer close(cut)
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		io.Copy(io.Discard, conn) // until the server closes or answers and closes
	}()
	dripping := true
	for i := 0; dripping && i < 1000; i++ {
		select {
		case <-cut:
			dripping = false
		case <-time.After(50 * time.Millisecond):
			if _, err := conn.Write([]byte(" ")); err != nil {
				dripping = false
			}
		}
	}
	if dripping {
		t.Fatal("a body dripping for 50 s was never cut")
	}

	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok" {
		t.Errorf("a request that outlasts the body deadline: %d %q", resp.StatusCode, b)
	}
}
