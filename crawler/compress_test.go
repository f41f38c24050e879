package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gzipBytes compresses b.
func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gzipBomb is a gzip stream (concatenated members, as gzip allows) that
// inflates to about size bytes of one repeated HTML-ish line, from a few
// kilobytes per 8 MiB.
func gzipBomb(t testing.TB, size int64) []byte {
	t.Helper()
	const member = 8 << 20
	one := gzipBytes(t, bytes.Repeat([]byte("<p>bomb</p>\n"), member/12))
	return bytes.Repeat(one, int(max(size/member, 1)))
}

// serveBytes serves body with the given headers.
func serveBytes(body []byte, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}
}

// TestCompressedBodiesBounded fetches gzip bombs announced every way a
// server can announce (or hide) gzip: max_body_size bounds the inflated
// bytes, the fetch fails too_large, and the memory it took stays near the
// limit instead of the bomb's size.
func TestCompressedBodiesBounded(t *testing.T) {
	e := newEnv(t)
	const h = "bomb.example.test"
	// Inflated 32 MiB, compressed about 32 KiB: under max_body_size (64
	// KiB), as it arrives.
	const bombSize = 32 << 20
	bomb := gzipBomb(t, bombSize)
	cases := []struct{ path, contentType, encoding string }{
		{"/page.html", "text/html; x=gzip", ""},
		{"/feed.xml", "application/x-gzip", ""},
		{"/sitemap.xml.gz", "application/xml", ""},
		{"/sitemap2.xml.gz", "application/octet-stream", ""},
		{"/api.json", "application/json; format=gzip", ""},
		{"/x-gzip.html", "text/html", "x-gzip"},
		{"/encoded.html", "text/html", "gzip"},
		{"/hidden.html", "text/html", ""}, // no header says gzip: the magic bytes do
		{"/twice.xml.gz", "application/x-gzip", "gzip"},
	}
	for _, c := range cases {
		body := bomb
		if c.path == "/twice.xml.gz" {
			body = gzipBytes(t, bomb)
		}
		headers := []string{"Content-Type", c.contentType}
		if c.encoding != "" {
			headers = append(headers, "Content-Encoding", c.encoding)
		}
		e.site.handle(h+c.path, serveBytes(body, headers...))
	}
	cr := e.crawler(Source{Name: "bomb", Kind: "html", URLs: []string{"http://" + h + "/"}, LinkSelector: sel("a")})
	for _, c := range cases {
		t.Run(strings.TrimPrefix(c.path, "/"), func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := cr.fetch.fetch(context.Background(), fetchReq{url: "http://" + h + c.path})
			runtime.ReadMemStats(&after)
			var fe *FetchError
			if !errors.As(err, &fe) || fe.Reason != ReasonTooLarge || fe.Retryable {
				t.Fatalf("fetch = %v, want a final %s failure", err, ReasonTooLarge)
			}
			// The body read is at most max_body_size (64 KiB) + 1 byte;
			// the rest is buffers and the request. Inflating the bomb
			// allocates its 32 MiB and more.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Errorf("the fetch allocated %d MiB for a %d KiB limit: the bomb was inflated", alloc>>20, e.opts.MaxBodySize>>10)
			}
		})
	}
}

