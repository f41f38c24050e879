package news

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/termvec"
)

// Stories planned in Go.
//
// The store plans a batch's stories itself (planStories) with the same
// grouping.Engine that runs in memory: it reads the index's version
// (StoryIndexVersion), whether each article is new, and the document
// frequencies of the window's days for the batch's terms, in one
// pipeline; then the index lists of the articles' keys and the candidate
// stories (their leads' vectors, centroids and times), what the Engine
// says it is missing, until it has all it needs; and runs the Engine
// article by article in the batch's order, chunk by chunk. ingestPlanCmd
// then checks the version before writing anything (its count, and for a
// batch's later chunks that the last writer was the chunk before: a
// chunk planned on top of a refused one is refused too): when the index
// was written since (by another process's ingest or by a prune), the
// chunk is refused as stale and planned again from a fresh read. After
// PlanAttempts refusals the ingest takes StoryLock and plans until its
// chunks go through: the others that fail that often wait for the lock,
// so it cannot be starved. So two processes ingesting copies of one
// event at once still form one story, and no article is stored without
// its story.

// PlanAttempts is how many times a chunk of a batch is planned before
// the ingest plans under StoryLock.
const PlanAttempts = 3

// storyLockTTL is how long StoryLock lives unless renewed; lockWait how
// long a waiter sleeps between tries.
const (
	storyLockTTL = 10 * time.Second
	lockWait     = 5 * time.Millisecond
)

// grouping returns the Params the store groups with:
// grouping.DefaultParams with news.story.min_similarity.
func (o Options) grouping() grouping.Params {
	p := grouping.DefaultParams
	p.MinSimilarity = o.StoryMinSimilarity
	return p
}

// storyDoc returns the terms of article a, for its story.
func storyDoc(a Article) *termvec.Doc {
	d := termvec.NewDoc(a.Title, a.Summary, a.Lead, grouping.DefaultParams.Weights)
	return &d
}

// chunkPlan is ingestPlanCmd's plan for one chunk.
type chunkPlan struct {
	// count is the version's count (n) the chunk expects, after the
	// last writer (by) it expects ("" for the first chunk of a batch);
	// name is its own, which the next chunk expects
	count       int64
	after, name string
	joins       []any // article id, its story's lead
	lists       []any // index term, its list after the chunk
	stories     []any // lead, its centroid, its latest member's post time
	dfs         []any // article id, its TermDF key, that key's TTL (s), its terms
	fields      map[int][]any
}

// args returns the plan as ingestPlanCmd's ARGV[8] on.
func (p chunkPlan) args() []any {
	out := make([]any, 0, 7+len(p.joins)+len(p.lists)+len(p.stories)+len(p.dfs))
	out = append(out, p.count, p.after, p.name, len(p.joins)/2, len(p.lists)/2, len(p.stories)/3, len(p.dfs)/4)
	out = append(out, p.joins...)
	out = append(out, p.lists...)
	out = append(out, p.stories...)
	return append(out, p.dfs...)
}

// planRead is what planStories reads before it decides.
type planRead struct {
	version int64
	created []bool // per call: the article is not stored yet
	df      map[string]int
	docs    int
	lists   map[string][]string // index lists read (none when empty)
	stories map[string]*grouping.Story
	absent  map[string]bool // leads read that are no story's
}

// readFreq is a grouping.Freq on what planStories read, with the
// batch's articles added as the Engine goes.
type readFreq struct {
	r     *planRead
	added map[string]int
	docs  int
}

func (f *readFreq) DF(t string) int { return f.r.df[t] + f.added[t] }
func (f *readFreq) Docs() int       { return f.r.docs + f.docs }
func (f *readFreq) At(int64)        {}
func (f *readFreq) Add(terms map[string]float64, _ int64) {
	for t := range terms {
		f.added[t]++
	}
	f.docs++
}

// runStoryIngest runs parts through ingestPlanCmd with their stories
// planned in Go (planStories), planning again the chunks refused as
// stale, under StoryLock after PlanAttempts refusals.
func (s *Store) runStoryIngest(ctx context.Context, as []Article, calls []ingestCall, parts [][]int, res []IngestResult, head []any, now time.Time) error {
	cutoff := now.Add(-s.opts.Window).Unix()
	unlock := func() {}
	defer func() { unlock() }()
	for attempt := 1; ; attempt++ {
		if attempt == PlanAttempts+1 {
			var err error
			if unlock, err = s.lockStories(ctx); err != nil {
				return err
			}
			s.log.Debug("story index busy: planning under the lock", "chunks", len(parts))
		}
		plans, err := s.planStories(ctx, calls, parts, now)
		if err != nil {
			return err
		}
		if s.planned != nil {
			s.planned()
		}
		stale, err := s.runChunks(ctx, as, calls, parts, res, ingestPlanCmd, func(c int) []any {
			return append(append(append([]any(nil), head...), cutoff), plans[c].args()...)
		}, func(c, i int) []any { return plans[c].fields[i] })
		if err != nil {
			return err
		}
		var left [][]int
		for _, c := range stale {
			left = append(left, parts[c])
		}
		if attempt > PlanAttempts {
			storyChunks("locked", len(parts)-len(left))
		} else {
			storyChunks("planned", len(parts)-len(left))
		}
		storyChunks("stale", len(left))
		if parts = left; len(parts) == 0 {
			return nil
		}
	}
}

