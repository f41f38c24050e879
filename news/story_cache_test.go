package news

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/internal/redistest"
)

// storyState is what a store's story grouping left in Redis: the index,
// the document frequencies per day, and each story's members and
// centroid.
func storyState(t *testing.T, c *redis.Client, s *Store) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := make(map[string]string)
	for f, l := range c.HGetAll(ctx, s.keys.StoryIndex()).Val() {
		out["index "+f] = l
	}
	for _, k := range c.Keys(ctx, s.keys.base+"df:*").Val() {
		for f, n := range c.HGetAll(ctx, k).Val() {
			out[strings.TrimPrefix(k, s.keys.base)+" "+f] = n
		}
	}
	for _, k := range c.Keys(ctx, s.keys.base+"story:*").Val() {
		lead := strings.TrimPrefix(k, s.keys.Story(""))
		members := slices.Sorted(maps.Keys(c.HGetAll(ctx, k).Val()))
		out["story "+lead] = strings.Join(members, " ")
		h := c.HMGet(ctx, s.keys.Article(lead), "cv", "slast").Val()
		out["centroid "+lead] = fmt.Sprint(h...)
	}
	return out
}

// diffState reports the first differences of two storyStates.
func diffState(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	n := 0
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] && n < 5 {
			t.Errorf("%s: %s = %q, want %q", what, k, got[k], want[k])
			n++
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && n < 5 {
			t.Errorf("%s: %s = %q, not there alone", what, k, got[k])
			n++
		}
	}
}

