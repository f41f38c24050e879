// Package web serves newsrank over HTTP: the JSON API under /api/, the HTML
// pages (rankings, leaderboards, operations), /metrics for Prometheus and
// the /healthz and /readyz probes.
//
// Routing uses the standard library's http.ServeMux patterns. Every API
// error is JSON {"error": ..., "code": ...}; the domain packages classify
// their errors (internal/errkind) and one table maps kinds to statuses
// (kindStatus). Reads are open;
// API writes need "Authorization: Bearer <token>" (web.tokens or
// web.admin_tokens), running jobs needs an admin token. The HTML pages let
// an anonymous visitor vote through a form guarded by a cookie-bound,
// expiring CSRF token and a same-origin check (session.go, forms.go); the
// operations page's buttons also need an admin session (admin.go).
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/newsrank/newsrank/crawler/websub"
	"github.com/newsrank/newsrank/internal/clock"
)

// Server is the HTTP front of newsrank. Build it with New; serve Handler()
// or call Serve.
type Server struct {
	opts    Options
	log     *slog.Logger
	clock   clock.Clock
	mux     *http.ServeMux
	handler http.Handler
	auth    *authenticator
	pages   *pageRenderer
	session *sessions
	xorigin *http.CrossOriginProtection
	bg      *background
	// loc is the zone the pages show times in: the jobs' (jobs.time_zone),
	// else the server's.
	loc *time.Location
	// labels are the sources' labels by source and group name.
	labels map[string]string
	// feedTimes are the feeds' Last-Modified times (feed_times.go).
	feedTimes *feedTimes
	// apiDoc is the API's OpenAPI description, served as JSON.
	apiDoc *openAPIDoc
	// table is every route handle registered, in order: what the API's
	// description (openapi.go) must describe.
	table []route
}

// New builds the server and its routes.
func New(opts Options) (*Server, error) {
	if opts.Redis == nil {
		return nil, errors.New("web: Options.Redis is required")
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.PublicURL != "" {
		if err := CheckPublicURL(opts.PublicURL); err != nil {
			return nil, fmt.Errorf("web: PublicURL: %w", err)
		}
	}
	s := &Server{
		opts:    opts,
		log:     opts.Log,
		clock:   opts.Clock,
		mux:     http.NewServeMux(),
		auth:    newAuthenticator(opts.Tokens, opts.AdminTokens, opts.TrustedProxies, newFailLimiter(opts.Clock.Now, opts.Log)),
		xorigin: http.NewCrossOriginProtection(),
		bg:      newBackground(),
		loc:     time.Local,
		labels:  opts.Labels,

		feedTimes: newFeedTimes(maxFeedTimes),
	}
	if opts.Jobs != nil {
		s.loc = opts.Jobs.Location()
	}
	var err error
	if s.pages, err = newPageRenderer(); err != nil {
		return nil, err
	}
	if s.apiDoc, err = loadOpenAPI(); err != nil {
		return nil, err
	}
	if s.session, err = newSessions(opts, s.clock.Now); err != nil {
		return nil, err
	}
	s.routes()
	s.handler = s.recoverer(s.instrument(s.mux))
	return s, nil
}

// Handler returns the root handler: every route with its middleware.
func (s *Server) Handler() http.Handler { return s.handler }

// Close cancels the job runs started through the API and waits for them.
// Serve calls it when it stops; call it yourself when you serve Handler()
// some other way.
func (s *Server) Close() { s.bg.close() }

// Serve serves on l until ctx is cancelled, then shuts down gracefully
// (in-flight requests get up to shutdownGrace to finish) and calls Close.
// A nil error means a clean stop.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	defer s.Close()
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: min(s.opts.ReadTimeout, 10*time.Second),
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	select {
	case err := <-errc:
		return fmt.Errorf("http serve %s: %w", l.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("http shutdown: %w", err)
	}
	return nil
}

// shutdownGrace bounds how long Serve waits for in-flight requests.
const shutdownGrace = 5 * time.Second

// access says who may call a route.
type access int

const (
	public       access = iota // anyone
	writer                     // a web.tokens or web.admin_tokens bearer
	admin                      // a web.admin_tokens bearer
	adminSession               // an admin signed in on /ops (admin.go)
)

// handlerFunc is a route's handler; a returned error is written by the
// route's kind (JSON for the API, an HTML page for pages).
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// route is one entry of the routing table.
type route struct {
	method string
	path   string
	access access
	html   bool // an HTML page: errors render as a page, not JSON
	h      handlerFunc
}

// handle registers routes: one "METHOD path" pattern per route, and one
// method-less pattern per path that answers 405 with an Allow header, so
// that wrong methods get a JSON error rather than the mux's plain text.
func (s *Server) handle(routes ...route) {
	allowed := map[string][]string{}
	html := map[string]bool{}
	var paths []string
	for _, rt := range routes {
		if _, ok := allowed[rt.path]; !ok {
			paths = append(paths, rt.path)
		}
		allowed[rt.path] = append(allowed[rt.path], rt.method)
		if rt.method == http.MethodGet {
			allowed[rt.path] = append(allowed[rt.path], http.MethodHead)
		}
		html[rt.path] = html[rt.path] || rt.html
		s.mux.Handle(rt.method+" "+rt.path, s.wrap(rt))
		s.table = append(s.table, rt)
	}
	for _, p := range paths {
		methods := allowed[p]
		slices.Sort(methods)
		allow := strings.Join(slices.Compact(methods), ", ")
		isHTML := html[p]
		s.mux.Handle(p, s.wrap(route{path: p, html: isHTML, h: func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("Allow", allow)
			return errorf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method %s not allowed on %s; allowed: %s", r.Method, p, allow)
		}}))
	}
}

