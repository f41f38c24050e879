package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/redistest"
)

// TestPurgeThenCrawlReadsTheListsAgain: after `queue purge` (which drops
// the done memory) a crawl must find the listed URLs again. The list
// answers 304 to a conditional request; were its validators kept
// across the purge, the second crawl would push nothing.
func TestPurgeThenCrawlReadsTheListsAgain(t *testing.T) {
	var full, notModified atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /list", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full.Add(1)
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a class="s" href="/a">A</a> <a class="s" href="/b">B</a>`)
	})
	for _, p := range []string{"a", "b"} {
		mux.HandleFunc("GET /"+p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><head><title>%s</title><meta property="article:published_time" content="%s"></head><body>x</body></html>`,
				strings.ToUpper(p), time.Now().Add(-time.Hour).UTC().Format(time.RFC3339))
		})
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	r := redistest.Start(t)
	cfg := writeFile(t, "config.yaml", fmt.Sprintf(`
redis: {url: %q}
log: {level: warn}
crawler:
  delay: 0s
  jitter: 0s
  obey_robots: false
  sources: [{name: site, kind: html, urls: [%q], link_selector: a.s}]
`, r.URL(), srv.URL+"/list"))
	crawl := func(what string) crawlJSONOut {
		t.Helper()
		code, out, errOut := runCLI(t, "crawl", "-once", "-json", "-config", cfg, "-progress", "none")
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s", what, code, errOut)
		}
		return parseCrawlJSON(t, out)
	}

	if rep := crawl("first crawl"); rep.Total.Stored != 2 {
		t.Fatalf("first crawl stored %d, want 2: %+v", rep.Total.Stored, rep)
	}
	if rep := crawl("second crawl"); rep.Total.Fetched != 0 || notModified.Load() != 1 {
		t.Fatalf("second crawl: %+v, %d 304s; want nothing fetched and the list answered 304", rep, notModified.Load())
	}
	code, out, errOut := runCLI(t, "queue", "purge", "-yes", "-config", cfg, "-source", "site")
	if code != exitOK || !strings.Contains(out, "site: queue purged") {
		t.Fatalf("purge: exit %d\n%s%s", code, out, errOut)
	}
	before := full.Load()
	rep := crawl("crawl after the purge")
	if full.Load() != before+1 || rep.Total.Found != 2 || rep.Total.Fetched != 2 {
		t.Errorf("crawl after the purge: %+v, the list read in full %d more times; want it read in full and both URLs found and fetched again",
			rep, full.Load()-before)
	}
}
