package news

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/termvec"
)

// planRead is what planStories read, or took from the cache, before it
// decides: all of it as Redis held it at version (n, by).
type planRead struct {
	n       int64
	by      string
	created []bool // per call: the article is not stored yet
	// terms: the batch's terms (and "*", the articles), each with its
	// document frequencies on the days of the window (dfDays)
	terms map[string]*batchTerm
	// byCall: per call, its article's terms in r.terms (nil for a call
	// without story terms); articles: "*" in r.terms
	byCall   [][]*batchTerm
	articles *batchTerm
	// counts: per call, its article's count of each of its terms
	// (termvec.Doc.Counts), in byCall's order
	counts  [][]float64
	lists   map[string][]string // index lists (none when empty)
	stories map[string]*grouping.Story
	absent  map[string]bool // leads that are no story's
	// oldest: a cached story whose lead was posted before it is read
	// again (storyCache.story)
	oldest int64
}

// batchTerm is a term of a batch's articles as its plan sees it.
type batchTerm struct {
	term string
	df   *termDF // its document frequencies as read
	// added: the batch's articles with it that the Engine counted so far
	// (readFreq)
	added int
	// ct: the cache's entry of it as found at the cache's generation gen
	// (storyCache.termOf), or nil
	ct  *cacheTerm
	gen uint64
	// out: its frequencies after the batch's articles, and where it was
	// last listed to be written (planDF)
	out        *termDF
	chunk, day int64
	at         int // its index in the counts of (chunk, day) (planDF)
}

// readFreq is a grouping.Freq on what planStories read, with the
// batch's articles added as the Engine goes: the terms of the batch's
// articles only.
type readFreq struct{ r *planRead }

func (f readFreq) DF(t string) int {
	x := f.r.terms[t]
	return x.df.sum + x.added
}
func (f readFreq) Docs() int { return f.DF("*") }
func (f readFreq) At(int64)  {}
func (f readFreq) Add(terms map[string]float64, _ int64) {
	for t := range terms {
		f.r.terms[t].added++
	}
	f.r.articles.added++
}

// add is Add of call i's article.
func (f readFreq) add(i int) {
	for _, x := range f.r.byCall[i] {
		x.added++
	}
	f.r.articles.added++
}

// dfDays returns the days whose TermDF counts make the document
// frequencies at now.
func (s *Store) dfDays(now time.Time) []int64 {
	n := grouping.WindowDays(s.opts.Window)
	today := grouping.Day(now.Unix())
	days := make([]int64, 0, n)
	for d := today - n + 1; d <= today; d++ {
		days = append(days, d)
	}
	return days
}

// batchTerms puts in r.terms "*" (the articles' count) and the terms of
// the articles of parts, and in r.byCall each article's, and returns
// them, each once.
func (r *planRead) batchTerms(calls []ingestCall, parts [][]int) []string {
	n := 1
	for _, part := range parts {
		for _, i := range part {
			if d := calls[i].story; d != nil {
				n += len(d.Counts)
			}
		}
	}
	// n counts a term once per article: a batch's articles share many
	// (a third of n, or fewer, are distinct in a crawl's batch)
	terms := make([]string, 0, n/2)
	var block []batchTerm // r.terms points into blocks, never moved
	byCall := make([]*batchTerm, 0, n)
	counts := make([]float64, 0, n)
	r.terms = make(map[string]*batchTerm, n/2)
	r.byCall = make([][]*batchTerm, len(calls))
	r.counts = make([][]float64, len(calls))
	add := func(t string) *batchTerm {
		x := r.terms[t]
		if x == nil {
			if len(block) == cap(block) {
				block = make([]batchTerm, 0, min(n, 256))
			}
			block = append(block, batchTerm{term: t, chunk: -1})
			x = &block[len(block)-1]
			r.terms[t] = x
			terms = append(terms, t)
		}
		return x
	}
	r.articles = add("*")
	for _, part := range parts {
		for _, i := range part {
			if d := calls[i].story; d != nil {
				from := len(byCall)
				for t, c := range d.Counts {
					byCall = append(byCall, add(t))
					counts = append(counts, c)
				}
				r.byCall[i] = byCall[from:len(byCall):len(byCall)]
				r.counts[i] = counts[from:len(counts):len(counts)]
			}
		}
	}
	return terms
}

