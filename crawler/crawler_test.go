package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

const host = "news.example.test"

func articleURL(i int) string { return fmt.Sprintf("http://%s/a/%d.html", host, i) }

// serveArticles serves /a/<i>.html for i in [0, n): titled "Article i",
// posted i hours ago, with i comments.
func (e *env) serveArticles(n int, now time.Time) {
	for i := range n {
		e.site.page(fmt.Sprintf("%s/a/%d.html", host, i), "text/html; charset=utf-8",
			articleHTML(fmt.Sprintf("Article %d", i), now.Add(-time.Duration(i)*time.Hour), i))
	}
}

// serveList serves HTML list pages of per links each: /list/ then
// /list/index_<n>.html, linked by "next" (withNext) or not.
func (e *env) serveList(n, per int, withNext bool, extra string) {
	pages := (n + per - 1) / per
	for p := 1; p <= pages; p++ {
		var b strings.Builder
		b.WriteString(`<html><body><ul class="list">`)
		for i := (p - 1) * per; i < min(p*per, n); i++ {
			fmt.Fprintf(&b, `<li><a class="t" href="/a/%d.html?utm_source=list">x</a></li>`, i)
		}
		b.WriteString(extra)
		b.WriteString(`</ul>`)
		if withNext && p < pages {
			fmt.Fprintf(&b, `<a class="next" href="/list/index_%d.html">next</a>`, p+1)
		}
		b.WriteString(`</body></html>`)
		path := "/list/"
		if p > 1 {
			path = fmt.Sprintf("/list/index_%d.html", p)
		}
		e.site.page(host+path, "text/html; charset=utf-8", b.String())
	}
}

func htmlSource(name string) Source {
	return Source{Name: name, Kind: "html", URLs: []string{"http://" + host + "/list/"},
		LinkSelector: sel("ul.list a.t"), NextSelector: sel("a.next"), Groups: []string{"g1"}}
}

func TestHTMLNextSelector(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	e.serveArticles(25, now)
	e.serveList(25, 10, true, "")
	c := e.crawler(htmlSource("html"))

	rep := e.runOnce(c)
	p := rep.Produce.Sources[0]
	if p.Pages != 3 || p.Found != 25 || p.New != 25 || p.Err != nil {
		t.Fatalf("produce = %+v, want 3 pages, 25 found, 25 new", p)
	}
	s := rep.Sources[0]
	if s.Fetched != 25 || s.Created != 25 || s.Failures() != 0 || s.Left.Done != 25 || s.Left.Pending != 0 {
		t.Fatalf("consume = %+v", s)
	}
	a := e.mustArticle(articleURL(7))
	if a.Title != "Article 7" || a.Comments != 0 || a.Source != "html" || a.PostTime.Unix() != now.Add(-7*time.Hour).Unix() {
		t.Errorf("article 7 = %+v", a)
	}
	if a.URL != articleURL(7) {
		t.Errorf("stored URL %q is not canonical (tracking parameter kept?)", a.URL)
	}
	// The second crawl finds nothing new and fetches no article again.
	before := e.site.hitCount(host + "/a/7.html")
	rep = e.runOnce(c)
	if rep.Produce.Sources[0].New != 0 || rep.Sources[0].Fetched != 0 || e.site.hitCount(host+"/a/7.html") != before {
		t.Errorf("second run: produce %+v consume %+v", rep.Produce.Sources[0], rep.Sources[0])
	}
	if len(rep.FailedSources()) != 0 {
		t.Errorf("FailedSources = %v", rep.FailedSources())
	}
}

