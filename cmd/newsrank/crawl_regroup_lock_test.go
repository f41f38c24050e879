package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/redistest"
)

// TestCrawlOnceRegroupLocked: another process holds the regroup job's
// lock while crawl -once ends: the crawl says so, exits 0 and leaves the
// stories as they are; the next crawl -once that stores an article
// regroups them (the split story joined).
func TestCrawlOnceRegroupLocked(t *testing.T) {
	var shown atomic.Int64
	post := time.Now().Add(-time.Hour).UTC()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /list", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><ul>")
		for k := range int(shown.Load()) {
			fmt.Fprintf(w, `<li><a class="article" href="/a/%d.html">report</a></li>`, k)
		}
		fmt.Fprint(w, "</ul></body></html>")
	})
	mux.HandleFunc("GET /a/{name}", func(w http.ResponseWriter, r *http.Request) {
		n := strings.TrimSuffix(r.PathValue("name"), ".html")
		fmt.Fprintf(w, `<html><head><title>Match %s</title></head><body><h1>Colo-Colo win league match %s in Santiago</h1>
<time datetime="%s"></time><p class="summary">A late goal decided match %s in front of a full stadium.</p>
<div class="lead"><p>The striker headed in a corner in the 93rd minute.</p></div><span class="outlet">Sport</span></body></html>`,
			n, n, post.Format(time.RFC3339), n)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	s := redistest.Start(t)
	c := s.Client()
	ctx := context.Background()
	lead, copyLead := seedSplitStory(t, s)
	cfg := jobsConfig(t, s.URL(), fmt.Sprintf(`
news:
  rank_by: story
crawler:
  delay: 0s
  jitter: 0s
  obey_robots: false
  sources:
    - name: sport
      kind: html
      urls: ["%s/list"]
      link_selector: "a.article"
      max_pages: 1
      extract: {title: "h1", post_time: "time@datetime", summary: "p.summary", lead: "div.lead", source: "span.outlet"}
`, site.URL))

	lock := "jt:{jobs}:lock:regroup"
	c.Set(ctx, lock, `{"token":"x","holder":"other-host/99","since":"2024-01-01T00:00:00Z"}`, time.Minute)
	shown.Store(1)
	code, out, errs := runCLI(t, "crawl", "-once", "-progress", "none", "-config", cfg)
	if code != 0 || !strings.Contains(out, "regroup: another regroup is running") {
		t.Fatalf("crawl -once while locked: exit %d\n%s\n%s", code, out, errs)
	}
	if n := c.Exists(ctx, newsKey("jt:", "news:"+copyLead)).Val(); n != 1 || c.HGet(ctx, newsKey("jt:", "news:"+copyLead), "story").Val() != "" {
		t.Fatalf("the copy's story changed while another run held the lock")
	}
	if got := c.Get(ctx, lock).Val(); !strings.Contains(got, "other-host/99") {
		t.Fatalf("the lock is %q, want the other holder's", got)
	}

	c.Del(ctx, lock)
	shown.Store(2)
	code, out, errs = runCLI(t, "crawl", "-once", "-progress", "none", "-config", cfg)
	if code != 0 || !strings.Contains(out, "1 joined") {
		t.Fatalf("crawl -once: exit %d\n%s\n%s", code, out, errs)
	}
	if got := c.HGet(ctx, newsKey("jt:", "news:"+copyLead), "story").Val(); got != lead {
		t.Errorf("the copy's story is %q after the regroup, want %s", got, lead)
	}
}
