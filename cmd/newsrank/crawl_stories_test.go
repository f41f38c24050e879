package main

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/internal/coverage"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/termvec"
)

// newestFirstEvents are four events of the labelled coverage set's
// tuning half whose ten reports, read newest first, the ingest splits
// (three stories too many) and publication order groups as labelled.
var newestFirstEvents = []string{"et-005", "et-040", "ew-007", "et-022"}

// TestCrawlOnceStoriesNewestFirst crawls a site whose back pages give
// its reports newest first, one more each crawl -once (-regroup=false),
// then the oldest with the regroup at the crawl's end: the stories end
// as the ingest groups the reports in publication order.
func TestCrawlOnceStoriesNewestFirst(t *testing.T) {
	set := coverage.MustLoad().Split(coverage.Tune)
	var reports []coverage.Article
	for _, i := range set.ByPublished() {
		if a := set.Articles[i]; slices.Contains(newestFirstEvents, a.Event) {
			reports = append(reports, a)
		}
	}
	// posted as they were, the newest an hour ago, shifted by whole weeks
	// (the weekdays the reports write stay theirs)
	week := 7 * 24 * time.Hour
	shift := time.Since(reports[len(reports)-1].Published).Truncate(week)
	post := make([]time.Time, len(reports))
	for i, a := range reports {
		post[i] = a.Published.Add(shift).UTC()
	}
	if time.Since(post[len(post)-1]) < time.Hour {
		for i := range post {
			post[i] = post[i].Add(-week)
		}
	}
	window := time.Since(post[0]) + 48*time.Hour

	var shown atomic.Int64 // how many of the newest the list shows
	mux := http.NewServeMux()
	mux.HandleFunc("GET /list", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><ul>")
		for k := range int(shown.Load()) {
			fmt.Fprintf(w, `<li><a class="article" href="/a/%d.html">report</a></li>`, len(reports)-1-k)
		}
		fmt.Fprint(w, "</ul></body></html>")
	})
	mux.HandleFunc("GET /a/{name}", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(strings.TrimSuffix(r.PathValue("name"), ".html"))
		if err != nil || i < 0 || i >= len(reports) {
			http.NotFound(w, r)
			return
		}
		a := reports[i]
		fmt.Fprintf(w, `<html><head><title>%s</title></head><body><h1>%s</h1><time datetime="%s"></time>
<p class="summary">%s</p><div class="lead"><p>%s</p></div><span class="outlet">%s</span></body></html>`,
			html.EscapeString(a.Title), html.EscapeString(a.Title), post[i].Format(time.RFC3339),
			html.EscapeString(a.Summary), html.EscapeString(a.Lead), html.EscapeString(a.Outlet))
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	s := redistest.Start(t)
	cfg := jobsConfig(t, s.URL(), fmt.Sprintf(`
news:
  rank_by: story
  window: %s
crawler:
  delay: 0s
  jitter: 0s
  obey_robots: false
  sources:
    - name: back
      kind: html
      urls: ["%s/list"]
      link_selector: "a.article"
      max_pages: 1
      extract: {title: "h1", post_time: "time@datetime", summary: "p.summary", lead: "div.lead", source: "span.outlet"}
`, window.Round(time.Hour), site.URL))

	for k := 1; k <= len(reports); k++ {
		shown.Store(int64(k))
		args := []string{"crawl", "-once", "-progress", "none", "-config", cfg}
		if k < len(reports) {
			args = append(args, "-regroup=false")
		}
		code, out, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("crawl %d: exit %d\n%s\n%s", k, code, out, errs)
		}
		if k == len(reports) && !strings.Contains(out, "regroup: ") {
			t.Errorf("the last crawl printed no regroup:\n%s", out)
		}
	}

	// the stories in the store, and those the ingest makes of the reports
	// in publication order and newest first
	c := s.Client()
	got := make([]string, len(reports))
	for i := range reports {
		u := fmt.Sprintf("%s/a/%d.html", site.URL, i)
		id := news.ID(u)
		st, err := c.HGet(t.Context(), newsKey("jt:", "news:"+id), "story").Result()
		if err != nil && st == "" {
			st = id // alone
		}
		got[i] = st
	}
	group := func(order []int) []string {
		e := grouping.NewEngine(grouping.DefaultParams, window, grouping.NewMemFreq(window))
		out := make([]string, len(reports))
		for _, i := range order {
			a := reports[i]
			doc := termvec.NewDoc(a.Title, a.Summary, a.Lead, grouping.DefaultParams.Weights)
			out[i] = e.Add(grouping.Article{ID: strconv.Itoa(i), Time: post[i].Unix(), Doc: doc}).Story
		}
		return out
	}
	order := make([]int, len(reports))
	for i := range order {
		order[i] = len(reports) - 1 - i
	}
	newest := group(order)
	slices.Reverse(order)
	want := group(order)
	t.Logf("stored %v\npublication %v\nnewest first %v", got, want, newest)
	if samePartition(newest, want) {
		t.Fatalf("newest first the ingest groups as in publication order (%v): nothing to mend", want)
	}
	if !samePartition(got, want) {
		t.Errorf("stories after the crawl %v, want the publication order's %v (newest first: %v)", got, want, newest)
	}
}

// samePartition tells whether two labellings group the same items
// together.
func samePartition(a, b []string) bool {
	for i := range a {
		for j := range a {
			if (a[i] == a[j]) != (b[i] == b[j]) {
				return false
			}
		}
	}
	return true
}
