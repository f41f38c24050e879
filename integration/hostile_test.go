package integration

import (
	"context"
	"fmt"
	"html"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

// The hostile site: handlers for the ways a site can break a crawler.

// hostileCap bounds how long a handler that hangs keeps its goroutine,
// should the client never hang up.
const hostileCap = 2 * time.Minute

// goodArticle serves a well-formed article page.
func goodArticle(title string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>%s</title>
<meta property="article:published_time" content="%s"></head>
<body><article><h1>%s</h1><p>A well-formed article.</p></article></body></html>`,
			html.EscapeString(title), time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), html.EscapeString(title))
	}
}

// listPage serves an HTML list linking paths (class "article") and, when
// next is not empty, a next-page link.
func listPage(next string, paths ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!DOCTYPE html><html><head><title>List</title></head><body><ul>")
		for _, p := range paths {
			fmt.Fprintf(w, `<li><a class="article" href="%s">%s</a></li>`, p, p)
		}
		fmt.Fprint(w, "</ul>")
		if next != "" {
			fmt.Fprintf(w, `<a class="next" href="%s">next</a>`, next)
		}
		fmt.Fprint(w, "</body></html>")
	}
}

// hang never answers: it waits for the client to give up.
func hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(hostileCap):
	}
}

// trickle sends the headers and the start of a page at once, then one
// byte every 100 ms, forever.
func trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<html><head><title>Slow drip</title></head><body><p>")
	w.(http.Flusher).Flush()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	stop := time.After(hostileCap)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-stop:
			return
		case <-tick.C:
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// randomBytes serves 64 KiB of random bytes under contentType ("" sends
// no Content-Type, so Go's server sniffs one).
func randomBytes(seed uint64, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rng := rand.New(rand.NewPCG(seed, seed))
		b := make([]byte, 64<<10)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.Write(b)
	}
}

// fixedBody serves body as text/html.
func fixedBody(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

// cutConnection promises a long body (Content-Length), sends part of an
// article and closes the connection.
func cutConnection(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", "50000")
	fmt.Fprint(w, "<html><head><title>Cut off</title></head><body><p>The connection drops in the mid")
	w.(http.Flusher).Flush()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

// huge streams size bytes of HTML (with a Content-Length when
// withLength), counting what it managed to write in sent.
func huge(size int64, withLength bool, sent *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if withLength {
			w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		}
		chunk := []byte("<p>" + strings.Repeat("big ", 16381) + "</p>\n") // 64 KiB
		head := "<html><head><title>Fifty megabytes</title></head><body>"
		n, err := w.Write([]byte(head))
		sent.Add(int64(n))
		for written := int64(n); err == nil && written < size; {
			c := chunk[:min(int64(len(chunk)), size-written)]
			n, err = w.Write(c)
			written += int64(n)
			sent.Add(int64(n))
		}
	}
}

// redirect answers 302 to the location to(r).
func redirect(to func(r *http.Request) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to(r), http.StatusFound)
	}
}

// hostileSite routes exact paths to handlers and counts the requests per
// path.
type hostileSite struct {
	srv    *httptest.Server
	routes map[string]http.HandlerFunc
	// prefixes route "prefix*" patterns (the endless pages).
	prefixes map[string]http.HandlerFunc
	mu       sync.Mutex
	hits     map[string]int
}

func newHostileSite(t *testing.T) *hostileSite {
	h := &hostileSite{routes: map[string]http.HandlerFunc{}, prefixes: map[string]http.HandlerFunc{}, hits: map[string]int{}}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hostileSite) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.hits[r.URL.Path]++
	f := h.routes[r.URL.Path]
	if f == nil {
		for p, pf := range h.prefixes {
			if strings.HasPrefix(r.URL.Path, p) {
				f = pf
			}
		}
	}
	h.mu.Unlock()
	if f == nil {
		http.NotFound(w, r)
		return
	}
	f(w, r)
}

// route serves path with f; prefix serves every path starting with p.
func (h *hostileSite) route(path string, f http.HandlerFunc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.routes[path] = f
}

func (h *hostileSite) prefix(p string, f http.HandlerFunc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.prefixes[p] = f
}

// hitsUnder counts the requests to paths starting with p.
func (h *hostileSite) hitsUnder(p string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for path, c := range h.hits {
		if strings.HasPrefix(path, p) {
			n += c
		}
	}
	return n
}

// hostileCase is one crawl of a hostile site: its sources, and what must
// become of each article URL ("" stored, else the reason it died with).
type hostileCase struct {
	name  string
	setup func(t *testing.T, h *hostileSite, cfg *config.Config) (articles map[string]string)
	// check runs after the crawl with its first report.
	check func(t *testing.T, h *hostileSite, rep crawler.Report, st *stack)
	// bound is how long the whole crawl may take given its limits
	// (attempts × request timeout and backoff) plus generous slack; a
	// crawl still running then has failed to terminate.
	bound time.Duration
}

// htmlSource is an html source read from the list at path.
func htmlSource(name, base, path string, maxPages int) config.Source {
	return config.Source{Name: name, Kind: "html", URLs: []string{base + path}, LinkSelector: "a.article",
		NextSelector: "a.next", MaxPages: maxPages}
}

// articleCase builds the common shape: one list page linking the hostile
// articles and two good ones, which must be stored whatever the others do.
func articleCase(h *hostileSite, cfg *config.Config, name string, bad map[string]http.HandlerFunc, want map[string]string) map[string]string {
	articles := map[string]string{}
	var paths []string
	for p, f := range bad {
		h.route(p, f)
		paths = append(paths, p)
		articles[p] = want[p]
	}
	for i := range 2 {
		p := fmt.Sprintf("/%s/good-%d.html", name, i)
		h.route(p, goodArticle(fmt.Sprintf("Good article %d of %s", i, name)))
		paths = append(paths, p)
		articles[p] = ""
	}
	sort.Strings(paths)
	h.route("/"+name+"/list", listPage("", paths...))
	cfg.Crawler.Sources = append(cfg.Crawler.Sources, htmlSource(name, h.srv.URL, "/"+name+"/list", 1))
	return articles
}

// TestFaultHostileSite crawls sites that hang, trickle, send random bytes,
// truncated HTML, cut connections, 50 MB bodies, redirect loops and
// endless pagination. Each crawl must end within its limits, with every
// article URL stored or dead for the right reason, the good articles
// beside the bad ones stored, and the ranking consistent.
func TestFaultHostileSite(t *testing.T) {
	const attempts = 2
	const timeout = time.Second
	// hugeSent counts the bytes the 50 MB handlers wrote, by path.
	var hugeSent map[string]*atomic.Int64
	// otherHits counts the requests to the service on another port.
	var otherHits *atomic.Int64
	cases := []hostileCase{
		{
			name: "hang",
			setup: func(t *testing.T, h *hostileSite, cfg *config.Config) map[string]string {
				h.route("/hanglist/list", hang)
				cfg.Crawler.Sources = append(cfg.Crawler.Sources, htmlSource("hanglist", h.srv.URL, "/hanglist/list", 5))
				return articleCase(h, cfg, "hang", map[string]http.HandlerFunc{
					"/hang/silent.html": hang,
					"/hang/drip.html":   trickle,
				}, map[string]string{
					"/hang/silent.html": fetch.ReasonTimeout,
					"/hang/drip.html":   fetch.ReasonTimeout,
				})
			},
			check: func(t *testing.T, h *hostileSite, rep crawler.Report, st *stack) {
				for _, sp := range rep.Produce.Sources {
					if sp.Name == "hanglist" && (sp.Err == nil || !strings.Contains(sp.Err.Error(), fetch.ReasonTimeout)) {
						t.Errorf("a list page that hangs: source error %v, want a timeout", sp.Err)
					}
				}
				if n := h.hitsUnder("/hanglist/list"); n != attempts {
					t.Errorf("the hanging list page was requested %d times, want %d (crawler.list_attempts)", n, attempts)
				}
			},
			bound: 60 * time.Second,
		},
		{
			name: "random",
			setup: func(t *testing.T, h *hostileSite, cfg *config.Config) map[string]string {
				h.route("/api/random.js", randomBytes(7, "application/javascript"))
				cfg.Crawler.Sources = append(cfg.Crawler.Sources, config.Source{Name: "randomapi", Kind: "jsonp",
					URLs: []string{h.srv.URL + "/api/random.js"}, MaxPages: 1,
					JSON: config.JSONList{Fields: map[string]string{"url": "url", "title": "title"}}})
				return articleCase(h, cfg, "random", map[string]http.HandlerFunc{
					"/random/html.html":   randomBytes(1, "text/html"),
					"/random/utf8.html":   randomBytes(2, "text/html; charset=utf-8"),
					"/random/gbk.html":    randomBytes(3, "text/html; charset=gbk"),
					"/random/binary.html": randomBytes(4, "application/octet-stream"),
					"/random/sniff.html":  randomBytes(5, ""),
				}, map[string]string{
					"/random/html.html":   crawler.ReasonNoTitle,
					"/random/utf8.html":   crawler.ReasonNoTitle,
					"/random/gbk.html":    crawler.ReasonNoTitle,
					"/random/binary.html": fetch.ReasonNotHTML,
					"/random/sniff.html":  fetch.ReasonNotHTML,
				})
			},
			check: func(t *testing.T, h *hostileSite, rep crawler.Report, st *stack) {
				for _, sp := range rep.Produce.Sources {
					if sp.Name == "randomapi" && (sp.Err == nil || sp.PageErrors != 1 || !strings.Contains(sp.Err.Error(), crawler.ReasonBadList)) {
						t.Errorf("a list API answering random bytes: %+v, want the source failed with %s", sp, crawler.ReasonBadList)
					}
				}
			},
			bound: 60 * time.Second,
		},
		{
			name: "truncated",
			setup: func(t *testing.T, h *hostileSite, cfg *config.Config) map[string]string {
				return articleCase(h, cfg, "truncated", map[string]http.HandlerFunc{
					"/truncated/body.html":  fixedBody("<!DOCTYPE html><html><head><title>Cut short</title></head><body><h1>Cut short</h1><p>The text stops in the mid"),
					"/truncated/title.html": fixedBody("<html><head><title>Cut in the ti"),
					"/truncated/tag.html":   fixedBody("<html><head><title>Cut in a tag</title><meta property=\"article:published_"),
					"/truncated/empty.html": fixedBody(""),
					"/truncated/conn.html":  cutConnection,
				}, map[string]string{
					"/truncated/body.html":  "",
					"/truncated/title.html": "",
					"/truncated/tag.html":   "",
					"/truncated/empty.html": crawler.ReasonNoTitle,
					"/truncated/conn.html":  fetch.ReasonConn,
				})
			},
			check: func(t *testing.T, h *hostileSite, rep crawler.Report, st *stack) {
				for path, title := range map[string]string{"/truncated/body.html": "Cut short", "/truncated/title.html": "Cut in the ti", "/truncated/tag.html": "Cut in a tag"} {
					it, err := st.store.Get(context.Background(), news.ID(canonical(t, h.srv.URL+path)))
					if err != nil || it.Title != title {
						t.Errorf("%s: stored %q (%v), want the title %q", path, it.Title, err, title)
					}
				}
				if n := h.hitsUnder("/truncated/conn.html"); n != attempts {
					t.Errorf("the cut connection was tried %d times, want %d (queue.max_attempts)", n, attempts)
				}
			},
			bound: 60 * time.Second,
		},
		{
			name: "huge",
			setup: func(t *testing.T, h *hostileSite, cfg *config.Config) map[string]string {
				chunked, declared, list := &atomic.Int64{}, &atomic.Int64{}, &atomic.Int64{}
				hugeSent = map[string]*atomic.Int64{"/huge/chunked.html": chunked, "/huge/declared.html": declared, "/hugelist/list": list}
				h.route("/hugelist/list", huge(50<<20, false, list))
				cfg.Crawler.Sources = append(cfg.Crawler.Sources, htmlSource("hugelist", h.srv.URL, "/hugelist/list", 1))
				return articleCase(h, cfg, "huge", map[string]http.HandlerFunc{
					"/huge/chunked.html":  huge(50<<20, false, chunked),
					"/huge/declared.html": huge(50<<20, true, declared),
				}, map[string]string{
					"/huge/chunked.html":  fetch.ReasonTooLarge,
					"/huge/declared.html": fetch.ReasonTooLarge,
				})
			},
			check: func(t *testing.T, h *hostileSite, rep crawler.Report, st *stack) {
				for path, n := range hugeSent {
					// The crawler stops reading after max_body_size (5 MiB):
					// the server gets to write that plus what the socket
					// buffers hold, far from 50 MB.
					if sent := n.Load(); sent >= 50<<20 {
						t.Errorf("%s: the server sent all %d bytes; the crawler should have hung up after max_body_size", path, sent)
					} else {
						t.Logf("%s: the server got %d bytes out before the crawler hung up", path, sent)
					}
				}
				for _, sp := range rep.Produce.Sources {
					if sp.Name == "hugelist" && (sp.Err == nil || !strings.Contains(sp.Err.Error(), fetch.ReasonTooLarge)) {
						t.Errorf("a 50 MB list page: source error %v, want %s", sp.Err, fetch.ReasonTooLarge)
					}
				}
			},
			bound: 60 * time.Second,
		},
		{
			name: "redirects",
			setup: func(t *testing.T, h *hostileSite, cfg *config.Config) map[string]string {
				h.route("/redirects/b.html", redirect(func(*http.Request) string { return "/redirects/loop.html" }))
				h.prefix("/redirects/chain/", redirect(func(r *http.Request) string {
					n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/redirects/chain/"), ".html"))
					return fmt.Sprintf("/redirects/chain/%d.html", n+1)
				}))
				h.route("/redirects/hop.html", redirect(func(*http.Request) string { return "/redirects/good-0.html" }))
				return articleCase(h, cfg, "redirects", map[string]http.HandlerFunc{
					"/redirects/loop.html":    redirect(func(*http.Request) string { return "/redirects/b.html" }),
					"/redirects/self.html":    redirect(func(r *http.Request) string { return r.URL.Path }),
					"/redirects/chain/0.html": redirect(func(*http.Request) string { return "/redirects/chain/1.html" }),
					"/redirects/away.html":    redirect(func(*http.Request) string { return "http://elsewhere.invalid/x.html" }),
					"/redirects/nowhere.html": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusFound) },
				}, map[string]string{
					"/redirects/loop.html":    fetch.ReasonTooManyRedirects,
					"/redirects/self.html":    fetch.ReasonTooManyRedirects,
					"/redirects/chain/0.html": fetch.ReasonTooManyRedirects,
					"/redirects/away.html":    fetch.ReasonOffsite,
					"/redirects/nowhere.html": fetch.ReasonTooManyRedirects,
				})
			},
			check: func(t *testing.T, h *hostileSite, rep crawler.Report, st *stack) {
				// A chain is followed max_redirects times (5), once per
				// attempt: not endlessly.
				if n := h.hitsUnder("/redirects/chain/"); n > attempts*(5+1) {
					t.Errorf("the endless redirect chain was followed for %d requests, want at most %d", n, attempts*6)
				}
			},
			bound: 60 * time.Second,
		},
		{
			// Another service on another port of the same host (as Redis
			// would be): links, a feed item, a redirect, a user:pass@ link
			// and a canonical URL point at it; it is never requested.
			name: "ports",
			setup: func(t *testing.T, h *hostileSite, cfg *config.Config) map[string]string {
				var hits atomic.Int64
				other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					hits.Add(1)
					goodArticle("Internal service")(w, r)
				}))
				t.Cleanup(other.Close)
				otherHits = &hits
				withUser := strings.Replace(h.srv.URL, "http://", "http://admin:admin@", 1)
				h.route("/ports/canonical.html", fixedBody(fmt.Sprintf(`<html><head><title>Canonical elsewhere</title>
<link rel="canonical" href="%s/ports/canonical.html"></head><body><p>x</p></body></html>`, other.URL)))
				h.route("/portslist/list", listPage(other.URL+"/list/2", other.URL+"/secret.html", withUser+"/ports/good-0.html",
					"http://127.0.0.1:6379/", "/ports/canonical.html"))
				h.route("/ports/feed.xml", func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/rss+xml")
					fmt.Fprintf(w, `<rss version="2.0"><channel><item><title>x</title><link>%s/feed-item.html</link></item></channel></rss>`, other.URL)
				})
				cfg.Crawler.Sources = append(cfg.Crawler.Sources, htmlSource("portslist", h.srv.URL, "/portslist/list", 3),
					config.Source{Name: "portsfeed", Kind: "rss", URLs: []string{h.srv.URL + "/ports/feed.xml"}})
				articles := articleCase(h, cfg, "ports", map[string]http.HandlerFunc{
					"/ports/away.html": redirect(func(*http.Request) string { return other.URL + "/landing.html" }),
				}, map[string]string{"/ports/away.html": fetch.ReasonOffsite})
				articles["/ports/canonical.html"] = ""
				return articles
			},
			check: func(t *testing.T, h *hostileSite, rep crawler.Report, st *stack) {
				if n := otherHits.Load(); n != 0 {
					t.Errorf("the service on another port of the host was requested %d times", n)
				}
				if _, err := st.store.Get(context.Background(), news.ID(canonical(t, h.srv.URL+"/ports/canonical.html"))); err != nil {
					t.Errorf("the page with a canonical URL elsewhere is not stored under its own URL: %v", err)
				}
			},
			bound: 60 * time.Second,
		},
		{
			name: "pagination",
			setup: func(t *testing.T, h *hostileSite, cfg *config.Config) map[string]string {
				// Every page links one new article and the next page, for ever.
				h.prefix("/trap/page/", func(w http.ResponseWriter, r *http.Request) {
					n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/trap/page/"))
					listPage(fmt.Sprintf("/trap/page/%d", n+1), fmt.Sprintf("/trap/a/%d.html", n))(w, r)
				})
				h.prefix("/trap/a/", func(w http.ResponseWriter, r *http.Request) { goodArticle("Trap article "+r.URL.Path)(w, r) })
				// The same with numbered pages (page_template).
				h.prefix("/numbered/list_", func(w http.ResponseWriter, r *http.Request) {
					n := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/numbered/list_"), ".html")
					listPage("", "/numbered/a/"+n+".html")(w, r)
				})
				h.prefix("/numbered/a/", func(w http.ResponseWriter, r *http.Request) { goodArticle("Numbered article "+r.URL.Path)(w, r) })
				// A page whose next link is itself.
				h.route("/self/list", listPage("/self/list", "/self/a.html"))
				h.route("/self/a.html", goodArticle("Self-linked list article"))
				// A list API that never runs out of items.
				h.prefix("/endless/api/", func(w http.ResponseWriter, r *http.Request) {
					off, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/endless/api/"))
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, `{"items":[{"url":"/endless/a/%d.html","title":"Endless %d"}]}`, off, off)
				})
				h.prefix("/endless/a/", func(w http.ResponseWriter, r *http.Request) { goodArticle("Endless article "+r.URL.Path)(w, r) })
				trap := htmlSource("trap", h.srv.URL, "/trap/page/1", 15)
				numbered := htmlSource("numbered", h.srv.URL, "/numbered/list_1.html", 12)
				numbered.NextSelector, numbered.PageTemplate = "", h.srv.URL+"/numbered/list_{page}.html"
				self := htmlSource("self", h.srv.URL, "/self/list", 50)
				endless := config.Source{Name: "endless", Kind: "json", URLs: []string{h.srv.URL + "/endless/api/{offset}"}, MaxPages: 10,
					JSON: config.JSONList{ItemsPath: "items", Fields: map[string]string{"url": "url", "title": "title"},
						Offset: config.OffsetPagination{Start: 0, Step: 1, Limit: 1 << 30}}}
				cfg.Crawler.Sources = append(cfg.Crawler.Sources, trap, numbered, self, endless)
				articles := map[string]string{"/self/a.html": ""}
				for n := 1; n <= 15; n++ {
					articles[fmt.Sprintf("/trap/a/%d.html", n)] = ""
				}
				for n := 1; n <= 12; n++ {
					articles[fmt.Sprintf("/numbered/a/%d.html", n)] = ""
				}
				for n := 0; n < 10; n++ {
					articles[fmt.Sprintf("/endless/a/%d.html", n)] = ""
				}
				return articles
			},
			check: func(t *testing.T, h *hostileSite, rep crawler.Report, st *stack) {
				for _, c := range []struct {
					prefix string
					pages  int
				}{{"/trap/page/", 15}, {"/numbered/list_", 12}, {"/self/list", 1}, {"/endless/api/", 10}} {
					if n := h.hitsUnder(c.prefix); n != c.pages {
						t.Errorf("%s: %d list pages read, want %d (max_pages, or the end of what is new)", c.prefix, n, c.pages)
					}
				}
			},
			bound: 60 * time.Second,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := redistest.Start(t)
			h := newHostileSite(t)
			cfg := testConfig(rs.Options())
			cfg.Crawler.RequestTimeout = config.Duration(timeout)
			cfg.Crawler.ListAttempts = attempts
			cfg.Crawler.MaxRedirects = 5
			cfg.Crawler.ObeyRobots = true
			cfg.Queue.MaxAttempts = attempts
			cfg.Queue.Lease = config.Duration(5 * time.Second)
			want := tc.setup(t, h, &cfg)
			st := newStack(t, cfg)

			ctx, cancel := context.WithTimeout(context.Background(), tc.bound)
			defer cancel()
			rep, err := st.cr.RunOnce(ctx, nil)
			if err != nil {
				t.Fatalf("the crawl did not end within %v: %v", tc.bound, err)
			}
			// Retries due after RunOnce ended are the next run's: consume
			// until every URL has ended, still within the bound.
			cctx, stop := context.WithCancel(ctx)
			consumed := make(chan error, 1)
			go func() { consumed <- st.cr.Consume(cctx) }()
			proctest.WaitFor(t, time.Until(deadlineOf(ctx)), "every URL to end done or dead", func() bool {
				s, err := totals(ctx, st.queues())
				return err == nil && s.Pending+s.InFlight+s.Delayed == 0
			})
			stop()
			if err := <-consumed; err != nil {
				t.Fatalf("consume: %v", err)
			}
			checkHostile(t, st, h, want)
			if tc.check != nil {
				tc.check(t, h, rep, st)
			}
		})
	}
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// checkHostile checks that every article URL ended as want says: stored
// ("") or dead with the given reason, and nothing else is anywhere.
func checkHostile(t *testing.T, st *stack, h *hostileSite, want map[string]string) {
	t.Helper()
	ctx := context.Background()
	s, err := totals(ctx, st.queues())
	if err != nil {
		t.Fatal(err)
	}
	dead := st.deadLetters(ctx)
	var stored, died int64
	for path, reason := range want {
		u := canonical(t, h.srv.URL+path)
		dl, isDead := dead[u]
		_, getErr := st.store.Get(ctx, news.ID(u))
		switch {
		case reason == "" && getErr != nil:
			t.Errorf("%s: not stored (%v); dead letter: %+v", path, getErr, dl)
		case reason == "":
			stored++
		case !isDead:
			t.Errorf("%s: not in the dead letters, want dead for %s (stored: %v)", path, reason, getErr == nil)
		case dl.Reason != reason:
			t.Errorf("%s: dead for %s (%s), want %s", path, dl.Reason, dl.Error, reason)
		default:
			died++
			if dl.Error == "" || dl.Attempts < 1 {
				t.Errorf("%s: dead letter without its error or attempts: %+v", path, dl)
			}
		}
		delete(dead, u)
	}
	for u, dl := range dead {
		t.Errorf("unexpected dead letter %s: %s (%s)", u, dl.Reason, dl.Error)
	}
	if s.Pending+s.InFlight+s.Delayed != 0 || s.Done != stored || s.Dead != died {
		t.Errorf("queues: %+v; want %d done, %d dead, nothing else", s, stored, died)
	}
	if n := checkRanking(t, st.store); int64(n) != stored {
		t.Errorf("%d articles ranked, want %d", n, stored)
	}
}
