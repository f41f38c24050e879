package web

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// browserResolve resolves a Location header against base the way a
// browser does (WHATWG URL parsing): leading and trailing C0 controls and
// spaces are stripped, tabs and newlines anywhere are removed, and a
// backslash counts as a slash in http(s) URLs. It returns the URL the
// browser would go to.
func browserResolve(t testing.TB, base *url.URL, loc string) *url.URL {
	t.Helper()
	loc = strings.TrimFunc(loc, func(r rune) bool { return r <= ' ' })
	loc = strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/").Replace(loc)
	u, err := url.Parse(loc)
	if err != nil {
		// A browser would not follow it anywhere sensible either; treat
		// it as staying here only if it has no scheme-like prefix.
		t.Fatalf("Location %q does not parse as a URL: %v", loc, err)
	}
	return base.ResolveReference(u)
}

// redirectAttacks are return addresses that try to leave the site; every
// one must be answered with a Location on the server's own origin.
var redirectAttacks = []string{
	"/\t/evil.example",   // %09: browsers drop it and read //evil.example
	"/\n/evil.example",   // %0a
	"/\r\n/evil.example", // %0d%0a
	"/ /evil.example",
	"\t//evil.example",
	" //evil.example",
	"//evil.example",
	"//evil.example/path",
	"///evil.example",
	`/\evil.example`,
	`\\evil.example`,
	`\/evil.example`,
	`/\/evil.example`,
	"/%2F/evil.example",
	"/%5C/evil.example",
	"/%09/evil.example",
	"/.//evil.example",
	"/a/..//evil.example",
	"https://evil.example/",
	"http:evil.example",
	"HTTPS://evil.example",
	"javascript:alert(1)",
	"data:text/html,<script>alert(1)</script>",
	"//user@evil.example",
	"/\x00/evil.example",
	"/\x7f/evil.example",
	"/\u2028/evil.example",
	"evil.example",
	"",
}

// TestVoteFormReturnStaysOnSite: the vote form's return address never
// sends the browser to another site, and a proper one is kept.
func TestVoteFormReturnStaysOnSite(t *testing.T) {
	e, b, id, form := newVoter(t)
	token := form.Get("csrf")
	base, _ := url.Parse(e.ts.URL + "/news/" + id + "/vote")

	for _, ret := range redirectAttacks {
		form := url.Values{"csrf": {token}, "dir": {"none"}, "return": {ret}}
		code, hdr, body := b.postForm("/news/"+id+"/vote", form)
		if code != http.StatusSeeOther {
			t.Fatalf("return %q: vote form = %d: %s", ret, code, body)
		}
		loc := hdr.Get("Location")
		to := browserResolve(t, base, loc)
		if to.Scheme != base.Scheme || to.Host != base.Host {
			t.Errorf("return %q: Location %q sends the browser to %s", ret, loc, to)
		}
	}
	for _, ret := range []string{"/", "/?page=2", "/latest?group=world&page=3", "/news/" + id, "/?group=%E5%9B%BD%E5%86%85"} {
		form := url.Values{"csrf": {token}, "dir": {"none"}, "return": {ret}}
		if _, hdr, _ := b.postForm("/news/"+id+"/vote", form); hdr.Get("Location") != ret+"#a-"+id {
			t.Errorf("return %q: Location %q, want %q", ret, hdr.Get("Location"), ret+"#a-"+id)
		}
	}
}

// TestServerRedirectsStayOnSite: the redirects the server makes by itself
// (the router cleaning a path, /static without its slash) keep the browser
// on this site, whatever the request path. The requests are written raw,
// as an attacker's link would make a browser send them.
func TestServerRedirectsStayOnSite(t *testing.T) {
	e := newEnv(t)
	base, _ := url.Parse(e.ts.URL + "/")
	for _, path := range []string{
		"//evil.example", "//evil.example/", "///evil.example/%2e%2e", "/.//evil.example", "/static//evil.example",
		"/static", "/./static/", "/static/../..//evil.example", "/%2F%2Fevil.example", `/\evil.example`,
		"/%5c%5cevil.example/", "/%09/evil.example", "/ops/../ops", "//evil.example/static/style.css",
	} {
		c, err := net.Dial("tcp", base.Host)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, base.Host)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		if loc := res.Header.Get("Location"); loc != "" {
			if to := browserResolve(t, base, loc); to.Host != base.Host {
				t.Errorf("GET %s = %d Location %q: off to %s", path, res.StatusCode, loc, to)
			}
		}
	}
}

// TestFormTokenExpires: a vote form older than web.form_ttl is refused
// with a message that says it expired; a fresh page's form works; a
// forged token is not called expired.
func TestFormTokenExpires(t *testing.T) {
	e, b, id, old := newVoter(t)
	ttl := e.cfg.web.FormTTL

	e.clock.Advance(ttl - time.Minute)
	if code, _, body := b.postForm("/news/"+id+"/vote", old); code != http.StatusSeeOther {
		t.Fatalf("a form a minute before it expires = %d: %s", code, body)
	}
	old.Set("dir", "none")
	e.clock.Advance(2 * time.Minute)
	before := e.votes(id)
	code, _, body := b.postForm("/news/"+id+"/vote", old, "Accept", "application/json")
	if code != http.StatusForbidden || !strings.Contains(body, "forms are good for 12h)") || !strings.Contains(body, "reload") {
		t.Fatalf("an expired form = %d %s; want 403 saying it expired", code, body)
	}
	if e.votes(id) != before {
		t.Fatalf("the expired form changed the votes")
	}
	// Reloading the page gives a form that works.
	_, page := b.get("/")
	fresh := url.Values{"csrf": {csrf(t, page)}, "dir": {"none"}, "return": {"/"}}
	if code, _, body := b.postForm("/news/"+id+"/vote", fresh); code != http.StatusSeeOther {
		t.Fatalf("a fresh form = %d: %s", code, body)
	}
	// A made-up token is refused as not from this site, not as expired.
	code, _, body = b.postForm("/news/"+id+"/vote", url.Values{"csrf": {"1.abc"}, "dir": {"up"}}, "Accept", "application/json")
	if code != http.StatusForbidden || strings.Contains(body, "expired") {
		t.Fatalf("a forged token = %d %s; want 403 that does not claim it expired", code, body)
	}
}

