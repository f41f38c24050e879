package crawler

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler/extract"
)

// condList is a list page whose body, ETag and Last-Modified a test
// changes; it answers conditional requests as a server does (304 when
// the validators match), or sends no validators at all.
type condList struct {
	mu           sync.Mutex
	ctype, body  string
	etag         string
	lastModified time.Time
	conditional  int // requests that carried a validator
}

func (l *condList) set(body, etag string, lm time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.body, l.etag, l.lastModified = body, etag, lm
}

func (l *condList) serve(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	body, etag, lm := l.body, l.etag, l.lastModified
	if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
		l.conditional++
	}
	l.mu.Unlock()
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	if !lm.IsZero() {
		w.Header().Set("Last-Modified", lm.UTC().Format(http.TimeFormat))
	}
	switch inm := r.Header.Get("If-None-Match"); {
	case etag != "" && inm == etag,
		etag == "" && !lm.IsZero() && r.Header.Get("If-Modified-Since") == lm.UTC().Format(http.TimeFormat):
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", l.ctype)
	fmt.Fprint(w, body)
}

func links(from, to int) string {
	var b strings.Builder
	b.WriteString(`<ul class="list">`)
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, `<a class="t" href="/a/%d.html">x</a>`, i)
	}
	b.WriteString(`</ul>`)
	return b.String()
}

func produceOne(t *testing.T, c *Crawler) SourceProduce {
	t.Helper()
	rep, err := c.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Sources[0]; p.Err != nil {
		t.Fatalf("produce: %v", p.Err)
	}
	return rep.Sources[0]
}

// An HTML list with an ETag: the second walk gets a 304 on the start
// page, parses nothing and does not read page 2; a new article changes
// the ETag and is queued; the validators are in the crawler's own key.
func TestConditionalGetETag(t *testing.T) {
	e := newEnv(t)
	p1 := &condList{ctype: "text/html"}
	p1.set(links(1, 3)+`<a class="next" href="/list/2">next</a>`, `"v1"`, time.Time{})
	e.site.handle(host+"/list/1", p1.serve)
	e.site.page(host+"/list/2", "text/html", links(4, 5))
	src := Source{Name: "etag", Kind: "html", URLs: []string{"http://" + host + "/list/1"},
		LinkSelector: sel("a.t"), NextSelector: sel("a.next")}
	c := e.crawler(src)

	if p := produceOne(t, c); p.Pages != 2 || p.New != 5 || p.NotModified != 0 || p.Bytes == 0 {
		t.Fatalf("first walk = %+v", p)
	}
	n, err := e.rdb.HLen(context.Background(), testPrefix+"{crawl:etag}:lists").Result()
	if err != nil || n != 2 {
		t.Fatalf("validators kept for %d pages (%v), want 2", n, err)
	}
	if ttl := e.rdb.TTL(context.Background(), testPrefix+"{crawl:etag}:lists").Val(); ttl <= 0 || ttl > ListCacheTTL {
		t.Errorf("validators' TTL = %v", ttl)
	}
	if p := produceOne(t, c); p.Pages != 1 || p.NotModified != 1 || p.Found != 0 || p.Bytes != 0 {
		t.Errorf("unchanged walk = %+v, want one 304 and nothing parsed", p)
	}
	if n := e.site.hitCount(host + "/list/2"); n != 1 {
		t.Errorf("page 2 read %d times, want once: an unchanged start page ends the walk", n)
	}

	p1.set(links(0, 3)+`<a class="next" href="/list/2">next</a>`, `"v2"`, time.Time{})
	// Page 2 is read again (the start page changed) and found as it was.
	if p := produceOne(t, c); p.NotModified != 0 || p.New != 1 || p.Found != 4 || p.Unchanged != 1 {
		t.Errorf("changed walk = %+v, want the new article queued and page 2 unchanged", p)
	}
	if p1.conditional != 2 {
		t.Errorf("%d conditional requests, want 2", p1.conditional)
	}
}

// A feed with Last-Modified only gets If-Modified-Since and a 304.
func TestConditionalGetLastModified(t *testing.T) {
	e := newEnv(t)
	lm := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	feed := &condList{ctype: "application/rss+xml"}
	rss := func(ids ...int) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>F</title>`)
		for _, id := range ids {
			fmt.Fprintf(&b, `<item><title>T%d</title><link>http://%s/a/%d.html</link></item>`, id, feedHost, id)
		}
		b.WriteString(`</channel></rss>`)
		return b.String()
	}
	feed.set(rss(1, 2), "", lm)
	e.site.handle(feedHost+"/rss.xml", feed.serve)
	c := e.crawler(Source{Name: "lm", Kind: "rss", URLs: []string{"http://" + feedHost + "/rss.xml"}})
	if p := produceOne(t, c); p.New != 2 {
		t.Fatalf("first walk = %+v", p)
	}
	if p := produceOne(t, c); p.NotModified != 1 || p.Found != 0 {
		t.Errorf("unchanged walk = %+v, want a 304", p)
	}
	feed.set(rss(3, 1, 2), "", lm.Add(time.Hour))
	if p := produceOne(t, c); p.NotModified != 0 || p.New != 1 {
		t.Errorf("changed walk = %+v, want the new item queued", p)
	}
}

