package crawler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
)

// Running the polls. Each due source is polled on its own (pollOne): a
// walk of its lists that a Retry-After ends at once, its next poll saved
// when it ends. So a source that is slow, or asks to be left alone, delays
// no other source's poll. A poll claims its source in the schedule (the
// claim field, a token of its own), so that one process polls it, renews
// the claim while it runs, and ends it with the schedule it saves, or,
// when the process shuts down, by leaving the source due.

// pollLease is how long a poll's claim lasts unless renewed (every
// pollLease/4 while the poll runs): another process polls the source
// after that if the poll's process stopped without ending it.
const pollLease = 2 * time.Minute

// pollClaim is a source claimed for a poll.
type pollClaim struct {
	s     *source
	prev  PollState // its schedule before the claim
	token string    // the claim's, in the schedule's claim field
}

// claimPoll claims a due source for a poll: its next poll moves to the
// claim's end, its reason says "being polled" and its claim field holds
// the claim's token; it returns 0 when the source is not due (any more).
// ARGV: now, the claim's end, now + pollHorizon (a next poll past it is
// due), the token.
var claimPoll = redis.NewScript(`
local n = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
if n > tonumber(ARGV[1]) and n <= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], 'next', ARGV[2], 'reason', 'being polled', 'claim', ARGV[4])
return 1`)

// renewPoll moves the end of the caller's claim (ARGV: its token, the new
// end); it returns 0 when the claim is not the caller's any more.
var renewPoll = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'claim') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'next', ARGV[2])
return 1`)

// endPoll ends the caller's claim (ARGV[1]: its token) and writes the
// schedule's fields (field, value pairs from ARGV[2]). When another
// process has claimed the source since (the caller's claim lapsed), that
// claim stays, with its next poll and reason, and the rest is written;
// it returns 0 then.
var endPoll = redis.NewScript(`
local c = redis.call('HGET', KEYS[1], 'claim')
local ours = (not c) or c == ARGV[1]
for i = 2, #ARGV, 2 do
  if ours or (ARGV[i] ~= 'next' and ARGV[i] ~= 'reason') then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