// TestCrossOriginFormRefused: even with a valid cookie and form token, a
// form posted from another origin (Sec-Fetch-Site or Origin) is refused;
// same-origin posts and API clients without those headers work (a
// second layer behind the form token).
func TestCrossOriginFormRefused(t *testing.T) {
	e, b, id, form := newVoter(t)
	before := e.votes(id)
	for _, hdr := range [][]string{
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Origin", "https://evil.example"},
		{"Origin", "null"},
	} {
		code, _, body := b.postForm("/news/"+id+"/vote", form, hdr...)
		if code != http.StatusForbidden || !strings.Contains(body, "origin") {
			t.Errorf("%s: %s = %d; want 403 naming the origin: %s", hdr[0], hdr[1], code, body)
		}
	}
	if e.votes(id) != before {
		t.Fatalf("a cross-origin form changed the votes")
	}
	for _, hdr := range [][]string{{"Sec-Fetch-Site", "same-origin"}, {"Origin", e.ts.URL}} {
		form.Set("dir", "up")
		if code, _, body := b.postForm("/news/"+id+"/vote", form, hdr...); code != http.StatusSeeOther {
			t.Errorf("same origin (%s: %s) = %d: %s", hdr[0], hdr[1], code, body)
		}
	}
	// curl with a bearer token: no Origin, no Sec-Fetch-Site.
	if r := e.do("POST", "/api/news/"+id+"/vote", writerToken, `{"user":"curl","dir":"up"}`); r.status != http.StatusOK {
		t.Fatalf("API vote from curl = %d %s", r.status, r.body)
	}
}

// TestStaticServesFilesOnly: /static/ serves the assets and never lists a
// directory.
func TestStaticServesFilesOnly(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/static/", "/static", "/static//", "/static/./", "/static/%2e/", "/static/nope.css", "/static/../static/"} {
		r := e.do("GET", path, "", "")
		if strings.Contains(string(r.body), "app.js") || strings.Contains(string(r.body), "style.css\"") {
			t.Errorf("GET %s = %d lists the directory:\n%s", path, r.status, r.body)
		}
		if r.status == http.StatusOK {
			t.Errorf("GET %s = 200, want an error", path)
		}
	}
	for path, ct := range map[string]string{"/static/style.css": "text/css", "/static/app.js": "text/javascript"} {
		r := e.do("GET", path, "", "")
		if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), ct) || len(r.body) == 0 {
			t.Errorf("GET %s = %d %q", path, r.status, r.header.Get("Content-Type"))
		}
	}
}

// FuzzLocalPath: whatever a form sends as its return address, the
// redirect that answers it (http.Redirect, as the handlers send it) takes
// a browser to a page of this site; and the return addresses the pages
// themselves put in their forms (a path and an escaped query) are kept.
func FuzzLocalPath(f *testing.F) {
	for _, s := range redirectAttacks {
		f.Add(s)
	}
	for _, s := range []string{
		"/", "/?page=2", "/latest?group=world&page=3", "/news/0123456789abcdef", "/boards?period=month&date=2025-05",
		"/%2f%2fevil.example", "/%5c%5cevil.example", "/%252F/evil.example", "/..%2f..%2fevil.example",
		"/\\\\evil.example", "/\t\t/evil.example", "/\v/evil.example", "/\f/evil.example", "\x00//evil.example",
		"https:/evil.example", "https:\\\\evil.example", "//evil.example:443", "/@evil.example", "/?//evil.example",
		"/../../evil.example", "/.%2e/evil.example", "/\xff/evil.example", "/\u3000/evil.example", "/／evil.example",
		"vbscript:msgbox(1)", "  javascript:alert(1)", "/#//evil.example", "/?a=b#frag",
	} {
		f.Add(s)
	}
	base, _ := url.Parse("https://newsrank.example/news/0123456789abcdef/vote")
	f.Fuzz(func(t *testing.T, ret string) {
		got := localPath(ret)
		if got != ret && got != "/" {
			t.Fatalf("localPath(%q) = %q: neither the input nor /", ret, got)
		}
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, base.String(), nil)
		redirectBack(w, r, ret, "a-0123456789abcdef")
		loc := w.Header().Get("Location")
		to := browserResolve(t, base, loc)
		if to.Scheme != base.Scheme || to.Host != base.Host || to.User != nil {
			t.Fatalf("return %q: Location %q takes the browser to %s", ret, loc, to)
		}
		// What the pages put in their forms is r.URL.RequestURI() of a
		// page: it must survive.
		if u, err := url.ParseRequestURI(ret); err == nil && u.Path != "" && !strings.HasPrefix(u.Path, "//") && u.RequestURI() == ret && !strings.ContainsAny(ret, "#\\") && got != ret {
			t.Fatalf("localPath refused the page address %q", ret)
		}
	})
}
