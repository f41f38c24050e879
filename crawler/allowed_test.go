package crawler

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/queue"
)

// internalService is another service on 127.0.0.1, another port: a
// crawler must never reach it from a source on the first port. It
// answers a titled page on every path and counts the requests.
func internalService(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Internal admin page</title></head><body>secret</body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// deadReasons maps a queue's dead letters' URLs to their reasons.
func deadReasons(t *testing.T, q *queue.Queue) map[string]string {
	t.Helper()
	dead, err := q.Dead(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range dead {
		out[d.URL] = d.Reason
	}
	return out
}

// TestAllowedTargets serves a site on 127.0.0.1 whose lists, feed,
// sitemaps, list API, redirects, user-info links and canonical URLs
// point at another service on another port of 127.0.0.1 (and at Redis's
// port): the allowed targets are scheme, host and port, so that service
// is never requested, nothing from it is queued or stored, user info is
// refused, and a canonical URL elsewhere leaves the fetched URL as the
// article's.
func TestAllowedTargets(t *testing.T) {
	e := newEnv(t)
	other, hits := internalService(t)
	a, b := e.site.srv.URL, other.URL // http://127.0.0.1:<port>
	withUser := strings.Replace(a, "http://", "http://user:pass@", 1)
	const h = "127.0.0.1"
	now := time.Now()
	for i := 1; i <= 6; i++ {
		e.site.page(fmt.Sprintf("%s/a/%d.html", h, i), "text/html; charset=utf-8", articleHTML(fmt.Sprintf("Article %d", i), now, 0))
	}
	e.site.handle(h+"/a/redirect.html", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b+"/redirected.html", http.StatusFound)
	})
	e.site.handle(h+"/a/userinfo-redirect.html", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, withUser+"/a/1.html", http.StatusFound)
	})
	e.site.page(h+"/a/canonical.html", "text/html", fmt.Sprintf(`<html><head><title>Canonical elsewhere</title>
<link rel="canonical" href="%s/a/canonical.html"></head><body><p>x</p></body></html>`, b))
	e.site.page(h+"/a/og.html", "text/html", fmt.Sprintf(`<html><head><title>OG elsewhere</title>
<meta property="og:url" content="%s/a/og.html"></head><body><p>x</p></body></html>`, b))
	e.site.page(h+"/list/", "text/html", fmt.Sprintf(`<ul class="list">
<a class="t" href="/a/1.html">own</a>
<a class="t" href="%[2]s/secret.html">other port</a>
<a class="t" href="%[3]s/a/2.html">user info</a>
<a class="t" href="http://127.0.0.1:6379/">redis</a>
<a class="t" href="%[4]s/a/3.html">https on the http port</a>
<a class="t" href="/a/redirect.html">redirect</a>
<a class="t" href="/a/userinfo-redirect.html">redirect with user info</a>
<a class="t" href="/a/canonical.html">canonical</a>
<a class="t" href="/a/og.html">og</a>
</ul><a class="next" href="%[2]s/list/2">next</a>`, a, b, withUser, strings.Replace(a, "http://", "https://", 1)))
	e.site.page(h+"/feed.xml", "application/rss+xml", fmt.Sprintf(`<?xml version="1.0"?><rss version="2.0"><channel>
<item><title>Feed 4</title><link>%s/a/4.html</link></item>
<item><title>Feed secret</title><link>%s/feed-secret.html</link></item></channel></rss>`, a, b))
	e.site.page(h+"/sitemap_index.xml", "application/xml", fmt.Sprintf(`<?xml version="1.0"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/sitemap.xml</loc></sitemap>
<sitemap><loc>%s/sm.xml</loc></sitemap></sitemapindex>`, b, a))
	e.site.page(h+"/sm.xml", "application/xml", fmt.Sprintf(`<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/a/5.html</loc></url>
<url><loc>%s/sm-secret.html</loc></url></urlset>`, a, b))
	e.site.page(h+"/api.json", "application/json", fmt.Sprintf(`{"items":[{"u":"%s/a/6.html"},{"u":"%s/api-secret.html"},{"u":"%s/a/6.html"}]}`, a, b, withUser))

	c := e.realCrawler(
		Source{Name: "links", Kind: "html", URLs: []string{a + "/list/"}, LinkSelector: sel("a.t"), NextSelector: sel("a.next")},
		Source{Name: "feed", Kind: "rss", URLs: []string{a + "/feed.xml"}},
		Source{Name: "sitemap", Kind: "sitemap", URLs: []string{a + "/sitemap_index.xml"}},
		Source{Name: "api", Kind: "json", URLs: []string{a + "/api.json"},
			JSON: extract.JSONList{ItemsPath: "items", Fields: map[string]string{"url": "u"}}},
	)
	// A URL queued before the allowed targets said no (or by hand).
	if _, err := c.Queue("links").Push(context.Background(), b+"/queued.html"); err != nil {
		t.Fatal(err)
	}
	rep := e.runOnce(c)

	if n := hits.Load(); n != 0 {
		t.Errorf("the service on the other port was requested %d times", n)
	}
	skipped := map[string]int{"links": 5, "feed": 1, "sitemap": 2, "api": 2}
	for _, p := range rep.Produce.Sources {
		if p.Err != nil || p.Skipped != skipped[p.Name] {
			t.Errorf("source %s: %d skipped (err %v), want %d", p.Name, p.Skipped, p.Err, skipped[p.Name])
		}
	}
	for _, p := range []string{"/a/1.html", "/a/4.html", "/a/5.html", "/a/6.html", "/a/canonical.html", "/a/og.html"} {
		if _, err := e.article(a + p); err != nil {
			t.Errorf("%s not stored under its own URL: %v", p, err)
		}
	}
	for _, u := range []string{b + "/secret.html", b + "/redirected.html", b + "/a/canonical.html", b + "/a/og.html", b + "/queued.html"} {
		if _, err := e.article(u); err == nil {
			t.Errorf("an article is stored under %s", u)
		}
	}
	if tot := rep.Totals(); tot.Created != 6 {
		t.Errorf("%d articles stored, want 6: %+v", tot.Created, tot)
	}
	want := map[string]string{
		a + "/a/redirect.html":          fetch.ReasonOffsite,
		a + "/a/userinfo-redirect.html": fetch.ReasonBadURL,
		b + "/queued.html":              ReasonNotAllowed,
	}
	got := deadReasons(t, c.Queue("links"))
	for u, reason := range want {
		if got[u] != reason {
			t.Errorf("%s: dead for %q, want %q", u, got[u], reason)
		}
	}
	if len(got) != len(want) {
		t.Errorf("dead letters %v, want %v", got, want)
	}
}