// TestCompressedBodies crawls gzip-compressed list pages, feeds, sitemaps
// (an index and .xml.gz children), list APIs and articles, announced by
// Content-Encoding, by Content-Type, by a .gz path or by nothing, and a
// body whose header says gzip but is not: each is read as what it holds.
func TestCompressedBodies(t *testing.T) {
	e := newEnv(t)
	const h = "gz.example.test"
	now := time.Now().UTC().Truncate(time.Second)
	gz := func(pattern, contentType, encoding, body string) {
		headers := []string{"Content-Type", contentType}
		if encoding != "" {
			headers = append(headers, "Content-Encoding", encoding)
		}
		e.site.handle(h+pattern, serveBytes(gzipBytes(t, []byte(body)), headers...))
	}
	for i := range 12 {
		page := articleHTML(fmt.Sprintf("Gzipped %d", i), now.Add(-time.Duration(i)*time.Hour), i)
		switch i % 4 {
		case 0:
			gz(fmt.Sprintf("/a/%d.html", i), "text/html; x=gzip", "", page)
		case 1:
			gz(fmt.Sprintf("/a/%d.html", i), "text/html; charset=utf-8", "x-gzip", page)
		case 2:
			gz(fmt.Sprintf("/a/%d.html", i), "text/html; charset=utf-8", "", page)
		case 3:
			e.site.page(h+fmt.Sprintf("/a/%d.html", i), "text/html; x=gzip", page) // says gzip, is not
		}
	}
	link := func(i int) string { return fmt.Sprintf("http://%s/a/%d.html", h, i) }
	gz("/list/", "text/html; x=gzip", "", fmt.Sprintf(`<ul><a class="t" href="%s">0</a><a class="t" href="%s">1</a></ul>`, link(0), link(1)))
	gz("/feed.rss.gz", "application/octet-stream", "", fmt.Sprintf(`<?xml version="1.0"?><rss version="2.0"><channel>
<item><title>Feed 2</title><link>%s</link></item><item><title>Feed 3</title><link>%s</link></item></channel></rss>`, link(2), link(3)))
	e.site.page(h+"/plain-feed.xml", "application/x-gzip", fmt.Sprintf(`<?xml version="1.0"?><rss version="2.0"><channel>
<item><title>Feed 4</title><link>%s</link></item></channel></rss>`, link(4)))
	gz("/sitemap_index.xml", "application/xml", "gzip", fmt.Sprintf(`<?xml version="1.0"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://%[1]s/sm-1.xml.gz</loc></sitemap>
<sitemap><loc>http://%[1]s/sm-2.xml.gz</loc></sitemap></sitemapindex>`, h))
	gz("/sm-1.xml.gz", "application/x-gzip", "", fmt.Sprintf(`<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s</loc></url><url><loc>%s</loc></url></urlset>`, link(5), link(6)))
	// A .xml.gz that was inflated already on its way (colly would gunzip it by its name).
	e.site.page(h+"/sm-2.xml.gz", "application/xml", fmt.Sprintf(`<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s</loc></url></urlset>`, link(7)))
	gz("/api.json", "application/json", "gzip", fmt.Sprintf(`{"items":[{"u":"%s"},{"u":"%s"}]}`, link(8), link(9)))
	gz("/api.js", "application/x-gzip", "", fmt.Sprintf(`cb({"items":[{"u":"%s"},{"u":"%s"},{"u":"%s"}]});`, link(10), link(11), link(3)))
	api := JSONList{ItemsPath: "items", Fields: map[string]string{"url": "u"}}
	c := e.crawler(
		Source{Name: "list", Kind: "html", URLs: []string{"http://" + h + "/list/"}, LinkSelector: sel("a.t")},
		Source{Name: "feed", Kind: "rss", URLs: []string{"http://" + h + "/feed.rss.gz", "http://" + h + "/plain-feed.xml"}},
		Source{Name: "sitemap", Kind: "sitemap", URLs: []string{"http://" + h + "/sitemap_index.xml"}},
		Source{Name: "api", Kind: "json", URLs: []string{"http://" + h + "/api.json"}, JSON: api},
		Source{Name: "jsonp", Kind: "jsonp", URLs: []string{"http://" + h + "/api.js"}, JSON: api},
	)
	rep := e.runOnce(c)
	for _, p := range rep.Produce.Sources {
		if p.Err != nil || p.PageErrors != 0 {
			t.Errorf("source %s: %+v", p.Name, p)
		}
	}
	if tot := rep.Totals(); tot.Created != 12 || tot.Failures() != 0 {
		t.Errorf("totals = %+v, want the 12 articles stored", tot)
	}
	for i := range 12 {
		if a, err := e.article(link(i)); err != nil || a.Title != fmt.Sprintf("Gzipped %d", i) && !strings.HasPrefix(a.Title, "Feed") {
			t.Errorf("article %d: %+v, %v", i, a, err)
		}
	}
}

// TestUndecodableBodies: a corrupt gzip stream and a Content-Encoding
// newsrank did not ask for fail as decode errors, final, not as garbage
// handed to the parsers.
func TestUndecodableBodies(t *testing.T) {
	e := newEnv(t)
	const h = "undecodable.example.test"
	good := gzipBytes(t, []byte("<html><head><title>x</title></head></html>"))
	corrupt := append(append([]byte(nil), good[:12]...), bytes.Repeat([]byte{0xff}, 64)...)
	e.site.handle(h+"/corrupt.html", serveBytes(corrupt, "Content-Type", "text/html", "Content-Encoding", "gzip"))
	e.site.handle(h+"/br.html", serveBytes([]byte("\x1b\x2a\x00"), "Content-Type", "text/html", "Content-Encoding", "br"))
	cr := e.crawler(Source{Name: "undecodable", Kind: "html", URLs: []string{"http://" + h + "/"}, LinkSelector: sel("a")})
	for _, p := range []string{"/corrupt.html", "/br.html"} {
		_, err := cr.fetch.fetch(context.Background(), fetchReq{url: "http://" + h + p})
		var fe *FetchError
		if !errors.As(err, &fe) || fe.Reason != ReasonDecode || fe.Retryable || !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: %v, want a final %s failure", p, err, ReasonDecode)
		}
	}
}
