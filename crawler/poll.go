package crawler

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/internal/human"
)

// PollOptions set the adaptive polling of the sources (Poll): each
// source's interval halves after a poll that found new articles and
// grows by half after one that found none, within Min and Max, with
// ±10% jitter; a list page's Cache-Control max-age lengthens it (up to
// Max) and a Retry-After sent with a failure puts the next poll after it
// (up to fetch.MaxRetryAfter).
type PollOptions struct {
	Min, Max time.Duration
}

// DefaultPollOptions are the default poll bounds.
func DefaultPollOptions() PollOptions {
	return PollOptions{Min: 10 * time.Minute, Max: 6 * time.Hour}
}

// pollHorizon is the farthest ahead a poll sets a source's next poll
// (crawler.poll.max, or the longest Retry-After honoured), with an hour
// of slack for clocks that differ: a next poll stored farther ahead (an
// older release's uncapped Retry-After, a clock set back) is due.
func (c *Crawler) pollHorizon() time.Duration {
	return max(c.cfg.Poll.Max, fetch.MaxRetryAfter, pollLease) + time.Hour
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
// next poll beyond pollHorizon is shown as due, with why, and so is a
// claim that lapsed (its poll's process stopped without ending it).
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
		m := cmds[i].Val()
		st := parsePollState(s.cfg.Name, m)
		switch {
		case st.Next.After(now.Add(c.pollHorizon())):
			st.Reason = "the next poll was set too far ahead (" + st.Next.UTC().Format("2006-01-02") + "): due now"
			st.Next = time.Time{}
		case (m["claim"] != "" || st.Reason == "being polled") && !st.Next.After(now):
			st.Reason = "a poll claimed it and stopped without ending (its process gone?): due now"
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

// fields are st's fields in <prefix>{crawl:<source>}:poll, as field,
// value pairs.
func (st PollState) fields() []any {
	incomplete := 0
	if st.Incomplete {
		incomplete = 1
	}
	return []any{"next", st.Next.UnixMilli(), "interval", st.Interval.Milliseconds(), "last", st.Last.UnixMilli(),
		"new", st.New, "reason", st.Reason, "incomplete", incomplete}
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
		if p.RetryAfter >= fetch.MaxRetryAfter {
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
