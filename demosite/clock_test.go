package demosite

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
)

// TestClockPublishes checks that a site with a clock shows an article only
// from its post time on, and answers conditional requests of its listings.
func TestClockPublishes(t *testing.T) {
	start := testNow.Add(-48 * time.Hour)
	clk := clock.NewFake(start)
	s, srv := serve(t, Options{Articles: 300, Now: testNow, Seed: 3, Clock: clk})
	var next ArticleInfo // the first world article posted after start
	for _, a := range s.Articles() {
		if a.Section == "world" && a.PostTime.After(start) {
			next = a
		}
	}
	if next.Path == "" {
		t.Fatal("no world article after the clock's start")
	}
	if r := get(t, srv, next.Path); r.status != http.StatusNotFound {
		t.Fatalf("unpublished article: status %d, want 404", r.status)
	}
	feed := getOK(t, srv, "/world/rss.xml", "application/rss+xml")
	if strings.Contains(string(feed.body), next.Path) {
		t.Fatal("the feed lists an article not published yet")
	}
	etag, mod := feed.header.Get("ETag"), feed.header.Get("Last-Modified")
	if etag == "" || mod == "" {
		t.Fatalf("feed validators: ETag %q, Last-Modified %q", etag, mod)
	}
	cond := func(h, v string) int {
		req, _ := http.NewRequest("GET", srv.URL+"/world/rss.xml", nil)
		req.Header.Set(h, v)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := cond("If-None-Match", etag); st != http.StatusNotModified {
		t.Fatalf("If-None-Match of an unchanged feed: status %d, want 304", st)
	}
	if st := cond("If-Modified-Since", mod); st != http.StatusNotModified {
		t.Fatalf("If-Modified-Since of an unchanged feed: status %d, want 304", st)
	}
	clk.Set(next.PostTime)
	getOK(t, srv, next.Path, "text/html")
	if st := cond("If-None-Match", etag); st != http.StatusOK {
		t.Fatalf("If-None-Match after a new article: status %d, want 200", st)
	}
	if !strings.Contains(string(getOK(t, srv, "/world/rss.xml", "application/rss+xml").body), next.Path) {
		t.Fatal("the feed does not list the article once published")
	}
}
