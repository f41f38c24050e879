package news

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/rdb"
)

// TestRefresh: a list's comment counts refresh stored articles in the
// window and rescore them as a re-crawl would; nothing else is touched.
func TestRefresh(t *testing.T) {
	e := newEnv(t, nil)
	k := e.s.keys
	fresh := e.ingest(t, article(1, t0.Add(-2*time.Hour), 10))
	same := e.ingest(t, article(2, t0.Add(-3*time.Hour), 5))
	old := e.ingest(t, article(3, t0.Add(-week+time.Hour), 7)) // leaves the window in an hour
	if _, err := e.s.Vote(e.ctx, "u", fresh.ID, Up); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(2 * time.Hour)
	oldScore := e.zscore(t, k.Score(), old.ID)
	sameScore := e.zscore(t, k.Score(), same.ID)

	unknown := article(9, t0, 0).URL
	n, err := e.s.Refresh(e.ctx, []Engagement{
		{URL: article(1, t0, 0).URL, Comments: 30},
		{URL: article(2, t0, 0).URL, Comments: 5},  // unchanged
		{URL: article(3, t0, 0).URL, Comments: 70}, // outside the window
		{URL: unknown, Comments: 99},               // never stored
	})
	if err != nil || n != 1 {
		t.Fatalf("Refresh = %d, %v; want 1 refreshed", n, err)
	}
	post := float64(t0.Add(-2 * time.Hour).Unix())
	it := e.get(t, fresh.ID)
	if it.Comments != 30 || it.Up != 1 || it.Votes != 31 || it.Score != post+432*31 {
		t.Fatalf("refreshed article %+v: want 30 comments, the up-vote kept, 31 votes, score %v", it, post+432*31)
	}
	if got := e.zscore(t, k.Votes(), fresh.ID); got != 31 {
		t.Fatalf("votes: %v, want 31", got)
	}
	if !it.CrawlTime.Equal(t0.Add(-2*time.Hour + time.Minute)) {
		t.Fatalf("crawl time %v changed by a refresh (no page was fetched)", it.CrawlTime)
	}
	if got := e.zscore(t, k.Score(), same.ID); got != sameScore {
		t.Fatalf("unchanged count rescored: %v → %v", sameScore, got)
	}
	if it := e.get(t, old.ID); it.Comments != 7 || e.zscore(t, k.Score(), old.ID) != oldScore {
		t.Fatalf("article outside the window touched: %+v", it)
	}
	id := ID(unknown)
	if n := e.c.Exists(e.ctx, k.Article(id)).Val(); n != 0 {
		t.Fatal("Refresh created an unknown article's hash")
	}
	for _, key := range []string{k.Time(), k.Votes(), k.Score()} {
		if err := e.c.ZScore(e.ctx, key, id).Err(); !errors.Is(err, redis.Nil) {
			t.Fatalf("Refresh added an unknown article to %s: %v", key, err)
		}
	}

	// A re-ingest with the same count agrees with the refresh and changes
	// nothing; a refresh with the same count again is a no-op.
	again := article(1, t0.Add(-2*time.Hour), 30)
	if r := e.ingest(t, again); r.Votes != 31 || r.Score != it.Score {
		t.Fatalf("re-ingest after the refresh: %+v, want votes 31 score %v", r, it.Score)
	}
	if n, err := e.s.Refresh(e.ctx, []Engagement{{URL: again.URL, Comments: 30}}); err != nil || n != 0 {
		t.Fatalf("Refresh with the stored count = %d, %v; want 0", n, err)
	}
	// A lower count is applied (as a re-crawl applies it); 0 means "not
	// known" and keeps the stored count.
	if n, err := e.s.Refresh(e.ctx, []Engagement{{URL: again.URL, Comments: 12}}); err != nil || n != 1 {
		t.Fatalf("Refresh with a lower count = %d, %v; want 1", n, err)
	}
	if n, err := e.s.Refresh(e.ctx, []Engagement{{URL: again.URL, Comments: 0}}); err != nil || n != 0 {
		t.Fatalf("Refresh with 0 comments = %d, %v; want 0", n, err)
	}
	if it := e.get(t, fresh.ID); it.Comments != 12 || it.Votes != 13 || it.Score != post+432*13 {
		t.Fatalf("after a lower count and a 0: %+v, want 12 comments, 13 votes", it)
	}
	// The same URL twice in a batch: the last count wins.
	if n, err := e.s.Refresh(e.ctx, []Engagement{{URL: again.URL, Comments: 50}, {URL: again.URL, Comments: 40}}); err != nil || n != 1 {
		t.Fatalf("Refresh of one URL twice = %d, %v; want 1", n, err)
	}
	if it := e.get(t, fresh.ID); it.Comments != 40 {
		t.Fatalf("comments %d, want the last count 40", it.Comments)
	}
}

