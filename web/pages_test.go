package web

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/rdb"
)

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

func TestHomePage(t *testing.T) {
	e := newEnv(t)
	ids := e.seed(30, "world")
	b := newBrowser(t, e)
	code, body := b.get("/")
	if code != http.StatusOK {
		t.Fatalf("GET / = %d: %s", code, body)
	}
	for _, want := range []string{
		"This week&#39;s hot", "Latest", "Article number 0", `action="/news/` + ids[0] + `/vote"`,
		`name="dir" value="up"`, `name="dir" value="down"`, "page 1 of 2", `href="/?page=2"`,
		`href="/?group=world"`, "news.example.com", "/static/style.css", "/static/app.js",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("home page lacks %s", want)
		}
	}
	u, _ := url.Parse(e.ts.URL)
	var uid *http.Cookie
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == uidCookie {
			uid = c
		}
	}
	if uid == nil {
		t.Fatal("no visitor cookie set")
	}
	if code, body = b.get("/?page=2&group=world"); code != 200 || !strings.Contains(body, "page 2 of 2") {
		t.Fatalf("page 2 = %d", code)
	}
	code, body = b.get("/latest")
	if i0, i1 := strings.Index(body, "Article number 0<"), strings.Index(body, "Article number 1<"); code != 200 || i0 < 0 || i1 < i0 {
		t.Fatalf("latest = %d; want the newest article first", code)
	}
	if code, body = b.get("/?page=-1"); code != http.StatusBadRequest || !strings.Contains(body, "page must be") {
		t.Fatalf("page=-1 = %d: %s", code, body)
	}
	if code, _ = b.get("/no/such/page"); code != http.StatusNotFound {
		t.Fatalf("unknown page = %d", code)
	}
	if code, body = b.get("/static/app.js"); code != 200 || !strings.Contains(body, "fetch(") {
		t.Fatalf("app.js = %d", code)
	}
}

func TestArticlePageCountsVisitOncePerDay(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	b := newBrowser(t, e)
	for range 3 {
		code, body := b.get("/news/" + id)
		if code != 200 || !strings.Contains(body, "Article number 0") || !strings.Contains(body, "Summary of article 0.") {
			t.Fatalf("article page = %d: %s", code, body)
		}
	}
	var bj boardJSON
	e.get("/api/boards/activity", &bj)
	if len(bj.Entries) != 1 || bj.Entries[0].Score != 1 || !strings.HasPrefix(bj.Entries[0].User, uidPrefix) {
		t.Fatalf("after 3 views the day board is %+v; want one visitor with 1 point", bj.Entries)
	}
	// A client without cookies is never on the board.
	for range 3 {
		e.do("GET", "/news/"+id, "", "")
	}
	e.get("/api/boards/activity", &bj)
	if len(bj.Entries) != 1 {
		t.Fatalf("cookie-less views reached the board: %+v", bj.Entries)
	}
	if code, _ := b.get("/news/0123456789abcdef"); code != http.StatusNotFound {
		t.Fatalf("unknown article page = %d", code)
	}
	if code, _ := b.get("/news/zz"); code != http.StatusBadRequest {
		t.Fatalf("bad article id page = %d", code)
	}
}

// TestVoteFormWithoutJavaScript: the form posts, the server redirects back,
// the count moved; the same button again cancels.
func TestVoteFormWithoutJavaScript(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	b := newBrowser(t, e)
	_, page := b.get("/?page=1")
	form := url.Values{"csrf": {csrf(t, page)}, "dir": {"up"}, "return": {"/?page=1"}}
	before := e.votes(id)

	code, hdr, body := b.postForm("/news/"+id+"/vote", form)
	if code != http.StatusSeeOther || hdr.Get("Location") != "/?page=1#a-"+id {
		t.Fatalf("vote form = %d Location %q: %s", code, hdr.Get("Location"), body)
	}
	if got := e.votes(id); got != before+1 {
		t.Fatalf("votes after up = %g, want %g", got, before+1)
	}
	var bj boardJSON
	e.get("/api/boards/activity", &bj)
	if len(bj.Entries) != 1 || bj.Entries[0].Score != 2 {
		t.Fatalf("the voter's like points: %+v", bj.Entries)
	}
	code, _, _ = b.postForm("/news/"+id+"/vote", form)
	if code != http.StatusSeeOther || e.votes(id) != before {
		t.Fatalf("second up = %d, votes %g; want the vote cancelled (%g)", code, e.votes(id), before)
	}

	// The page script's request: JSON back.
	form.Set("dir", "down")
	code, hdr, body = b.postForm("/news/"+id+"/vote", form, "Accept", "application/json")
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") || !strings.Contains(body, `"dir":"down"`) || !strings.Contains(body, `"votes_text":"`+votesText(before-1)+`"`) {
		t.Fatalf("JSON vote = %d %s", code, body)
	}

	// An off-site return address is not followed.
	form.Set("return", "//evil.example.com/")
	form.Set("dir", "none")
	if _, hdr, _ = b.postForm("/news/"+id+"/vote", form); hdr.Get("Location") != "/#a-"+id {
		t.Fatalf("off-site return gave Location %q", hdr.Get("Location"))
	}
}