// TestStoryCacheSame: what a store knows of the index between batches
// (storyCache) changes nothing it decides or writes. The demo site's
// labelled set, shuffled, in batches of 64 (with a batch of copies
// already stored and an article twice in one batch), is ingested by
// one store; by a store that forgets all it knew before each batch; by
// one that can hold only a few entries; and by two stores, the second
// writing every fourth batch (so the first finds the index written by
// another after it trusted its cache; each adds its document
// frequencies after each batch, FlushStoryCounts, as the other counts
// them only then). Each article's story, the index lists, the stories'
// members and centroids and the document frequencies (once added) are
// the same in all four, and the frequencies are the articles' terms
// counted per day.
func TestStoryCacheSame(t *testing.T) {
	c := redistest.Start(t).Client()
	ctx := context.Background()
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	set := demosite.StorySet(2, 300, now)
	as := make([]Article, len(set))
	for i, a := range set {
		as[i] = Article{URL: a.URL, Title: a.Title, Summary: a.Summary, Source: a.Source, PostTime: a.PostTime, CrawlTime: a.PostTime}
	}
	rand.New(rand.NewPCG(5, 5)).Shuffle(len(as), func(i, j int) { as[i], as[j] = as[j], as[i] })
	var batches [][]Article
	for lo := 0; lo < len(as); lo += 64 {
		batches = append(batches, as[lo:min(len(as), lo+64)])
	}
	batches[3] = append(slices.Clone(batches[3]), batches[3][0])
	batches = append(batches, as[100:130])

	type run struct {
		name   string
		stores func(prefix string) []*Store
		before func(s *Store)
		flush  bool // after each batch
	}
	one := func(prefix string) []*Store { return []*Store{storyStoreOn(t, c, prefix, now)} }
	runs := []run{
		{"one store", one, nil, false},
		{"cache dropped before each batch", one, func(s *Store) { s.stories.reset() }, false},
		{"a cache of 8 entries", func(prefix string) []*Store {
			s := storyStoreOn(t, c, prefix, now)
			s.stories = newStoryCache(8, 8)
			return []*Store{s}
		}, nil, false},
		{"two stores", func(prefix string) []*Store {
			return []*Store{storyStoreOn(t, c, prefix, now), storyStoreOn(t, c, prefix, now)}
		}, nil, true},
	}
	var want map[string]string
	var wantStories []string
	for k, r := range runs {
		stores := r.stores(fmt.Sprintf("cache%d:", k))
		var stories []string
		for b, batch := range batches {
			s := stores[0]
			if b%4 == 3 {
				s = stores[len(stores)-1]
			}
			if r.before != nil {
				r.before(s)
			}
			rs, err := s.IngestBatch(ctx, batch)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range rs {
				stories = append(stories, x.Status.String()+" "+x.Story)
			}
			if r.flush {
				if err := s.FlushStoryCounts(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, s := range stores {
			if err := s.FlushStoryCounts(ctx); err != nil {
				t.Fatal(err)
			}
		}
		got := storyState(t, c, stores[0])
		if k == 0 {
			want, wantStories = got, stories
			checkDF(t, got, as, now)
			continue
		}
		for i := range stories {
			if stories[i] != wantStories[i] {
				t.Errorf("%s: article %d: %s, want %s", r.name, i, stories[i], wantStories[i])
			}
		}
		diffState(t, r.name, got, want)
	}
}

// checkDF checks the document frequencies of state (storyState) against
// the terms of the articles of as, each counted once on its post day.
func checkDF(t *testing.T, state map[string]string, as []Article, now time.Time) {
	t.Helper()
	want := make(map[string]int)
	seen := make(map[string]bool)
	for _, a := range as {
		if seen[a.URL] {
			continue
		}
		seen[a.URL] = true
		day := "df:" + strconv.FormatInt(grouping.Day(a.PostTime.Unix()), 10)
		want[day+" *"]++
		for term := range storyDoc(a).Counts {
			want[day+" "+term]++
		}
	}
	got := make(map[string]int)
	for k, v := range state {
		if strings.HasPrefix(k, "df:") {
			got[k], _ = strconv.Atoi(v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d document frequencies, want %d", len(got), len(want))
	}
	n := 0
	for k, w := range want {
		if got[k] != w && n < 5 {
			t.Errorf("%s = %d, want %d", k, got[k], w)
			n++
		}
	}
}

// TestStoryCacheRefusedJoin: when the script leaves an article alone
// rather than join the story planned for it (the story's lead is older
// than the window at the store's clock, though not at the article's
// post time), the store forgets what it knew: what it decides and
// writes next (with the clock set back, the next copy joins that story)
// is what a store that read it all would.
func TestStoryCacheRefusedJoin(t *testing.T) {
	c := redistest.Start(t).Client()
	ctx := context.Background()
	start := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	const title = "Harbour workers strike over pay as container ships queue outside Rotterdam"
	const summary = "Dock unions said the walkout would last until talks with terminal operators resume next week."
	window := DefaultOptions().Window
	var states []map[string]string
	var answers [][]string
	for k, drop := range []bool{false, true} {
		s := storyStoreOn(t, c, fmt.Sprintf("refused%d:", k), start)
		clk := s.clock.(interface{ Set(time.Time) })
		var got []string
		ingest := func(url, title string, post time.Time) {
			if drop {
				s.stories.reset()
			}
			r, err := s.Ingest(ctx, storyArticle(url, title, summary, "S", post))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r.ID+" "+r.Story)
		}
		lead := start.Add(-window + 10*time.Minute)
		ingest("https://a.example.com/1", title, lead)
		ingest("https://b.example.com/1", "Rotterdam: "+title, lead.Add(time.Minute))
		clk.Set(start.Add(20 * time.Minute)) // the lead is now older than the window: c stays alone
		ingest("https://c.example.com/1", title+" again", lead.Add(11*time.Minute))
		clk.Set(start) // and d joins it, its centroid without c's terms
		ingest("https://d.example.com/1", "Strike: "+title, lead.Add(12*time.Minute))
		states = append(states, storyState(t, c, s))
		answers = append(answers, got)
	}
	if !slices.Equal(answers[0], answers[1]) {
		t.Errorf("stories %q, with the cache dropped before each article %q", answers[0], answers[1])
	}
	diffState(t, "the cache kept", states[0], states[1])
}

// TestStoryCacheExpiredLead: a story whose lead's hash may have expired
// (posted more than the window and Grace before now) is read again for
// an article old enough to join it, rather than taken from what the
// store knew: its hash gone (deleted here, as its expiry would), the
// article is filed under its own story, as a store that read it all
// files it.
func TestStoryCacheExpiredLead(t *testing.T) {
	c := redistest.Start(t).Client()
	ctx := context.Background()
	start := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	const title = "Harbour workers strike over pay as container ships queue outside Rotterdam"
	const summary = "Dock unions said the walkout would last until talks with terminal operators resume next week."
	window := DefaultOptions().Window
	var states []map[string]string
	for k, drop := range []bool{false, true} {
		s := storyStoreOn(t, c, fmt.Sprintf("expired%d:", k), start)
		clk := s.clock.(interface{ Set(time.Time) })
		lead, err := s.Ingest(ctx, storyArticle("https://a.example.com/1", title, summary, "A", start.Add(-time.Hour)))
		if err != nil {
			t.Fatal(err)
		}
		clk.Set(start.Add(window + Grace - 30*time.Minute))
		if err := c.Del(ctx, s.keys.Article(lead.ID)).Err(); err != nil {
			t.Fatal(err)
		}
		if drop {
			s.stories.reset()
		}
		r, err := s.Ingest(ctx, storyArticle("https://b.example.com/1", "Rotterdam: "+title, summary, "B", start.Add(Grace)))
		if err != nil {
			t.Fatal(err)
		}
		if r.Story != "" {
			t.Errorf("the copy joined %q, whose lead is gone", r.Story)
		}
		states = append(states, storyState(t, c, s))
	}
	diffState(t, "the cache kept", states[0], states[1])
}

// TestStoryCacheTermOf: a batch's term keeps the cache's entry it found
// only while the cache keeps it; once the generations moved, or the
// cache was dropped, termOf finds (or makes) the entry the cache holds.
func TestStoryCacheTermOf(t *testing.T) {
	c := newStoryCache(4, 4)
	x := &batchTerm{term: "a"}
	ct := c.termOf(x)
	if c.termOf(x) != ct || c.term("a") != ct {
		t.Fatal("a term's entry found twice is two entries")
	}
	c.term("b") // the newer generation is full (2 of 4)
	c.term("c") // moves: "a" is in the older one
	if got := c.termOf(x); got != ct {
		t.Error("an entry of the older generation not found again")
	}
	c.reset()
	got := c.termOf(x)
	if got == ct {
		t.Fatal("after a reset, termOf gave the dropped entry")
	}
	if c.term("a") != got {
		t.Error("termOf's entry after a reset is not the cache's")
	}
}