func TestHTMLPageTemplateAndLimits(t *testing.T) {
	e := newEnv(t)
	e.serveArticles(30, time.Now())
	e.serveList(30, 10, false, "") // /list/, /list/index_2.html, /list/index_3.html; index_4 is a 404
	src := htmlSource("tmpl")
	src.NextSelector = extract.Selector{}
	src.PageTemplate = "http://" + host + "/list/index_{page}.html"
	c := e.crawler(src)
	rep, err := c.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Sources[0]
	// Pages 1-3 read, page 4 tried and missing: the end of the sequence.
	if p.Pages != 3 || p.New != 30 || p.PageErrors != 1 || p.Err != nil {
		t.Errorf("produce = %+v", p)
	}
	if e.site.hitCount(host+"/list/index_5.html") != 0 {
		t.Error("the template went on past the first missing page")
	}

	// max_pages caps the walk.
	src.Name = "capped"
	src.MaxPages = 2
	c = e.crawler(src)
	rep, _ = c.Produce(context.Background())
	if p := rep.Sources[0]; p.Pages != 2 || p.Found != 20 {
		t.Errorf("capped produce = %+v, want 2 pages and 20 URLs", p)
	}

	// A {page} placeholder in a start URL is a sequence from page 1 that
	// stops at a page with nothing new.
	e.site.page(host+"/num/1", "text/html", `<ul class="list"><a class="t" href="/a/1.html">x</a></ul>`)
	e.site.page(host+"/num/2", "text/html", `<ul class="list"><a class="t" href="/a/2.html">x</a></ul>`)
	e.site.page(host+"/num/3", "text/html", `<ul class="list"><a class="t" href="/a/2.html">x</a></ul>`)
	e.site.page(host+"/num/4", "text/html", `<ul class="list"><a class="t" href="/a/4.html">x</a></ul>`)
	num := Source{Name: "num", Kind: "html", URLs: []string{"http://" + host + "/num/{page}"}, LinkSelector: sel("a.t")}
	c = e.crawler(num)
	rep, _ = c.Produce(context.Background())
	if p := rep.Sources[0]; p.Pages != 3 || p.Found != 2 || e.site.hitCount(host+"/num/4") != 0 {
		t.Errorf("{page} produce = %+v (page 4 hits %d)", p, e.site.hitCount(host+"/num/4"))
	}
}

func TestAllowedDomains(t *testing.T) {
	e := newEnv(t)
	e.site.page(host+"/list/", "text/html", `<ul class="list">
<a class="t" href="http://news.example.test/a/1.html">own</a>
<a class="t" href="http://m.news.example.test/a/2.html">subdomain</a>
<a class="t" href="http://example.test/a/3.html">parent</a>
<a class="t" href="http://evil.test/a/4.html">other</a>
<a class="t" href="http://notnews.example.test/a/5.html">look-alike</a>
<a class="t" href="javascript:void(0)">js</a></ul>`)
	src := htmlSource("dom")
	c := e.crawler(src) // allowed: the start URL's host
	rep, _ := c.Produce(context.Background())
	if p := rep.Sources[0]; p.Found != 2 || p.Skipped != 3 {
		t.Errorf("start-host produce = %+v, want 2 found (host and subdomain), 3 skipped", p)
	}
	src.Name = "dom2"
	src.AllowedDomains = []string{"example.test"}
	c = e.crawler(src)
	rep, _ = c.Produce(context.Background())
	if p := rep.Sources[0]; p.Found != 4 || p.Skipped != 1 {
		t.Errorf("example.test produce = %+v, want 4 found, 1 skipped", p)
	}
}

const feedHost = "feeds.example.test"

