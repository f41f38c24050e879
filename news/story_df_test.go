package news

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/internal/redistest"
)

// dfTestArticles are the demo site's labelled set (n reports and
// ordinary articles) as crawled articles, shuffled, in batches of 64.
func dfTestArticles(n int, now time.Time) ([]Article, [][]Article) {
	set := demosite.StorySet(2, n, now)
	as := make([]Article, len(set))
	for i, a := range set {
		as[i] = Article{URL: a.URL, Title: a.Title, Summary: a.Summary, Source: a.Source, PostTime: a.PostTime, CrawlTime: a.PostTime}
	}
	rand.New(rand.NewPCG(9, 9)).Shuffle(len(as), func(i, j int) { as[i], as[j] = as[j], as[i] })
	var batches [][]Article
	for lo := 0; lo < len(as); lo += 64 {
		batches = append(batches, as[lo:min(len(as), lo+64)])
	}
	return as, batches
}

// dfKeys returns the document frequencies of the TermDF hashes of s's
// keys (storyState's "df:<day> term" entries) and the journals' keys.
func dfKeys(t *testing.T, c *redis.Client, s *Store) (map[string]string, []string) {
	t.Helper()
	ctx := context.Background()
	state := storyState(t, c, s)
	df := make(map[string]string)
	for k, v := range state {
		if strings.HasPrefix(k, "df:") {
			df[k] = v
		}
	}
	return df, c.Keys(ctx, s.keys.base+"dfj*").Val()
}

// ingestAll ingests batches into s, checking every article is stored.
func ingestAll(t *testing.T, s *Store, batches [][]Article) []string {
	t.Helper()
	var out []string
	for _, b := range batches {
		rs, err := s.IngestBatch(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			out = append(out, r.Status.String()+" "+r.Story)
		}
	}
	return out
}

// TestStoryCountsAddedInParts: a store's document frequencies wait in
// its journal and its memory, and its own plans count them (its stories
// are those of a store that adds them after every batch); added in
// parts (of 50 counts here), they are the articles' terms counted per
// day, and no journal is left.
func TestStoryCountsAddedInParts(t *testing.T) {
	c := redistest.Start(t).Client()
	ctx := context.Background()
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	as, batches := dfTestArticles(150, now)

	each := storyStoreOn(t, c, "each:", now)
	var want []string
	for _, b := range batches {
		want = append(want, ingestAll(t, each, [][]Article{b})...)
		if err := each.FlushStoryCounts(ctx); err != nil {
			t.Fatal(err)
		}
	}

	s := storyStoreOn(t, c, "held:", now)
	s.stories.df.part = 50
	got := ingestAll(t, s, batches)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("article %d: %s, want %s (added after every batch)", i, got[i], want[i])
		}
	}
	df, journals := dfKeys(t, c, s)
	if len(df) != 0 || len(journals) != 2 { // the journal and its listing
		t.Fatalf("before FlushStoryCounts: %d document frequencies and journal keys %v, want none and a journal", len(df), journals)
	}
	held := s.stories.df.fields
	if err := s.FlushStoryCounts(ctx); err != nil {
		t.Fatal(err)
	}
	if held <= 50 {
		t.Fatalf("%d counts held: one part", held)
	}
	checkDF(t, storyState(t, c, s), as, now)
	if _, journals := dfKeys(t, c, s); len(journals) != 0 {
		t.Errorf("journal keys %v left", journals)
	}
}

