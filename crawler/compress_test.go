package crawler

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler/extract"
)

// TestCompressedBodies crawls gzip-compressed list pages, feeds, sitemaps
// (an index and .xml.gz children), list APIs and articles, announced by
// Content-Encoding, by Content-Type, by a .gz path or by nothing, and a
// body whose header says gzip but is not: each is read as what it holds.
func TestCompressedBodies(t *testing.T) {
	e := newEnv(t)
	const h = "gz.example.test"
	now := time.Now().UTC().Truncate(time.Second)
	// gz serves body gzipped, with its Content-Type and Content-Encoding
	// ("": none).
	gz := func(pattern, contentType, encoding, body string) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := io.WriteString(zw, body); err != nil || zw.Close() != nil {
			t.Fatal("gzip failed")
		}
		e.site.handle(h+pattern, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			if encoding != "" {
				w.Header().Set("Content-Encoding", encoding)
			}
			w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
			w.Write(buf.Bytes())
		})
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
	api := extract.JSONList{ItemsPath: "items", Fields: map[string]string{"url": "u"}}
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
