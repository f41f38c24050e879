package crawler

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/human"
)

// PollOptions set the adaptive polling of the sources (Poll): each
// source's interval halves after a poll that found new articles and
// grows by half after one that found none, within Min and Max, with
// ±10% jitter; a list page's Cache-Control max-age lengthens it (up to
// Max) and a Retry-After sent with a failure puts the next poll after it
// (up to maxRetryAfter).
type PollOptions struct {
	Min, Max time.Duration
}

// DefaultPollOptions are the default poll bounds.
func DefaultPollOptions() PollOptions {
	return PollOptions{Min: 10 * time.Minute, Max: 6 * time.Hour}
}

// pollLease is how long a poll claims its source: another process polls
// it after that if the poll never finished.
const pollLease = 10 * time.Minute

// pollHorizon is the farthest ahead a poll sets a source's next poll
// (crawler.poll.max, or the longest Retry-After honoured), with an hour
// of slack for clocks that differ: a next poll stored farther ahead (an
// older release's uncapped Retry-After, a clock set back) is due.
func (c *Crawler) pollHorizon() time.Duration {
	return max(c.cfg.Poll.Max, maxRetryAfter, pollLease) + time.Hour
}

// PollState is a source's poll schedule, in <prefix>{crawl:<source>}:poll.
type PollState struct {
	Source string `json:"source"`
	// Next is when the source is polled next; zero: never polled (due).
	Next time.Time `json:"next"`
	// Interval is the interval Next was set from (before jitter).
	Interval time.Duration `json:"interval"`
	// Last is when the last poll ended, New how many new URLs it queued.
	Last time.Time `json:"last"`
	New  int       `json:"new"`
	// Reason says why Next is what it is.
	Reason string `json:"reason"`
	// Incomplete: the last poll read list pages and then did not read
	// every page it meant to (one failed, or the poll was cut short), so
	// the next one reads every page, as a crawl does, instead of stopping
	// at the first page with nothing new (which would come before the
	// failed page's articles).
	Incomplete bool `json:"incomplete,omitempty"`
}

func (c *Crawler) pollKey(source string) string {
	return c.prefix + "{crawl:" + source + "}:poll"
}

// PollStates returns every source's poll schedule, in config order. A
// next poll beyond pollHorizon is shown as due, with why.
func (c *Crawler) PollStates(ctx context.Context) ([]PollState, error) {
	cmds := make([]*redis.MapStringStringCmd, len(c.sources))
	_, err := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, s := range c.sources {
			cmds[i] = p.HGetAll(ctx, c.pollKey(s.cfg.Name))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("crawler: read poll schedules: %w", err)
	}
	out := make([]PollState, len(c.sources))
	now := c.clock.Now()
	for i, s := range c.sources {
		st := parsePollState(s.cfg.Name, cmds[i].Val())
		if st.Next.After(now.Add(c.pollHorizon())) {
			st.Reason = "the next poll was set too far ahead (" + st.Next.UTC().Format("2006-01-02") + "): due now"
			st.Next = time.Time{}
		}
		out[i] = st
	}
	return out, nil
}

func parsePollState(name string, m map[string]string) PollState {
	ms := func(k string) int64 { n, _ := strconv.ParseInt(m[k], 10, 64); return n }
	st := PollState{Source: name, Interval: time.Duration(ms("interval")) * time.Millisecond, Reason: m["reason"]}
	if n := ms("next"); n > 0 {
		st.Next = time.UnixMilli(n)
	}
	if n := ms("last"); n > 0 {
		st.Last = time.UnixMilli(n)
	}
	st.New = int(ms("new"))
	st.Incomplete = m["incomplete"] == "1"
	if st.Next.IsZero() {
		st.Reason = "never polled: due now"
	}
	return st
}

// claimPoll moves a due source's next poll pollLease ahead, so that one
// process polls it; it returns 0 when the source is not due (any more).
// ARGV: now, the claim's end, now + pollHorizon (a next poll past it is
// due).
var claimPoll = redis.NewScript(`
local n = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
if n > tonumber(ARGV[1]) and n <= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], 'next', ARGV[2], 'reason', 'being polled')
return 1`)

