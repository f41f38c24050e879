package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	pathpkg "path"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// The API's description (openapi.yaml) is held to the server in two ways:
// TestOpenAPIDescribesEveryRoute compares its operations with the
// server's routing table, and every test environment (newEnv) validates
// every response its server sends against it (contract.check), so each
// test of the package is also a test of the description.

// contract is the description, loaded and checked by kin-openapi, and
// its router.
type contract struct {
	doc    *openapi3.T
	router routers.Router
	// errSchema is the Error schema, for the replies of no operation (a
	// 404 of an unknown path, a 405 of a known one).
	errSchema *openapi3.Schema
}

// loadContract loads the description as the server serves it (the JSON
// converted from the embedded YAML), once per test binary.
var loadContract = sync.OnceValues(func() (*contract, error) {
	d, err := loadOpenAPI()
	if err != nil {
		return nil, err
	}
	// the HTML, the XML feeds and the metrics are described as strings:
	// their contents are the pages' and the feeds' tests' to check
	for _, mt := range []string{"text/html", "application/rss+xml", "application/atom+xml", "application/openmetrics-text"} {
		openapi3filter.RegisterBodyDecoder(mt, openapi3filter.PlainBodyDecoder)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(d.json)
	if err != nil {
		return nil, fmt.Errorf("load openapi.json: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.json is not a valid OpenAPI document: %w", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi.json router: %w", err)
	}
	es := doc.Components.Schemas["Error"]
	if es == nil || es.Value == nil {
		return nil, fmt.Errorf("openapi.json has no Error schema")
	}
	return &contract{doc: doc, router: router, errSchema: es.Value}, nil
})

// mustContract is loadContract or the test's end.
func mustContract(t testing.TB) *contract {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// openAPIPathOf is the description's path for a route's mux pattern:
// "/{$}" (the root only) is "/", a subtree "/static/" is
// "/static/{file}", the others read the same.
func openAPIPathOf(pattern string) string {
	switch {
	case pattern == "/{$}":
		return "/"
	case strings.HasSuffix(pattern, "/"):
		return pattern + "{file}"
	}
	return pattern
}

// TestOpenAPIDescribesEveryRoute: the description's operations are the
// server's routing table, no more, no less, and it is a valid OpenAPI 3.1
// document.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	c := mustContract(t)
	if !c.doc.IsOpenAPI31OrLater() || !strings.HasPrefix(c.doc.OpenAPI, "3.1.") {
		t.Fatalf("openapi = %q, want 3.1.x", c.doc.OpenAPI)
	}
	e := newEnv(t)
	var routes, described []string
	for _, rt := range e.srv.table {
		routes = append(routes, rt.method+" "+openAPIPathOf(rt.path))
	}
	for path, item := range c.doc.Paths.Map() {
		for method := range item.Operations() {
			described = append(described, method+" "+path)
		}
	}
	slices.Sort(routes)
	slices.Sort(described)
	if len(routes) < 30 {
		t.Fatalf("the routing table has %d routes: %v", len(routes), routes)
	}
	for _, r := range routes {
		if !slices.Contains(described, r) {
			t.Errorf("route %s is not in openapi.yaml", r)
		}
	}
	for _, d := range described {
		if !slices.Contains(routes, d) {
			t.Errorf("openapi.yaml describes %s, which the server does not route", d)
		}
	}
	// each route's security is its access level
	for _, rt := range e.srv.table {
		op := c.doc.Paths.Find(openAPIPathOf(rt.path)).GetOperation(rt.method)
		var schemes []string
		if op.Security != nil {
			for _, req := range *op.Security {
				for name := range req {
					schemes = append(schemes, name)
				}
			}
		}
		slices.Sort(schemes)
		want := map[access][]string{public: nil, writer: {"bearer"}, admin: {"bearer"}, adminSession: {"admin_session", "visitor"}}[rt.access]
		if rt.html && rt.method == "POST" && rt.access == public {
			want = []string{"visitor"}
		}
		if !slices.Equal(schemes, want) {
			t.Errorf("%s %s: security %v, want %v (its access level)", rt.method, rt.path, schemes, want)
		}
	}
}

// TestOpenAPIServed: /api/openapi.json is the description, as JSON, with
// an ETag that a conditional GET matches.
func TestOpenAPIServed(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/api/openapi.json", "", "")
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("GET /api/openapi.json = %d %q", r.status, r.header.Get("Content-Type"))
	}
	var doc struct {
		OpenAPI string                     `json:"openapi"`
		Paths   map[string]json.RawMessage `json:"paths"`
	}
	r.json(t, &doc)
	if doc.OpenAPI != "3.1.0" || doc.Paths["/api/news/{id}/vote"] == nil || doc.Paths["/feed.json"] == nil {
		t.Fatalf("served description: openapi %q, %d paths", doc.OpenAPI, len(doc.Paths))
	}
	if nm := e.do("GET", "/api/openapi.json", "", "", "If-None-Match", r.header.Get("ETag")); nm.status != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", nm.status)
	}
}