// voteMarks returns, for each vote form of article id in a page, which
// button is marked as the visitor's vote: "up", "down" or "".
func voteMarks(t *testing.T, page, id string) []string {
	t.Helper()
	var out []string
	for rest := page; ; {
		i := strings.Index(rest, `action="/news/`+id+`/vote"`)
		if i < 0 {
			break
		}
		rest = rest[i:]
		form, _, _ := strings.Cut(rest, "</form>")
		mark := ""
		if strings.Contains(form, `class="up on"`) {
			mark = "up"
		}
		if strings.Contains(form, `class="down on"`) {
			mark += "down"
		}
		out = append(out, mark)
		rest = rest[len(form):]
	}
	if len(out) == 0 {
		t.Fatalf("no vote form for %s in the page", id)
	}
	return out
}

// TestVoteShownAfterReload: a visitor who voted sees their vote marked on
// the buttons when the page loads again (hot list, latest, article page);
// another visitor sees no mark.
func TestVoteShownAfterReload(t *testing.T) {
	e := newEnv(t)
	ids := e.seed(3)
	b := newBrowser(t, e)
	_, page := b.get("/")
	form := url.Values{"csrf": {csrf(t, page)}, "return": {"/"}}
	for _, v := range []struct{ id, dir string }{{ids[0], "up"}, {ids[1], "down"}} {
		form.Set("dir", v.dir)
		if code, _, body := b.postForm("/news/"+v.id+"/vote", form); code != http.StatusSeeOther {
			t.Fatalf("vote %s on %s = %d: %s", v.dir, v.id, code, body)
		}
	}
	want := map[string]string{ids[0]: "up", ids[1]: "down", ids[2]: ""}
	for _, path := range []string{"/", "/latest"} {
		code, page := b.get(path)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, code)
		}
		for id, w := range want {
			for _, got := range voteMarks(t, page, id) {
				if got != w {
					t.Errorf("%s after reload: article %s marked %q, want %q", path, id, got, w)
				}
			}
		}
	}
	for id, w := range want {
		_, page := b.get("/news/" + id)
		if got := voteMarks(t, page, id); len(got) != 1 || got[0] != w {
			t.Errorf("article page %s: marked %q, want %q", id, got, w)
		}
	}
	// Another visitor (and a first visit without the cookie) sees no mark.
	_, other := newBrowser(t, e).get("/")
	for _, id := range ids {
		for _, got := range voteMarks(t, other, id) {
			if got != "" {
				t.Errorf("another visitor sees %s marked %q", id, got)
			}
		}
	}
	// Taking the vote back removes the mark.
	form.Set("dir", "up")
	b.postForm("/news/"+ids[0]+"/vote", form)
	if _, page := b.get("/"); voteMarks(t, page, ids[0])[0] != "" {
		t.Errorf("after cancelling, %s is still marked", ids[0])
	}
}

func TestVoteFormRefusesForgeries(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	before := e.votes(id)
	b := newBrowser(t, e)
	_, page := b.get("/")
	token := csrf(t, page)

	// Another visitor's token.
	other := newBrowser(t, e)
	_, otherPage := other.get("/")
	cases := []struct {
		name string
		b    *browser
		form url.Values
		code int
	}{
		{"no cookie", newBrowser(t, e), url.Values{"csrf": {token}, "dir": {"up"}}, http.StatusForbidden},
		{"no token", b, url.Values{"dir": {"up"}}, http.StatusForbidden},
		{"wrong token", b, url.Values{"csrf": {"x" + token}, "dir": {"up"}}, http.StatusForbidden},
		{"someone else's token", b, url.Values{"csrf": {csrf(t, otherPage)}, "dir": {"up"}}, http.StatusForbidden},
		{"bad dir", b, url.Values{"csrf": {token}, "dir": {"sideways"}}, http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := tc.b.postForm("/news/"+id+"/vote", tc.form)
			if code != tc.code {
				t.Fatalf("= %d, want %d: %s", code, tc.code, body)
			}
			code, _, body = tc.b.postForm("/news/"+id+"/vote", tc.form, "Accept", "application/json")
			if code != tc.code || !strings.Contains(body, `"code":`) {
				t.Fatalf("JSON = %d %s", code, body)
			}
		})
	}
	// A tampered cookie is a new visitor, not the one it names.
	u, _ := url.Parse(e.ts.URL)
	jar := b.c.Jar
	cs := jar.Cookies(u)
	for _, c := range cs {
		if c.Name == uidCookie {
			c.Value = strings.Replace(c.Value, "web-", "web-0", 1)[:len(c.Value)]
			jar.SetCookies(u, []*http.Cookie{{Name: c.Name, Value: c.Value, Path: "/"}})
		}
	}
	if code, _, _ := b.postForm("/news/"+id+"/vote", url.Values{"csrf": {token}, "dir": {"up"}}); code != http.StatusForbidden {
		t.Fatalf("tampered cookie = %d, want 403", code)
	}
	if got := e.votes(id); got != before {
		t.Fatalf("forged votes counted: %g, want %g", got, before)
	}
}

