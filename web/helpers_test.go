package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// Tokens the test servers accept.
const (
	writerToken = "writer-token-0123"
	adminToken  = "admin-token-456789"
)

// testEnv is a web server on a real redis-server, with every domain part
// real and a fake clock.
type testEnv struct {
	t     testing.TB
	redis *redistest.Server
	rdb   *rdb.Client
	clock *clock.Fake
	cfg   envConfig
	store *news.Store
	act   *board.Activity
	inv   *board.Invites
	queue *queue.Queue
	// queues are every crawl queue of the server by name: "demo" (queue)
	// and one per source of withSources.
	queues map[string]*queue.Queue
	jobs   *jobs.Manager
	srv    *Server
	ts     *httptest.Server
	// release unblocks the "slow" test job.
	release chan struct{}
}

// testNow is the fake clock's start: a fixed Tuesday.
var testNow = time.Date(2025, 6, 3, 12, 0, 0, 0, time.UTC)

// envConfig is what a test environment is built from: the options of
// each part, starting from their packages' defaults.
type envConfig struct {
	redis rdb.Options
	web   Options
	news  news.Options
	board board.Options
	queue queue.Options
	jobs  jobs.Options
	// sources are the names of the crawler's sources (withSources): each
	// gets a crawl queue of the server beside "demo".
	sources []string
}

// defaultEnvConfig is every package's defaults, with the boards in UTC.
func defaultEnvConfig() envConfig {
	b := board.DefaultOptions()
	b.Location = time.UTC
	return envConfig{redis: rdb.DefaultOptions(), web: DefaultOptions(), news: news.DefaultOptions(),
		board: b, queue: queue.DefaultOptions(), jobs: jobs.DefaultOptions()}
}

type envOption func(*envConfig)

// quietRedis drops go-redis's own log lines ("failed to dial ...") that
// the Redis-down tests provoke on purpose.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quietRedis{}) }

func newEnv(t testing.TB, opts ...envOption) *testEnv {
	t.Helper()
	return newEnvOn(t, redistest.Start(t), opts...)
}

