package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
)

// TestClassifyKeepsStatuses walks every error the web mapped to a status
// before the domain packages classified their own errors, and asserts the
// status, code and message it had then, bare and wrapped.
func TestClassifyKeepsStatuses(t *testing.T) {
	cases := []struct {
		err    error
		status int
		code   string
	}{
		{news.ErrNotFound, http.StatusNotFound, CodeNotFound},
		{news.ErrVotingClosed, http.StatusConflict, CodeVotingClosed},
		{news.ErrDuplicate, http.StatusConflict, CodeDuplicate},
		{news.ErrBadInput, http.StatusBadRequest, CodeInvalid},
		{canonurl.ErrBadURL, http.StatusBadRequest, CodeInvalid},

		{board.ErrAlreadyRegistered, http.StatusConflict, CodeAlreadyRegistered},
		{board.ErrOverflow, http.StatusInternalServerError, CodeOverflow},
		{board.ErrUnknownAction, http.StatusBadRequest, CodeInvalid},
		{board.ErrEmptyUser, http.StatusBadRequest, CodeInvalid},
		{board.ErrBadUser, http.StatusBadRequest, CodeInvalid},
		{board.ErrBadTarget, http.StatusBadRequest, CodeInvalid},
		{board.ErrNotRevocable, http.StatusBadRequest, CodeInvalid},
		{board.ErrBadVersion, http.StatusBadRequest, CodeInvalid},
		{board.ErrEventTime, http.StatusBadRequest, CodeInvalid},
		{board.ErrBadPeriod, http.StatusBadRequest, CodeInvalid},
		{board.ErrBadDate, http.StatusBadRequest, CodeInvalid},
		{board.ErrBadLimit, http.StatusBadRequest, CodeInvalid},
		{board.ErrSelfInvite, http.StatusBadRequest, CodeInvalid},

		{jobs.ErrUnknownJob, http.StatusNotFound, CodeNotFound},
		{jobs.ErrLocked, http.StatusConflict, CodeJobRunning},
	}
	for _, c := range cases {
		for _, err := range []error{c.err, fmt.Errorf("ctx: %w", c.err), fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", c.err))} {
			e := classify(err)
			if e.Status != c.status || e.Code != c.code || e.Message != err.Error() {
				t.Errorf("classify(%q) = %d %s %q, want %d %s %q", err, e.Status, e.Code, e.Message, c.status, c.code, err.Error())
			}
		}
	}
	// A sentinel wins over the Redis error it wraps.
	err := fmt.Errorf("%w: %w", news.ErrNotFound, context.DeadlineExceeded)
	if e := classify(err); e.Status != http.StatusNotFound {
		t.Errorf("classify(%q) = %d, want 404", err, e.Status)
	}
}

func TestClassifyUnavailableAndInternal(t *testing.T) {
	for _, err := range []error{
		context.DeadlineExceeded, redis.ErrClosed, redis.ErrPoolTimeout,
		fmt.Errorf("read: %w", syscall.ECONNREFUSED), fmt.Errorf("x: %w", syscall.EPIPE),
	} {
		e := classify(err)
		if e.Status != http.StatusServiceUnavailable || e.Code != CodeUnavailable || e.Message != "storage unavailable, try again later" {
			t.Errorf("classify(%q) = %d %s %q, want 503", err, e.Status, e.Code, e.Message)
		}
	}
	e := classify(errors.New("boom"))
	if e.Status != http.StatusInternalServerError || e.Code != CodeInternal || e.Message != "internal error" {
		t.Errorf("classify(boom) = %d %s %q, want 500 internal", e.Status, e.Code, e.Message)
	}
	mbe := &http.MaxBytesError{Limit: 10}
	if e := classify(fmt.Errorf("decode: %w", mbe)); e.Status != http.StatusRequestEntityTooLarge || e.Code != CodeTooLarge {
		t.Errorf("classify(max bytes) = %d %s", e.Status, e.Code)
	}
	own := invalidf("page %d", 0)
	if e := classify(fmt.Errorf("x: %w", own)); e != own {
		t.Errorf("classify(*Error) = %+v, want it as is", e)
	}
}

