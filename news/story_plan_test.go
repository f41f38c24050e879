package news

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/metrics"
	"github.com/newsrank/newsrank/internal/redistest"
)

// storyStoreOn is a store ranking by story on c, keys under prefix, its
// clock at now.
func storyStoreOn(t *testing.T, c redis.UniversalClient, prefix string, now time.Time) *Store {
	t.Helper()
	o := DefaultOptions()
	o.RankBy = RankByStory
	s, err := New(c, prefix, o, WithClock(clock.NewFake(now)), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// toLock makes the first PlanAttempts plans of each batch s ingests
// stale (another writer's index write after each), so that s plans its
// stories under the story lock; it returns how many plans were made.
func toLock(t *testing.T, s *Store) *int {
	n := new(int)
	s.planned = func() {
		if *n++; *n%(PlanAttempts+1) == 0 {
			return
		}
		if err := s.c.HIncrBy(context.Background(), s.keys.StoryIndexVersion(), "n", 1).Err(); err != nil {
			t.Error(err)
		}
	}
	return n
}

// TestStoryPlanSame: the stories planned under the story lock, after
// PlanAttempts stale plans, are those planned at once, article for
// article, and the index lists are the same, on the demo site's set in
// its order and shuffled, ingested in batches of 250 (three chunks of
// the ingest script each, so that a chunk's plan builds on the chunks
// before it in the batch).
func TestStoryPlanSame(t *testing.T) {
	c := redistest.Start(t).Client()
	ctx := context.Background()
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	set := demosite.StorySet(1, 400, now)
	for _, shuffled := range []bool{false, true} {
		as := make([]Article, len(set))
		for i, a := range set {
			as[i] = Article{URL: a.URL, Title: a.Title, Summary: a.Summary, Source: a.Source, PostTime: a.PostTime, CrawlTime: a.PostTime}
		}
		if shuffled {
			rand.New(rand.NewPCG(1, 7)).Shuffle(len(as), func(i, j int) { as[i], as[j] = as[j], as[i] })
		}
		planned := storyStoreOn(t, c, fmt.Sprintf("plan-%t:", shuffled), now)
		scripted := storyStoreOn(t, c, fmt.Sprintf("script-%t:", shuffled), now)
		plans := toLock(t, scripted)
		scripts0 := counter(t, metrics.StoryChunks.WithLabelValues("locked"))
		joined, chunks := 0, 0
		for lo := 0; lo < len(as); lo += planBatch {
			batch := as[lo:min(len(as), lo+planBatch)]
			chunks += (len(batch) + IngestChunk - 1) / IngestChunk
			rp, err := planned.IngestBatch(ctx, batch)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := scripted.IngestBatch(ctx, batch)
			if err != nil {
				t.Fatal(err)
			}
			for i := range batch {
				if rp[i].Status != Created || rs[i].Status != Created {
					t.Fatalf("%s: %v / %v", batch[i].URL, rp[i], rs[i])
				}
				if rp[i].Story != rs[i].Story {
					t.Errorf("shuffled %t: %q: planned story %q, under the lock %q", shuffled, batch[i].Title, rp[i].Story, rs[i].Story)
				}
				if rp[i].Story != "" {
					joined++
				}
			}
		}
		if want := (PlanAttempts + 1) * ((len(as) + planBatch - 1) / planBatch); *plans != want {
			t.Errorf("the locked store made %d plans, want %d", *plans, want)
		}
		if d := counter(t, metrics.StoryChunks.WithLabelValues("locked")) - scripts0; d != float64(chunks) {
			t.Errorf("newsrank_story_chunks_total{result=locked} rose by %v, want %d (every chunk)", d, chunks)
		}
		if n := c.Exists(ctx, scripted.keys.StoryLock()).Val(); n != 0 {
			t.Error("the story lock is held after the ingest")
		}
		if joined < len(as)/3 {
			t.Errorf("only %d of %d articles joined a story", joined, len(as))
		}
		lp := c.HGetAll(ctx, planned.keys.StoryIndex()).Val()
		ls := c.HGetAll(ctx, scripted.keys.StoryIndex()).Val()
		if len(lp) != len(ls) {
			t.Errorf("shuffled %t: the index has %d keys planned, %d under the lock", shuffled, len(lp), len(ls))
		}
		for f, l := range ls {
			if lp[f] != l {
				t.Errorf("shuffled %t: key %s lists %q planned, %q under the lock", shuffled, f, lp[f], l)
				break
			}
		}
	}
}

// TestStoryPlanStale: a copy of a story ingested by another process
// between a store's plan and its script call (the plan did not see it)
// makes the plan stale: the script writes nothing, the store plans again
// and the article joins the other's story instead of starting one.
func TestStoryPlanStale(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	other := storyStoreOn(t, e.c, "test:", t0)
	post := t0.Add(-time.Hour)
	const title = "Harbour workers strike over pay as container ships queue outside Rotterdam"
	const summary = "Dock unions said the walkout would last until talks with terminal operators resume next week."
	var lead IngestResult
	plans := 0
	stale0 := counter(t, metrics.StoryChunks.WithLabelValues("stale"))
	planned0 := counter(t, metrics.StoryChunks.WithLabelValues("planned"))
	e.s.planned = func() {
		if plans++; plans == 1 {
			lead = e.ingestWith(t, other, storyArticle("https://a.example.com/1", title, summary, "A", post))
		}
	}
	b := e.ingest(t, storyArticle("https://b.example.com/1", "Rotterdam: "+title, summary, "B", post.Add(time.Minute)))
	if plans != 2 {
		t.Errorf("%d plans, want 2 (the first stale)", plans)
	}
	if d := counter(t, metrics.StoryChunks.WithLabelValues("stale")) - stale0; d != 1 {
		t.Errorf("newsrank_story_chunks_total{result=stale} rose by %v, want 1", d)
	}
	if d := counter(t, metrics.StoryChunks.WithLabelValues("planned")) - planned0; d < 1 {
		t.Errorf("newsrank_story_chunks_total{result=planned} rose by %v, want 1 at least", d)
	}
	if lead.Story != "" || b.Story != lead.ID {
		t.Errorf("lead's story %q, copy's %q, want %q", lead.Story, b.Story, lead.ID)
	}
	if n := e.c.HLen(e.ctx, e.s.keys.Story(lead.ID)).Val(); n != 2 {
		t.Errorf("the story has %d members, want 2", n)
	}

	// A prune that changes the index moves its version too.
	v := e.c.HGet(e.ctx, e.s.keys.StoryIndexVersion(), "n").Val()
	e.clock.Advance(week)
	if _, err := e.s.Prune(e.ctx, e.clock.Now(), PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	if w := e.c.HGet(e.ctx, e.s.keys.StoryIndexVersion(), "n").Val(); w == v {
		t.Errorf("the index version is %s before and after a prune that emptied it", v)
	}
}

// ingestWith ingests a with store s.
func (e *env) ingestWith(t *testing.T, s *Store, a Article) IngestResult {
	t.Helper()
	r, err := s.Ingest(e.ctx, a)
	if err != nil {
		t.Fatalf("ingest %s: %v", a.URL, err)
	}
	return r
}

// TestStoryPlanConcurrent: two stores (two processes' crawlers) ingest
// word-for-word copies of 20 stories at once, from 8 goroutines in small
// batches; each story ends as one, with every copy in it once, and only
// its lead ranked.
func TestStoryPlanConcurrent(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	stores := []*Store{e.s, storyStoreOn(t, e.c, "test:", t0)}
	const stories, copies, workers = 20, 8, 8
	var as []Article
	for s := range stories {
		title := fmt.Sprintf("Event %d: %s", s, "regional council approves new ring road bus lanes after a long debate")
		summary := fmt.Sprintf("Councillors of district %d voted on Monday to add lanes to both sides of the road by next spring.", s)
		for c := range copies {
			as = append(as, storyArticle(fmt.Sprintf("https://o%d.example.com/%d", c, s), title, summary, fmt.Sprintf("O%d", c), t0.Add(-time.Hour)))
		}
	}
	rand.New(rand.NewPCG(3, 3)).Shuffle(len(as), func(i, j int) { as[i], as[j] = as[j], as[i] })
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for lo := w * 3; lo < len(as); lo += workers * 3 {
				if _, err := stores[w%2].IngestBatch(e.ctx, as[lo:min(len(as), lo+3)]); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	leads := make(map[string]map[string]bool) // event → leads its copies name
	for _, a := range as {
		id := ID(a.URL)
		lead, members, err := e.s.StoryOf(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if leads[a.Title] == nil {
			leads[a.Title] = make(map[string]bool)
		}
		leads[a.Title][lead] = true
		if len(members) != copies {
			t.Errorf("%s: its story has %d members, want %d", a.URL, len(members), copies)
		}
	}
	for ev, ls := range leads {
		if len(ls) != 1 {
			t.Errorf("%q: %d stories, want 1", ev, len(ls))
		}
	}
	if n := e.c.ZCard(e.ctx, e.s.keys.Time()).Val(); n != stories {
		t.Errorf("time: ranks %d articles, want %d (the leads)", n, stories)
	}
}

// planBatch is TestStoryPlanSame's batch: three chunks of the ingest
// script (IngestChunk).
const planBatch = 250

// TestStoryLockWaitEnds: an ingest whose context ends while it waits for
// the story lock that another process holds returns the context's error
// and stores nothing; the lock it never took is not released (the wait
// once left its release unset, and the deferred call panicked).
func TestStoryLockWaitEnds(t *testing.T) {
	c := redistest.Start(t).Client()
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	s := storyStoreOn(t, c, "lockwait:", now)
	toLock(t, s)
	if err := c.Set(context.Background(), s.keys.StoryLock(), "another process", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	stale0 := counter(t, metrics.StoryChunks.WithLabelValues("stale"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	a := storyArticle("https://a.example.com/lock", "Harbour workers strike over pay as container ships queue outside Rotterdam",
		"Dock unions said the walkout would last until talks resume.", "A", now.Add(-time.Hour))
	if _, err := s.IngestBatch(ctx, []Article{a}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ingest waiting for a held lock: %v, want the context's deadline", err)
	}
	if d := counter(t, metrics.StoryChunks.WithLabelValues("stale")) - stale0; d != PlanAttempts {
		t.Errorf("%v stale plans before the lock, want %d (the wait was not reached)", d, PlanAttempts)
	}
	bg := context.Background()
	if ks := c.Keys(bg, s.keys.ArticlePrefix()+"*").Val(); len(ks) != 0 || c.Exists(bg, s.keys.Time()).Val() != 0 {
		t.Errorf("articles stored: %v, or the time index written", ks)
	}
	if v := c.Get(bg, s.keys.StoryLock()).Val(); v != "another process" {
		t.Errorf("the other process's lock is %q", v)
	}
}
