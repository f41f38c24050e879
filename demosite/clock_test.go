package demosite

import (
	"io"
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

// TestFeedItems checks that Options.FeedItems cuts the feeds to their
// newest entries, and that without it they carry every article.
func TestFeedItems(t *testing.T) {
	for _, n := range []int{0, 5} {
		s, srv := serve(t, Options{Articles: 300, Now: testNow, Seed: 3, FeedItems: n})
		want := 0
		for _, a := range s.Articles() {
			if a.Section == "world" {
				want++
			}
		}
		if n > 0 {
			want = n
		}
		feed := getOK(t, srv, "/world/rss.xml", "application/rss+xml")
		if got := strings.Count(string(feed.body), "<item>"); got != want {
			t.Errorf("FeedItems %d: the RSS feed has %d items, want %d", n, got, want)
		}
		atom := getOK(t, srv, "/sports/atom.xml", "application/atom+xml")
		if n > 0 && strings.Count(string(atom.body), "<entry>") != n {
			t.Errorf("FeedItems %d: the Atom feed has %d entries", n, strings.Count(string(atom.body), "<entry>"))
		}
	}
}

// TestTextServedAsFiles checks that feeds and sitemaps take byte ranges
// as a static file server does: Accept-Ranges, a Range answered 206 with
// those bytes, and If-Range that does not match the ETag answered whole.
func TestTextServedAsFiles(t *testing.T) {
	_, srv := serve(t, Options{Articles: 300, Now: testNow, Seed: 3, Clock: clock.NewFake(testNow)})
	for _, path := range []string{"/world/rss.xml", "/sports/atom.xml", "/robots.txt"} {
		whole := get(t, srv, path)
		if whole.status != http.StatusOK || whole.header.Get("Accept-Ranges") != "bytes" {
			t.Fatalf("%s: status %d, Accept-Ranges %q", path, whole.status, whole.header.Get("Accept-Ranges"))
		}
		ranged := func(h ...string) (int, string) {
			req, _ := http.NewRequest("GET", srv.URL+path, nil)
			for i := 0; i < len(h); i += 2 {
				req.Header.Set(h[i], h[i+1])
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if st, b := ranged("Range", "bytes=0-19"); st != http.StatusPartialContent || b != string(whole.body[:20]) {
			t.Errorf("%s: Range bytes=0-19: %d %q", path, st, b)
		}
		if etag := whole.header.Get("ETag"); etag != "" {
			if st, b := ranged("Range", "bytes=20-", "If-Range", etag); st != http.StatusPartialContent || b != string(whole.body[20:]) {
				t.Errorf("%s: Range bytes=20- If-Range its ETag: %d, %d bytes", path, st, len(b))
			}
			if st, b := ranged("Range", "bytes=20-", "If-Range", `"other"`); st != http.StatusOK || b != string(whole.body) {
				t.Errorf("%s: Range with If-Range of another ETag: %d, %d bytes; want 200 whole", path, st, len(b))
			}
			if st, _ := ranged("Range", "bytes=0-19", "If-None-Match", etag); st != http.StatusNotModified {
				t.Errorf("%s: Range with If-None-Match of its ETag: %d, want 304", path, st)
			}
		}
	}
}