// TestBadRequests sends requests a client gets wrong and checks the status
// and the error code of each, and that nothing changed.
func TestBadRequests(t *testing.T) {
	e := newEnv(t)
	ids := e.seed(2)
	id := ids[0]
	// An article posted 8 days ago is closed to votes (window 7 days).
	e.clock.Advance(-8 * 24 * time.Hour)
	closed := e.do("POST", "/api/news", writerToken, `{"user":"old","title":"Old news","url":"https://old.example.com/1"}`)
	e.clock.Advance(8 * 24 * time.Hour)
	var closedItem itemJSON
	closed.json(t, &closedItem)
	if _, err := e.inv.Register(context.Background(), "inv1", "ida"); err != nil {
		t.Fatal(err)
	}

	big := `{"user":"u","dir":"up","pad":"` + strings.Repeat("x", 5000) + `"}`
	vote := "/api/news/" + id + "/vote"
	cases := []struct {
		name, method, path, token, body string
		hdr                             []string
		status                          int
		code                            string
	}{
		{"bad JSON", "POST", vote, writerToken, `{"user": "u", "dir": `, nil, 400, CodeBadJSON},
		{"not JSON", "POST", vote, writerToken, `user=u&dir=up`, nil, 400, CodeBadJSON},
		{"unknown field", "POST", vote, writerToken, `{"user":"u","dir":"up","weight":10}`, nil, 400, CodeUnknownField},
		{"trailing data", "POST", vote, writerToken, `{"user":"u","dir":"up"} {"user":"v"}`, nil, 400, CodeBadJSON},
		{"array body", "POST", vote, writerToken, `[{"user":"u","dir":"up"}]`, nil, 400, CodeBadJSON},
		{"empty body", "POST", vote, writerToken, ``, nil, 400, CodeBadJSON},
		{"wrong field type", "POST", vote, writerToken, `{"user":42,"dir":"up"}`, nil, 400, CodeInvalid},
		{"missing user", "POST", vote, writerToken, `{"dir":"up"}`, nil, 400, CodeInvalid},
		{"bad dir", "POST", vote, writerToken, `{"user":"u","dir":"sideways"}`, nil, 400, CodeInvalid},
		{"missing dir", "POST", vote, writerToken, `{"user":"u"}`, nil, 400, CodeInvalid},
		{"oversized body", "POST", vote, writerToken, big, nil, 413, CodeTooLarge},
		{"wrong content type", "POST", vote, writerToken, `{"user":"u","dir":"up"}`, []string{"Content-Type", "text/plain"}, 415, CodeUnsupportedMedia},
		{"bad id in vote", "POST", "/api/news/12345/vote", writerToken, `{"user":"u","dir":"up"}`, nil, 400, CodeInvalid},
		{"bad id", "GET", "/api/news/NOT-AN-ID", "", "", nil, 400, CodeInvalid},
		{"unknown id", "GET", "/api/news/0123456789abcdef", "", "", nil, 404, CodeNotFound},
		{"vote on unknown id", "POST", "/api/news/0123456789abcdef/vote", writerToken, `{"user":"u","dir":"up"}`, nil, 404, CodeNotFound},
		{"missing token", "POST", vote, "", `{"user":"u","dir":"up"}`, nil, 401, CodeUnauthorized},
		{"wrong token", "POST", vote, "not-the-token-123", `{"user":"u","dir":"up"}`, nil, 401, CodeUnauthorized},
		{"basic auth", "POST", vote, "", `{"user":"u","dir":"up"}`, []string{"Authorization", "Basic dXNlcjpwYXNz"}, 401, CodeUnauthorized},
		{"writer token runs a job", "POST", "/api/jobs/quick/run", writerToken, "", nil, 403, CodeForbidden},
		{"no token runs a job", "POST", "/api/jobs/quick/run", "", "", nil, 401, CodeUnauthorized},
		{"unknown job", "POST", "/api/jobs/nope/run", adminToken, "", nil, 404, CodeNotFound},
		{"voting closed", "POST", "/api/news/" + closedItem.ID + "/vote", writerToken, `{"user":"u","dir":"up"}`, nil, 409, CodeVotingClosed},
		{"page=-1", "GET", "/api/news?page=-1", "", "", nil, 400, CodeInvalid},
		{"page=0", "GET", "/api/news?page=0", "", "", nil, 400, CodeInvalid},
		{"page not a number", "GET", "/api/news?page=two", "", "", nil, 400, CodeInvalid},
		{"huge size", "GET", "/api/news?size=1000000", "", "", nil, 400, CodeInvalid},
		{"huge page", "GET", "/api/news?page=99999999999999999999", "", "", nil, 400, CodeInvalid},
		{"bad order", "GET", "/api/news?order=random", "", "", nil, 400, CodeInvalid},
		{"unknown parameter", "GET", "/api/news?pgae=2", "", "", nil, 400, CodeInvalid},
		{"repeated parameter", "GET", "/api/news?page=1&page=2", "", "", nil, 400, CodeInvalid},
		{"wrong method", "DELETE", "/api/news", writerToken, "", nil, 405, CodeMethodNotAllowed},
		{"GET on vote", "GET", vote, "", "", nil, 405, CodeMethodNotAllowed},
		{"no such endpoint", "GET", "/api/nothing", "", "", nil, 404, CodeNotFound},
		{"post without title", "POST", "/api/news", writerToken, `{"user":"u","url":"https://example.com/x"}`, nil, 400, CodeInvalid},
		{"post with ftp url", "POST", "/api/news", writerToken, `{"user":"u","title":"t","url":"ftp://example.com/x"}`, nil, 400, CodeInvalid},
		{"post with bad group", "POST", "/api/news", writerToken, `{"user":"u","title":"t","url":"https://example.com/y","groups":["no spaces"]}`, nil, 400, CodeInvalid},
		{"bad group name", "GET", "/api/groups/a%20b/news", "", "", nil, 400, CodeInvalid},
		{"group add unknown article", "PUT", "/api/groups/tech/news/0123456789abcdef", writerToken, "", nil, 404, CodeNotFound},
		{"activity unknown action", "POST", "/api/activity", writerToken, `{"user":"u","action":"dance","target":"x"}`, nil, 400, CodeInvalid},
		{"activity undo publish", "POST", "/api/activity", writerToken, `{"user":"u","action":"publish","target":"x","undo":true}`, nil, 400, CodeInvalid},
		{"activity bad time", "POST", "/api/activity", writerToken, `{"user":"u","action":"like","target":"x","at":"yesterday"}`, nil, 400, CodeInvalid},
		{"activity from the future", "POST", "/api/activity", writerToken, `{"user":"u","action":"like","target":"x","at":"2030-01-01T00:00:00Z"}`, nil, 400, CodeInvalid},
		{"board bad period", "GET", "/api/boards/activity?period=week", "", "", nil, 400, CodeInvalid},
		{"board bad date", "GET", "/api/boards/activity?period=day&date=2025-13-45", "", "", nil, 400, CodeInvalid},
		{"board n=0", "GET", "/api/boards/activity?n=0", "", "", nil, 400, CodeInvalid},
		{"board huge n", "GET", "/api/boards/invites?n=100000", "", "", nil, 400, CodeInvalid},
		{"self invite", "POST", "/api/invites", writerToken, `{"invitee":"kim","inviter":"kim"}`, nil, 400, CodeInvalid},
		{"invitee registered twice", "POST", "/api/invites", writerToken, `{"invitee":"inv1","inviter":"lee"}`, nil, 409, CodeAlreadyRegistered},
		{"invite without inviter", "POST", "/api/invites", writerToken, `{"invitee":"x"}`, nil, 400, CodeInvalid},
	}
	before := e.snapshot()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.method, tc.path, tc.token, tc.body, tc.hdr...)
			if r.status != tc.status {
				t.Fatalf("%s %s = %d, want %d: %s", tc.method, tc.path, r.status, tc.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("Content-Type = %q, want JSON", ct)
			}
			eb := r.errorOf(t)
			if eb.Code != tc.code {
				t.Fatalf("code = %q, want %q (message %q)", eb.Code, tc.code, eb.Error)
			}
			switch tc.status {
			case 401:
				if r.header.Get("WWW-Authenticate") == "" {
					t.Fatal("401 without WWW-Authenticate")
				}
			case 405:
				if r.header.Get("Allow") == "" {
					t.Fatal("405 without Allow")
				}
			}
		})
	}
	if after := e.snapshot(); after != before {
		t.Fatalf("bad requests changed the data:\nbefore %s\nafter  %s", before, after)
	}
}