// lockStories takes StoryLock, waiting while another ingest holds it,
// and returns its release; a goroutine renews it while held.
func (s *Store) lockStories(ctx context.Context) (func(), error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	for {
		ok, err := s.c.SetNX(ctx, s.keys.StoryLock(), token, storyLockTTL).Result()
		if err != nil {
			return nil, fmt.Errorf("take the story lock: %w", err)
		}
		if ok {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(lockWait):
		}
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(storyLockTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case <-t.C:
				unlockCmd.Run(rctx, s.c, []string{s.keys.StoryLock()}, token, storyLockTTL.Milliseconds())
			}
		}
	}()
	return func() {
		cancel()
		<-done
		if err := unlockCmd.Run(context.WithoutCancel(ctx), s.c, []string{s.keys.StoryLock()}, token, 0).Err(); err != nil && !errors.Is(err, redis.Nil) {
			s.log.Warn("release the story lock", "err", err)
		}
	}, nil
}

// unlockCmd renews or releases StoryLock if its caller holds it.
//
// KEYS[1] -> StoryLock STRING
// ARGV[1] -> the holder's token
// ARGV[2] -> new TTL (ms), or 0 to release
//
// Returns 1 when the caller held the lock, else 0.
var unlockCmd = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '0' then redis.call('DEL', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
`)

// planStories plans the story work of parts (chunks of calls, in the
// order they will run) at now.
func (s *Store) planStories(ctx context.Context, calls []ingestCall, parts [][]int, now time.Time) ([]chunkPlan, error) {
	r, err := s.readPlan(ctx, calls, parts, now)
	if err != nil {
		return nil, err
	}
	for {
		plans, keys, leads := s.decide(calls, parts, r, now)
		if len(keys) == 0 && len(leads) == 0 {
			var b [8]byte
			_, _ = rand.Read(b[:])
			name := hex.EncodeToString(b[:]) + ":"
			for c := range plans {
				plans[c].name = name + strconv.Itoa(c)
				if c > 0 {
					plans[c].after = plans[c-1].name
				}
			}
			return plans, nil
		}
		if err := s.readMore(ctx, keys, leads, r); err != nil {
			return nil, err
		}
	}
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

// readPlan reads the index's version (its count), then (in the same
// pipeline, so that a write in between makes the plan stale, never
// wrong) whether each article of parts is stored, and the document
// frequencies of their terms.
func (s *Store) readPlan(ctx context.Context, calls []ingestCall, parts [][]int, now time.Time) (*planRead, error) {
	r := &planRead{created: make([]bool, len(calls)), df: make(map[string]int),
		lists: make(map[string][]string), stories: make(map[string]*grouping.Story), absent: make(map[string]bool)}
	terms := []string{"*"}
	seen := make(map[string]bool)
	pipe := s.c.Pipeline()
	ver := pipe.HGet(ctx, s.keys.StoryIndexVersion(), "n")
	urls := make(map[int]*redis.StringCmd)
	for _, part := range parts {
		for _, i := range part {
			urls[i] = pipe.HGet(ctx, s.keys.Article(calls[i].id), "url")
			if d := calls[i].story; d != nil {
				for t := range d.Counts {
					if !seen[t] {
						seen[t] = true
						terms = append(terms, t)
					}
				}
			}
		}
	}
	var dfs []*redis.SliceCmd
	for _, d := range s.dfDays(now) {
		dfs = append(dfs, pipe.HMGet(ctx, s.keys.TermDF(d), terms...))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read the story index: %w", err)
	}
	if v, err := ver.Int64(); err == nil {
		r.version = v
	} else if !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read the story index's version: %w", err)
	}
	for i, c := range urls {
		if err := c.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("read article %s: %w", calls[i].id, err)
		}
		r.created[i] = errors.Is(c.Err(), redis.Nil)
	}
	for _, c := range dfs {
		for i, v := range c.Val() {
			if x, ok := v.(string); ok {
				n, _ := strconv.Atoi(x)
				if i == 0 {
					r.docs += n
				} else {
					r.df[terms[i]] += n
				}
			}
		}
	}
	return r, nil
}

// readMore reads the index lists of keys and the stories of leads into
// r: a lead whose hash has no vector or post time, or that has joined
// another story, is absent.
func (s *Store) readMore(ctx context.Context, keys, leads []string, r *planRead) error {
	pipe := s.c.Pipeline()
	var lists *redis.SliceCmd
	if len(keys) > 0 {
		lists = pipe.HMGet(ctx, s.keys.StoryIndex(), keys...)
	}
	cmds := make([]*redis.SliceCmd, len(leads))
	for i, id := range leads {
		cmds[i] = pipe.HMGet(ctx, s.keys.Article(id), "tv", "cv", "time", "slast", "tf", "cjk", "story", "tn")
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read %d index lists and %d stories: %w", len(keys), len(leads), err)
	}
	if lists != nil {
		for i, v := range lists.Val() {
			l, _ := v.(string)
			r.lists[keys[i]] = strings.FieldsFunc(l, func(c rune) bool { return c == ',' })
		}
	}
	for i, id := range leads {
		st, err := storyOf(id, cmds[i].Val())
		if err != nil {
			s.log.Warn("story unreadable: taken as gone", "lead", id, "err", err)
		}
		if st == nil {
			r.absent[id] = true
			continue
		}
		r.stories[id] = st
	}
	return nil
}

// storyOf is the story led by id from its hash's fields tv, cv, time,
// slast, tf, cjk, story, tn; nil when there is none.
func storyOf(id string, v []any) (*grouping.Story, error) {
	str := func(i int) string { x, _ := v[i].(string); return x }
	tv, cv, ts, slast, tf, cjk, story, tn := str(0), str(1), str(2), str(3), str(4), str(5), str(6), str(7)
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
		TitleNames: strings.Fields(tn)}, nil
}

// decide runs the Engine over parts on what r holds. It returns the
// plans, or the index lists and stories it needs and r lacks (then the
// plans are not to be used).
func (s *Store) decide(calls []ingestCall, parts [][]int, r *planRead, now time.Time) ([]chunkPlan, []string, []string) {
	e := grouping.NewEngine(s.opts.grouping(), s.opts.Window, &readFreq{r: r, added: make(map[string]int)})
	e.Complete = false
	for k, l := range r.lists {
		e.SetList(k, l)
	}
	for _, st := range r.stories {
		cp := *st
		e.SetStory(&cp)
	}
	for id := range r.absent {
		e.Absent(id)
	}
	window := int64((s.opts.Window + Grace) / time.Second)
	seen := make(map[string]bool)
	plans := make([]chunkPlan, len(parts))
	for c, part := range parts {
		p := &plans[c]
		p.count = r.version + int64(c)
		p.fields = make(map[int][]any)
		changed := make(map[string]bool) // leads, and "\x00" + terms
		var leads, terms []string
		for _, i := range part {
			call := &calls[i]
			made := r.created[i] && !seen[call.id]
			seen[call.id] = true
			if !made || call.story == nil {
				continue
			}
			a := grouping.Article{ID: call.id, Time: call.post, Doc: *call.story}
			d := e.Add(a)
			f := []any{"tv", d.Vector.String(), "tk", strings.Join(d.Keys, " ")}
			if len(a.Doc.Facts) > 0 {
				f = append(f, "tf", strings.Join(a.Doc.Facts, " "))
			}
			if a.Doc.CJK {
				f = append(f, "cjk", "1")
			}
			if len(a.Doc.TitleNames) > 0 {
				f = append(f, "tn", strings.Join(a.Doc.TitleNames, " "))
			}
			p.fields[i] = f
			if d.Joined(call.id) {
				p.joins = append(p.joins, call.id, d.Story)
				if !changed[d.Story] {
					changed[d.Story] = true
					leads = append(leads, d.Story)
				}
			}
			for _, k := range d.Keys {
				if !changed["\x00"+k] {
					changed["\x00"+k] = true
					terms = append(terms, k)
				}
			}
			day := grouping.Day(call.post)
			ttl := (day+1)*86400 + window - now.Unix()
			ts := make([]string, 0, len(a.Doc.Counts))
			for t := range a.Doc.Counts {
				ts = append(ts, t)
			}
			p.dfs = append(p.dfs, call.id, s.keys.TermDF(day), max(ttl, 1), strings.Join(ts, " "))
		}
		for _, k := range leads {
			st := e.Story(k)
			p.stories = append(p.stories, k, st.Centroid.String(), st.Last)
		}
		for _, k := range terms {
			p.lists = append(p.lists, k, strings.Join(e.List(k), ","))
		}
	}
	return plans, e.MissingKeys(), e.Missing()
}