func TestFeedsAndSitemaps(t *testing.T) {
	e := newEnv(t)
	now := time.Now().UTC().Truncate(time.Second)
	// Article pages carry no time and no comments: those come from the lists.
	bare := func(title string) string {
		return `<html><head><title>` + title + `</title></head><body><article><p>text</p></article></body></html>`
	}
	for _, p := range []string{"/r/1", "/r/2", "/at/1", "/sm/1", "/sm/2", "/sm/3"} {
		e.site.page(feedHost+p, "text/html", bare("Page "+p))
	}
	e.site.page(feedHost+"/rss.xml", "application/rss+xml", fmt.Sprintf(`<?xml version="1.0"?>
<rss version="2.0" xmlns:slash="http://purl.org/rss/1.0/modules/slash/"><channel>
<item><title>RSS one</title><link>http://%[1]s/r/1</link><pubDate>%[2]s</pubDate><slash:comments>11</slash:comments>
<description>Feed summary</description></item>
<item><title>RSS two</title><link>http://%[1]s/r/2</link></item>
<item><title>Elsewhere</title><link>http://elsewhere.test/x</link></item>
</channel></rss>`, feedHost, now.Add(-2*time.Hour).Format(time.RFC1123Z)))
	e.site.page(feedHost+"/atom.xml", "application/atom+xml", fmt.Sprintf(`<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:thr="http://purl.org/syndication/thread/1.0">
<entry><title>Atom one</title><link href="http://%s/at/1"/><published>%s</published><thr:total>5</thr:total></entry></feed>`,
		feedHost, now.Add(-3*time.Hour).Format(time.RFC3339)))
	e.site.page(feedHost+"/sitemap_index.xml", "application/xml", fmt.Sprintf(`<?xml version="1.0"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>http://%[1]s/sitemap-news.xml</loc></sitemap><sitemap><loc>http://%[1]s/sitemap-old.xml</loc></sitemap>
</sitemapindex>`, feedHost))
	e.site.page(feedHost+"/sitemap-news.xml", "application/xml", fmt.Sprintf(`<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
<url><loc>http://%[1]s/sm/1</loc><news:news><news:title>News sitemap title</news:title>
<news:publication_date>%[2]s</news:publication_date></news:news></url>
<url><loc>http://%[1]s/sm/2</loc></url></urlset>`, feedHost, now.Add(-time.Hour).Format(time.RFC3339)))
	e.site.page(feedHost+"/sitemap-old.xml", "application/xml", fmt.Sprintf(`<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://%[1]s/sm/2</loc></url><url><loc>http://%[1]s/sm/3</loc></url></urlset>`, feedHost))

	c := e.crawler(
		Source{Name: "rss", Kind: "rss", URLs: []string{"http://" + feedHost + "/rss.xml"}},
		Source{Name: "atom", Kind: "atom", URLs: []string{"http://" + feedHost + "/atom.xml"}},
		Source{Name: "sitemap", Kind: "sitemap", URLs: []string{"http://" + feedHost + "/sitemap_index.xml"}},
	)
	// After producing, the list items' fields wait in Redis.
	prep, err := c.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := []int{prep.Sources[0].New, prep.Sources[1].New, prep.Sources[2].New}; fmt.Sprint(got) != "[2 1 3]" {
		t.Fatalf("new per source = %v, want [2 1 3]; %+v", got, prep)
	}
	if prep.Sources[2].Pages != 3 {
		t.Errorf("sitemap pages = %d, want 3 (index and two sitemaps)", prep.Sources[2].Pages)
	}
	// They wait as the queue's payload of the URL, in the queue's keys.
	payloadKey := c.prefix + "{q:rss}:payload"
	if ok, _ := e.rdb.HExists(context.Background(), payloadKey, "http://"+feedHost+"/r/1").Result(); !ok {
		t.Fatalf("list item fields not stored in %s", payloadKey)
	}

	rep := e.runOnce(c)
	if tot := rep.Totals(); tot.Created != 6 || tot.Failures() != 0 {
		t.Fatalf("totals = %+v", tot)
	}
	r1 := e.mustArticle("http://" + feedHost + "/r/1")
	// The feed's title beats the page's generic <title>; time, comments
	// and summary come from the feed.
	if r1.Title != "RSS one" || r1.Comments != 11 || r1.Summary != "Feed summary" || r1.PostTime.Unix() != now.Add(-2*time.Hour).Unix() {
		t.Errorf("rss article = %+v", r1)
	}
	if a := e.mustArticle("http://" + feedHost + "/at/1"); a.Title != "Atom one" || a.Comments != 5 {
		t.Errorf("atom article = %+v", a)
	}
	if a := e.mustArticle("http://" + feedHost + "/sm/1"); a.Title != "News sitemap title" || a.PostTime.Unix() != now.Add(-time.Hour).Unix() {
		t.Errorf("sitemap article = %+v", a)
	}
	if a := e.mustArticle("http://" + feedHost + "/sm/3"); a.Title != "Page /sm/3" {
		t.Errorf("plain sitemap article = %+v", a)
	}
	// Acknowledged URLs' list items are gone.
	if n, _ := e.rdb.Exists(context.Background(), payloadKey).Result(); n != 0 {
		t.Error("list item fields outlive the acknowledged URL")
	}
}