// snapshot summarises what bad requests must not change: every ranking and
// board, as text.
func (e *testEnv) snapshot() string {
	e.t.Helper()
	var b strings.Builder
	var p pageJSON
	e.get("/api/news?size=100", &p)
	for _, it := range p.Items {
		b.WriteString(it.ID + ":" + votesText(it.Votes) + " ")
	}
	var bj boardJSON
	e.get("/api/boards/activity?period=month", &bj)
	for _, en := range bj.Entries {
		b.WriteString(en.User + "=" + votesText(float64(en.Score)) + " ")
	}
	e.get("/api/boards/invites", &bj)
	for _, en := range bj.Entries {
		b.WriteString(en.User + "=" + votesText(float64(en.Score)) + " ")
	}
	var gs map[string]any
	e.get("/api/groups", &gs)
	b.WriteString(strings.TrimSpace(strings.ReplaceAll(string(e.do("GET", "/api/groups", "", "").body), "\n", "")))
	return b.String()
}

// TestRedisDown: with the redis-server stopped, API calls and /readyz
// answer 503 within the request timeout, /healthz still 200; once Redis is
// back the same calls succeed.
func TestRedisDown(t *testing.T) {
	e := newEnvOn(t, redistest.Start(t, redistest.Options{AppendOnly: true}),
		func(c *envConfig) { c.web.RequestTimeout = time.Second })
	id := e.seed(1)[0]
	e.redis.Stop()

	for _, c := range []struct{ method, path, token, body string }{
		{"GET", "/api/news", "", ""},
		{"GET", "/api/news/" + id, "", ""},
		{"POST", "/api/news/" + id + "/vote", writerToken, `{"user":"u","dir":"up"}`},
		{"GET", "/api/boards/activity", "", ""},
		{"GET", "/api/jobs", "", ""},
		{"GET", "/api/queue", "", ""},
		{"GET", "/readyz", "", ""},
	} {
		start := time.Now()
		r := e.do(c.method, c.path, c.token, c.body)
		took := time.Since(start)
		if r.status != http.StatusServiceUnavailable || r.errorOf(t).Code != CodeUnavailable {
			t.Fatalf("%s %s with Redis down = %d %s; want 503 unavailable", c.method, c.path, r.status, r.body)
		}
		if r.header.Get("Retry-After") == "" {
			t.Errorf("%s: 503 without Retry-After", c.path)
		}
		// Not a timing assertion on speed, only that it is not a hang:
		// the request timeout is 1 s.
		if took > 15*time.Second {
			t.Fatalf("%s %s took %s with Redis down", c.method, c.path, took)
		}
	}
	r := e.do("GET", "/", "", "")
	if r.status != http.StatusServiceUnavailable || !strings.Contains(string(r.body), "unavailable") {
		t.Fatalf("home page with Redis down = %d", r.status)
	}
	var h map[string]string
	e.get("/healthz", &h)
	m := e.do("GET", "/metrics", "", "")
	if m.status != http.StatusOK || !strings.Contains(string(m.body), "newsrank_redis_up 0") {
		t.Fatalf("/metrics with Redis down = %d, want 200 with newsrank_redis_up 0", m.status)
	}

	e.redis.Start()
	proctest.WaitFor(t, 20*time.Second, "readyz after Redis is back", func() bool { return e.do("GET", "/readyz", "", "").status == http.StatusOK })
	r = e.do("POST", "/api/news/"+id+"/vote", writerToken, `{"user":"u","dir":"up"}`)
	if r.status != http.StatusOK {
		t.Fatalf("vote after Redis is back = %d %s", r.status, r.body)
	}
}

// TestRedisHangs: a Redis that accepts connections and never answers gets
// 503 after web.request_timeout, not a hung request.
func TestRedisHangs(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // read nothing, answer nothing
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	cfg := defaultEnvConfig()
	cfg.redis.URL = "redis://" + l.Addr().String() + "/0"
	cfg.web.Tokens = []string{writerToken}
	cfg.web.RequestTimeout = 300 * time.Millisecond
	c, err := rdb.New(cfg.redis, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	e := buildEnv(t, c, cfg, nil)
	for _, path := range []string{"/api/news", "/readyz", "/api/boards/invites"} {
		start := time.Now()
		r := e.do("GET", path, "", "")
		if r.status != http.StatusServiceUnavailable || r.errorOf(t).Code != CodeUnavailable {
			t.Fatalf("GET %s on a silent Redis = %d %s; want 503", path, r.status, r.body)
		}
		if took := time.Since(start); took > 15*time.Second {
			t.Fatalf("GET %s took %s", path, took)
		}
	}
}