func TestBoardsAndOpsPages(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.seed(1)[0]
	b := newBrowser(t, e)
	b.get("/")           // the visitor gets the cookie
	b.get("/news/" + id) // a visit: 1 point for this visitor
	if _, err := e.inv.Register(ctx, "new1", "ivy"); err != nil {
		t.Fatal(err)
	}
	code, body := b.get("/boards")
	if code != 200 || !strings.Contains(body, `class="me"`) || !strings.Contains(body, "ivy") || !strings.Contains(body, "You (web-") {
		t.Fatalf("boards page = %d:\n%s", code, body)
	}
	if code, body = b.get("/boards?period=month&date=2025-05"); code != 200 || !strings.Contains(body, "2025-05") || !strings.Contains(body, "Nobody has earned points") {
		t.Fatalf("boards May = %d", code)
	}
	if code, _ = b.get("/boards?period=year"); code != http.StatusBadRequest {
		t.Fatalf("boards period=year = %d", code)
	}

	e.do("POST", "/api/jobs/quick/run", adminToken, "")
	if _, err := e.queue.Push(ctx, "https://news.example.com/q/1"); err != nil {
		t.Fatal(err)
	}
	code, body = b.get("/ops")
	if code != 200 {
		t.Fatalf("ops = %d: %s", code, body)
	}
	for _, want := range []string{"quick", "returns at once", "status-ok", "api", "demo", "broken", "never"} {
		if !strings.Contains(body, want) {
			t.Errorf("ops page lacks %q", want)
		}
	}
}

// TestEmbeddedRedis runs the core flow on the embedded miniredis the demo
// uses: list, post, vote from the API and from the page, boards, pages.
func TestEmbeddedRedis(t *testing.T) {
	cfg := defaultEnvConfig()
	cfg.web.Tokens = []string{writerToken}
	cfg.web.AdminTokens = []string{adminToken}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := rdb.Open(context.Background(), cfg.redis, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if !c.Embedded() {
		t.Fatal("rdb.DefaultOptions is not the embedded Redis")
	}
	e := buildEnv(t, c, cfg, log)
	ids := e.seed(30, "world")

	var p pageJSON
	e.get("/api/news?page=2", &p)
	if len(p.Items) != 5 || p.Total != 30 {
		t.Fatalf("page 2 on miniredis: %d items of %d", len(p.Items), p.Total)
	}
	r := e.do("POST", "/api/news/"+ids[3]+"/vote", writerToken, `{"user":"u1","dir":"up"}`)
	if r.status != 200 {
		t.Fatalf("vote on miniredis = %d %s", r.status, r.body)
	}
	r = e.do("POST", "/api/news", writerToken, `{"user":"u1","title":"Posted","url":"https://example.org/p"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("post on miniredis = %d %s", r.status, r.body)
	}
	var u userRankJSON
	e.get("/api/boards/activity/users/u1", &u)
	if u.Score != 12 {
		t.Fatalf("u1 on miniredis = %+v, want 12 points (like + publish)", u)
	}
	b := newBrowser(t, e)
	_, page := b.get("/?group=world")
	code, _, body := b.postForm("/news/"+ids[0]+"/vote", url.Values{"csrf": {csrf(t, page)}, "dir": {"up"}}, "Accept", "application/json")
	if code != 200 {
		t.Fatalf("page vote on miniredis = %d %s", code, body)
	}
	e.clock.Advance(time.Minute)
	for _, path := range []string{"/", "/latest", "/news/" + ids[0], "/boards", "/ops", "/api/groups/world/news"} {
		if code, body := b.get(path); code != 200 {
			t.Fatalf("GET %s on miniredis = %d: %s", path, code, body)
		}
	}
}

func TestOpsPageShowsRunningJob(t *testing.T) {
	e := newEnv(t, func(c *envConfig) { c.web.RequestTimeout = 300 * time.Millisecond })
	if r := e.do("POST", "/api/jobs/slow/run", adminToken, ""); r.status != http.StatusAccepted {
		t.Fatalf("run slow = %d %s", r.status, r.body)
	}
	b := newBrowser(t, e)
	code, body := b.get("/ops")
	if code != 200 || !strings.Contains(body, "running on ") {
		t.Fatalf("ops page while slow runs = %d, lacks \"running on\":\n%s", code, body)
	}
	close(e.release)
	proctest.WaitFor(t, 20*time.Second, "slow to finish", func() bool {
		_, body := b.get("/ops")
		return !strings.Contains(body, "running on ")
	})
}
