package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/rdb"
)

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

// TestPagesShowPointsAndComments: the number beside an article is its
// points (up-votes minus down-votes), with crawled comments shown apart
// and no raw score anywhere.
func TestPagesShowPointsAndComments(t *testing.T) {
	e := newEnv(t)
	ids := e.seed(5) // article 3 has 3 comments
	id := ids[3]
	for _, v := range []struct{ user, dir string }{{"a", "up"}, {"b", "up"}, {"c", "up"}, {"d", "down"}} {
		if r := e.do("POST", "/api/news/"+id+"/vote", writerToken, `{"user":"`+v.user+`","dir":"`+v.dir+`"}`); r.status != 200 {
			t.Fatalf("vote = %d %s", r.status, r.body)
		}
	}
	b := newBrowser(t, e)
	_, page := b.get("/")
	item := between(t, page, `id="a-`+id+`"`, "</li>")
	for _, want := range []string{`<b class="count">2</b>`, `<small class="unit">points</small>`, `3 comments`} {
		if !strings.Contains(item, want) {
			t.Errorf("home page item lacks %s:\n%s", want, item)
		}
	}
	_, article := b.get("/news/" + id)
	for _, want := range []string{`<b class="count">2</b>`, "2 points (3 up, 1 down)", "3 comments"} {
		if !strings.Contains(article, want) {
			t.Errorf("article page lacks %s", want)
		}
	}
	for name, body := range map[string]string{"home": page, "article": article} {
		if strings.Contains(strings.ToLower(body), "score") || strings.Contains(body, `title="votes"`) {
			t.Errorf("%s page shows a score or \"votes\"", name)
		}
	}
	// A vote moves the points by one; the reply carries up and down for
	// the page script.
	_, page = b.get("/")
	code, _, body := b.postForm("/news/"+id+"/vote", url.Values{"csrf": {csrf(t, page)}, "dir": {"up"}}, "Accept", "application/json")
	if code != 200 || !strings.Contains(body, `"up":4`) || !strings.Contains(body, `"down":1`) {
		t.Fatalf("vote reply = %d %s", code, body)
	}
	if _, page = b.get("/"); !strings.Contains(between(t, page, `id="a-`+id+`"`, "</li>"), `<b class="count">3</b>`) {
		t.Errorf("after an up-vote the item does not show 3 points")
	}
}

// TestSectionLabels: the group filter, the list heading and the items
// show a section's label (国内), not its config name.
func TestSectionLabels(t *testing.T) {
	e := newEnv(t, withSources(guoneiSource))
	e.seed(2, "world")
	e.ingest("guonei", 0, "国务院常务会议部署进一步扩大内需")
	b := newBrowser(t, e)
	_, page := b.get("/")
	nav := between(t, page, `class="groups"`, "</nav>")
	if !regexp.MustCompile(`href="/\?group=guonei"[^>]*>国内 <small>1</small>`).MatchString(nav) {
		t.Errorf("the group filter does not show 国内 for guonei:\n%s", nav)
	}
	if !strings.Contains(nav, `>world <small>2</small>`) {
		t.Errorf("a group without a label does not show its name:\n%s", nav)
	}
	_, page = b.get("/?group=guonei")
	if !strings.Contains(page, "<small>in 国内</small>") || !strings.Contains(page, `<span class="source">国内</span>`) {
		t.Errorf("the guonei list does not name 国内 in its heading and items")
	}
	if strings.Contains(between(t, page, "<main>", "</main>"), ">guonei<") {
		t.Errorf("the guonei list shows the config name guonei")
	}
}

// TestPastTheEnd: a page number past the last page says so and links to
// the last page, instead of "page 99 of 2".
func TestPastTheEnd(t *testing.T) {
	e := newEnv(t)
	e.seed(30, "world")
	b := newBrowser(t, e)
	for _, path := range []string{"/?page=99", "/latest?page=3", "/?group=world&page=7"} {
		code, page := b.get(path)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, code)
		}
		if !strings.Contains(page, "is past the end: there are only 2 pages.") || regexp.MustCompile(`page \d+ of`).MatchString(page) {
			t.Errorf("GET %s does not say it is past the end:\n%s", path, between(t, page, "<main>", "</main>"))
		}
		if !strings.Contains(page, "page=2\">Go to the last page (2)") {
			t.Errorf("GET %s has no link to the last page", path)
		}
	}
	if _, page := b.get("/?page=2"); !strings.Contains(page, "page 2 of 2") {
		t.Errorf("the last page lost its pager")
	}
}

// TestFavicon: the pages name an icon and /favicon.ico serves it.
func TestFavicon(t *testing.T) {
	e := newEnv(t)
	_, page := newBrowser(t, e).get("/")
	if !strings.Contains(page, `<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">`) {
		t.Errorf("the layout names no icon")
	}
	for _, path := range []string{"/favicon.ico", "/static/favicon.svg"} {
		r := e.do("GET", path, "", "")
		if r.status != 200 || r.header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(string(r.body), "<svg") {
			t.Errorf("GET %s = %d %q", path, r.status, r.header.Get("Content-Type"))
		}
	}
}

// TestArticlePageCountsAVisit: opening an article page is a visit of that
// page for a returning visitor (with the cookie), once a day; a client
// without the cookie earns nothing and puts nobody on the board.
func TestArticlePageCountsAVisit(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	b := newBrowser(t, e)
	for range 3 {
		if code, _ := b.get("/news/" + id); code != http.StatusOK {
			t.Fatalf("article page = %d", code)
		}
	}
	if r := e.do("GET", "/news/"+id, "", ""); r.status != http.StatusOK {
		t.Fatalf("article page without the cookie = %d", r.status)
	}
	var bj boardJSON
	e.get("/api/boards/activity", &bj)
	if len(bj.Entries) != 1 || bj.Entries[0].Score != 1 {
		t.Fatalf("board after 3 views with the cookie and 1 without: %+v, want the visitor with 1 point", bj.Entries)
	}
}