// newEnvOn builds the environment on a redis-server the test started.
func newEnvOn(t testing.TB, rs *redistest.Server, opts ...envOption) *testEnv {
	t.Helper()
	ctx := context.Background()
	cfg := defaultEnvConfig()
	cfg.redis = rs.Options()
	cfg.redis.MaxRetries = 1
	cfg.web.Tokens = []string{writerToken}
	cfg.web.AdminTokens = []string{adminToken}
	cfg.web.MaxBodySize = 4 << 10
	cfg.web.RequestTimeout = 2 * time.Second
	for _, o := range opts {
		o(&cfg)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(&testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	c, err := rdb.Open(ctx, cfg.redis, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	e := buildEnv(t, c, cfg, log)
	e.redis = rs
	return e
}

// buildEnv wires the parts on client c (a redis-server or the embedded one).
func buildEnv(t testing.TB, c *rdb.Client, cfg envConfig, log *slog.Logger) *testEnv {
	t.Helper()
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e := &testEnv{t: t, rdb: c, clock: clock.NewFake(testNow), cfg: cfg, release: make(chan struct{})}
	var err error
	if e.act, err = board.NewActivity(c, c.Prefix, cfg.board, board.WithClock(e.clock), board.WithLogger(log)); err != nil {
		t.Fatal(err)
	}
	if e.store, err = news.New(c, c.Prefix, cfg.news, news.WithClock(e.clock), news.WithLogger(log), news.WithActivity(e.act)); err != nil {
		t.Fatal(err)
	}
	if e.inv, err = board.NewInvites(c, c.Prefix, cfg.board, board.WithClock(e.clock), board.WithLogger(log)); err != nil {
		t.Fatal(err)
	}
	e.queue = queue.New(c, c.Prefix, "demo", cfg.queue, queue.WithClock(e.clock), queue.WithLogger(log))
	e.queues = map[string]*queue.Queue{"demo": e.queue}
	qs := []*queue.Queue{e.queue}
	for _, name := range cfg.sources {
		if e.queues[name] == nil {
			e.queues[name] = queue.New(c, c.Prefix, name, cfg.queue, queue.WithClock(e.clock), queue.WithLogger(log))
			qs = append(qs, e.queues[name])
		}
	}
	jo := cfg.jobs
	jo.Logger = log
	jo.LockTTL = 3 * time.Second
	e.jobs, err = jobs.NewManager(c, c.Prefix, jo,
		jobs.Job{Name: "quick", About: "returns at once", Run: func(ctx context.Context) (jobs.Counts, error) {
			return jobs.Counts{"done": 1}, nil
		}},
		jobs.Job{Name: "slow", About: "waits to be released", Run: func(ctx context.Context) (jobs.Counts, error) {
			select {
			case <-e.release:
				return jobs.Counts{"waited": 1}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}},
		jobs.Job{Name: "broken", About: "fails", Run: func(ctx context.Context) (jobs.Counts, error) {
			return nil, fmt.Errorf("the source is down")
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	wo := cfg.web
	wo.Redis, wo.News, wo.Activity, wo.Invites = c, e.store, e.act, e.inv
	wo.Queues, wo.Jobs, wo.Clock, wo.Log = qs, e.jobs, e.clock, log
	e.srv, err = New(wo)
	if err != nil {
		t.Fatal(err)
	}
	h := e.srv.Handler()
	if _, bench := t.(*testing.B); !bench { // benchmarks measure the server alone
		h = mustContract(t).check(t, h)
	}
	e.ts = httptest.NewServer(h)
	t.Cleanup(func() {
		e.ts.Close()
		select {
		case <-e.release:
		default:
			close(e.release)
		}
		e.srv.Close()
	})
	return e
}

// testSource is a crawler source as the server sees it: a name and a
// label.
type testSource struct{ name, label string }

// withSources configures crawler sources: each gets a crawl queue of the
// server beside "demo", and its label (Options.Labels).
func withSources(srcs ...testSource) envOption {
	return func(c *envConfig) {
		for _, src := range srcs {
			c.sources = append(c.sources, src.name)
			if src.label != "" {
				if c.web.Labels == nil {
					c.web.Labels = map[string]string{}
				}
				c.web.Labels[src.name] = src.label
			}
		}
	}
}

// guoneiSource is a source with a Chinese label, as the demo's sections.
var guoneiSource = testSource{name: "guonei", label: "国内"}

// ingest stores one article per title in group, a minute apart (the
// first the newest), each with comments comments, and returns their ids.
// newsKey is the Redis key of the news store with this suffix ("score:",
// "news:<id>"), as docs/architecture.md's key table names it: package news builds
// its keys itself, and the tests that read the store raw or break it on
// purpose write the documented names out.
func (e *testEnv) newsKey(suffix string) string { return e.rdb.Prefix + news.Tag + ":" + suffix }

func (e *testEnv) ingest(group string, comments int64, titles ...string) []string {
	e.t.Helper()
	as := make([]news.Article, len(titles))
	for i, title := range titles {
		as[i] = news.Article{URL: fmt.Sprintf("https://news.example.cn/%s/%d.html", group, i), Title: title,
			PostTime: e.clock.Now().Add(-time.Duration(i+1) * time.Minute), Source: group, Comments: comments, Groups: []string{group}}
	}
	res, err := e.store.IngestBatch(context.Background(), as)
	if err != nil {
		e.t.Fatal(err)
	}
	ids := make([]string, len(res))
	for i, r := range res {
		if r.Err != nil {
			e.t.Fatalf("ingest %q: %v", titles[i], r.Err)
		}
		ids[i] = r.ID
	}
	return ids
}

// kill makes url a dead letter of queue q: pushed, claimed and failed for
// good with reason and the error text msg.
func (e *testEnv) kill(q *queue.Queue, url, reason, msg string) {
	e.t.Helper()
	ctx := context.Background()
	if _, err := q.Push(ctx, url); err != nil {
		e.t.Fatal(err)
	}
	got, err := q.TryClaim(ctx, 100, time.Minute)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, u := range got {
		if _, err := q.Fail(ctx, u, queue.Failure{Reason: reason, Err: errors.New(msg)}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// deadCount is how many dead letters q has.
func (e *testEnv) deadCount(q *queue.Queue) int64 {
	e.t.Helper()
	st, err := q.Stats(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return st.Dead
}

type testWriter struct{ t testing.TB }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// seed ingests n articles, one a minute apart (the newest first), with
// i comments for article i, and returns their ids in ingest order.
func (e *testEnv) seed(n int, groups ...string) []string {
	e.t.Helper()
	now := e.clock.Now()
	as := make([]news.Article, n)
	for i := range as {
		as[i] = news.Article{
			URL:      fmt.Sprintf("https://news.example.com/a/%d.html", i),
			Title:    fmt.Sprintf("Article number %d", i),
			PostTime: now.Add(-time.Duration(i+1) * time.Minute),
			Source:   "example",
			Summary:  fmt.Sprintf("Summary of article %d.", i),
			Comments: int64(i % 7),
			Groups:   groups,
		}
	}
	res, err := e.store.IngestBatch(context.Background(), as)
	if err != nil {
		e.t.Fatal(err)
	}
	ids := make([]string, n)
	for i, r := range res {
		if r.Err != nil {
			e.t.Fatalf("ingest %d: %v", i, r.Err)
		}
		ids[i] = r.ID
	}
	return ids
}

// response is a reply read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("reply is not JSON (%v): %s", err, r.body)
	}
}

// errorOf decodes a JSON error reply.
func (r response) errorOf(t testing.TB) errorBody {
	t.Helper()
	var eb errorBody
	r.json(t, &eb)
	if eb.Code == "" || eb.Error == "" {
		t.Fatalf("error reply lacks code or message: %s", r.body)
	}
	return eb
}

// do sends a request; token "" sends no Authorization header.
func (e *testEnv) do(method, path, token, body string, hdr ...string) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.ts.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if http.CanonicalHeaderKey(hdr[i]) == "Host" { // net/http sends req.Host, not a Host header
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// get is do("GET", ...) expecting 200, decoded into v.
func (e *testEnv) get(path string, v any) {
	e.t.Helper()
	r := e.do("GET", path, "", "")
	if r.status != http.StatusOK {
		e.t.Fatalf("GET %s = %d: %s", path, r.status, r.body)
	}
	if v != nil {
		r.json(e.t, v)
	}
}

// between returns the part of s from the first from up to the next to.
func between(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	if i < 0 {
		t.Fatalf("no %s in the page", from)
	}
	part, _, _ := strings.Cut(s[i:], to)
	return part
}

// browser is an HTTP client with a cookie jar that does not follow
// redirects, as a browser without JavaScript would be seen by the server.
type browser struct {
	t *testing.T
	e *testEnv
	c *http.Client
}

func newBrowser(t *testing.T, e *testEnv) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// send sends one request with the jar's cookies and keeps the cookies of
// the reply. It goes through the transport, not the client, so that a
// Location header is returned as sent, even one a client would not parse.
func (b *browser) send(req *http.Request) (int, http.Header, string) {
	b.t.Helper()
	for _, c := range b.c.Jar.Cookies(req.URL) {
		req.AddCookie(c)
	}
	res, err := b.e.ts.Client().Transport.RoundTrip(req)
	if err != nil {
		b.t.Fatal(err)
	}
	b.c.Jar.SetCookies(req.URL, res.Cookies())
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(body)
}

func (b *browser) get(path string) (int, string) {
	b.t.Helper()
	req, _ := http.NewRequest("GET", b.e.ts.URL+path, nil)
	code, _, body := b.send(req)
	return code, body
}

func (b *browser) postForm(path string, form url.Values, hdr ...string) (int, http.Header, string) {
	b.t.Helper()
	req, _ := http.NewRequest("POST", b.e.ts.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return b.send(req)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf finds the form token in a page.
func csrf(t *testing.T, page string) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token in the page")
	}
	return html.UnescapeString(m[1])
}

// newVoter starts a server with one article and a visitor who has loaded
// the home page: the visitor's browser, the article and an up-vote form for
// it that returns to "/".
func newVoter(t *testing.T) (e *testEnv, b *browser, id string, form url.Values) {
	t.Helper()
	e = newEnv(t)
	id = e.seed(1)[0]
	b = newBrowser(t, e)
	_, page := b.get("/")
	return e, b, id, url.Values{"csrf": {csrf(t, page)}, "dir": {"up"}, "return": {"/"}}
}

func (e *testEnv) votes(id string) float64 {
	e.t.Helper()
	var it itemJSON
	e.get("/api/news/"+id, &it)
	return it.Votes
}
