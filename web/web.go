// Package web serves semcat's faceted search page (SPEC §2.8, `GET /`).
//
// The page is plain HTML, CSS and JavaScript modules embedded in the binary:
// there is no build step and it loads nothing from other origins. It talks to
// the REST API of its own origin (`/api/metalakes`, `/api/metalakes/{m}/search`
// and the table, semantic-model and metric reads), resolving those paths
// relative to the page, so it also works behind a path prefix.
//
// The page itself and its assets are public: authentication applies to the API
// calls the page makes (HTTP Basic user name or Bearer token, entered in the
// page and kept in the tab's sessionStorage).
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

//go:embed static
var static embed.FS

// contentSecurityPolicy allows only same-origin scripts, styles, images and
// API calls: the page has no inline script or style and no third-party asset.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// asset is one embedded file, ready to serve.
type asset struct {
	body        []byte
	contentType string
	etag        string
}

var (
	assetsOnce sync.Once
	assets     map[string]*asset // by URL path: "/" and "/assets/..."
)

// contentTypes are the types of the embedded files, by extension.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".json": "application/json",
	".txt":  "text/plain; charset=utf-8",
}

func loadAssets() {
	assets = map[string]*asset{}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			ct = "application/octet-stream"
		}
		urlPath := strings.TrimPrefix(p, "static")
		if urlPath == "/index.html" {
			urlPath = "/"
		}
		assets[urlPath] = &asset{body: body, contentType: ct, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		return nil
	})
	if err != nil {
		panic("web: reading embedded assets: " + err.Error()) // the embed is compiled in: cannot happen
	}
}

// Handler serves the search page: `GET /` (and `/index.html`) answers the
// page, `GET /assets/...` its stylesheet, scripts and icon; any other path is
// 404 and any method other than GET or HEAD is 405. Responses carry an ETag
// (revalidated on every load, so a new binary's page is picked up at once)
// and a Content-Security-Policy that allows same-origin resources only.
//
// Mount it next to the API on an http.ServeMux; the more specific patterns win
// over the API's catch-all, which keeps answering every other path:
//
//	page := web.Handler()
//	mux.Handle("GET /{$}", page)
//	mux.Handle("GET /assets/", page)
//	mux.Handle("/", apiHandler)
func Handler() http.Handler {
	assetsOnce.Do(loadAssets)
	return http.HandlerFunc(serve)
}

func serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == "" || p == "/index.html" {
		p = "/"
	}
	a, ok := assets[p]
	if !ok || (p != "/" && !strings.HasPrefix(p, "/assets/")) {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if p == "/" {
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
	}
	// ServeContent answers If-None-Match with 304, HEAD and Range requests.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
