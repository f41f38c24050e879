package news

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
)

// Reading a page.
//
// A page is the ranking's ids for the page's ranks, each article's fields
// (HMGET of itemFields) and its score (score:). The ids come first, and a
// pipeline cannot feed a reply into a later command, so reading them
// honestly takes two round trips — or one Lua script that calls HMGET
// per article. On Redis 7.0 a script's redis.call costs several times the
// command it runs (argument objects, ACL check, reply conversion): the
// script that used to read a page of 25 took 240–480 µs of server time on
// the benchmark machine, the same commands sent directly 55–80 µs
// (BenchmarkListPage, server-us/page).
//
// So a page is read with plain commands, in one round trip in the common
// case: the store remembers which ids it last read for each page
// (guesses), and asks for those articles' fields in the same pipeline as
// the ranking. When the ranking returns the same articles (in any order:
// a vote that reorders page 1 keeps the same 25), that one round trip is
// the whole read. Articles that are new on the page are read in a second
// round trip, and remembered for next time. Fields are never taken from
// memory, only the ids of what to ask for: every field and score in a
// page comes from Redis in the same call that lists it.
//
// The reads are not one atomic step (a pipeline is not a transaction): a
// vote landing between the ranking and the fields shows in the fields
// but not in the order. A listing can always be that stale a moment
// later, so this costs nothing a reader could notice.

// Indexes in itemFields of the fields an Item is built from.
const (
	fTitle = iota
	fURL
	fSource
	fSummary
	fImage
	fUser
	fTime
	fCrawled
	fComments
	fUp
	fDown
	fVotes
	fStory
	fStoryVotes
)

// itemFields are the article hash fields an Item is built from, in the
// order of the constants above.
var itemFields = [...]string{"title", "url", "source", "summary", "image", "user", "time", "crawled", "comments", "up", "down", "votes", "story", "svotes"}

// itemFieldArgs is itemFields as command arguments.
var itemFieldArgs = func() (a [len(itemFields)]any) {
	for i, f := range itemFields {
		a[i] = f
	}
	return a
}()

// itemFromFields builds an Item from HMGET itemFields (a missing field
// reads as ""); ok is false when the hash is gone (an expired article not
// yet pruned from the rankings).
func itemFromFields(id string, v []string) (it Item, ok bool) {
	if len(v) != len(itemFields) || v[fURL] == "" {
		return Item{}, false
	}
	it = Item{
		ID:      id,
		Title:   v[fTitle],
		URL:     v[fURL],
		Source:  v[fSource],
		Summary: v[fSummary],
		Image:   v[fImage],
		User:    v[fUser],
	}
	if t, err := strconv.ParseInt(v[fTime], 10, 64); err == nil {
		it.PostTime = time.Unix(t, 0)
	}
	if t, err := strconv.ParseInt(v[fCrawled], 10, 64); err == nil {
		it.CrawlTime = time.Unix(t, 0)
	}
	it.Comments, _ = strconv.ParseInt(v[fComments], 10, 64)
	it.Up, _ = strconv.ParseInt(v[fUp], 10, 64)
	it.Down, _ = strconv.ParseInt(v[fDown], 10, 64)
	it.Votes, _ = strconv.ParseFloat(v[fVotes], 64)
	it.Story = v[fStory]
	it.StoryVotes, _ = strconv.ParseFloat(v[fStoryVotes], 64)
	return it, true
}

// maxGuesses bounds the pages whose ids a Store remembers. The front
// pages of each listing are what is read over and over; past this many
// pages the memory is dropped and refilled by what is read next.
const maxGuesses = 512

// guesses remembers, per page, the ids last read for it.
type guesses struct {
	mu sync.Mutex
	m  map[string][]string // page key → ids; a slice is never modified once stored
}

func (g *guesses) get(key string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.m[key]
}

// forget drops every guess (tests and benchmarks use it to read pages
// cold).
func (g *guesses) forget() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.m = nil
}

func (g *guesses) put(key string, ids []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil || len(g.m) >= maxGuesses {
		g.m = make(map[string][]string)
	}
	g.m[key] = ids
}

// rankRead is the ranking part of a page read, queued in a pipeline.
type rankRead struct {
	// key identifies the page (ranking, start, stop) among the guesses.
	key string
	// scored: the ranking is score:, so its read gives the scores.
	scored bool
	// queue queues the ranking read on p and returns a function that
	// decodes its reply once the pipeline ran: the total number of
	// entries, the page's ids, and their scores when the ranking is
	// score: (nil otherwise).
	queue func(ctx context.Context, p redis.Pipeliner) func() (total int64, ids []string, scores []float64, err error)
	// script is the script queue runs by EVALSHA, if any: loaded and
	// run again when the server does not know it (rdb.Pipelined).
	script *redis.Script
}

func pageKey(ranking string, start, stop int64) string {
	return ranking + " " + strconv.FormatInt(start, 10) + " " + strconv.FormatInt(stop, 10)
}

// zsetPage reads ranks start..stop of the ZSET key (highest first) and
// its size; withScores takes the scores too (key is score:).
func zsetPage(key string, start, stop int64, withScores bool) rankRead {
	return rankRead{
		key:    pageKey(key, start, stop),
		scored: withScores,
		queue: func(ctx context.Context, p redis.Pipeliner) func() (int64, []string, []float64, error) {
			n := p.ZCard(ctx, key)
			if withScores {
				r := p.ZRevRangeWithScores(ctx, key, start, stop)
				return func() (int64, []string, []float64, error) {
					zs, err := r.Result()
					if err != nil {
						return 0, nil, nil, err
					}
					ids, scores := make([]string, len(zs)), make([]float64, len(zs))
					for i, z := range zs {
						ids[i], _ = z.Member.(string)
						scores[i] = z.Score
					}
					return n.Val(), ids, scores, n.Err()
				}
			}
			r := p.ZRevRange(ctx, key, start, stop)
			return func() (int64, []string, []float64, error) {
				ids, err := r.Result()
				if err != nil {
					return 0, nil, nil, err
				}
				return n.Val(), ids, nil, n.Err()
			}
		},
	}
}

