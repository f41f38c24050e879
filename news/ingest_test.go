package news

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/metrics"
)

func TestIngestIdempotentAndRecrawl(t *testing.T) {
	e := newEnv(t, nil)
	k := e.s.keys
	other := e.ingest(t, article(2, t0.Add(-time.Hour), 5))
	otherScore := e.zscore(t, k.Score(), other.ID)

	a := article(1, t0.Add(-2*time.Hour), 10)
	a.Summary = "first summary"
	a.Groups = []string{"tech"}
	r1 := e.ingest(t, a)
	if r1.Status != Created || r1.ID != ID(a.URL) {
		t.Fatalf("first ingest = %+v, want created with id %s", r1, ID(a.URL))
	}
	post := float64(a.PostTime.Unix())
	if r1.Votes != 10 || r1.Score != post+432*10 {
		t.Fatalf("first ingest: votes %v score %v, want 10 and %v (comments count as votes)", r1.Votes, r1.Score, post+4320)
	}
	if _, err := e.s.Vote(e.ctx, "u", r1.ID, Up); err != nil {
		t.Fatal(err)
	}

	// Re-crawl: more comments, another summary, a later (wrong) post time.
	e.clock.Advance(time.Hour)
	b := a
	b.Comments = 25
	b.Summary = "changed summary"
	b.PostTime = a.PostTime.Add(30 * time.Minute)
	b.CrawlTime = e.clock.Now()
	r2 := e.ingest(t, b)
	if r2.Status != Updated || r2.ID != r1.ID {
		t.Fatalf("re-crawl = %+v, want updated, same id", r2)
	}
	if r2.Votes != 26 || r2.Score != post+432*26 {
		t.Fatalf("re-crawl: votes %v score %v, want 26 (25 comments + 1 up-vote), %v", r2.Votes, r2.Score, post+432*26)
	}
	it := e.get(t, r1.ID)
	if it.Comments != 25 || it.Up != 1 || it.Summary != "first summary" || it.PostTime.Unix() != a.PostTime.Unix() {
		t.Fatalf("after re-crawl: %+v: want 25 comments, the vote kept, the first summary and post time", it)
	}
	if it.CrawlTime.Unix() != b.CrawlTime.Unix() {
		t.Fatalf("crawl time %v, want %v", it.CrawlTime, b.CrawlTime)
	}
	// A re-crawl without a comment count keeps the stored one.
	c := a
	c.Comments = 0
	if r := e.ingest(t, c); r.Votes != 26 {
		t.Fatalf("re-crawl without comments: votes %v, want 26", r.Votes)
	}
	// One entry per article, and the other article's score is untouched.
	if n := e.c.ZCard(e.ctx, k.Time()).Val(); n != 2 {
		t.Fatalf("time: has %d entries, want 2", n)
	}
	if n := e.c.SCard(e.ctx, k.Group("tech")).Val(); n != 1 {
		t.Fatalf("group tech has %d members, want 1", n)
	}
	if got := e.zscore(t, k.Score(), other.ID); got != otherScore {
		t.Fatalf("other article rescored: %v → %v", otherScore, got)
	}
}

func TestIngestTooOldAndClamp(t *testing.T) {
	e := newEnv(t, nil)
	k := e.s.keys
	tooOld := metrics.Articles.WithLabelValues("too_old")
	before := counter(t, tooOld)

	old := article(1, t0.Add(-week-time.Second), 100)
	old.CrawlTime = t0
	r, err := e.s.Ingest(e.ctx, old)
	if err != nil || r.Status != TooOld {
		t.Fatalf("article older than the window: %+v, %v; want TooOld", r, err)
	}
	if got := counter(t, tooOld) - before; got != 1 {
		t.Fatalf("too_old counter moved by %v, want 1", got)
	}
	if n := e.c.Exists(e.ctx, k.Article(r.ID)).Val(); n != 0 {
		t.Fatal("a too-old article was stored")
	}
	edge := article(2, t0.Add(-week), 0)
	edge.CrawlTime = t0
	if r := e.ingest(t, edge); r.Status != Created {
		t.Fatalf("article exactly a window old: %+v, want created", r)
	}

	// A post time after the crawl time is clamped to the crawl time.
	future := article(3, t0.Add(48*time.Hour), 0)
	future.CrawlTime = t0.Add(-time.Minute)
	r = e.ingest(t, future)
	if got := e.zscore(t, k.Time(), r.ID); got != float64(future.CrawlTime.Unix()) {
		t.Fatalf("future post time stored as %v, want the crawl time %v", got, future.CrawlTime.Unix())
	}
	// A crawl time after now is clamped to now; no post time means the
	// crawl time.
	nopost := article(4, time.Time{}, 0)
	nopost.CrawlTime = t0.Add(time.Hour)
	r = e.ingest(t, nopost)
	if it := e.get(t, r.ID); !it.PostTime.Equal(t0) || !it.CrawlTime.Equal(t0) {
		t.Fatalf("post %v crawl %v, want both %v", it.PostTime, it.CrawlTime, t0)
	}
}

