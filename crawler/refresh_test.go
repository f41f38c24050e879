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

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

const engageHost = "engage.example.test"

// TestProduceRefreshesEngagement: a list read again with higher (and
// lower) comment counts refreshes the stored articles' comments, votes
// and scores without fetching their pages; a URL not stored yet is only
// queued; an article older than the window is left alone.
func TestProduceRefreshesEngagement(t *testing.T) {
	for _, tt := range []struct {
		name, kind string
		embedded   bool
	}{
		{"jsonp", "jsonp", false},
		{"rss", "rss", false},
		{"jsonp-miniredis", "jsonp", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			var client redis.UniversalClient = e.rdb
			prefix := testPrefix
			if tt.embedded {
				c, err := rdb.Open(context.Background(), rdb.DefaultOptions(), quietLog())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				if !c.Embedded() {
					t.Fatal("default config is not the embedded Redis")
				}
				client, prefix = c, c.Prefix
			}
			refreshScenario(t, e, client, prefix, tt.kind)
		})
	}
}

func refreshScenario(t *testing.T, e *env, client redis.UniversalClient, prefix, kind string) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	fc := clock.NewFake(now) // the store's clock: the window moves when the test says
	store, err := news.New(client, prefix, news.DefaultOptions(), news.WithClock(fc), news.WithLogger(quietLog()))
	if err != nil {
		t.Fatal(err)
	}

	// Items 0-3 are hours old; item 4 leaves the window between the
	// crawls; item 9 appears in the second list only.
	post := map[int]time.Time{4: now.Add(-7*24*time.Hour + time.Hour)}
	for i := range 4 {
		post[i] = now.Add(-time.Duration(i+1) * time.Hour)
	}
	post[9] = now.Add(-30 * time.Minute)
	first := map[int]int64{0: 5, 1: 8, 2: 13, 3: 21, 4: 7}
	second := map[int]int64{0: 50, 1: 9, 2: 2, 3: 21, 4: 70, 9: 4} // 2: lower; 3: same
	var round atomic.Int32
	round.Store(1)
	counts := func() map[int]int64 {
		if round.Load() == 1 {
			return first
		}
		return second
	}
	e.site.handle(engageHost+"/list*", func(w http.ResponseWriter, r *http.Request) {
		cs := counts()
		var b strings.Builder
		for _, i := range []int{0, 1, 2, 3, 4, 9} {
			n, ok := cs[i]
			if !ok {
				continue
			}
			u := fmt.Sprintf("http://%s/n/%d.html", engageHost, i)
			if kind == "rss" {
				fmt.Fprintf(&b, "<item><title>Item %d</title><link>%s</link><pubDate>%s</pubDate><slash:comments>%d</slash:comments></item>\n",
					i, u, post[i].Format(time.RFC1123Z), n)
				continue
			}
			if b.Len() > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"url":%q,"title":"Item %d","ptime":%q,"replyCount":%d}`, u, i, post[i].Format(time.RFC3339), n)
		}
		if kind == "rss" {
			w.Header().Set("Content-Type", "application/rss+xml")
			fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0" xmlns:slash="http://purl.org/rss/1.0/modules/slash/"><channel>%s</channel></rss>`, b.String())
			return
		}
		w.Header().Set("Content-Type", "application/javascript")
		fmt.Fprintf(w, `artiList({"items":[%s]});`, b.String())
	})
	// The article pages carry no comment count: only the lists do. Page 2
	// declares another canonical URL, so it is stored under that one.
	e.site.handle(engageHost+"/n/*", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		canonical := ""
		if r.URL.Path == "/n/2.html" {
			canonical = `<link rel="canonical" href="http://` + engageHost + `/story/2">`
		}
		fmt.Fprintf(w, `<html><head><title>Page %s</title>%s</head><body><article><p>Body.</p></article></body></html>`, r.URL.Path, canonical)
	})
	src := Source{Name: "engage", Kind: kind, URLs: []string{"http://" + engageHost + "/list"}}
	if kind == "jsonp" {
		src.JSON = extract.JSONList{ItemsPath: "items",
			Fields: map[string]string{"url": "url", "title": "title", "post_time": "ptime", "comments": "replyCount"}}
	}
	e.opts.Sources = []Source{src}
	c, err := New(e.opts, e.qopts, client, prefix, store, WithLogger(quietLog()),
		WithTransport(e.site.transport()), WithQueueOptions(queue.WithLogger(quietLog())))
	if err != nil {
		t.Fatal(err)
	}
	urlOf := func(i int) string { // the URL an article is stored under
		if i == 2 {
			return "http://" + engageHost + "/story/2"
		}
		return fmt.Sprintf("http://%s/n/%d.html", engageHost, i)
	}
	get := func(i int) (news.Item, error) { return store.Get(ctx, news.ID(urlOf(i))) }
	hits := func(i int) int { return e.site.hitCount(fmt.Sprintf("%s/n/%d.html", engageHost, i)) }

	ctx60, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	rep, err := c.RunOnce(ctx60, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sources[0]; s.Created != 5 || rep.Produce.Refreshed() != 0 {
		t.Fatalf("first crawl: %+v, refreshed %d; want 5 created, none refreshed", s, rep.Produce.Refreshed())
	}
	before := map[int]news.Item{}
	for i := range 5 {
		it, err := get(i)
		if err != nil || it.Comments != first[i] || hits(i) != 1 {
			t.Fatalf("item %d after the first crawl: %+v, %v, %d page fetches", i, it, err, hits(i))
		}
		before[i] = it
	}

	// Six hours later the list carries other counts.
	fc.Advance(6 * time.Hour)
	round.Store(2)
	prep, err := c.Produce(ctx60)
	if err != nil {
		t.Fatal(err)
	}
	if p := prep.Sources[0]; p.Refreshed != 3 || prep.Refreshed() != 3 || p.New != 1 || p.Err != nil {
		t.Fatalf("second produce = %+v: want 3 refreshed (0, 1, 2 through its alias), 1 new URL (9)", p)
	}
	for i := range 3 {
		it, err := get(i)
		want := float64(post[i].Unix()) + 432*float64(second[i])
		if err != nil || it.Comments != second[i] || it.Votes != float64(second[i]) || it.Score != want {
			t.Errorf("item %d after the refresh: %+v, %v; want %d comments and votes, score %v", i, it, err, second[i], want)
		}
		if !it.PostTime.Equal(post[i]) {
			t.Errorf("item %d post time %v, want %v", i, it.PostTime, post[i])
		}
	}
	for _, i := range []int{3, 4} { // count unchanged; outside the window
		if it, err := get(i); err != nil || it.Comments != before[i].Comments || it.Score != before[i].Score || it.Votes != before[i].Votes {
			t.Errorf("item %d: %+v, %v; want it untouched: %+v", i, it, err, before[i])
		}
	}
	if it, err := get(9); !errors.Is(err, news.ErrNotFound) {
		t.Errorf("item 9 (not stored yet) after produce: %+v, %v; want ErrNotFound: refresh never creates", it, err)
	}
	for i := range 5 {
		if n := hits(i); n != 1 {
			t.Errorf("item %d: page fetched %d times, want once (the refresh needs no page)", i, n)
		}
	}
	page, err := store.List(ctx, news.ByScore, 1, 10)
	if err != nil || page.Total != 5 || page.Items[0].ID != news.ID(urlOf(0)) {
		t.Errorf("ranking after the refresh: %+v, %v; want item 0 first of 5", page, err)
	}

	// The new URL goes through the queue as before; the known ones stay
	// done (the refresh was their update).
	rep, err = c.RunOnce(ctx60, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sources[0]; s.Created != 1 || s.Fetched != 1 || rep.Produce.Refreshed() != 0 {
		t.Fatalf("third crawl: %+v, refreshed %d; want item 9 fetched and created, nothing refreshed", s, rep.Produce.Refreshed())
	}
	if it, err := get(9); err != nil || it.Comments != 4 {
		t.Errorf("item 9 after its crawl: %+v, %v", it, err)
	}
}
