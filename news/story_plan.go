package news

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/minhash"
)

// Stories planned in Go.
//
// ingestStoryCmd compares sketches in Lua, inside Redis, where a merge of
// two 64-hash sketches costs a few microseconds: on a site whose pages
// look alike that was most of the ingest's time. So the store plans a
// batch's stories itself (planStories): it reads the index's version
// (shingles:v), then the lists of the batch's keys and whether each
// article is new, in one pipeline; reads the candidate leads' sketches
// and post times it does not know (leadCache keeps them: they never
// change while the lead lives); and runs the same decisions as
// ingestStoryCmd, article by article in the batch's order, chunk by
// chunk. ingestPlanCmd then checks the version before writing anything
// (its count of writes, and for a batch's later chunks that the last
// writer was the chunk before: a chunk planned on top of a refused one
// is refused too): when the index was written since (by another
// process's ingest or by a prune), the chunk is refused as stale and
// planned again from a fresh read, PlanAttempts times at most, and then
// ingested by ingestStoryCmd, which decides in Lua (so a busy index
// slows the ingest down, never stops it). Both ways give an article the
// same story: TestStoryPlanSame ingests the labelled set both ways.

// PlanAttempts is how many times a chunk of a batch is planned in Go
// before ingestStoryCmd decides its stories in Lua.
const PlanAttempts = 3

// storyArt is what the store computes of an article for its story: its
// sketches and index keys (sketchFields).
type storyArt struct {
	mh, mt minhash.Sketch
	keys   []string // 8 hex digits each
}

// storyLead is what the planner reads of a story's lead.
type storyLead struct {
	mh, mt minhash.Sketch
	t      int64 // post time, Unix s
}

// leadCacheMax bounds leadCache: ~500 bytes an entry (16 MB full, for
// sketches of 64 and 15 hashes).
const leadCacheMax = 32768

// leadCache keeps the sketches and post times of the leads a store has
// read, by id. An article's sketches and post time are written when it
// is created and never change while it lives, so an entry is good as
// long as its lead is in the window; an entry posted before the cutoff
// is read again (its article may have expired and come back under the
// same URL). Emptied when full.
type leadCache struct {
	mu sync.Mutex
	m  map[string]storyLead
}

func (c *leadCache) get(id string) (storyLead, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.m[id]
	return l, ok
}

func (c *leadCache) put(id string, l storyLead) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= leadCacheMax {
		c.m = make(map[string]storyLead)
	}
	c.m[id] = l
}

