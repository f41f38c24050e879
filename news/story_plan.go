package news

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
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
// pipeline; computes each new article's vector and index keys once;
// then reads the index lists of the keys and the candidate stories
// (their leads' vectors, centroids and times), what the Engine says it
// is missing, until it has all it needs, running the Engine article by
// article in the batch's order, chunk by chunk. What the store read and
// wrote before, at the version it reads, it does not read again
// (story_cache.go). ingestPlanCmd then checks the version before
// writing anything (its count, and for a batch's later chunks that the
// last writer was the chunk before: a chunk planned on top of a refused
// one is refused too): when the index was written since (by another
// process's ingest or by a prune), the chunk is refused as stale and
// planned again from a fresh read. After PlanAttempts refusals the
// ingest takes StoryLock and plans until its chunks go through: the
// others that fail that often wait for the lock, so it cannot be
// starved. So two processes ingesting copies of one event at once still
// form one story, and no article is stored without its story. The
// document frequencies a chunk counts go to the store's journal and are
// added to Redis's in bulk (story_df.go): the store's own plans count
// them at once, other processes' once added.

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

// storyDoc returns the terms of article a, for its story: those
// PrepareStory computed when a's title, summary and lead are still the
// ones it read.
func storyDoc(a Article) *termvec.Doc {
	if p := a.story; p != nil && p.title == a.Title && p.summary == a.Summary && p.lead == a.Lead {
		return &p.doc
	}
	d := storyTerms(a)
	return &d
}

// storyTerms computes the terms of a's title, summary and lead that its
// story is chosen by.
func storyTerms(a Article) termvec.Doc {
	return termvec.NewDoc(a.Title, a.Summary, a.Lead, grouping.DefaultParams.Weights)
}

// preparedStory is an article's story terms computed ahead of its
// ingest (PrepareStory), with the texts they were computed from.
type preparedStory struct {
	title, summary, lead string
	doc                  termvec.Doc
}

// ReadsLead reports whether the store reads an article's Lead: only to
// group stories (news.rank_by: story). A caller may leave it empty
// otherwise (the crawler then does not look for it on the page).
func (s *Store) ReadsLead() bool { return s.opts.stories() }

// PrepareStory computes the terms of a that its ingest groups it into a
// story by (its title's, summary's and lead's: package termvec), when
// the store ranks by story; it does nothing otherwise. The ingest
// computes them itself for an article not prepared, or changed since: a
// caller that reads articles in parallel (the crawler's workers) calls
// it there, so that the ingest, which plans its batches' stories one
// after another, does less. The ingest does not change the terms: an
// article prepared once may be ingested again.
func (s *Store) PrepareStory(a *Article) {
	if !s.opts.stories() {
		return
	}
	a.story = &preparedStory{title: a.Title, summary: a.Summary, lead: a.Lead, doc: storyTerms(*a)}
}

// chunkPlan is ingestPlanCmd's plan for one chunk.
type chunkPlan struct {
	// count is the version's count (n) the chunk expects, after the
	// last writer (by) it expects ("" for the first chunk of a batch);
	// name is its own, which the next chunk expects
	count       int64
	after, name string
	joins       []any     // article id, its story's lead
	lists       []any     // index term, its list after the chunk
	stories     []any     // lead, its centroid, its latest member's post time
	dfs         []dfDelta // per day, the counts of its created articles' terms, which it writes to the store's journal
	fields      map[int][]any
	// want is the story the script answers for each article the chunk
	// creates (by call): its lead, or "" for an article alone
	want map[int]string
}

// args returns the plan as ingestPlanCmd's ARGV[8] on, its counts
// written to writer's journal, which lives ttl (s).
func (p chunkPlan) args(writer string, ttl int64) []any {
	out := make([]any, 0, 9+len(p.joins)+len(p.lists)+len(p.stories)+len(p.dfs))
	out = append(out, p.count, p.after, p.name, len(p.joins)/2, len(p.lists)/2, len(p.stories)/3, len(p.dfs))
	out = append(out, p.joins...)
	out = append(out, p.lists...)
	out = append(out, p.stories...)
	out = append(out, writer, ttl)
	for i := range p.dfs {
		out = append(out, p.dfs[i].entry())
	}
	return out
}

// runStoryIngest runs parts through ingestPlanCmd with their stories
// planned in Go (planStories), planning again the chunks refused as
// stale, under StoryLock after PlanAttempts refusals. One batch of the
// store plans at a time (storyCache); the cache takes what a batch
// wrote when all of it went through as planned, and is dropped
// otherwise.
func (s *Store) runStoryIngest(ctx context.Context, as []Article, calls []ingestCall, parts [][]int, res []IngestResult, head []any, now time.Time) error {
	c := s.stories
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	done := false
	defer func() {
		if !done {
			c.reset()
		}
	}()
	cutoff := now.Add(-s.opts.Window).Unix()
	journalTTL := int64((s.opts.Window + Grace) / time.Second)
	unlock := func() {}
	defer func() { unlock() }()
	for attempt := 1; ; attempt++ {
		if attempt == PlanAttempts+1 {
			release, err := s.lockStories(ctx)
			if err != nil {
				return err
			}
			unlock = release
			s.log.Debug("story index busy: planning under the lock", "chunks", len(parts))
		}
		b, err := s.planStories(ctx, calls, parts, now)
		if err != nil {
			return err
		}
		if s.planned != nil {
			s.planned()
		}
		stale, err := s.runChunks(ctx, as, calls, parts, res, ingestPlanCmd, func(c int) []any {
			return append(append(append([]any(nil), head...), cutoff), b.chunks[c].args(s.stories.df.writer, journalTTL)...)
		}, func(c, i int) []any { return b.chunks[c].fields[i] })
		if err != nil {
			return err
		}
		for k := range b.chunks {
			if !slices.Contains(stale, k) {
				c.df.add(b.chunks[k].dfs, now)
			}
		}
		if len(stale) == 0 {
			c.update(b, res)
		} else {
			c.reset()
			c.foreign = true
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
			done = true
			if c.df.due(now) {
				if err := s.flushDF(ctx, now); err != nil {
					// the counts stay in the journal and in memory: added later
					s.log.Warn("story ingest: add the document frequencies", "err", err)
				}
			}
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