// TestRefreshEveryFormula: the refreshed score is each formula's value at
// the refresh time, computed independently.
func TestRefreshEveryFormula(t *testing.T) {
	for _, name := range []string{"linear", "hot", "gravity"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, func(c *Options) { c.Formula = name })
			a := article(1, t0.Add(-5*time.Hour), 3)
			r := e.ingest(t, a)
			if _, err := e.s.Vote(e.ctx, "critic", r.ID, Down); err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(3 * time.Hour)
			if n, err := e.s.Refresh(e.ctx, []Engagement{{URL: a.URL, Comments: 200}}); err != nil || n != 1 {
				t.Fatalf("Refresh = %d, %v", n, err)
			}
			want := expected(name, a.PostTime.Unix(), e.clock.Now().Unix(), 199)
			it := e.get(t, r.ID)
			if it.Votes != 199 || !near(it.Score, want) {
				t.Fatalf("after refresh: votes %v score %v, want 199 and %v", it.Votes, it.Score, want)
			}
		})
	}
}

// TestRefreshBadInputAndChunks: bad entries are reported and skipped, the
// valid ones applied; a batch over RefreshChunk is sent in several calls.
func TestRefreshBadInputAndChunks(t *testing.T) {
	e := newEnv(t, nil)
	var batch []Article
	var es []Engagement
	for i := range 2*RefreshChunk + 7 {
		a := article(i, t0.Add(-time.Hour), 1)
		batch = append(batch, a)
		es = append(es, Engagement{URL: a.URL, Comments: int64(i + 2)})
	}
	if _, err := e.s.IngestBatch(e.ctx, batch); err != nil {
		t.Fatal(err)
	}
	if err := e.c.ScriptFlush(e.ctx).Err(); err != nil { // as after a Redis restart
		t.Fatal(err)
	}
	es = append(es, Engagement{URL: "not a url", Comments: 3}, Engagement{URL: batch[0].URL + "?x", Comments: -1})
	n, err := e.s.Refresh(e.ctx, es)
	if !errors.Is(err, ErrBadInput) || n != len(batch) {
		t.Fatalf("Refresh = %d, %v; want %d refreshed and an ErrBadInput", n, err, len(batch))
	}
	for i, a := range batch {
		if it := e.get(t, ID(a.URL)); it.Comments != int64(i+2) || it.Score != float64(a.PostTime.Unix())+432*float64(i+2) {
			t.Fatalf("article %d: %+v, want %d comments", i, it, i+2)
		}
	}
}

// TestRefreshIDCollision: a hash that holds another URL is left alone.
func TestRefreshIDCollision(t *testing.T) {
	e := newEnv(t, nil)
	a := article(1, t0, 5)
	id := ID(a.URL)
	if err := e.c.HSet(e.ctx, e.s.keys.Article(id), "url", "https://other.example/", "title", "Other",
		"time", t0.Unix(), "comments", 1).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := e.s.Refresh(e.ctx, []Engagement{{URL: a.URL, Comments: 8}}); err != nil || n != 0 {
		t.Fatalf("Refresh on a collision = %d, %v; want 0", n, err)
	}
	if it := e.get(t, id); it.Comments != 1 {
		t.Fatalf("collision changed the stored article: %+v", it)
	}
}