if ours then redis.call('HDEL', KEYS[1], 'claim') end
return ours and 1 or 0`)

// claimDue claims up to n of the sources due at the crawler's clock,
// leaving out those skip names (being polled here). next is the earliest
// next poll of the sources neither claimed nor skipped (zero: none); it is
// not after now when a due source was left for want of n.
func (c *Crawler) claimDue(ctx context.Context, n int, skip map[string]bool) (claims []pollClaim, next time.Time, err error) {
	states, err := c.PollStates(ctx)
	if err != nil {
		return nil, time.Time{}, err
	}
	now := c.clock.Now()
	for i, st := range states {
		if skip[st.Source] {
			continue
		}
		if !st.Next.After(now) && len(claims) < n {
			token := fmt.Sprintf("%016x", rand.Uint64())
			ok, err := claimPoll.Run(ctx, c.rdb, []string{c.pollKey(st.Source)}, now.UnixMilli(), now.Add(pollLease).UnixMilli(),
				now.Add(c.pollHorizon()).UnixMilli(), token).Int()
			if err != nil {
				return claims, next, fmt.Errorf("crawler: claim poll of %s: %w", st.Source, err)
			}
			if ok == 1 {
				claims = append(claims, pollClaim{s: c.sources[i], prev: st, token: token})
			}
			continue // claimed, here or by another process: not due now
		}
		at := st.Next
		if at.Before(now) {
			at = now
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return claims, next, nil
}

// pollSlots is how many sources are polled at once: every source (at
// least crawler.workers), so that sources that hang (a poll holds its
// slot for crawler.list_attempts request timeouts) never keep another
// source from its poll; the hosts' politeness limits still hold.
func (c *Crawler) pollSlots() int { return max(c.cfg.Workers, len(c.sources), 1) }

// PollDue polls the sources due at the crawler's clock, each on its own
// (pollOne; every due source at once, pollSlots) and each saving its next
// poll as its poll ends, and returns once they are all done, with the
// earliest next poll of all sources. Poll runs the same polls as sources
// come due, without waiting for the slowest.
func (c *Crawler) PollDue(ctx context.Context) (time.Time, error) {
	claims, _, err := c.claimDue(ctx, len(c.sources), nil)
	errs := make([]error, len(claims)+1)
	errs[0] = err
	// (when ctx ends before a poll's turn, pollOne leaves its source due)
	bounded(ctx, len(claims), c.pollSlots(), func(i int, _ bool) { errs[i+1] = c.pollOne(ctx, claims[i]) })
	if err := errors.Join(errs...); err != nil {
		return time.Time{}, err
	}
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
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

// Poll polls the sources as they come due until ctx ends: each due
// source's poll runs in a goroutine of its own (pollOne; at most
// crawler.workers at once), so a slow source delays no other. It looks
// again when a poll ends, when the next source comes due, and at least
// once a minute; a failed look (Redis) is logged and tried again a minute
// later. When ctx ends it waits for the polls in flight, which leave their
// sources due.
func (c *Crawler) Poll(ctx context.Context) error {
	var (
		mu   sync.Mutex
		busy = map[string]bool{} // sources polled here now
		wg   sync.WaitGroup
	)
	ended := make(chan struct{}, 1)
	defer wg.Wait()
	slots := c.pollSlots()
	for {
		mu.Lock()
		skip := maps.Clone(busy)
		mu.Unlock()
		claims, next, err := c.claimDue(ctx, slots-len(skip), skip)
		for _, cl := range claims {
			name := cl.s.cfg.Name
			mu.Lock()
			busy[name] = true
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := c.pollOne(ctx, cl); err != nil {
					c.log.Error("poll failed", "source", name, "err", err)
				}
				mu.Lock()
				delete(busy, name)
				mu.Unlock()
				select {
				case ended <- struct{}{}:
				default:
				}
			}()
		}
		if ctx.Err() != nil {
			return nil
		}
		wait := time.Minute
		if err != nil {
			c.log.Error("poll failed", "err", err)
		} else if !next.IsZero() {
			d := next.Sub(c.clock.Now())
			if d <= 0 {
				d = time.Second // a due source waits for a free slot (ended) or a claim's end
			}
			wait = min(wait, d)
		}
		due, stop := clock.Wait(c.clock, wait)
		select {
		case <-due:
		case <-ended:
		case <-ctx.Done():
		}
		stop()
		if ctx.Err() != nil {
			return nil
		}
	}
}

// pollOne polls a claimed source: one walk of its lists, stopping at the
// first page with nothing new (every page after an incomplete poll), that
// a Retry-After ends at once (walkOpts.noWait), its claim renewed while
// it runs. It then saves the source's next poll (schedule) and ends the
// claim; when ctx ended first, it ends the claim with the source due (and
// its next walk whole if this one read pages), so that a restart polls it
// at once.
func (c *Crawler) pollOne(ctx context.Context, cl pollClaim) error {
	stop := c.keepClaim(ctx, cl)
	p := c.produce(ctx, cl.s, nil, walkOpts{poll: !cl.prev.Incomplete, noWait: true})
	stop()
	now := c.clock.Now()
	var fields []any
	if ctx.Err() == nil {
		fields = c.pushSchedule(ctx, c.schedule(cl.prev, p, now), p, now).fields()
	} else {
		incomplete := 0
		if cl.prev.Incomplete || p.Pages > 0 {
			incomplete = 1
		}
		fields = []any{"next", now.UnixMilli(), "reason", "the last poll was interrupted (a shutdown): due now", "incomplete", incomplete}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	ok, err := endPoll.Run(sctx, c.rdb, []string{c.pollKey(cl.s.cfg.Name)}, append([]any{cl.token}, fields...)...).Int()
	if err != nil {
		return fmt.Errorf("crawler: save poll schedule of %s: %w", cl.s.cfg.Name, err)
	}
	if ok == 0 {
		c.log.Warn("poll ended after its claim lapsed: another process polls the source", "source", cl.s.cfg.Name)
	}
	return nil
}

// keepClaim renews cl's claim every pollLease/4 (on the crawler's clock)
// until stop is called, so that a long poll keeps its source: "being
// polled" stays true, and no other process polls it meanwhile.
func (c *Crawler) keepClaim(ctx context.Context, cl pollClaim) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			due, stopWait := clock.Wait(c.clock, pollLease/4)
			select {
			case <-due:
			case <-ctx.Done():
				stopWait()
				return
			}
			end := c.clock.Now().Add(pollLease).UnixMilli()
			ok, err := renewPoll.Run(ctx, c.rdb, []string{c.pollKey(cl.s.cfg.Name)}, cl.token, end).Int()
			switch {
			case err != nil && ctx.Err() == nil:
				c.log.Warn("poll claim not renewed", "source", cl.s.cfg.Name, "err", err)
			case err == nil && ok == 0:
				c.log.Warn("poll claim lost: another process took the source", "source", cl.s.cfg.Name)
				return
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
