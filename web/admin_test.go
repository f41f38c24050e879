package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/queue"
)

// opsAdmin is a browser on /ops and what it acts on.
type opsAdmin struct {
	*browser
	t *testing.T
}

// post sends an /ops form with a fresh CSRF token from /ops, plus fields.
func (a opsAdmin) post(path string, fields url.Values, hdr ...string) (int, http.Header, string) {
	a.t.Helper()
	_, page := a.get("/ops")
	form := url.Values{"csrf": {csrf(a.t, page)}}
	for k, v := range fields {
		form[k] = v
	}
	return a.postForm(path, form, hdr...)
}

// TestOpsAdmin: the buttons of /ops need an admin session (a signed,
// expiring, HttpOnly cookie from signing in with an admin token), a CSRF
// token and a same-origin request; with them, run now, requeue and purge
// work through the jobs manager and the queue.
func TestOpsAdmin(t *testing.T) {
	e := newEnv(t, withSources(guoneiSource))
	guonei := e.queues["guonei"]
	dead := "https://news.example.cn/guonei/404.html"
	e.kill(guonei, dead, "http_404", "GET "+dead+": 404 Not Found")
	a := opsAdmin{newBrowser(t, e), t}

	_, page := a.get("/ops")
	for _, want := range []string{dead, "http_404", "404 Not Found", "国内", `action="/ops/login"`, "Times are in"} {
		if !strings.Contains(page, want) {
			t.Errorf("read-only /ops lacks %q", want)
		}
	}
	for _, not := range []string{"Run now", "/ops/queues/", "/ops/jobs/"} {
		if strings.Contains(page, not) {
			t.Errorf("read-only /ops shows %q", not)
		}
	}
	if code, body := a.get("/ops?refresh=0"); code != http.StatusBadRequest || !strings.Contains(body, "refresh must be between 1 and 3600") {
		t.Errorf("/ops?refresh=0 = %d", code)
	}
	if code, body := a.get("/ops?refresh=30&from=mail"); code != http.StatusOK || !strings.Contains(body, `data-refresh="30"`) {
		t.Errorf("/ops?refresh=30&from=mail = %d", code)
	}

	// Without a session every button is refused and changes nothing.
	for _, path := range []string{"/ops/jobs/quick/run", "/ops/queues/guonei/requeue", "/ops/queues/guonei/purge"} {
		code, _, body := a.post(path, url.Values{"confirm": {"yes"}})
		if code != http.StatusForbidden || !strings.Contains(body, "sign in") {
			t.Errorf("POST %s without a session = %d, want 403 saying to sign in", path, code)
		}
	}
	if runs, _ := e.jobs.History(context.Background(), "quick", 10); len(runs) != 0 || e.deadCount(guonei) != 1 {
		t.Fatalf("refused buttons acted: %d runs, %d dead", len(runs), e.deadCount(guonei))
	}

	// Signing in: only an admin token, only with the form token.
	for _, tc := range []struct {
		name, token string
		csrf        bool
	}{{"wrong token", "not-a-token-at-all", true}, {"writer token", writerToken, true}, {"no form token", adminToken, false}} {
		form := url.Values{"token": {tc.token}}
		var code int
		if tc.csrf {
			code, _, _ = a.post("/ops/login", form)
		} else {
			code, _, _ = a.postForm("/ops/login", form)
		}
		if code != http.StatusForbidden {
			t.Errorf("sign in with %s = %d, want 403", tc.name, code)
		}
	}
	code, hdr, body := a.post("/ops/login", url.Values{"token": {adminToken}})
	if code != http.StatusSeeOther || hdr.Get("Location") != "/ops" {
		t.Fatalf("sign in = %d %q: %s", code, hdr.Get("Location"), body)
	}
	var session *http.Cookie
	for _, c := range (&http.Response{Header: hdr}).Cookies() {
		if c.Name == adminCookie {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Path != "/ops" ||
		session.MaxAge != int(e.cfg.web.AdminSessionTTL/time.Second) || strings.Contains(session.Value, adminToken) {
		t.Fatalf("admin cookie = %+v; want HttpOnly, SameSite=Strict, Path=/ops, Max-Age of admin_session_ttl, no token inside", session)
	}
	_, page = a.get("/ops")
	for _, want := range []string{"Signed in as an admin for 8h.", "Signed in as an admin until", "Run now", `action="/ops/queues/guonei/requeue"`} {
		if !strings.Contains(page, want) {
			t.Errorf("/ops signed in lacks %q", want)
		}
	}
	if _, page = a.get("/ops"); strings.Contains(page, "Signed in as an admin for") {
		t.Errorf("the sign-in message shows twice")
	}

	// Run now goes through the jobs manager.
	if code, _, body := a.post("/ops/jobs/quick/run", nil); code != http.StatusSeeOther {
		t.Fatalf("run quick = %d %s", code, body)
	}
	if _, page = a.get("/ops"); !strings.Contains(page, "quick: ok after") {
		t.Errorf("/ops after run now lacks the result")
	}
	runs, err := e.jobs.History(context.Background(), "quick", 10)
	if err != nil || len(runs) != 1 || runs[0].Trigger != opsTrigger || runs[0].Status != jobs.StatusOK {
		t.Fatalf("quick runs = %+v, %v; want one ok run from the page", runs, err)
	}
	if code, _, _ := a.post("/ops/jobs/nope/run", nil); code != http.StatusNotFound {
		t.Errorf("run an unknown job = %d", code)
	}

	// Requeue one dead letter, then all of them.
	e.kill(guonei, "https://news.example.cn/guonei/500.html", "http_500", "GET: 500")
	if code, _, body := a.post("/ops/queues/guonei/requeue", url.Values{"url": {dead}}); code != http.StatusSeeOther {
		t.Fatalf("requeue one = %d %s", code, body)
	}
	if _, page = a.get("/ops"); !strings.Contains(page, "1 dead letter requeued from 国内 (guonei).") || e.deadCount(guonei) != 1 {
		t.Errorf("after requeueing one: %d dead; message missing", e.deadCount(guonei))
	}
	if code, _, _ := a.post("/ops/queues/guonei/requeue", nil); code != http.StatusSeeOther || e.deadCount(guonei) != 0 {
		t.Errorf("requeue all = %d, %d dead left", code, e.deadCount(guonei))
	}
	if st, _ := guonei.Stats(context.Background()); st.Pending != 2 {
		t.Errorf("requeued URLs pending = %d, want 2", st.Pending)
	}
	if code, _, _ := a.post("/ops/queues/nope/requeue", nil); code != http.StatusNotFound {
		t.Errorf("requeue an unknown queue = %d", code)
	}

	// Purge needs the box ticked.
	if code, _, body := a.post("/ops/queues/guonei/purge", nil); code != http.StatusBadRequest || !strings.Contains(body, "tick the box") {
		t.Errorf("purge unconfirmed = %d", code)
	}
	// The purge forgets the source's list pages too (else, with the done
	// memory gone, lists answered 304 would push nothing) and only its.
	lists := func(source string) string { return e.rdb.Prefix + "{crawl:" + source + "}:lists" }
	for _, src := range []string{"guonei", "guoji"} {
		e.rdb.HSet(context.Background(), lists(src), "https://news.example.cn/"+src+"/", `{"e":"\"v1\"","t":1}`)
	}
	if code, _, _ := a.post("/ops/queues/guonei/purge", url.Values{"confirm": {"yes"}}); code != http.StatusSeeOther {
		t.Errorf("purge = %d", code)
	}
	if st, _ := guonei.Stats(context.Background()); st != (queue.Stats{}) {
		t.Errorf("after purge the queue holds %+v", st)
	}
	if n, _ := e.rdb.Exists(context.Background(), lists("guonei")).Result(); n != 0 {
		t.Errorf("after purge the guonei list validators are still there")
	}
	if n, _ := e.rdb.Exists(context.Background(), lists("guoji")).Result(); n != 1 {
		t.Errorf("purging guonei deleted guoji's list validators")
	}

	// A signed-in admin's buttons still need the form token and this site.
	e.kill(guonei, dead, "http_404", "404")
	if code, _, _ := a.postForm("/ops/queues/guonei/requeue", url.Values{}); code != http.StatusForbidden {
		t.Errorf("requeue without a form token = %d", code)
	}
	if code, _, _ := a.post("/ops/queues/guonei/requeue", nil, "Sec-Fetch-Site", "cross-site"); code != http.StatusForbidden {
		t.Errorf("cross-site requeue = %d", code)
	}
	if e.deadCount(guonei) != 1 {
		t.Fatalf("a refused requeue acted")
	}

	// The session ends after admin_session_ttl.
	e.clock.Advance(e.cfg.web.AdminSessionTTL + time.Second)
	if code, _, _ := a.post("/ops/queues/guonei/requeue", nil); code != http.StatusForbidden || e.deadCount(guonei) != 1 {
		t.Errorf("requeue after the session expired = %d", code)
	}
	// Sign in again, then sign out.
	a.post("/ops/login", url.Values{"token": {adminToken}})
	if code, _, _ := a.post("/ops/logout", nil); code != http.StatusSeeOther {
		t.Fatalf("sign out = %d", code)
	}
	if code, _, _ := a.post("/ops/jobs/quick/run", nil); code != http.StatusForbidden {
		t.Errorf("run after sign out = %d", code)
	}
}

// TestAdminSessionNeedsAConfiguredToken: a session signed for a token that
// is no longer in web.admin_tokens, or under another key, is refused.
func TestAdminSessionNeedsAConfiguredToken(t *testing.T) {
	now := testNow
	clockNow := func() time.Time { return now }
	mk := func(tokens ...string) *sessions {
		o := DefaultOptions()
		o.CookieSecret, o.AdminTokens = "0123456789abcdef0123", tokens
		s, err := newSessions(o, clockNow)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := mk("admin-token-one", "admin-token-two")
	w := httptest.NewRecorder()
	if !s.signIn(w, "admin-token-two") {
		t.Fatal("sign in refused")
	}
	req := httptest.NewRequest("GET", "/ops", nil)
	req.AddCookie(w.Result().Cookies()[0])
	if _, ok := s.admin(req); !ok {
		t.Fatal("a fresh session is refused")
	}
	if _, ok := mk("admin-token-one").admin(req); ok {
		t.Error("a session of a removed token is accepted")
	}
	other := mk("admin-token-two")
	other.key = []byte("another key, another deployment")
	if _, ok := other.admin(req); ok {
		t.Error("a session signed with another key is accepted")
	}
	now = now.Add(DefaultOptions().AdminSessionTTL)
	if _, ok := s.admin(req); ok {
		t.Error("an expired session is accepted")
	}
}
