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

// refreshCounter is a news.Store that counts the Refresh calls that carry
// comment counts.
type refreshCounter struct {
	*news.Store
	calls atomic.Int32
}

func (s *refreshCounter) Refresh(ctx context.Context, es []news.Engagement) (int, error) {
	if len(es) > 0 {
		s.calls.Add(1)
	}
	return s.Store.Refresh(ctx, es)
}

// TestRefreshSkipsNewURLs: a list page whose every URL is new to the queue
// hands no comment counts to the store (its pages are fetched, and their
// articles get the counts then), even when the queue forgot URLs whose
// articles are stored; a page with URLs the queue knows does, without
// fetching them.
func TestRefreshSkipsNewURLs(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	now := time.Now().UTC().Truncate(time.Second)
	var counts atomic.Pointer[[3]int64]
	counts.Store(&[3]int64{5, 8, 13})
	e.site.handle(engageHost+"/list*", func(w http.ResponseWriter, r *http.Request) {
		var items []string
		for i, n := range counts.Load() {
			items = append(items, fmt.Sprintf(`{"url":"http://%s/n/%d.html","title":"Item %d","ptime":%q,"replyCount":%d}`,
				engageHost, i, i, now.Add(-time.Hour).Format(time.RFC3339), n))
		}
		w.Header().Set("Content-Type", "application/javascript")
		fmt.Fprintf(w, `artiList({"items":[%s]});`, strings.Join(items, ","))
	})
	e.site.handle(engageHost+"/n/*", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>Page %s</title></head><body><article><p>Body.</p></article></body></html>`, r.URL.Path)
	})
	e.opts.Sources = []Source{{Name: "engage", Kind: "jsonp", URLs: []string{"http://" + engageHost + "/list"},
		JSON: extract.JSONList{ItemsPath: "items",
			Fields: map[string]string{"url": "url", "title": "title", "post_time": "ptime", "comments": "replyCount"}}}}
	store := &refreshCounter{Store: e.store}
	c, err := New(e.opts, e.qopts, e.rdb, testPrefix, store, WithLogger(quietLog()),
		WithTransport(e.site.transport()), WithQueueOptions(queue.WithLogger(quietLog())))
	if err != nil {
		t.Fatal(err)
	}
	check := func(round string, want [3]int64, hits int) {
		t.Helper()
		for i, n := range want {
			u := fmt.Sprintf("http://%s/n/%d.html", engageHost, i)
			it, err := e.store.Get(ctx, news.ID(u))
			if err != nil || it.Comments != n {
				t.Errorf("%s: item %d: %+v, %v; want %d comments", round, i, it, err, n)
			}
			if h := e.site.hitCount(fmt.Sprintf("%s/n/%d.html", engageHost, i)); h != hits {
				t.Errorf("%s: item %d fetched %d times, want %d", round, i, h, hits)
			}
		}
	}

	rep, err := c.RunOnce(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sources[0]; s.Created != 3 || store.calls.Load() != 0 {
		t.Fatalf("first crawl: %+v, %d refresh calls; want 3 created, no refresh", s, store.calls.Load())
	}
	check("first crawl", [3]int64{5, 8, 13}, 1)

	// The queue forgets its URLs (as when its done memory outlives its
	// retention before the articles leave the window): the next crawl
	// finds them all new, fetches them again, and that stores the counts.
	iter := e.rdb.Scan(ctx, 0, testPrefix+"{q:engage}*", 100).Iterator()
	for iter.Next(ctx) {
		if err := e.rdb.Del(ctx, iter.Val()).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	counts.Store(&[3]int64{50, 80, 130})
	rep, err = c.RunOnce(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sources[0]; s.Updated != 3 || store.calls.Load() != 0 {
		t.Fatalf("crawl of forgotten URLs: %+v, %d refresh calls; want 3 updated by their fetch, no refresh", s, store.calls.Load())
	}
	check("crawl of forgotten URLs", [3]int64{50, 80, 130}, 2)

	// Known URLs: the refresh is their update; no page is fetched.
	counts.Store(&[3]int64{51, 81, 131})
	rep, err = c.RunOnce(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sources[0]; s.Fetched != 0 || store.calls.Load() != 1 || rep.Produce.Refreshed() != 3 {
		t.Fatalf("crawl of known URLs: %+v, %d refresh calls, %d refreshed; want no fetch, 1 call, 3 refreshed",
			s, store.calls.Load(), rep.Produce.Refreshed())
	}
	check("crawl of known URLs", [3]int64{51, 81, 131}, 2)
}
