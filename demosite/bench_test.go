package demosite

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// BenchmarkServe renders every page a crawl of a 5,000-article site reads
// (list pages, feeds, sitemaps, API pages and article pages) in-process.
// The site must be much cheaper than any crawler so that the crawl
// benchmark (bench/crawl) measures the crawler: target >= 3,000 pages/s
// on one core, against ~165 pages/s for Scrapy and the 3× that newsrank
// must reach.
func BenchmarkServe(b *testing.B) {
	const base = "http://demo.test"
	s := New(Options{Articles: 5000, Now: testNow, Seed: 1})
	var paths []string
	for _, sec := range s.sections {
		for p := 1; p <= sec.pages; p++ {
			paths = append(paths, sec.listPath(p))
		}
	}
	paths = append(paths, "/world/rss.xml", "/sports/atom.xml", "/finance/sitemap_index.xml")
	for _, sm := range s.smIndex {
		paths = append(paths, sm.path)
	}
	for off := 0; off < len(s.byID["news"].public); off += apiPageSize {
		paths = append(paths, "/api/list/news/"+strconv.Itoa(off)+"-20.html?callback=artiList")
	}
	for _, a := range s.Articles() {
		paths = append(paths, a.Path)
	}
	b.Logf("target: >= 3000 pages/s on one core; %d pages per run", len(paths))
	b.ResetTimer()
	var bytes int64
	start := time.Now()
	for range b.N {
		for _, p := range paths {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, base+p, nil))
			if rec.Code != http.StatusOK {
				b.Fatalf("%s: status %d", p, rec.Code)
			}
			bytes += int64(rec.Body.Len())
		}
	}
	el := time.Since(start).Seconds()
	pages := float64(b.N * len(paths))
	b.ReportMetric(pages/el, "pages/s")
	b.ReportMetric(float64(bytes)/pages, "bytes/page")
}