// A list API that sends no validators: the body's hash says it is
// unchanged, and it is not parsed again.
func TestConditionalGetBodyHash(t *testing.T) {
	e := newEnv(t)
	api := &condList{ctype: "application/json"}
	body := func(ids ...int) string {
		var items []string
		for _, id := range ids {
			items = append(items, fmt.Sprintf(`{"u":"http://%s/a/%d.html","t":"A %d"}`, apiHost, id, id))
		}
		return `{"items":[` + strings.Join(items, ",") + `]}`
	}
	api.set(body(1, 2), "", time.Time{})
	e.site.handle(apiHost+"/api", api.serve)
	c := e.crawler(Source{Name: "hash", Kind: "json", URLs: []string{"http://" + apiHost + "/api"},
		JSON: extract.JSONList{ItemsPath: "items", Fields: map[string]string{"url": "u", "title": "t"}}})
	if p := produceOne(t, c); p.New != 2 {
		t.Fatalf("first walk = %+v", p)
	}
	if p := produceOne(t, c); p.Unchanged != 1 || p.NotModified != 0 || p.Found != 0 {
		t.Errorf("unchanged walk = %+v, want the same body recognised", p)
	}
	if api.conditional != 0 {
		t.Errorf("%d conditional requests without validators", api.conditional)
	}
	api.set(body(3, 1, 2), "", time.Time{})
	if p := produceOne(t, c); p.Unchanged != 0 || p.New != 1 {
		t.Errorf("changed walk = %+v, want the new item queued", p)
	}
}

// A sitemap index that answers 304 still has its children read (each
// with its own validators): a child's new URL is not lost.
func TestConditionalGetSitemapIndex(t *testing.T) {
	e := newEnv(t)
	index := &condList{ctype: "application/xml"}
	index.set(fmt.Sprintf(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>http://%s/sm-news.xml</loc></sitemap></sitemapindex>`, feedHost), `"i1"`, time.Time{})
	e.site.handle(feedHost+"/index.xml", index.serve)
	child := &condList{ctype: "application/xml"}
	sm := func(ids ...int) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for _, id := range ids {
			fmt.Fprintf(&b, `<url><loc>http://%s/a/%d.html</loc></url>`, feedHost, id)
		}
		b.WriteString(`</urlset>`)
		return b.String()
	}
	child.set(sm(1), `"c1"`, time.Time{})
	e.site.handle(feedHost+"/sm-news.xml", child.serve)
	c := e.crawler(Source{Name: "sm", Kind: "sitemap", URLs: []string{"http://" + feedHost + "/index.xml"}})
	if p := produceOne(t, c); p.New != 1 || p.Pages != 2 {
		t.Fatalf("first walk = %+v", p)
	}
	if p := produceOne(t, c); p.NotModified != 2 || p.Found != 0 {
		t.Errorf("unchanged walk = %+v, want two 304s", p)
	}
	child.set(sm(2, 1), `"c2"`, time.Time{})
	if p := produceOne(t, c); p.NotModified != 1 || p.New != 1 {
		t.Errorf("walk with a changed child = %+v, want the index's 304 and the child's new URL", p)
	}
}

// A walk with a failed page keeps no validators: the next walk reads
// the start page in full and reaches the page that failed.
func TestConditionalGetAfterFailedPage(t *testing.T) {
	e := newEnv(t)
	p1 := &condList{ctype: "text/html"}
	p1.set(links(1, 2)+`<a class="next" href="/list/2">next</a>`, `"v1"`, time.Time{})
	e.site.handle(host+"/list/1", p1.serve)
	var down sync.Mutex
	fail := true
	e.site.handle(host+"/list/2", func(w http.ResponseWriter, r *http.Request) {
		down.Lock()
		defer down.Unlock()
		if fail {
			http.Error(w, "down", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, links(3, 4))
	})
	c := e.crawler(Source{Name: "flaky", Kind: "html", URLs: []string{"http://" + host + "/list/1"},
		LinkSelector: sel("a.t"), NextSelector: sel("a.next")})
	if p := produceOne(t, c); p.New != 2 || p.PageErrors != 1 {
		t.Fatalf("first walk = %+v", p)
	}
	down.Lock()
	fail = false
	down.Unlock()
	if p := produceOne(t, c); p.NotModified != 0 || p.New != 2 {
		t.Errorf("walk after the failure = %+v, want the start page in full and page 2's URLs", p)
	}
	if p := produceOne(t, c); p.NotModified != 1 || p.Found != 0 {
		t.Errorf("third walk = %+v, want a 304", p)
	}
}

// The validators of list pages not answered within ListCacheTTL are
// deleted when a walk saves its own, and so are unreadable ones: the
// HASH does not grow with every list URL a source ever had (a sitemap
// a day, pages that shift).
func TestListValidatorsExpire(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p1 := &condList{ctype: "text/html"}
	p1.set(links(1, 3), `"v1"`, time.Time{})
	e.site.handle(host+"/list/1", p1.serve)
	c := e.crawler(Source{Name: "aging", Kind: "html", URLs: []string{"http://" + host + "/list/1"},
		LinkSelector: sel("a.t")})
	key := testPrefix + "{crawl:aging}:lists"
	now := time.Now()
	old := func(age time.Duration) string {
		return fmt.Sprintf(`{"e":"\"x\"","t":%d}`, now.Add(-age).Unix())
	}
	e.rdb.HSet(ctx, key,
		"http://"+host+"/sitemap-day-1.xml", old(ListCacheTTL+time.Hour), // expired
		"http://"+host+"/list/9", old(ListCacheTTL-time.Hour), // not yet
		"http://"+host+"/list/bad", "{not json")

	if p := produceOne(t, c); p.New != 3 {
		t.Fatalf("walk = %+v, want 3 new", p)
	}
	got, err := e.rdb.HKeys(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"http://" + host + "/list/1", "http://" + host + "/list/9"}
	if !slices.Equal(got, want) {
		t.Errorf("validators kept for %q, want %q (the expired and the unreadable deleted)", got, want)
	}
}