// check wraps a test server's handler: every response is validated
// against the description, and the test fails at its end naming each
// one that does not (collected, as handlers run outside the test's
// goroutine). A request the description has no operation for must have
// been answered with a 404 or 405 whose JSON body is the Error schema.
func (c *contract) check(t testing.TB, next http.Handler) http.Handler {
	var mu sync.Mutex
	var problems []string
	t.Cleanup(func() { // registered first, so it runs after the server closed
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("response not as openapi.yaml describes it: %s", p)
		}
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &captureWriter{ResponseWriter: w}
		next.ServeHTTP(cw, r)
		if err := c.validate(r, cw); err != nil {
			mu.Lock()
			problems = append(problems, fmt.Sprintf("%s %s → %d: %v", r.Method, r.URL.RequestURI(), cw.code(), err))
			mu.Unlock()
		}
	})
}

// validate checks one response.
func (c *contract) validate(r *http.Request, cw *captureWriter) error {
	status, header, body := cw.code(), cw.sent, cw.body.Bytes()
	if header == nil {
		header = cw.Header()
	}
	switch status {
	case http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		// the mux's own redirects of unclean paths (/a//b, /a/../b) to
		// their clean form: no route's reply
		if r.URL.Path != pathpkg.Clean(r.URL.Path) || strings.Contains(r.URL.Path, "//") {
			return nil
		}
	}
	method, path, routed := strings.Cut(r.Pattern, " ") // set by the server's mux on r
	if !routed {
		// a 405 (a known path, another method) or a 404 (an unknown path)
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			return fmt.Errorf("unrouted request (pattern %q) answered %d", r.Pattern, status)
		}
		if strings.HasPrefix(header.Get("Content-Type"), "application/json") {
			var v any
			if err := json.Unmarshal(body, &v); err != nil {
				return fmt.Errorf("error body is not JSON: %w", err)
			}
			return c.errSchema.VisitJSON(v, openapi3.EnableJSONSchema2020())
		}
		return nil
	}
	req := r.Clone(context.Background())
	if req.Method == http.MethodHead { // the description has GET, which HEAD answers
		req.Method = http.MethodGet
	}
	req.URL.Scheme, req.URL.Host = "", ""
	route, pathParams, err := c.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("routed to %q, which openapi.yaml does not describe: %w", r.Pattern, err)
	}
	if want := openAPIPathOf(path); route.Path != want || route.Method != method {
		return fmt.Errorf("the server routed it to %s %s, openapi.yaml to %s %s", method, want, route.Method, route.Path)
	}
	if r.Method == http.MethodHead {
		if len(body) > 0 {
			return fmt.Errorf("HEAD answered with a body")
		}
		return nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// captureWriter passes a response through and keeps a copy: its status,
// the headers as sent, its body.
type captureWriter struct {
	http.ResponseWriter
	status int
	sent   http.Header
	body   bytes.Buffer
}

func (w *captureWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.sent = w.Header().Clone()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *captureWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *captureWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *captureWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// TestContractCatchesDrift: the check fails on replies that break the
// description — a member it does not have, a wrong type, an undescribed
// status, a wrong content type, a bad error body — and passes the right
// one, so the validation of every test's responses can fail.
func TestContractCatchesDrift(t *testing.T) {
	c := mustContract(t)
	e := newEnv(t)
	id := e.seed(1)[0]
	var item map[string]any
	e.get("/api/news/"+id, &item)
	good, _ := json.Marshal(item)
	withExtra := map[string]any{"surprise": 1}
	for k, v := range item {
		withExtra[k] = v
	}
	extra, _ := json.Marshal(withExtra)
	wrongType := bytes.Replace(good, []byte(`"voting_open":true`), []byte(`"voting_open":"yes"`), 1)
	if bytes.Equal(wrongType, good) {
		t.Fatalf("no voting_open in %s", good)
	}
	for _, c2 := range []struct {
		name    string
		path    string
		status  int
		ctype   string
		body    []byte
		wantErr bool
	}{
		{"the real reply", "/api/news/" + id, 200, "application/json; charset=utf-8", good, false},
		{"an undescribed member", "/api/news/" + id, 200, "application/json; charset=utf-8", extra, true},
		{"a wrong type", "/api/news/" + id, 200, "application/json; charset=utf-8", wrongType, true},
		{"an undescribed status", "/api/news/" + id, 418, "application/json; charset=utf-8", []byte(`{"error":"x","code":"internal"}`), true},
		{"a wrong content type", "/api/news/" + id, 200, "text/plain", good, true},
		{"an error without a code", "/api/news/" + id, 404, "application/json; charset=utf-8", []byte(`{"error":"x"}`), true},
		{"an unknown error code", "/api/news/" + id, 404, "application/json; charset=utf-8", []byte(`{"error":"x","code":"oops"}`), true},
		{"a feed item without its id", "/feed.json", 200, "application/feed+json; charset=utf-8",
			[]byte(`{"version":"https://jsonfeed.org/version/1.1","title":"t","home_page_url":"http://x/","feed_url":"http://x/feed.json","description":"d","authors":[],"items":[{"url":"http://x/1","title":"t","content_html":"","date_published":"2025-06-03T12:00:00Z"}]}`), true},
	} {
		t.Run(c2.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c2.ctype)
				w.WriteHeader(c2.status)
				w.Write(c2.body)
			})
			mux := http.NewServeMux()
			mux.Handle("GET /api/news/{id}", h)
			mux.Handle("GET /feed.json", h)
			req := httptest.NewRequest("GET", c2.path, nil)
			cw := &captureWriter{ResponseWriter: rec}
			mux.ServeHTTP(cw, req)
			err := c.validate(req, cw)
			if (err != nil) != c2.wantErr {
				t.Errorf("validate = %v, want an error: %v", err, c2.wantErr)
			}
		})
	}
}