func TestIngestBatchRejectsBadArticlesOnly(t *testing.T) {
	e := newEnv(t, nil)
	good := article(1, t0, 0)
	noTitle := article(2, t0, 0)
	noTitle.Title = "  "
	badURL := article(3, t0, 0)
	badURL.URL = "ftp://example.com/x"
	badGroup := article(4, t0, 0)
	badGroup.Groups = []string{"a b"}
	negative := article(5, t0, -1)
	old := article(6, t0.Add(-30*24*time.Hour), 0)
	good2 := article(7, t0, 2)
	rs, err := e.s.IngestBatch(e.ctx, []Article{good, noTitle, badURL, badGroup, negative, old, good2})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		status Status
		err    string
	}{
		{Created, ""}, {0, "title is empty"}, {0, "absolute http(s) URL"}, {0, `"a b"`},
		{0, "negative"}, {TooOld, ""}, {Created, ""},
	}
	for i, w := range want {
		r := rs[i]
		if w.err == "" {
			if r.Err != nil || r.Status != w.status {
				t.Errorf("article %d: %+v, want %s", i, r, w.status)
			}
			continue
		}
		if !errors.Is(r.Err, ErrBadInput) || !strings.Contains(r.Err.Error(), w.err) {
			t.Errorf("article %d: err %v, want ErrBadInput mentioning %q", i, r.Err, w.err)
		}
	}
	if n := e.c.ZCard(e.ctx, e.s.keys.Time()).Val(); n != 2 {
		t.Fatalf("time: has %d entries, want the 2 good articles", n)
	}
	if _, err := e.s.Ingest(e.ctx, noTitle); !errors.Is(err, ErrBadInput) {
		t.Fatalf("Ingest of a bad article: %v, want ErrBadInput", err)
	}
}

