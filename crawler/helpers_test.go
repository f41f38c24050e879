package crawler

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

const testPrefix = "t:"

// hostsTransport sends every request to one httptest server, whatever the
// host name, except the hosts mapped to another address (a closed port,
// for connection errors). The server routes by r.Host, so tests can use
// real-looking domains and subdomains.
func hostsTransport(addr string, other map[string]string) *http.Transport {
	d := &net.Dialer{Timeout: 2 * time.Second}
	return &http.Transport{
		DialContext: func(ctx context.Context, network, hostport string) (net.Conn, error) {
			host, _, _ := net.SplitHostPort(hostport)
			if a, ok := other[host]; ok {
				return d.DialContext(ctx, network, a)
			}
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: 16,
	}
}

// site is a programmable test web site: handlers by host and path, a log
// of requests, and per-host concurrency tracking.
type site struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	routes map[string]http.HandlerFunc // "host/path" or "host/prefix*"
	hits   map[string][]time.Time      // "host/path" → request times
	uas    map[string]bool
	active map[string]int // host → requests in progress
	peak   map[string]int // host → most requests in progress at once
	closed string         // address of a closed port
}

func newSite(t *testing.T) *site {
	s := &site{t: t, routes: map[string]http.HandlerFunc{}, hits: map[string][]time.Time{}, uas: map[string]bool{},
		active: map[string]int{}, peak: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.closed = l.Addr().String()
	l.Close()
	return s
}

func (s *site) transport() *http.Transport {
	return hostsTransport(s.srv.Listener.Addr().String(), map[string]string{"down.example.test": s.closed})
}

// handle registers h for "host/path"; a trailing '*' matches a prefix.
func (s *site) handle(pattern string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[pattern] = h
}

// page serves a fixed body with a content type.
func (s *site) page(pattern, contentType, body string) {
	s.handle(pattern, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	})
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	key := host + r.URL.Path
	s.mu.Lock()
	s.hits[key] = append(s.hits[key], time.Now())
	s.uas[r.UserAgent()] = true
	s.active[host]++
	s.peak[host] = max(s.peak[host], s.active[host])
	h := s.routes[key]
	if h == nil {
		best := ""
		for p, hh := range s.routes {
			if strings.HasSuffix(p, "*") && strings.HasPrefix(key, p[:len(p)-1]) && len(p) > len(best) {
				best, h = p, hh
			}
		}
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active[host]--
		s.mu.Unlock()
	}()
	if h == nil {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

func (s *site) hitTimes(key string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.hits[key]...)
}

func (s *site) hitCount(key string) int { return len(s.hitTimes(key)) }

func (s *site) peakOf(host string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak[host]
}

// articleHTML renders a simple article page.
func articleHTML(title string, post time.Time, comments int) string {
	return fmt.Sprintf(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>%s - Test Site</title>
<meta property="article:published_time" content="%s"></head>
<body><article><h1>%s</h1><p class="n">%d comments</p><p>Body text of the article.</p></article></body></html>`,
		title, post.Format(time.RFC3339), title, comments)
}

// env is a crawler on a real redis-server and the real news store.
type env struct {
	t     *testing.T
	rdb   *redis.Client
	store *news.Store
	opts  Options       // crawler options; newCrawler sets the sources
	qopts queue.Options // the sources' queues
	site  *site
}

func newEnv(t *testing.T) *env {
	t.Helper()
	r := redistest.Start(t)
	opts := DefaultOptions()
	opts.Workers = 4
	opts.PerHostParallelism = 4
	opts.Delay = 0
	opts.Jitter = 0
	opts.RequestTimeout = 2 * time.Second
	opts.MaxBodySize = 64 << 10
	opts.UserAgent = "newsrank-test/1.0"
	opts.ListAttempts = 2
	qopts := queue.DefaultOptions()
	qopts.RetryBase = 20 * time.Millisecond
	qopts.RetryMax = 100 * time.Millisecond
	qopts.IdlePoll = 20 * time.Millisecond
	qopts.Lease = 30 * time.Second
	store, err := news.New(r.Client(), testPrefix, news.DefaultOptions(), news.WithLogger(quietLog()))
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, rdb: r.Client(), store: store, opts: opts, qopts: qopts, site: newSite(t)}
}

// newRestartableEnv is newEnv on a redis-server with appendonly (fsync
// always), which a test can kill and start again without losing a write.
func newRestartableEnv(t *testing.T) (*env, *redistest.Server) {
	t.Helper()
	e := newEnv(t)
	r := redistest.Start(t, redistest.Options{AppendOnly: true})
	store, err := news.New(r.Client(), testPrefix, news.DefaultOptions(), news.WithLogger(quietLog()))
	if err != nil {
		t.Fatal(err)
	}
	e.rdb, e.store = r.Client(), store
	return e, r
}

// sel compiles a selector written in a test.
func sel(s string) extract.Selector { return extract.MustCompileSelector(s) }

func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// crawler builds a crawler for srcs on the site's transport, which sends every host name to the test site.
func (e *env) crawler(srcs ...Source) *Crawler {
	e.t.Helper()
	return e.newCrawler(srcs, WithTransport(e.site.transport()))
}

// realCrawler builds a crawler for srcs on the default transport: real
// DNS, the real dialer and its private-network guard.
func (e *env) realCrawler(srcs ...Source) *Crawler {
	e.t.Helper()
	return e.newCrawler(srcs)
}

func (e *env) newCrawler(srcs []Source, opts ...Option) *Crawler {
	e.t.Helper()
	e.opts.Sources = srcs
	opts = append([]Option{WithLogger(quietLog()), WithQueueOptions(queue.WithLogger(quietLog()))}, opts...)
	c, err := New(e.opts, e.qopts, e.rdb, testPrefix, e.store, opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// runOnce runs RunOnce with a generous deadline.
func (e *env) runOnce(c *Crawler, names ...string) Report {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := c.RunOnce(ctx, nil, names...)
	if err != nil {
		e.t.Fatalf("RunOnce: %v", err)
	}
	return rep
}

// article reads the stored article of a URL.
func (e *env) article(u string) (news.Item, error) {
	cu, err := canonurl.Canonical(u)
	if err != nil {
		return news.Item{}, err
	}
	return e.store.Get(context.Background(), news.ID(cu))
}

func (e *env) mustArticle(u string) news.Item {
	e.t.Helper()
	it, err := e.article(u)
	if err != nil {
		e.t.Fatalf("article %s: %v", u, err)
	}
	return it
}

// testNow is the fetch time of parser tests: relative times ("2 hours
// ago") are read against it, never against the wall clock.
var testNow = time.Date(2021, 11, 20, 12, 0, 0, 0, time.UTC)
