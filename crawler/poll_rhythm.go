package crawler

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
)

// A source's publication rhythm: its rate of new articles by hour of the
// day, learned from the post times of the articles stored from it, so
// that its polls come often when a new article is likely (the working
// day of its newsroom) and seldom when not (its night). The consumers
// count the post times of the articles they store (rhythmNotes) and add
// them to the source's rhythm in Redis every rhythmFlushEvery and when
// their run ends; a poll reads it to set the next (schedule).

const (
	// rhythmHalfLife is how fast the rhythm forgets: a post time counts
	// half as much a week later.
	rhythmHalfLife = 7 * 24 * time.Hour
	// rhythmWindow is how far back post times count at all; the rhythm's
	// span starts at most that far back.
	rhythmWindow = 4 * rhythmHalfLife
	// rhythmMinPosts and rhythmMinSpan are what a rhythm needs before
	// polls follow it: that many articles (decayed), over at least a day.
	rhythmMinPosts = 12
	rhythmMinSpan  = 24 * time.Hour
)

// rhythm is what is known of a source's rhythm: for each hour of the day
// (in its zone), the post times counted in that hour, each weighted by
// 2^(-age/rhythmHalfLife) as of at, and since, the earliest post time
// counted (the rates are counts over the time since then, decayed alike).
type rhythm struct {
	counts [24]float64
	at     time.Time
	since  time.Time
	loc    *time.Location
}

// decay is 2^(-d/rhythmHalfLife).
func decay(d time.Duration) float64 {
	return math.Exp2(-d.Seconds() / rhythmHalfLife.Seconds())
}

// add counts a post time, as of now: one too old for rhythmWindow or
// ahead of now does not count, nor one at midnight sharp (a date without
// a time of day, read as its midnight).
func (r *rhythm) add(post, now time.Time) {
	if !countable(post, now, r.loc) {
		return
	}
	r.decayTo(now)
	r.counts[post.In(r.loc).Hour()] += decay(now.Sub(post))
	if r.since.IsZero() || post.Before(r.since) {
		r.since = post
	}
}

// countable reports whether a post time tells of the rhythm (see add).
func countable(post, now time.Time, loc *time.Location) bool {
	if post.IsZero() || post.After(now) || now.Sub(post) > rhythmWindow {
		return false
	}
	l := post.In(loc)
	u := post.UTC()
	return l.Hour()+l.Minute()+l.Second() != 0 && u.Hour()+u.Minute()+u.Second() != 0
}

// decayTo moves the counts to now.
func (r *rhythm) decayTo(now time.Time) {
	if now.After(r.at) {
		if !r.at.IsZero() {
			f := decay(now.Sub(r.at))
			for h := range r.counts {
				r.counts[h] *= f
			}
		}
		r.at = now
	}
}

// rates are the source's new articles per hour for each hour of the day,
// as of now: each hour's count over the time spent in that hour since
// r.since (decayed as the counts are), both smoothed with the hours on
// either side. ok is false when too little is known (rhythmMinPosts,
// rhythmMinSpan).
func (r rhythm) rates(now time.Time) (perHour [24]float64, ok bool) {
	r.decayTo(now)
	since := later(r.since, now.Add(-rhythmWindow))
	if r.since.IsZero() || now.Sub(since) < rhythmMinSpan {
		return perHour, false
	}
	var total float64
	for _, c := range r.counts {
		total += c
	}
	if total < rhythmMinPosts {
		return perHour, false
	}
	// exposure[h]: hours spent in hour h of the day since `since`, each
	// weighted by its decay as of now.
	var exposure [24]float64
	for t := since; t.Before(now); {
		l := t.In(r.loc)
		next := time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), 0, 0, 0, r.loc).Add(time.Hour)
		if !next.After(t) { // (a zone's hour that repeats)
			next = t.Add(time.Hour)
		}
		if next.After(now) {
			next = now
		}
		mid := t.Add(next.Sub(t) / 2)
		exposure[l.Hour()] += next.Sub(t).Hours() * decay(now.Sub(mid))
		t = next
	}
	for h := range perHour {
		prev, nxt := (h+23)%24, (h+1)%24
		c := r.counts[prev] + 2*r.counts[h] + r.counts[nxt]
		e := exposure[prev] + 2*exposure[h] + exposure[nxt]
		if e > 0 {
			perHour[h] = c / e
		}
	}
	return perHour, true
}

// expectWithin is how long after now the source is expected to have
// published k new articles at the rates perHour (hours of the day in
// loc), at most limit.
func expectWithin(perHour [24]float64, loc *time.Location, now time.Time, k float64, limit time.Duration) time.Duration {
	end := now.Add(limit)
	for t := now; t.Before(end); {
		l := t.In(loc)
		next := time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), 0, 0, 0, loc).Add(time.Hour)
		if !next.After(t) {
			next = t.Add(time.Hour)
		}
		if next.After(end) {
			next = end
		}
		rate := perHour[l.Hour()]
		if n := rate * next.Sub(t).Hours(); n >= k {
			return t.Sub(now) + time.Duration(k/rate*float64(time.Hour))
		} else {
			k -= n
		}
		t = next
	}
	return limit
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// rhythmKey is the HASH of a source's rhythm: fields "0" to "23", the
// post times counted in each hour of the day (decayed, as decimal
// numbers), "at", the time they are decayed to, and "since", the earliest
// post time counted (both unix ms). It expires rhythmWindow after its
// last write.
func (c *Crawler) rhythmKey(source string) string {
	return c.prefix + "{crawl:" + source + "}:rhythm"
}