// readPlan reads the index's version, then (in the same pipeline, so
// that a write in between makes the plan stale, never wrong) whether
// each article of parts is stored, and the document frequencies of
// their terms. When the cache is trusted (the last plan found no other
// writer), the frequencies it holds are not read, and the index lists of
// the terms it holds no list of are read too (an article's keys are
// among its terms, and are known only once the frequencies are), and
// the frequencies it lacks are read only on the days it counts some
// article on (batchTerm.counted); when the version read then shows
// another writer, the cache is dropped and the frequencies it gave, or
// passed over, are read.
//
// The frequencies read count the store's pending counts too (dfPending):
// when its journal is not as it wrote it (the prune added it, or a
// script's answer was lost), the store adds what is left of it, forgets
// its pending counts and what it knew, and reads again.
func (s *Store) readPlan(ctx context.Context, calls []ingestCall, parts [][]int, now time.Time) (*planRead, error) {
	for {
		r, journal, err := s.readPlanOnce(ctx, calls, parts, now)
		if err != nil || journal == s.stories.df.entries {
			return r, err
		}
		s.log.Debug("story ingest: the document-frequency journal was added by another", "entries", journal, "written", s.stories.df.entries)
		if err := s.addOwn(ctx, now); err != nil {
			return nil, err
		}
		s.stories.reset()
	}
}

// readPlanOnce is readPlan's read, with the length of the store's
// journal.
func (s *Store) readPlanOnce(ctx context.Context, calls []ingestCall, parts [][]int, now time.Time) (*planRead, int64, error) {
	c := s.stories
	r := &planRead{created: make([]bool, len(calls)),
		lists: make(map[string][]string), stories: make(map[string]*grouping.Story), absent: make(map[string]bool),
		oldest: s.oldestCached(calls, parts, now)}
	terms := r.batchTerms(calls, parts)
	days := s.dfDays(now)
	trust := c.valid && !c.foreign
	var hitDF, lists []string // the frequencies the cache gave; the lists to read
	pipe := s.c.Pipeline()
	ver := pipe.HMGet(ctx, s.keys.StoryIndexVersion(), "n", "by")
	journal := pipe.LLen(ctx, s.keys.TermDFJournal(c.df.writer))
	urls := make(map[int]*redis.StringCmd)
	for _, part := range parts {
		for _, i := range part {
			urls[i] = pipe.HGet(ctx, s.keys.Article(calls[i].id), "url")
		}
	}
	ask, asked := terms, days
	if trust {
		ask, hitDF, lists = r.fromCacheFirst(c, terms, days[0])
		asked = r.articles.counted(days)
	}
	dfs := s.queueDF(ctx, pipe, asked, ask)
	var listCmd *redis.SliceCmd
	if len(lists) > 0 {
		listCmd = pipe.HMGet(ctx, s.keys.StoryIndex(), lists...)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, fmt.Errorf("read the story index: %w", err)
	}
	if err := r.version(ver); err != nil {
		return nil, 0, err
	}
	if journal.Val() != c.df.entries {
		return nil, journal.Val(), nil
	}
	for i, cmd := range urls {
		if err := cmd.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return nil, 0, fmt.Errorf("read article %s: %w", calls[i].id, err)
		}
		r.created[i] = errors.Is(cmd.Err(), redis.Nil)
	}
	same := c.valid && c.n == r.n && c.by == r.by
	if c.foreign = !same; !same {
		// what the cache gave was another version's
		c.reset()
		c.valid, c.n, c.by = true, r.n, r.by
	}
	r.takeDF(c, days, asked, ask, dfs)
	if listCmd != nil {
		r.takeLists(c, lists, listCmd)
	}
	if !same && len(asked) < len(days) {
		hitDF = append(hitDF, ask...) // the days passed over were the cache's word too
	}
	if !same && len(hitDF) > 0 {
		return r, c.df.entries, s.rereadDF(ctx, r, days, hitDF)
	}
	return r, c.df.entries, nil
}