// TestRefreshOnMiniredis: the refresh script runs on the embedded Redis
// (gopher-lua) with the same results.
func TestRefreshOnMiniredis(t *testing.T) {
	ctx := context.Background()
	c, err := rdb.Open(ctx, rdb.DefaultOptions(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fc := clock.NewFake(t0)
	s, err := New(c, c.Prefix, DefaultOptions(), WithClock(fc))
	if err != nil {
		t.Fatal(err)
	}
	var batch []Article
	for i := range 5 {
		batch = append(batch, article(i, t0.Add(-time.Duration(i)*time.Hour), 2))
	}
	batch[1].Aliases = []string{"https://m.example.com/1"} // refreshed through its alias
	old := article(7, t0.Add(-week+time.Minute), 4)
	if _, err := s.IngestBatch(ctx, append(batch, old)); err != nil {
		t.Fatal(err)
	}
	fc.Advance(time.Hour)
	es := []Engagement{{URL: old.URL, Comments: 40}, {URL: "https://news.example.com/unknown", Comments: 3}}
	for i, a := range batch {
		u := a.URL
		if len(a.Aliases) > 0 {
			u = a.Aliases[0]
		}
		es = append(es, Engagement{URL: u, Comments: int64(2 + i)}) // the first one unchanged
	}
	n, err := s.Refresh(ctx, es)
	if err != nil || n != len(batch)-1 {
		t.Fatalf("Refresh = %d, %v; want %d", n, err, len(batch)-1)
	}
	for i, a := range batch {
		it, err := s.Get(ctx, ID(a.URL))
		want := float64(a.PostTime.Unix()) + 432*float64(2+i)
		if err != nil || it.Comments != int64(2+i) || it.Score != want {
			t.Fatalf("article %d: %+v, %v; want %d comments, score %v", i, it, err, 2+i, want)
		}
	}
	if it, err := s.Get(ctx, ID(old.URL)); err != nil || it.Comments != 4 {
		t.Fatalf("article outside the window: %+v, %v; want it untouched", it, err)
	}
	if _, err := s.Get(ctx, ID("https://news.example.com/unknown")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown article: %v, want ErrNotFound", err)
	}
}

// TestRefreshFollowsAliases: an article stored under another URL than the
// list's (a declared canonical URL) is refreshed through its alias; an
// alias never creates an article, and an unknown URL without one is left
// alone.
func TestRefreshFollowsAliases(t *testing.T) {
	e := newEnv(t, nil)
	a := article(1, t0.Add(-time.Hour), 3)
	listURL := "https://m.example.com/a/1.html"
	a.Aliases = []string{listURL, a.URL, "not a url"}
	r := e.ingest(t, a)
	k := e.s.keys
	if got := e.c.Get(e.ctx, k.Alias(ID(listURL))).Val(); got != a.URL {
		t.Fatalf("alias of %s = %q, want %s", listURL, got, a.URL)
	}
	if n := e.c.Exists(e.ctx, k.Alias(ID(a.URL))).Val(); n != 0 {
		t.Fatal("an article is its own alias")
	}
	if ttl := e.c.TTL(e.ctx, k.Alias(ID(listURL))).Val(); ttl <= week || ttl > week+Grace {
		t.Fatalf("alias TTL %v, want window + grace", ttl)
	}
	// An alias to an article that expired leads nowhere.
	ghost := "https://m.example.com/a/2.html"
	if err := e.c.Set(e.ctx, k.Alias(ID(ghost)), article(2, t0, 0).URL, time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	n, err := e.s.Refresh(e.ctx, []Engagement{{URL: listURL, Comments: 40}, {URL: ghost, Comments: 5},
		{URL: "https://m.example.com/a/3.html", Comments: 6}})
	if err != nil || n != 1 {
		t.Fatalf("Refresh = %d, %v; want 1 (through the alias)", n, err)
	}
	want := float64(a.PostTime.Unix()) + 432*40
	if it := e.get(t, r.ID); it.Comments != 40 || it.Score != want {
		t.Fatalf("aliased article %+v: want 40 comments, score %v", it, want)
	}
	for _, u := range []string{listURL, ghost, article(2, t0, 0).URL, "https://m.example.com/a/3.html"} {
		if n := e.c.Exists(e.ctx, k.Article(ID(u))).Val(); n != 0 {
			t.Fatalf("Refresh created an article for %s", u)
		}
	}
	if n := e.c.ZCard(e.ctx, k.Score()).Val(); n != 1 {
		t.Fatalf("score: has %d entries, want 1", n)
	}
}