// noteRhythm adds post times counted by a run to a source's rhythm, both
// decayed to the later of their times.
//
// KEYS[1]: the rhythm (rhythmKey).
// ARGV[1]: the time the counts added are decayed to (unix ms); ARGV[2]:
// rhythmHalfLife (ms); ARGV[3]: the earliest post time among them (unix
// ms); ARGV[4]: rhythmWindow (ms, the key's time to live); ARGV[5] to
// ARGV[28]: the counts to add to hours 0 to 23.
// Reply: 1.
var noteRhythm = redis.NewScript(`
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or '0')
local now = tonumber(ARGV[1])
local half = tonumber(ARGV[2])
local old, new = 1, 1
if at > now then
  new = 2 ^ (-(at - now) / half)
else
  if at > 0 then old = 2 ^ (-(now - at) / half) end
  at = now
end
local fields = {}
for h = 0, 23 do fields[h + 1] = tostring(h) end
local cur = redis.call('HMGET', KEYS[1], unpack(fields))
local set = {}
for h = 0, 23 do
  local v = (tonumber(cur[h + 1]) or 0) * old + tonumber(ARGV[5 + h]) * new
  set[#set + 1] = fields[h + 1]
  set[#set + 1] = string.format('%.9g', v)
end
local since = tonumber(redis.call('HGET', KEYS[1], 'since') or '0')
if since == 0 or tonumber(ARGV[3]) < since then since = tonumber(ARGV[3]) end
set[#set + 1] = 'at'
set[#set + 1] = string.format('%d', at)
set[#set + 1] = 'since'
set[#set + 1] = string.format('%d', since)
redis.call('HSET', KEYS[1], unpack(set))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`)

// loadRhythm reads a source's rhythm.
func (c *Crawler) loadRhythm(ctx context.Context, s *source) (rhythm, error) {
	m, err := c.rdb.HGetAll(ctx, c.rhythmKey(s.cfg.Name)).Result()
	if err != nil {
		return rhythm{loc: s.loc}, fmt.Errorf("crawler: read the rhythm of %s: %w", s.cfg.Name, err)
	}
	return parseRhythm(m, s.loc), nil
}

// parseRhythm reads a rhythm from its hash's fields; unreadable ones
// count as absent.
func parseRhythm(m map[string]string, loc *time.Location) rhythm {
	r := rhythm{loc: loc}
	ms := func(k string) time.Time {
		n, err := strconv.ParseInt(m[k], 10, 64)
		if err != nil || n <= 0 {
			return time.Time{}
		}
		return time.UnixMilli(n)
	}
	r.at, r.since = ms("at"), ms("since")
	for h := range r.counts {
		v, err := strconv.ParseFloat(m[strconv.Itoa(h)], 64)
		if err == nil && v > 0 && !math.IsInf(v, 0) {
			r.counts[h] = v
		}
	}
	return r
}

// rhythmFlushEvery is how often a run adds the post times it counted to
// the rhythms in Redis (and once more when it ends).
const rhythmFlushEvery = 10 * time.Second

// rhythmNotes are the post times a run counted and has not yet added to
// the rhythms in Redis, per source: 24 counts each.
type rhythmNotes struct {
	mu      sync.Mutex
	pending map[*source]*rhythm
	flushed time.Time // wall clock: when the counts were last added
}

// note counts the post time of an article stored from s, as of now (the
// crawler's clock).
func (n *rhythmNotes) note(s *source, post, now time.Time) {
	if !countable(post, now, s.loc) {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.pending == nil {
		n.pending = map[*source]*rhythm{}
	}
	r := n.pending[s]
	if r == nil {
		r = &rhythm{loc: s.loc}
		n.pending[s] = r
	}
	r.add(post, now)
}

// due reports whether rhythmFlushEvery has passed since the last flush.
func (n *rhythmNotes) due() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.pending) > 0 && time.Since(n.flushed) >= rhythmFlushEvery
}

// flush adds the counts noted to the sources' rhythms in Redis, in one
// pipeline. They are dropped when Redis fails (logged): a rhythm misses a
// few post times, and the polls are a little less well timed.
func (n *rhythmNotes) flush(ctx context.Context, c *Crawler) {
	n.mu.Lock()
	pending := n.pending
	n.pending, n.flushed = nil, time.Now()
	n.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	srcs := make([]*source, 0, len(pending))
	for s := range pending {
		srcs = append(srcs, s)
	}
	_, err := rdb.EvalEach(ctx, c.rdb, noteRhythm, len(srcs), func(i int) ([]string, []any) {
		r := pending[srcs[i]]
		args := []any{r.at.UnixMilli(), rhythmHalfLife.Milliseconds(), r.since.UnixMilli(), rhythmWindow.Milliseconds()}
		for _, v := range r.counts {
			args = append(args, strconv.FormatFloat(v, 'g', 9, 64))
		}
		return []string{c.rhythmKey(srcs[i].cfg.Name)}, args
	})
	if err != nil {
		c.log.Warn("post times not added to the sources' rhythms", "sources", len(pending), "err", err)
	}
}