// TestDenyPrivateNetworks lets a source's allowed targets name another
// local service (by the name localhost, which resolves to 127.0.0.1):
// crawler.deny_private_networks still refuses it when connecting, links
// and redirects alike, while the source's own endpoint (127.0.0.1 and
// its port), by any name, stays reachable. Turned off, the same crawl
// reaches the other service: the guard is what stops it.
func TestDenyPrivateNetworks(t *testing.T) {
	for _, deny := range []bool{true, false} {
		t.Run(fmt.Sprintf("deny=%v", deny), func(t *testing.T) {
			e := newEnv(t)
			e.opts.DenyPrivateNetworks = deny
			other, hits := internalService(t)
			a := e.site.srv.URL
			port := func(u string) string { return u[strings.LastIndex(u, ":")+1:] }
			local := "http://localhost:" + port(other.URL) // the other service, by a name
			self := "http://localhost:" + port(a)          // the source's endpoint, by another name
			const h = "127.0.0.1"
			e.site.page(h+"/a/1.html", "text/html", articleHTML("Own article", time.Now(), 0))
			e.site.page("localhost/a/2.html", "text/html", articleHTML("Own endpoint, other name", time.Now(), 0))
			e.site.handle(h+"/a/to-local.html", func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, local+"/redirected.html", http.StatusFound)
			})
			e.site.page(h+"/list/", "text/html", fmt.Sprintf(`<ul class="list"><a class="t" href="/a/1.html">own</a>
<a class="t" href="%s/a/2.html">own, by name</a><a class="t" href="%s/page.html">local</a>
<a class="t" href="/a/to-local.html">redirect</a></ul>`, self, local))
			c := e.realCrawler(Source{Name: "guard", Kind: "html", URLs: []string{a + "/list/"}, LinkSelector: sel("a.t"),
				AllowedDomains: []string{a, local, self}})
			rep := e.runOnce(c)
			got := deadReasons(t, c.Queue("guard"))
			if !deny {
				if hits.Load() == 0 || rep.Sources[0].Created != 4 {
					t.Errorf("with deny_private_networks off: %d requests to the other service, %+v stored; want it reached", hits.Load(), rep.Sources[0])
				}
				return
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the other local service was requested %d times", n)
			}
			for _, u := range []string{local + "/page.html", a + "/a/to-local.html"} {
				if got[u] != fetch.ReasonPrivateNetwork {
					t.Errorf("%s: dead for %q, want %q", u, got[u], fetch.ReasonPrivateNetwork)
				}
			}
			for _, u := range []string{a + "/a/1.html", self + "/a/2.html"} {
				if _, err := e.article(u); err != nil {
					t.Errorf("%s not stored: %v", u, err)
				}
			}
		})
	}
}