// TestIngestSurvivesScriptFlush: a restarted Redis has no scripts loaded;
// the pipelined EVALSHA falls back to loading them.
func TestIngestSurvivesScriptFlush(t *testing.T) {
	e := newEnv(t, nil)
	e.ingest(t, article(1, t0, 0))
	if err := e.c.ScriptFlush(e.ctx).Err(); err != nil {
		t.Fatal(err)
	}
	rs, err := e.s.IngestBatch(e.ctx, []Article{article(1, t0, 3), article(2, t0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Status != Updated || rs[1].Status != Created || rs[0].Votes != 3 {
		t.Fatalf("after SCRIPT FLUSH: %+v", rs)
	}
}

func TestPost(t *testing.T) {
	e := newEnv(t, nil)
	id, err := e.s.Post(e.ctx, "alice", "Hello", "https://example.com/hello")
	if err != nil {
		t.Fatal(err)
	}
	it := e.get(t, id)
	if it.Up != 1 || it.Votes != 1 || it.User != "alice" || !it.PostTime.Equal(t0) || it.Score != float64(t0.Unix())+432 {
		t.Fatalf("posted = %+v", it)
	}
	if v := e.c.HGet(e.ctx, e.s.keys.Voted(id), "alice").Val(); v != "1" {
		t.Fatalf("author's vote = %q, want 1", v)
	}
	again, err := e.s.Post(e.ctx, "bob", "Hello again", "https://example.com/hello")
	if !errors.Is(err, ErrDuplicate) || again != id {
		t.Fatalf("second post of the link: %q, %v; want %s and ErrDuplicate", again, err, id)
	}
	if it2 := e.get(t, id); it2.Title != "Hello" || it2.Up != 1 {
		t.Fatalf("duplicate post changed the article: %+v", it2)
	}
	// A crawl of a posted link updates the same article.
	r := e.ingest(t, Article{URL: "https://example.com/hello", Title: "Hello", Comments: 4, CrawlTime: t0})
	if r.Status != Updated || r.ID != id || r.Votes != 5 {
		t.Fatalf("crawl of a posted link: %+v, want updated with 5 votes", r)
	}
	for _, bad := range []struct{ user, title, link string }{
		{"", "t", "https://example.com/x"},
		{"u", "", "https://example.com/x"},
		{"u", "t", "not a url"},
		{"u", "t", "javascript:alert(1)"},
		{"u", strings.Repeat("x", MaxTitle+1), "https://example.com/x"},
	} {
		if _, err := e.s.Post(e.ctx, bad.user, bad.title, bad.link); !errors.Is(err, ErrBadInput) {
			t.Errorf("Post(%q, %.10q, %q) = %v, want ErrBadInput", bad.user, bad.title, bad.link, err)
		}
	}
}

// TestKeysCarryPrefixAndTag: every key the store writes starts with the
// prefix and carries the {news} hash tag.
func TestKeysCarryPrefixAndTag(t *testing.T) {
	e := newEnv(t, nil)
	a := article(1, t0, 1)
	a.Groups = []string{"g"}
	r := e.ingest(t, a)
	if _, err := e.s.Vote(e.ctx, "u", r.ID, Up); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.GroupList(e.ctx, "g", ByTime, 1, 10); err != nil {
		t.Fatal(err)
	}
	keys, err := e.c.Keys(e.ctx, "*").Result() // test only: a tiny keyspace
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 9 {
		t.Errorf("keys = %v, want 9 (article, voted, vote-seq, time, votes, score, group, groups, group cache by time)", keys)
	}
	for _, key := range keys {
		if !strings.HasPrefix(key, "test:{news}:") {
			t.Errorf("key %q lacks the prefix and hash tag", key)
		}
	}
}

// TestIdCollision: an id whose hash holds another URL is an error, and the
// stored article is left alone.
func TestIdCollision(t *testing.T) {
	e := newEnv(t, nil)
	a := article(1, t0, 5)
	id := ID(a.URL)
	if err := e.c.HSet(e.ctx, e.s.keys.Article(id), "url", "https://other.example/", "title", "Other", "time", t0.Unix()).Err(); err != nil {
		t.Fatal(err)
	}
	rs, err := e.s.IngestBatch(e.ctx, []Article{a, article(2, t0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Err == nil || !strings.Contains(rs[0].Err.Error(), "hash collision") || rs[1].Status != Created {
		t.Fatalf("results %+v: want a collision error, then a created article", rs)
	}
	if it := e.get(t, id); it.URL != "https://other.example/" || it.Comments != 0 {
		t.Fatalf("collision changed the stored article: %+v", it)
	}
	if _, err := e.s.Post(e.ctx, "u", "t", a.URL); err == nil || !strings.Contains(err.Error(), "hash collision") {
		t.Fatalf("Post on a collision: %v", err)
	}
}

// TestIngestSameURLTwiceInABatch: the second copy updates the first.
func TestIngestSameURLTwiceInABatch(t *testing.T) {
	e := newEnv(t, nil)
	a, b := article(1, t0, 3), article(1, t0, 7)
	rs, err := e.s.IngestBatch(e.ctx, []Article{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Status != Created || rs[1].Status != Updated || rs[1].Votes != 7 {
		t.Fatalf("results %+v: want created, then updated with 7 votes", rs)
	}
	if got := e.zscore(t, e.s.keys.Score(), rs[0].ID); got != float64(t0.Unix())+432*7 {
		t.Fatalf("score %v, want the second copy's", got)
	}
	if got := e.zscore(t, e.s.keys.Votes(), rs[0].ID); got != 7 {
		t.Fatalf("votes: %v, want 7", got)
	}
}