// TestStoryCountsOfADeadStore: the counts of a store that stopped without
// adding them, one with its journal frozen and part of it added, are
// added by the prune once quiet for dfQuiet, each once, and the prune
// before that adds none.
func TestStoryCountsOfADeadStore(t *testing.T) {
	c := redistest.Start(t).Client()
	ctx := context.Background()
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	as, batches := dfTestArticles(150, now)
	half := len(batches) / 2

	// the first dies holding its counts; the second dies adding them,
	// after its first part
	first := storyStoreOn(t, c, "dead:", now)
	ingestAll(t, first, batches[:half])
	second := storyStoreOn(t, c, "dead:", now)
	second.stories.df.part = 50
	ingestAll(t, second, batches[half:])
	p := &second.stories.df
	p.flushes++
	if _, err := second.freezeJournal(ctx, p.writer, p.frozen(), p.entries, now); err != nil {
		t.Fatal(err)
	}
	if ok, err := second.addPart(ctx, p.frozen(), p.sums(), 1, now); err != nil || !ok {
		t.Fatalf("first part: %v %v", ok, err)
	}

	pruner := storyStoreOn(t, c, "dead:", now)
	pruner.stories.df.part = 50
	res, err := pruner.Prune(ctx, now.Add(dfQuiet/2), PruneOptions{})
	if err != nil || res.Journaled != 0 {
		t.Fatalf("prune before quiet: %+v, %v; want nothing added", res, err)
	}
	res, err = pruner.Prune(ctx, now.Add(dfQuiet+time.Second), PruneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Journaled == 0 {
		t.Fatalf("prune: %+v, want the journals added", res)
	}
	checkDF(t, storyState(t, c, pruner), as, now)
	if _, journals := dfKeys(t, c, pruner); len(journals) != 0 {
		t.Errorf("journal keys %v left", journals)
	}
	if n := c.HLen(ctx, pruner.keys.TermDFJournalParts()).Val(); n != 0 {
		t.Errorf("%d journals' parts left", n)
	}
}

// TestStoryCountsOfAnIdleStore: the prune adds the journal of a store
// idle for dfQuiet though alive; the store then counts nothing twice,
// in its plans (its stories are those of a store that adds its counts
// after every batch) or in Redis.
func TestStoryCountsOfAnIdleStore(t *testing.T) {
	c := redistest.Start(t).Client()
	ctx := context.Background()
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	as, batches := dfTestArticles(150, now)
	half := len(batches) / 2

	each := storyStoreOn(t, c, "each:", now)
	var want []string
	for _, b := range batches {
		want = append(want, ingestAll(t, each, [][]Article{b})...)
		if err := each.FlushStoryCounts(ctx); err != nil {
			t.Fatal(err)
		}
	}

	s := storyStoreOn(t, c, "idle:", now)
	got := ingestAll(t, s, batches[:half])
	pruner := storyStoreOn(t, c, "idle:", now)
	if res, err := pruner.Prune(ctx, now.Add(dfQuiet+time.Second), PruneOptions{}); err != nil || res.Journaled == 0 {
		t.Fatalf("prune: %+v, %v; want the idle store's journal added", res, err)
	}
	got = append(got, ingestAll(t, s, batches[half:half+1])...)
	// and once more with the answer of its journal's freezing lost: the
	// journal is frozen, the store holds its counts
	p := &s.stories.df
	p.flushes++
	if _, err := s.freezeJournal(ctx, p.writer, p.frozen(), p.entries, now); err != nil {
		t.Fatal(err)
	}
	got = append(got, ingestAll(t, s, batches[half+1:])...)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("article %d: %s, want %s (added after every batch)", i, got[i], want[i])
		}
	}
	if err := s.FlushStoryCounts(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pruner.Prune(ctx, now.Add(2*dfQuiet), PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	checkDF(t, storyState(t, c, s), as, now)
	if _, journals := dfKeys(t, c, s); len(journals) != 0 {
		t.Errorf("journal keys %v left", journals)
	}
}

// TestStoryCountsEmbedded: the journal, its parts and the prune's adding
// run on the embedded Redis of `newsrank demo` (miniredis' Lua) too.
func TestStoryCountsEmbedded(t *testing.T) {
	e := newEmbeddedEnv(t, func(o *Options) { o.RankBy = RankByStory })
	as, batches := dfTestArticles(40, t0)
	e.s.stories.df.part = 50
	half := len(batches) / 2
	ingestAll(t, e.s, batches[:half])
	if err := e.s.FlushStoryCounts(e.ctx); err != nil {
		t.Fatal(err)
	}
	dead := envOn(t, e.c, e.s.keys.base[:len(e.s.keys.base)-len("{news}:")], func(o *Options) { o.RankBy = RankByStory })
	ingestAll(t, dead.s, batches[half:])
	if res, err := e.s.Prune(e.ctx, t0.Add(dfQuiet+time.Second), PruneOptions{}); err != nil || res.Journaled == 0 {
		t.Fatalf("prune: %+v, %v; want the journal added", res, err)
	}
	want := make(map[string]int)
	for _, a := range as {
		want[strconv.FormatInt(grouping.Day(a.PostTime.Unix()), 10)+" *"]++
	}
	for k, n := range want {
		day, _, _ := strings.Cut(k, " ")
		got, err := e.c.HGet(e.ctx, e.s.keys.base+"df:"+day, "*").Int()
		if err != nil || got != n {
			t.Errorf("df:%s *: %d (%v), want %d", day, got, err, n)
		}
	}
}