// wrap applies the request timeout and access check to a route and writes
// its error, if any.
func (s *Server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
		defer cancel()
		r = r.WithContext(ctx)
		err := s.allow(r, rt)
		if err == nil {
			err = rt.h(w, r)
		}
		if err != nil {
			s.fail(w, r, rt.html, err)
		}
	})
}

// allow checks that the request may reach the route: HTML routes only
// from this site's own pages (forms.go), then the route's access level.
func (s *Server) allow(r *http.Request, rt route) error {
	if rt.html {
		if err := s.sameOrigin(r); err != nil {
			return err
		}
	}
	if rt.access == adminSession {
		if _, ok := s.session.admin(r); !ok {
			return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Err: errNotAdmin,
				Message: "this button needs an admin: sign in on the operations page (" + opsPath + ") with an admin token, or sign in again if your session ended"}
		}
		return nil
	}
	return s.auth.check(r, rt.access)
}

// fail writes err to the client: JSON for the API, a page for HTML routes.
// Server-side failures are logged; client mistakes are not.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, html bool, err error) {
	e := classify(err)
	if e.Status >= 500 {
		s.log.Warn("request failed", "method", r.Method, "path", r.URL.Path, "status", e.Status, "code", e.Code, "err", err)
	}
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="newsrank"`)
	}
	if e.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((e.RetryAfter+time.Second-1)/time.Second), 10))
	}
	if html && !wantsJSON(r) {
		s.renderError(w, r, e)
		return
	}
	writeJSON(w, e.Status, errorBody{Error: e.Error(), Code: e.Code})
}

// routes is the routing table.
func (s *Server) routes() {
	s.handle(
		route{method: "GET", path: "/healthz", h: s.healthz},
		route{method: "GET", path: "/readyz", h: s.readyz},
		route{method: "GET", path: "/metrics", h: s.metrics},
	)
	s.handle(route{method: "GET", path: "/static/", h: s.static})
	s.handle(route{method: "GET", path: "/favicon.ico", h: s.favicon})
	s.handle(s.newsRoutes()...)
	s.handle(s.groupRoutes()...)
	s.handle(s.boardRoutes()...)
	s.handle(s.opsRoutes()...)
	s.handle(append(s.opsPageRoutes(), s.opsAdminRoutes()...)...)
	s.handle(s.pageRoutes()...)
	if s.opts.WebSub != nil {
		// The hubs' callbacks: the subscriber reads (and bounds) the
		// bodies itself, and answers as the WebSub protocol says.
		s.mux.Handle(websub.CallbackPath, s.opts.WebSub)
	}
	s.handle(s.feedRoutes()...)
	s.handle(route{method: "GET", path: openAPIPath, h: s.openAPI})
	// Anything else: JSON 404 under /api/, an HTML 404 page elsewhere.
	s.mux.Handle("/api/", s.wrap(route{h: func(w http.ResponseWriter, r *http.Request) error {
		return errorf(http.StatusNotFound, CodeNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
	}}))
	s.mux.Handle("/", s.wrap(route{html: true, h: func(w http.ResponseWriter, r *http.Request) error {
		return errorf(http.StatusNotFound, CodeNotFound, "no such page: %s", r.URL.Path)
	}}))
}

// wantsJSON reports whether the client asked for JSON (the page script
// does, for votes).
func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// background runs work that outlives its request (job runs started by the
// API) under one context that Close cancels.
type background struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed bool
}

func newBackground() *background {
	ctx, cancel := context.WithCancel(context.Background())
	return &background{ctx: ctx, cancel: cancel}
}

// start runs f in a goroutine; false when Close was called.
func (b *background) start(f func(ctx context.Context)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		f(b.ctx)
	}()
	return true
}

func (b *background) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
}
