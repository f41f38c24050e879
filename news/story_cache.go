package news

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/newsrank/newsrank/grouping"
)

// The story index as this process last knew it.
//
// Planning a batch's stories reads the document frequencies of its
// articles' terms, the index lists of their keys and the candidate
// stories. Most of what one batch reads the next reads again, and most
// of what a batch writes the next reads: a crawl's process is usually
// the only writer of the index. So the store keeps what it read and
// what it wrote (storyCache), with the index's version (count and last
// writer, StoryIndexVersion) they were at. Every write of the index,
// the frequencies or a story (an ingest's chunk, a prune, a sweep, an
// ungroup, a regroup step) moves the version; a plan is checked against
// the version it read before anything is written, and a chunk planned
// on top of another expects it as the last writer. So when the version
// read at the start of a plan is the one after this process's last
// write, what the cache holds is what Redis holds, and the plan reads
// only what the cache lacks; when another writer came in between, the
// cache is dropped and the plan reads the rest, and the next plan reads
// all the frequencies it needs at once (foreign: an index others write
// is read whole rather than twice).
//
// Stories are cached with their lead's post time. An article's hash
// lives at least Grace past its window, so a lead posted since
// now - window - Grace is there unless a write that moves the version
// removed it; an older lead may have expired, which moves no version.
// Such a story counts only for an article posted over Grace before now
// (a story older than an article's window takes no member, alone or
// gone alike), so a batch with such an article reads those stories
// again (storyCache.story).
//
// The cache is bounded (storyCacheTerms terms, storyCacheStories
// stories: some tens of MB at most), in two generations: when the newer
// is full it becomes the older and the older is dropped, and an entry
// read from the older moves to the newer; what it dropped is read again.
type storyCache struct {
	// sem admits one planning of a batch at a time (its reads, plans,
	// script calls and the cache's update): batches of one process
	// planned at once would make each other's plans stale.
	sem chan struct{}
	// valid: the cache holds Redis's state at version (n, by); foreign:
	// the last plan found the version moved by another writer.
	valid, foreign   bool
	n                int64
	by               string
	nterms, nstories int
	terms            gens[string, *cacheTerm]
	stories          gens[string, *grouping.Story] // nil: no story (gone, or a member of another)
	// df: the document-frequency counts written to the store's journal
	// and not yet added to the TermDF hashes (story_df.go); the cache's
	// frequencies count them. Not forgotten with the rest.
	df dfPending
}

// storyCacheTerms and storyCacheStories bound a storyCache: its terms
// (each with its document frequencies and index list: a few hundred
// bytes) and its stories (each with its centroid: a few KB).
const (
	storyCacheTerms   = 100_000
	storyCacheStories = 10_000
)

// cacheTerm is what a storyCache holds of a term: its document
// frequencies (nil: not held) and its index list (when listed).
type cacheTerm struct {
	df     *termDF
	list   []string
	listed bool
}

// termOf returns c's entry of x's term (term), found again only when
// the entry x found (batchTerm.ct) may have left c; x then keeps it.
func (c *storyCache) termOf(x *batchTerm) *cacheTerm {
	if x.ct == nil || x.gen != c.terms.gen {
		x.ct = c.term(x.term)
		x.gen = c.terms.gen
	}
	return x.ct
}

// term returns c's entry of t, a new one when c has none.
func (c *storyCache) term(t string) *cacheTerm {
	if ct, ok := c.terms.get(t); ok {
		return ct
	}
	ct := &cacheTerm{}
	c.terms.put(t, ct)
	return ct
}

// termDF is a term's document frequencies (TermDF) on the days of a
// window, from day from on, and their sum. The cache and the plan that
// reads it share it, and the plan's planDF counts the batch into it
// (batchTerm.out): one plan runs at a time, after the previous one's
// decisions, and the cache, with the counts, is dropped unless the plan
// is written as planned (runStoryIngest).
type termDF struct {
	from int64
	n    []int32
	sum  int
}

// newTermDF returns a termDF of days days from from, counts x (when not
// nil) copied: in one allocation for up to 16 days (a window of two
// weeks sums 15).
func newTermDF(from int64, days int, x []int32) *termDF {
	var t *termDF
	switch {
	case days <= 8:
		w := new(struct {
			termDF
			a [8]int32
		})
		w.n = w.a[:days]
		t = &w.termDF
	case days <= 16:
		w := new(struct {
			termDF
			a [16]int32
		})
		w.n = w.a[:days]
		t = &w.termDF
	default:
		t = &termDF{n: make([]int32, days)}
	}
	t.from = from
	copy(t.n, x)
	return t
}

// newStoryCache returns an empty cache of at most terms terms and
// stories stories.
func newStoryCache(terms, stories int) *storyCache {
	var w [8]byte
	_, _ = rand.Read(w[:])
	c := &storyCache{sem: make(chan struct{}, 1), nterms: terms, nstories: stories, df: dfPending{writer: hex.EncodeToString(w[:])}}
	c.reset()
	return c
}

// acquire waits for c's turn; release ends it.
func (c *storyCache) acquire(ctx context.Context) error {
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *storyCache) release() { <-c.sem }

// reset forgets all c holds.
func (c *storyCache) reset() {
	c.valid, c.n, c.by = false, 0, ""
	c.terms.init(c.nterms)
	c.stories.init(c.nstories)
}

// update takes into c what batch b wrote, all its chunks having gone
// through, the script's answers in res: c then holds Redis's state after
// b. When an article's story is not the planned one (its story's lead
// went or aged since the plan), c is dropped instead.
func (c *storyCache) update(b *batchPlan, res []IngestResult) {
	for _, p := range b.chunks {
		for i, want := range p.want {
			if res[i].Status != Created || res[i].Err != nil || res[i].Story != want {
				c.reset()
				return
			}
		}
	}
	for c2, part := range b.made {
		for _, i := range part {
			if b.chunks[c2].want[i] != "" {
				c.stories.put(res[i].ID, nil) // a member: no story's lead
			}
		}
	}
	for lead, st := range b.stories {
		c.stories.put(lead, &st)
	}
	for k, l := range b.lists {
		ct := c.term(k)
		ct.list, ct.listed = l, true
	}
	for _, x := range b.df {
		c.termOf(x).df = x.out
	}
	last := b.chunks[len(b.chunks)-1]
	c.valid, c.n, c.by = true, last.count+1, last.name
}

// story returns the story led by lead as c holds it (nil: none), and
// whether c holds it: a story whose lead was posted before oldest is
// not held (its hash may have expired).
func (c *storyCache) story(lead string, oldest int64) (*grouping.Story, bool) {
	st, ok := c.stories.get(lead)
	if ok && st != nil && st.First < oldest {
		return nil, false
	}
	return st, ok
}

// gens is a map of at most max entries in two generations.
type gens[K comparable, V any] struct {
	cur, old map[K]V
	max      int
	// gen counts the times the map was emptied or its generations
	// moved: an entry found at gen n is in the map while gen is n
	gen uint64
}

func (g *gens[K, V]) init(max int) {
	g.cur, g.old, g.max = make(map[K]V), nil, max
	g.gen++
}

func (g *gens[K, V]) get(k K) (V, bool) {
	if v, ok := g.cur[k]; ok {
		return v, true
	}
	v, ok := g.old[k]
	if ok {
		g.put(k, v)
	}
	return v, ok
}

func (g *gens[K, V]) put(k K, v V) {
	if _, ok := g.cur[k]; !ok && len(g.cur) >= g.max/2 {
		g.old, g.cur = g.cur, make(map[K]V, len(g.cur))
		g.gen++
	}
	g.cur[k] = v
}