// counted returns the days of days (a window's, dfDays) on which x, the
// articles' entry ("*"), counts some article, as the cache gave it: on
// the others no term counts any (every article counted under a term on
// its day is counted under "*" on it), so their frequencies need no
// read. All of days when the cache gave no count of the articles (x.df
// nil) or of another window.
func (x *batchTerm) counted(days []int64) []int64 {
	if x.df == nil || x.df.from != days[0] || len(x.df.n) != len(days) {
		return days
	}
	out := make([]int64, 0, len(days))
	for j, d := range days {
		if x.df.n[j] != 0 {
			out = append(out, d)
		}
	}
	return out
}

// fromCacheFirst puts in r the document frequencies of terms on the
// window from day from that c holds, and returns the terms it does not
// hold them of (ask) and those it does (hits), and the terms whose index
// lists it does not hold: of the others, those of the keys are taken
// from it when the keys are known (fromCache).
func (r *planRead) fromCacheFirst(c *storyCache, terms []string, from int64) (ask, hits, lists []string) {
	for _, t := range terms {
		ct, ok := c.terms.get(t)
		x := r.terms[t]
		if ok {
			x.ct, x.gen = ct, c.terms.gen
		}
		if ok && ct.df != nil && ct.df.from == from {
			x.df = ct.df
			hits = append(hits, t)
		} else {
			ask = append(ask, t)
		}
		if (!ok || !ct.listed) && t != "*" {
			lists = append(lists, t)
		}
	}
	return ask, hits, lists
}

// oldestCached returns the post time before which a cached story is
// read again for a batch (planRead.oldest): none when no article of the
// batch is posted over Grace (less an hour of margin for the time the
// plan takes) before now, for then no story that may have expired can
// take it.
func (s *Store) oldestCached(calls []ingestCall, parts [][]int, now time.Time) int64 {
	margin := int64(time.Hour / time.Second)
	for _, part := range parts {
		for _, i := range part {
			if calls[i].story != nil && calls[i].post <= now.Unix()-int64(Grace/time.Second)+margin {
				return now.Unix() - int64((s.opts.Window+Grace)/time.Second) + margin + 1
			}
		}
	}
	return math.MinInt64
}

// version sets r's version from cmd, HMGET of StoryIndexVersion's n and
// by.
func (r *planRead) version(cmd *redis.SliceCmd) error {
	v, err := cmd.Result()
	if err != nil {
		return fmt.Errorf("read the story index's version: %w", err)
	}
	if x, ok := v[0].(string); ok {
		if r.n, err = strconv.ParseInt(x, 10, 64); err != nil {
			return fmt.Errorf("the story index's version %q: %w", x, err)
		}
	}
	r.by, _ = v[1].(string)
	return nil
}

// queueDF queues on pipe the reads of the document frequencies of terms
// on days, one HMGET a day.
func (s *Store) queueDF(ctx context.Context, pipe redis.Pipeliner, days []int64, terms []string) []*redis.SliceCmd {
	if len(terms) == 0 {
		return nil
	}
	fields := make([]any, len(terms)) // each term made an interface once, not once a day
	for i, t := range terms {
		fields[i] = t
	}
	out := make([]*redis.SliceCmd, len(days))
	for j, d := range days {
		args := make([]any, 0, 2+len(fields))
		args = append(append(args, "hmget", s.keys.TermDF(d)), fields...)
		out[j] = redis.NewSliceCmd(ctx, args...)
		_ = pipe.Process(ctx, out[j])
	}
	return out
}

// takeDF puts the frequencies of terms on days, read by dfs (queueDF)
// on the days asked (counted: the others count none), in r and in c.
func (r *planRead) takeDF(c *storyCache, days, asked []int64, terms []string, dfs []*redis.SliceCmd) {
	if len(terms) == 0 {
		return
	}
	xs := make([]*termDF, len(terms)) // each its own: the cache keeps some
	for i := range xs {
		xs[i] = newTermDF(days[0], len(days), nil)
	}
	for j, cmd := range dfs {
		at := asked[j] - days[0]
		for i, v := range cmd.Val() {
			if s, ok := v.(string); ok {
				n, _ := strconv.Atoi(s)
				xs[i].n[at] = int32(n)
				xs[i].sum += n
			}
		}
	}
	for i, t := range terms {
		c.df.addTo(t, xs[i])
		x := r.terms[t]
		x.df = xs[i]
		c.termOf(x).df = xs[i]
	}
}