// fieldReads are the queued reads of some articles' fields and scores.
type fieldReads struct {
	ids    []string
	fields []*redis.StringSliceCmd
	scores *redis.FloatSliceCmd // nil when the ranking gave the scores
}

func (s *Store) queueFields(ctx context.Context, p redis.Pipeliner, ids []string, withScores bool) fieldReads {
	r := fieldReads{ids: ids, fields: make([]*redis.StringSliceCmd, len(ids))}
	// HMGET built by hand from one argument array with the field names
	// boxed once (p.HMGet would allocate per field per article), its
	// reply read as strings (nil as ""), not boxed in []any.
	const n = 2 + len(itemFieldArgs)
	args := make([]any, n*len(ids))
	for i, id := range ids {
		a := args[i*n : (i+1)*n : (i+1)*n]
		a[0], a[1] = "hmget", s.keys.Article(id)
		copy(a[2:], itemFieldArgs[:])
		r.fields[i] = redis.NewStringSliceCmd(ctx, a...)
		_ = p.Process(ctx, r.fields[i])
	}
	if withScores && len(ids) > 0 {
		r.scores = p.ZMScore(ctx, s.keys.Score(), ids...)
	}
	return r
}

// find returns the index of id in r.ids, trying hint first.
func (r *fieldReads) find(id string, hint int) int {
	if hint < len(r.ids) && r.ids[hint] == id {
		return hint
	}
	return slices.Index(r.ids, id)
}

// readPage reads a page: the ranking and, in the same pipeline, the
// fields of the articles this page held last time; then, if the ranking
// holds others, their fields in a second round trip. Articles whose hash
// is gone are left out and returned as orphans (readFullPage repairs
// them); the totals are the ranking's.
func (s *Store) readPage(ctx context.Context, rr rankRead, page, size int) (_ Page, orphans []string, _ error) {
	guess := s.guesses.get(rr.key)
	var decode func() (int64, []string, []float64, error)
	var first fieldReads
	var scripts []*redis.Script
	if rr.script != nil {
		scripts = append(scripts, rr.script)
	}
	_, err := rdb.Pipelined(ctx, s.c, func(p redis.Pipeliner) {
		decode = rr.queue(ctx, p)
		first = s.queueFields(ctx, p, guess, !rr.scored)
	}, scripts...)
	if err != nil {
		return Page{}, nil, err
	}
	total, ids, scores, err := decode()
	if err != nil {
		return Page{}, nil, err
	}
	p := Page{Page: page, Size: size, Total: int(total), Pages: int((total + int64(size) - 1) / int64(size)), Items: make([]Item, 0, len(ids))}

	// Where each id's fields are in first; the ids the guess did not
	// cover go in missing.
	at := make([]int, len(ids))
	var missing []string
	for i, id := range ids {
		if at[i] = first.find(id, i); at[i] < 0 {
			missing = append(missing, id)
		}
	}
	var second fieldReads
	if len(missing) > 0 {
		if _, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			second = s.queueFields(ctx, p, missing, !rr.scored)
			return nil
		}); err != nil {
			return Page{}, nil, err
		}
	}
	if len(missing) > 0 || len(ids) != len(guess) {
		s.guesses.put(rr.key, ids)
	}

	next := 0 // the next id in second
	for i, id := range ids {
		r, j := &first, at[i]
		if j < 0 {
			r, j = &second, second.find(id, next)
			next++
		}
		if j < 0 {
			return Page{}, nil, fmt.Errorf("no fields read for %s", id) // cannot happen
		}
		it, ok := itemFromFields(id, r.fields[j].Val())
		if !ok {
			orphans = append(orphans, id)
			continue
		}
		if rr.scored {
			it.Score = scores[i]
		} else if sc := r.scores.Val(); j < len(sc) {
			it.Score = sc[j]
		}
		p.Items = append(p.Items, it)
	}
	return p, orphans, nil
}

// groupPage reads ranks start..stop of a group's cached ranking in order o
// (rk is that order's ranking), building the cache if it is missing
// (groupPageCmd, loaded by the read when the server does not know it).
func (s *Store) groupPage(group string, o Order, rk string, start, stop int64) rankRead {
	k := s.keys
	keys := []string{k.GroupCache(group, o), k.Group(group), rk}
	ttl := int64(s.opts.GroupCacheTTL / time.Second)
	return rankRead{
		key:    pageKey(keys[0], start, stop),
		script: groupPageCmd,
		queue: func(ctx context.Context, p redis.Pipeliner) func() (int64, []string, []float64, error) {
			r := groupPageCmd.EvalSha(ctx, p, keys, ttl, start, stop)
			return func() (int64, []string, []float64, error) {
				v, err := r.Slice()
				if err != nil {
					return 0, nil, nil, err
				}
				if len(v) == 0 {
					return 0, nil, nil, errors.New("empty reply")
				}
				total, ok := v[0].(int64)
				if !ok {
					return 0, nil, nil, fmt.Errorf("unexpected total %T", v[0])
				}
				ids := make([]string, len(v)-1)
				for i, x := range v[1:] {
					if ids[i], ok = x.(string); !ok {
						return 0, nil, nil, fmt.Errorf("unexpected id %T", x)
					}
				}
				return total, ids, nil, nil
			}
		},
	}
}