// TestLegacyItemKeys: a URL queued by the release before payloads, its
// list item's fields in their own key, gets them when an upgraded
// consumer fetches it.
func TestLegacyItemKeys(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := "http://" + feedHost + "/old/1"
	e.site.page(feedHost+"/old/1", "text/html", `<html><head><title>Page title</title></head><body><article><p>text</p></article></body></html>`)
	c := e.crawler(Source{Name: "rss", Kind: "rss", URLs: []string{"http://" + feedHost + "/rss.xml"}})
	if _, err := c.Queue("rss").Push(ctx, u); err != nil {
		t.Fatal(err)
	}
	old := `{"url":"` + u + `","title":"Title from the old release","comments":7}`
	if err := e.rdb.Set(ctx, c.legacyItemKey("rss", u), old, time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	if tot := e.runOnce(c).Totals(); tot.Created != 1 {
		t.Fatalf("totals = %+v", tot)
	}
	if a := e.mustArticle(u); a.Title != "Title from the old release" || a.Comments != 7 {
		t.Errorf("article = %+v, want the legacy item's title and comments", a)
	}
}

const apiHost = "api.example.test"

func TestJSONPOffsetPagination(t *testing.T) {
	e := newEnv(t)
	now := time.Now().UTC().Truncate(time.Second)
	sh, _ := time.LoadLocation("Asia/Shanghai")
	const total = 45
	var calls atomic.Int64
	e.site.handle(apiHost+"/list/*", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var off int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/list/"), "%d-20.html", &off)
		var items []string
		for i := off; i < min(off+20, total); i++ {
			items = append(items, fmt.Sprintf(`{"docid":"D%04d","title":"要闻标题 %d","ptime":"%s","replyCount":%d,"source":"新华社"}`,
				i, i, now.Add(-time.Duration(i)*time.Minute).In(sh).Format("2006-01-02 15:04:05"), i*10))
		}
		w.Header().Set("Content-Type", "application/javascript; charset=utf-8")
		fmt.Fprintf(w, "%s({\"BBM54PGAwangning\":[%s]});", r.URL.Query().Get("callback"), strings.Join(items, ","))
	})
	// The article pages only carry the body.
	e.site.handle(apiHost+"/article/*", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>网易新闻</title></head><body><div class="content"><p>正文。</p></div></body></html>`)
	})
	src := Source{Name: "netease", Kind: "jsonp",
		URLs: []string{"http://" + apiHost + "/list/{offset}-20.html?callback=artiList"},
		JSON: extract.JSONList{ItemsPath: "BBM54PGAwangning", URLTemplate: "http://" + apiHost + "/article/{docid}.html",
			Fields: map[string]string{"title": "title", "post_time": "ptime", "comments": "replyCount", "source": "source"},
			Offset: extract.OffsetPagination{Start: 0, Step: 20, Limit: 200}},
		Config: extract.Config{TimeZone: "Asia/Shanghai", Selectors: extract.Selectors{Body: sel("div.content")}},
		Groups: []string{"要闻"}}
	c := e.crawler(src)
	rep := e.runOnce(c)
	p := rep.Produce.Sources[0]
	// Offsets 0, 20, 40 have items; 60 is empty and ends the walk.
	if p.Pages != 4 || p.New != total || calls.Load() != 4 {
		t.Fatalf("produce = %+v, API calls %d", p, calls.Load())
	}
	if rep.Sources[0].Created != total {
		t.Fatalf("consume = %+v", rep.Sources[0])
	}
	a := e.mustArticle("http://" + apiHost + "/article/D0012.html")
	if a.Title != "要闻标题 12" || a.Comments != 120 || a.Source != "新华社" || a.PostTime.Unix() != now.Add(-12*time.Minute).Unix() {
		t.Errorf("article = %+v", a)
	}
	page, err := e.store.GroupList(context.Background(), "要闻", news.ByTime, 1, 100)
	if err != nil || page.Total != total {
		t.Errorf("group 要闻: total %d, err %v", page.Total, err)
	}
}

// TestFailures pushes one URL per failure case (max_attempts 1, so every
// failure is final) and checks the dead letters' reasons.
func TestFailures(t *testing.T) {
	e := newEnv(t)
	e.qopts.MaxAttempts = 1
	e.opts.RequestTimeout = 300 * time.Millisecond
	e.opts.MaxRedirects = 3
	const h = "fail.example.test"
	e.site.page(h+"/robots.txt", "text/plain", "User-agent: *\nDisallow: /private/\n")
	status := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }
	}
	e.site.handle(h+"/404", status(404))
	e.site.handle(h+"/410", status(410))
	e.site.handle(h+"/500", status(500))
	e.site.handle(h+"/403", status(403))
	e.site.handle(h+"/429", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(429)
	})
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	e.site.handle(h+"/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	})
	e.site.handle(h+"/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<title>half"))
		w.(http.Flusher).Flush() // the headers arrive; the body stalls
		select {
		case <-block:
		case <-r.Context().Done():
		}
	})
	e.site.page(h+"/pdf", "application/pdf", "%PDF-1.4")
	e.site.page(h+"/private/secret", "text/html", "<title>secret</title>")
	big := strings.Repeat("x", 100<<10)
	e.site.page(h+"/big", "text/html", "<title>big</title>"+big)
	e.site.handle(h+"/big-chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for range 10 {
			w.Write([]byte(big[:10<<10]))
			w.(http.Flusher).Flush() // no Content-Length: the limit must catch it while reading
		}
	})
	e.site.page(h+"/notitle", "text/html", "<html><body><div>no title here</div></body></html>")
	e.site.handle(h+"/loop/*", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/loop/%d", &n)
		http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
	})
	e.site.handle(h+"/offsite", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://evil.test/landing", http.StatusMovedPermanently)
	})
	e.site.handle(h+"/to-private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/private/secret", http.StatusFound)
	})
	e.site.page(h+"/ok", "text/html", "<title>fine</title>")

	want := map[string]string{
		"http://" + h + "/404":            fetch.ReasonHTTP404,
		"http://" + h + "/410":            fetch.ReasonHTTP410,
		"http://" + h + "/500":            fetch.ReasonHTTP5xx,
		"http://" + h + "/403":            fetch.ReasonHTTP4xx,
		"http://" + h + "/429":            fetch.ReasonHTTP429,
		"http://" + h + "/slow":           fetch.ReasonTimeout,
		"http://" + h + "/slow-body":      fetch.ReasonTimeout,
		"http://" + h + "/pdf":            fetch.ReasonNotHTML,
		"http://" + h + "/private/secret": fetch.ReasonRobots,
		"http://" + h + "/big":            fetch.ReasonTooLarge,
		"http://" + h + "/big-chunked":    fetch.ReasonTooLarge,
		"http://" + h + "/notitle":        ReasonNoTitle,
		"http://" + h + "/loop/0":         fetch.ReasonTooManyRedirects,
		"http://" + h + "/offsite":        fetch.ReasonOffsite,
		"http://" + h + "/to-private":     fetch.ReasonRobots,
		"http://down.example.test/x":      fetch.ReasonConn,
		"http://r5.example.test/x":        fetch.ReasonRobotsFailed,
	}
	e.site.handle("r5.example.test/robots.txt", status(503))
	e.site.page("r5.example.test/x", "text/html", "<title>never fetched</title>")
	// The list page links every case; allowed domains let the "down" host in.
	var links strings.Builder
	for u := range want {
		fmt.Fprintf(&links, `<a class="t" href="%s">x</a>`, u)
	}
	links.WriteString(`<a class="t" href="/ok">x</a>`)
	e.site.page(h+"/list/", "text/html", `<ul class="list">`+links.String()+`</ul>`)
	src := Source{Name: "fail", Kind: "html", URLs: []string{"http://" + h + "/list/"}, LinkSelector: sel("a.t"),
		AllowedDomains: []string{"example.test"}}
	c := e.crawler(src)
	rep := e.runOnce(c)
	s := rep.Sources[0]
	if s.Created != 1 || s.Dead != int64(len(want)) {
		t.Errorf("consume = %+v, want 1 stored and %d dead", s, len(want))
	}
	dead, err := c.Queue("fail").Dead(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range dead {
		got[d.URL] = d.Reason
	}
	for u, reason := range want {
		if got[u] != reason {
			t.Errorf("%s: dead reason %q, want %q", u, got[u], reason)
		}
	}
	if n := e.site.hitCount(h + "/private/secret"); n != 0 {
		t.Errorf("robots.txt-disallowed page was fetched %d times", n)
	}
	if n := e.site.hitCount(h + "/loop/5"); n != 0 {
		t.Errorf("followed more than max_redirects redirects")
	}
	if n := e.site.hitCount("evil.test/landing"); n != 0 {
		t.Errorf("followed a redirect off the allowed domains")
	}
	if s.Failed[fetch.ReasonTooLarge] != 2 || s.Failed[fetch.ReasonRobots] != 2 {
		t.Errorf("failure counts = %v", s.Failed)
	}
	if fs := rep.FailedSources(); len(fs) != 0 {
		t.Errorf("FailedSources = %v, but one article was stored", fs)
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	e := newEnv(t)
	e.qopts.MaxAttempts = 5
	const h = "retry.example.test"
	var n atomic.Int64
	e.site.handle(h+"/flaky", func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<title>Finally</title>")
		}
	})
	e.site.page(h+"/list/", "text/html", `<a class="t" href="/flaky">x</a>`)
	c := e.crawler(Source{Name: "retry", Kind: "html", URLs: []string{"http://" + h + "/list/"}, LinkSelector: sel("a.t")})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := c.Produce(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Consume(ctx) }()
	proctest.WaitFor(t, 30*time.Second, "the flaky page to be stored", func() bool {
		_, err := e.article("http://" + h + "/flaky")
		return err == nil
	})
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Consume after cancel = %v, want nil", err)
	}
	hits := e.site.hitTimes(h + "/flaky")
	if len(hits) != 3 {
		t.Fatalf("hits = %d, want 3", len(hits))
	}
	// The retry is due 1 s (in whole milliseconds) after the client read
	// the 429, which is after the server's first hit: the gap between the
	// server's hits is at least 999 ms however slow the machine.
	if gap := hits[1].Sub(hits[0]); gap < time.Second-time.Millisecond {
		t.Errorf("retried after %v, before the Retry-After of 1s", gap)
	}
	st, _ := c.Queue("retry").Stats(context.Background())
	if st.Done != 1 || st.Dead != 0 || st.Delayed != 0 {
		t.Errorf("stats = %+v", st)
	}
}

func TestListPageRetriesAndSourceFailure(t *testing.T) {
	e := newEnv(t)
	const h = "lists.example.test"
	var n atomic.Int64
	e.site.handle(h+"/flaky-list", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		fmt.Fprint(w, `<a class="t" href="/a">x</a>`)
	})
	e.site.page(h+"/a", "text/html", "<title>A</title>")
	e.site.handle(h+"/down-list", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	e.site.page(h+"/bad.xml", "application/xml", "this is not xml")
	c := e.crawler(
		Source{Name: "flaky", Kind: "html", URLs: []string{"http://" + h + "/flaky-list"}, LinkSelector: sel("a.t")},
		Source{Name: "down", Kind: "html", URLs: []string{"http://" + h + "/down-list"}, LinkSelector: sel("a.t")},
		Source{Name: "badxml", Kind: "rss", URLs: []string{"http://" + h + "/bad.xml"}},
	)
	rep := e.runOnce(c)
	if p := rep.Produce.Sources[0]; p.Pages != 1 || p.New != 1 || p.Err != nil {
		t.Errorf("flaky list = %+v, want read on the second attempt", p)
	}
	if p := rep.Produce.Sources[1]; p.Err == nil || e.site.hitCount(h+"/down-list") != e.opts.ListAttempts {
		t.Errorf("down list = %+v after %d tries, want an error after list_attempts", p, e.site.hitCount(h+"/down-list"))
	}
	if p := rep.Produce.Sources[2]; p.Err == nil || !errors.Is(p.Err, extract.ErrBadList) {
		t.Errorf("bad xml = %+v, want extract.ErrBadList", p)
	}
	if fs := strings.Join(rep.FailedSources(), ","); fs != "down,badxml" {
		t.Errorf("FailedSources = %q, want down,badxml", fs)
	}
}

func TestPoliteness(t *testing.T) {
	e := newEnv(t)
	e.opts.Workers = 8
	e.opts.PerHostParallelism = 2
	const par, delayed = "par.example.test", "delay.example.test"
	// par: slow pages, to see how many run at once.
	var links strings.Builder
	for i := range 12 {
		fmt.Fprintf(&links, `<a class="t" href="http://%s/p/%d">x</a>`, par, i)
	}
	e.site.page(par+"/list/", "text/html", links.String())
	e.site.handle(par+"/p/*", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond)
		fmt.Fprint(w, "<title>p</title>")
	})
	// delay: robots.txt asks for 0.2 s between requests.
	e.site.page(delayed+"/robots.txt", "text/plain", "User-agent: *\nCrawl-delay: 0.2\n")
	links.Reset()
	for i := range 4 {
		fmt.Fprintf(&links, `<a class="t" href="http://%s/d/%d">x</a>`, delayed, i)
	}
	e.site.page(delayed+"/list/", "text/html", links.String())
	e.site.handle(delayed+"/d/*", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<title>d</title>") })

	c := e.crawler(
		Source{Name: "par", Kind: "html", URLs: []string{"http://" + par + "/list/"}, LinkSelector: sel("a.t")},
		Source{Name: "delay", Kind: "html", URLs: []string{"http://" + delayed + "/list/"}, LinkSelector: sel("a.t")},
	)
	began := time.Now()
	rep := e.runOnce(c)
	if tot := rep.Totals(); tot.Created != 16 {
		t.Fatalf("stored %d, want 16", tot.Created)
	}
	if p := e.site.peakOf(par); p > 2 {
		t.Errorf("%d requests at once to one host, per_host_parallelism is 2", p)
	}
	var starts []time.Time
	for i := range 4 {
		starts = append(starts, e.site.hitTimes(fmt.Sprintf("%s/d/%d", delayed, i))...)
	}
	starts = append(starts, e.site.hitTimes(delayed+"/list/")...)
	sortTimes(starts)
	// Crawl-delay spaces the crawler's request starts: the i-th start is
	// at least i × 0.2 s after the crawl began, and the server sees each
	// request after it started. (The gaps between the server's hits are
	// not compared: a request held up on its way makes the next gap look
	// short however well the crawler spaced them.)
	if len(starts) != 5 {
		t.Fatalf("%d requests to %s, want the list page and 4 articles", len(starts), delayed)
	}
	for i, at := range starts {
		if min := time.Duration(i) * 200 * time.Millisecond; at.Sub(began) < min {
			t.Errorf("request %d to %s %v after the crawl began, Crawl-delay 0.2s spaces it at least %v", i, delayed, at.Sub(began), min)
		}
	}
	for ua := range e.site.uas {
		if ua != e.opts.UserAgent && !strings.HasPrefix(ua, "Go-http-client") {
			t.Errorf("request with user agent %q", ua)
		}
	}
	if !e.site.uas[e.opts.UserAgent] {
		t.Error("configured user agent never sent")
	}
}

func sortTimes(ts []time.Time) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Before(ts[j-1]); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

func TestShutdownFinishesInFlight(t *testing.T) {
	e := newEnv(t)
	const h = "slow.example.test"
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	e.site.handle(h+"/a", func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-release
		fmt.Fprint(w, "<title>Slow but stored</title>")
	})
	e.site.page(h+"/list/", "text/html", `<a class="t" href="/a">x</a>`)
	c := e.crawler(Source{Name: "slow", Kind: "html", URLs: []string{"http://" + h + "/list/"}, LinkSelector: sel("a.t")})
	if _, err := c.Produce(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Consume(ctx) }()
	<-started
	cancel() // SIGTERM while the page is being fetched
	time.Sleep(50 * time.Millisecond)
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Consume = %v", err)
	}
	if _, err := e.article("http://" + h + "/a"); err != nil {
		t.Errorf("in-flight page not stored at shutdown: %v", err)
	}
	st, _ := c.Queue("slow").Stats(context.Background())
	if st.Done != 1 || st.InFlight != 0 || st.Pending != 0 {
		t.Errorf("stats after shutdown = %+v, want the URL done", st)
	}
}

// TestShutdownReleasesWaitingURLs: a URL still waiting for its turn at a
// host (Crawl-delay) when the shutdown grace ends goes back to pending
// without counting an attempt.
func TestShutdownReleasesWaitingURLs(t *testing.T) {
	e := newEnv(t)
	e.opts.RequestTimeout = 200 * time.Millisecond
	const h = "crawldelay.example.test"
	e.site.page(h+"/robots.txt", "text/plain", "User-agent: *\nCrawl-delay: 30\n")
	e.site.page(h+"/list/", "text/html", `<a class="t" href="/a">x</a><a class="t" href="/b">x</a>`)
	e.site.handle(h+"/*", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<title>page</title>") })
	c := e.crawler(Source{Name: "cd", Kind: "html", URLs: []string{"http://" + h + "/list/"}, LinkSelector: sel("a.t")})
	if _, err := c.Queue("cd").Push(context.Background(), "http://"+h+"/a", "http://"+h+"/b"); err != nil {
		t.Fatal(err)
	}
	cctx, ccancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Consume(cctx) }()
	proctest.WaitFor(t, 30*time.Second, "one article", func() bool { return e.site.hitCount(h+"/a")+e.site.hitCount(h+"/b") == 1 })
	ccancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Consume = %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Consume did not stop within the grace")
	}
	st, _ := c.Queue("cd").Stats(context.Background())
	if st.Done != 1 || st.Pending != 1 || st.Delayed != 0 || st.Dead != 0 || st.InFlight != 0 {
		t.Errorf("stats = %+v, want one done and one back in pending", st)
	}
}

func TestHeartbeatKeepsSlowFetchLeased(t *testing.T) {
	e := newEnv(t)
	e.qopts.Lease = time.Second
	e.opts.RequestTimeout = 10 * time.Second
	const h = "lease.example.test"
	e.site.handle(h+"/a", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2500 * time.Millisecond) // 2.5 leases
		fmt.Fprint(w, "<title>Slow</title>")
	})
	e.site.page(h+"/list/", "text/html", `<a class="t" href="/a">x</a>`)
	c := e.crawler(Source{Name: "lease", Kind: "html", URLs: []string{"http://" + h + "/list/"}, LinkSelector: sel("a.t")})
	rep := e.runOnce(c)
	if rep.Sources[0].Created != 1 || rep.Sources[0].Failures() != 0 {
		t.Errorf("consume = %+v", rep.Sources[0])
	}
	if n := e.site.hitCount(h + "/a"); n != 1 {
		t.Errorf("slow page fetched %d times: its lease ran out", n)
	}
}

func TestUnknownSourceAndEmptyConfig(t *testing.T) {
	e := newEnv(t)
	c := e.crawler(htmlSource("only"))
	if _, err := c.Produce(context.Background(), "nope"); !errors.Is(err, ErrUnknownSource) {
		t.Errorf("Produce(nope) = %v, want ErrUnknownSource", err)
	}
	if _, err := c.RunOnce(context.Background(), nil, "nope"); !errors.Is(err, ErrUnknownSource) {
		t.Errorf("RunOnce(nope) = %v, want ErrUnknownSource", err)
	}
	empty := e.crawler()
	if _, err := empty.Produce(context.Background()); !errors.Is(err, ErrNoSources) {
		t.Errorf("Produce with no sources = %v", err)
	}
	bad := htmlSource("bad")
	bad.Groups = []string{"has space"}
	if _, err := New(e.opts, e.qopts, e.rdb, testPrefix, e.store, WithLogger(quietLog())); err != nil {
		t.Fatal(err)
	}
	cfg := e.opts
	cfg.Sources = []Source{bad}
	if _, err := New(cfg, e.qopts, e.rdb, testPrefix, e.store); err == nil || !strings.Contains(err.Error(), "group") {
		t.Errorf("bad group name: %v", err)
	}
}

// TestEmbeddedRedis runs the whole flow on miniredis (newsrank demo).
func TestEmbeddedRedis(t *testing.T) {
	e := newEnv(t)
	client, err := rdb.Open(context.Background(), rdb.DefaultOptions(), quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if !client.Embedded() {
		t.Fatal("default config is not the embedded Redis")
	}
	store, err := news.New(client, client.Prefix, news.DefaultOptions(), news.WithLogger(quietLog()))
	if err != nil {
		t.Fatal(err)
	}
	e.serveArticles(12, time.Now())
	e.serveList(12, 5, true, "")
	e.opts.Sources = []Source{htmlSource("mini")}
	c, err := New(e.opts, e.qopts, client, client.Prefix, store, WithLogger(quietLog()),
		WithTransport(e.site.transport()), WithQueueOptions(queue.WithLogger(quietLog())))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := c.RunOnce(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sources[0]; s.Created != 12 || s.Left.Done != 12 {
		t.Fatalf("consume on miniredis = %+v", s)
	}
	page, err := store.List(ctx, news.ByTime, 1, 25)
	if err != nil || page.Total != 12 || page.Items[0].Title != "Article 0" {
		t.Errorf("list = %+v, %v", page, err)
	}
	// Consume waits (BLPOP on miniredis) and stops on cancel.
	cctx, ccancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Consume(cctx) }()
	time.Sleep(100 * time.Millisecond)
	ccancel()
	if err := <-done; err != nil {
		t.Errorf("Consume on miniredis = %v", err)
	}
}

// TestRedisRestart stops Redis under a running Consume and starts it
// again: the consumers wait, then go on with the work queued after.
func TestRedisRestart(t *testing.T) {
	e, r := newRestartableEnv(t)
	store := e.store
	now := time.Now()
	e.serveArticles(10, now)
	e.serveList(5, 10, false, "")
	c := e.crawler(htmlSource("restart"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Consume(ctx) }()
	stored := func(n int) func() bool {
		return func() bool {
			page, err := store.List(context.Background(), news.ByTime, 1, 25)
			return err == nil && page.Total == n
		}
	}
	if _, err := c.Produce(ctx); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, 30*time.Second, "5 articles", stored(5))

	r.Stop()
	time.Sleep(300 * time.Millisecond) // the consumers meet a dead Redis
	r.Start()
	e.serveList(10, 10, false, "")
	proctest.WaitFor(t, 30*time.Second, "a produce after the restart", func() bool {
		rep, err := c.Produce(ctx)
		return err == nil && rep.Sources[0].Err == nil
	})
	proctest.WaitFor(t, 30*time.Second, "10 articles", stored(10))
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Consume = %v", err)
	}
}