// PollDue polls the sources due at the crawler's clock (one Produce of
// them all), sets each one's next poll, and returns when the next source
// comes due.
func (c *Crawler) PollDue(ctx context.Context) (time.Time, error) {
	states, err := c.PollStates(ctx)
	if err != nil {
		return time.Time{}, err
	}
	now := c.clock.Now()
	var due []string
	prev := map[string]PollState{}
	for _, st := range states {
		if st.Next.After(now) {
			continue
		}
		ok, err := claimPoll.Run(ctx, c.rdb, []string{c.pollKey(st.Source)}, now.UnixMilli(), now.Add(pollLease).UnixMilli(),
			now.Add(c.pollHorizon()).UnixMilli()).Int()
		if err != nil {
			return time.Time{}, fmt.Errorf("crawler: claim poll of %s: %w", st.Source, err)
		}
		if ok == 1 {
			due = append(due, st.Source)
			prev[st.Source] = st
		}
	}
	if len(due) > 0 {
		// A source whose last poll did not finish its walk is walked in
		// full, as a crawl does: a poll would stop at its first page,
		// before the articles the failed page listed.
		rep, err := c.produceAll(ctx, nil, func(s string) bool { return !prev[s].Incomplete }, due...)
		if err != nil {
			return time.Time{}, err
		}
		end := c.clock.Now()
		for _, p := range rep.Sources {
			if err := c.savePoll(ctx, c.schedule(prev[p.Name], p, end)); err != nil {
				return time.Time{}, err
			}
		}
	}
	return c.nextDue(ctx)
}

// nextDue is the earliest next poll of all sources.
func (c *Crawler) nextDue(ctx context.Context) (time.Time, error) {
	states, err := c.PollStates(ctx)
	if err != nil {
		return time.Time{}, err
	}
	var next time.Time
	for _, st := range states {
		if next.IsZero() || st.Next.Before(next) {
			next = st.Next
		}
	}
	return next, nil
}

func (c *Crawler) savePoll(ctx context.Context, st PollState) error {
	incomplete := 0
	if st.Incomplete {
		incomplete = 1
	}
	err := c.rdb.HSet(ctx, c.pollKey(st.Source), "next", st.Next.UnixMilli(), "interval", st.Interval.Milliseconds(),
		"last", st.Last.UnixMilli(), "new", st.New, "reason", st.Reason, "incomplete", incomplete).Err()
	if err != nil {
		return fmt.Errorf("crawler: save poll schedule of %s: %w", st.Source, err)
	}
	return nil
}

// schedule is a source's next poll after a poll that ended at now and
// did p: see PollOptions.
func (c *Crawler) schedule(prev PollState, p SourceProduce, now time.Time) PollState {
	o := c.cfg.Poll
	iv := prev.Interval
	var why string
	switch {
	case iv <= 0:
		iv, why = o.Min, "first poll"
	case p.Err != nil:
		iv, why = iv*2, "the poll failed: later"
	case p.New > 0:
		iv, why = iv/2, fmt.Sprintf("%d new: sooner", p.New)
	default:
		iv, why = iv*3/2, "nothing new: later"
	}
	switch {
	case iv < o.Min:
		iv, why = o.Min, why+" (crawler.poll.min)"
	case iv > o.Max:
		iv, why = o.Max, why+" (crawler.poll.max)"
	}
	if p.MaxAge > iv {
		iv, why = p.MaxAge, p.maxAgeWhy
		if iv > o.Max {
			iv, why = o.Max, why+" (crawler.poll.max)"
		}
	}
	d := iv + jitter(prev.Source, now, iv)
	d = max(o.Min, min(d, o.Max))
	if p.RetryAfter > d {
		d, why = p.RetryAfter, "Retry-After "+human.Duration(p.RetryAfter)
		if p.RetryAfter >= maxRetryAfter {
			why += " (the longest honoured)"
		}
	}
	// Pages read, then one failed: the articles past it are not queued.
	// (When the first page fails, nothing was, and a poll loses nothing.)
	incomplete := p.Pages > 0 && (p.PageErrors > 0 || p.Err != nil)
	if incomplete {
		why += "; the walk stopped short (a list page failed): the next poll reads every page"
	}
	return PollState{Source: prev.Source, Next: now.Add(d), Interval: iv, Last: now, New: p.New, Reason: why, Incomplete: incomplete}
}

// jitter is a deterministic ±10% of iv, from the source and the time.
func jitter(source string, now time.Time, iv time.Duration) time.Duration {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s %d", source, now.UnixNano())
	frac := float64(h.Sum64()%2001)/10000 - 0.1 // -0.1 .. +0.1
	return time.Duration(frac * float64(iv))
}

// Poll polls the sources as they come due (PollDue) until ctx ends,
// checking at least once a minute; a failed round is logged and tried
// again a minute later.
func (c *Crawler) Poll(ctx context.Context) error {
	for {
		next, err := c.PollDue(ctx)
		if ctx.Err() != nil {
			return nil
		}
		wait := time.Minute
		if err != nil {
			c.log.Error("poll failed", "err", err)
		} else if d := next.Sub(c.clock.Now()); d < wait {
			wait = max(d, time.Second)
		}
		if err := clock.Sleep(ctx, wait); err != nil {
			return nil
		}
	}
}