// reset empties the cache.
func (c *leadCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

// chunkPlan is ingestPlanCmd's plan for one chunk.
type chunkPlan struct {
	// count is the version's count (n) the chunk expects, after the
	// last writer (by) it expects ("" for the first chunk of a batch);
	// name is its own, which the next chunk expects
	count       int64
	after, name string
	joins       []any // article id, its story's lead
	lists       []any // index key, its list after the chunk
}

// args returns the plan as ingestPlanCmd's ARGV[8] on.
func (p chunkPlan) args() []any {
	out := make([]any, 0, 5+len(p.joins)+len(p.lists))
	out = append(out, p.count, p.after, p.name, len(p.joins)/2, len(p.lists)/2)
	out = append(out, p.joins...)
	return append(out, p.lists...)
}

// planRead is what planStories reads before it decides.
type planRead struct {
	version int64
	lists   map[string][]string // index key → its list; none when empty
	created []bool              // per call: the article is not stored yet
	known   map[string]storyLead
	absent  map[string]bool // ids read that are no comparable lead
}

// planStories plans the story work of parts (chunks of calls, in the
// order they will run), as ingestStoryCmd would do it; cutoff is its
// ARGV[8].
func (s *Store) planStories(ctx context.Context, calls []ingestCall, parts [][]int, cutoff int64) ([]chunkPlan, error) {
	r, err := s.readPlan(ctx, calls, parts)
	if err != nil {
		return nil, err
	}
	for {
		plans, missing := s.decide(calls, parts, r, cutoff)
		if len(missing) == 0 {
			name := fmt.Sprintf("%016x:", rand.Uint64())
			for c := range plans {
				plans[c].name = name + strconv.Itoa(c)
				if c > 0 {
					plans[c].after = plans[c-1].name
				}
			}
			return plans, nil
		}
		if err := s.readLeads(ctx, missing, r); err != nil {
			return nil, err
		}
	}
}

// readPlan reads the index's version (its count), then (in the same
// pipeline, so that a write in between makes the plan stale, never
// wrong) the lists of the keys of parts and whether each of their
// articles is stored.
func (s *Store) readPlan(ctx context.Context, calls []ingestCall, parts [][]int) (*planRead, error) {
	r := &planRead{lists: make(map[string][]string), created: make([]bool, len(calls)),
		known: make(map[string]storyLead), absent: make(map[string]bool)}
	var fields []string
	seen := make(map[string]bool)
	pipe := s.c.Pipeline()
	ver := pipe.HGet(ctx, s.keys.ShinglesVersion(), "n")
	urls := make(map[int]*redis.StringCmd)
	for _, part := range parts {
		for _, i := range part {
			urls[i] = pipe.HGet(ctx, s.keys.Article(calls[i].id), "url")
			if st := calls[i].story; st != nil {
				for _, f := range st.keys {
					if !seen[f] {
						seen[f] = true
						fields = append(fields, f)
					}
				}
			}
		}
	}
	var lists *redis.SliceCmd
	if len(fields) > 0 {
		lists = pipe.HMGet(ctx, s.keys.Shingles(), fields...)
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
	if lists != nil {
		for i, v := range lists.Val() {
			if l, ok := v.(string); ok {
				r.lists[fields[i]] = strings.FieldsFunc(l, func(c rune) bool { return c == ',' })
			}
		}
	}
	return r, nil
}

// readLeads reads the sketches and post times of leads ids into r (and
// the store's leadCache); an id whose hash has no sketch or post time is
// absent, as it is to ingestStoryCmd.
func (s *Store) readLeads(ctx context.Context, ids []string, r *planRead) error {
	pipe := s.c.Pipeline()
	cmds := make([]*redis.SliceCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.HMGet(ctx, s.keys.Article(id), "mh", "mt", "time")
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("read %d story leads: %w", len(ids), err)
	}
	for i, id := range ids {
		v := cmds[i].Val()
		mh, _ := v[0].(string)
		mt, _ := v[1].(string)
		ts, _ := v[2].(string)
		t, err := strconv.ParseInt(ts, 10, 64)
		if mh == "" || err != nil {
			r.absent[id] = true
			continue
		}
		l := storyLead{mh: minhash.FromBytes([]byte(mh)), mt: minhash.FromBytes([]byte(mt)), t: t}
		r.known[id] = l
		s.leads.put(id, l)
	}
	return nil
}

// lead returns what the planner knows of lead id: batch holds the
// batch's articles filed so far as leads.
func (s *Store) lead(id string, batch map[string]storyLead, r *planRead, cutoff int64) (l storyLead, ok, unknown bool) {
	if l, ok := batch[id]; ok {
		return l, true, false
	}
	if l, ok := r.known[id]; ok {
		return l, true, false
	}
	if r.absent[id] {
		return storyLead{}, false, false
	}
	if l, ok := s.leads.get(id); ok && l.t >= cutoff {
		return l, true, false
	}
	return storyLead{}, false, true
}

// decide runs ingestStoryCmd's decisions over parts on what r holds. It
// returns the plans, or the leads it needs and does not know (then the
// plans are not to be used).
func (s *Store) decide(calls []ingestCall, parts [][]int, r *planRead, cutoff int64) ([]chunkPlan, []string) {
	lists := make(map[string][]string, len(r.lists))
	for f, l := range r.lists {
		lists[f] = l
	}
	batch := make(map[string]storyLead)
	seen := make(map[string]bool)
	var missing []string
	look := func(lead string) (storyLead, bool) {
		l, ok, unknown := s.lead(lead, batch, r, cutoff)
		if unknown {
			missing = append(missing, lead)
		}
		return l, ok
	}
	sc := storyScratch{at: make(map[string]int)}
	plans := make([]chunkPlan, len(parts))
	for c, part := range parts {
		p := &plans[c]
		p.count = r.version + int64(c)
		var changed []string
		isChanged := make(map[string]bool)
		for _, i := range part {
			call := &calls[i]
			made := r.created[i] && !seen[call.id]
			seen[call.id] = true
			st := call.story
			if !made || st == nil {
				continue
			}
			best := s.bestStory(call.id, st, lists, look, cutoff, &sc)
			owner := best
			if best == "" {
				owner = call.id
				batch[call.id] = storyLead{mh: st.mh, mt: st.mt, t: call.post}
			} else {
				p.joins = append(p.joins, call.id, best)
			}
			for _, f := range st.keys {
				ls := lists[f]
				if len(ls) > 0 && ls[0] == owner {
					continue
				}
				nl := make([]string, 1, StoriesPerKey)
				nl[0] = owner
				for _, x := range ls {
					if x != owner && len(nl) < StoriesPerKey {
						nl = append(nl, x)
					}
				}
				if !isChanged[f] {
					isChanged[f] = true
					changed = append(changed, f)
				}
				lists[f] = nl
			}
		}
		for _, f := range changed {
			p.lists = append(p.lists, f, strings.Join(lists[f], ","))
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, slices.Compact(missing)
	}
	return plans, nil
}