// rereadDF reads the frequencies of terms on days into r and c.
func (s *Store) rereadDF(ctx context.Context, r *planRead, days []int64, terms []string) error {
	pipe := s.c.Pipeline()
	dfs := s.queueDF(ctx, pipe, days, terms)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read the document frequencies: %w", err)
	}
	r.takeDF(s.stories, days, days, terms, dfs)
	return nil
}

// takeLists puts the index lists of keys, read by cmd, in r and in c.
func (r *planRead) takeLists(c *storyCache, keys []string, cmd *redis.SliceCmd) {
	for i, v := range cmd.Val() {
		l, _ := v.(string)
		list := strings.FieldsFunc(l, func(c rune) bool { return c == ',' })
		r.lists[keys[i]] = list
		ct := c.term(keys[i])
		ct.list, ct.listed = list, true
	}
}

// fromCache puts in r the index lists of keys that c holds.
func (r *planRead) fromCache(c *storyCache, keys []string) {
	for _, k := range keys {
		if _, ok := r.lists[k]; !ok {
			if ct, ok := c.terms.get(k); ok && ct.listed {
				r.lists[k] = ct.list
			}
		}
	}
}

// story returns a copy of story lead as r read it or c holds it, and
// whether either knows it (nil: gone): the Engine's Lookup.
func (r *planRead) story(c *storyCache, lead string) (*grouping.Story, bool) {
	st, ok := r.stories[lead]
	if !ok {
		if r.absent[lead] {
			return nil, true
		}
		if st, ok = c.story(lead, r.oldest); !ok || st == nil {
			return nil, ok
		}
	}
	st.CentroidNorm() // computed once, on the story r or c keeps: the copies have it
	cp := *st
	return &cp, true
}

// readMore reads the index lists of keys and the stories of leads into
// r and the cache: a lead whose hash has no vector or post time, or
// that has joined another story, is absent.
func (s *Store) readMore(ctx context.Context, keys, leads []string, r *planRead) error {
	pipe := s.c.Pipeline()
	var lists *redis.SliceCmd
	if len(keys) > 0 {
		lists = pipe.HMGet(ctx, s.keys.StoryIndex(), keys...)
	}
	cmds := make([]*redis.SliceCmd, len(leads))
	for i, id := range leads {
		cmds[i] = pipe.HMGet(ctx, s.keys.Article(id), "tv", "cv", "time", "slast", "tf", "cjk", "story", "tn", "ta", "to", "td")
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read %d index lists and %d stories: %w", len(keys), len(leads), err)
	}
	if lists != nil {
		r.takeLists(s.stories, keys, lists)
	}
	for i, id := range leads {
		st, err := storyOf(id, cmds[i].Val())
		if err != nil {
			s.log.Warn("story unreadable: taken as gone", "lead", id, "err", err)
		}
		s.stories.stories.put(id, st)
		if st == nil {
			r.absent[id] = true
			continue
		}
		r.stories[id] = st
	}
	return nil
}

// storyOf is the story led by id from its hash's fields tv, cv, time,
// slast, tf, cjk, story, tn, ta, to, td; nil when there is none.
func storyOf(id string, v []any) (*grouping.Story, error) {
	str := func(i int) string { x, _ := v[i].(string); return x }
	tv, cv, ts, slast, tf, cjk, story, tn, ta, to := str(0), str(1), str(2), str(3), str(4), str(5), str(6), str(7), str(8), str(9)
	day, _ := strconv.ParseInt(str(10), 10, 64) // none: 0
	t, err := strconv.ParseInt(ts, 10, 64)
	if tv == "" || err != nil || story != "" && story != id {
		return nil, nil
	}
	c := cv
	if c == "" {
		c = tv
	}
	cen, err := termvec.Parse(c)
	if err != nil {
		return nil, err
	}
	last := t
	if l, err := strconv.ParseInt(slast, 10, 64); err == nil {
		last = l
	}
	return &grouping.Story{Lead: id, Centroid: cen, First: t, Last: last, Facts: strings.Fields(tf), CJK: cjk == "1",
		TitleNames: strings.Fields(tn), Actor: ta, Object: to, Day: day}, nil
}
