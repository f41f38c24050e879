package queue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
)

// sweepPolls is how many IdlePoll periods an idle consumer goes without
// looking at a queue it has no news of (no wake token, no retry or lease
// due): a safety net for a lost wake token.
const sweepPolls = 10

// nextStart spreads the first queue ClaimAny looks at over calls.
var nextStart atomic.Uint64

// ErrNoQueues is returned by ClaimAny given no queues, or queues that do
// not share one Redis client and key prefix.
var ErrNoQueues = errors.New("queue: ClaimAny needs queues on one client and prefix")

// ClaimAny lets one consumer serve several source queues: it claims up to
// n URLs for lease from the first queue that has work, starting with a
// different queue each call (round-robin), and returns the queue they came
// from. When all are empty it waits for all of them at once: one BLPOP on
// their wake lists (signalled by Push, Release, RequeueDead and reaping), for at
// most IdlePoll, looking again at a queue only when it is signalled, when
// one of its retries or leases falls due, or every 10 × IdlePoll as a
// safety net. An idle consumer thus makes about one Redis call per
// IdlePoll however many queues it serves. It returns at least one URL, or
// an error: ctx.Err() as soon as ctx ends. The queues must share one
// client and key prefix; IdlePoll is the first queue's. Payloads stay in
// Redis (ClaimAnyEntries returns them).
func ClaimAny(ctx context.Context, qs []*Queue, n int, lease time.Duration) (*Queue, []string, error) {
	q, r, err := claimAny(ctx, qs, n, lease, false)
	return q, r.urls, err
}

// ClaimAnyEntries is ClaimAny that also returns each URL's payload.
func ClaimAnyEntries(ctx context.Context, qs []*Queue, n int, lease time.Duration) (*Queue, []Entry, error) {
	q, r, err := claimAny(ctx, qs, n, lease, true)
	if err != nil {
		return nil, nil, err
	}
	return q, r.entries(), nil
}

func claimAny(ctx context.Context, qs []*Queue, n int, lease time.Duration, wantPayloads bool) (*Queue, claimResult, error) {
	w, err := newWaiter(qs)
	if err != nil {
		return nil, claimResult{}, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, claimResult{}, err
		}
		q, r, err := w.claimFirst(ctx, n, lease, wantPayloads)
		if err != nil || q != nil {
			return q, r, err
		}
		if err := w.wait(ctx); err != nil {
			return nil, claimResult{}, err
		}
	}
}

// waiter is the state of one ClaimAny call: when to look at each queue
// again, and the wake lists it waits on.
type waiter struct {
	qs       []*Queue
	idle     time.Duration
	wakeKeys []string
	byKey    map[string]int // wake key → index in qs
	next     []time.Time    // when to look at qs[i] again (real time)
	start    int            // the queue looked at first
	woken    bool           // a wake token came for qs[start]
}

func newWaiter(qs []*Queue) (*waiter, error) {
	if len(qs) == 0 {
		return nil, fmt.Errorf("%w: none given", ErrNoQueues)
	}
	for _, q := range qs {
		if q.err != nil {
			return nil, q.err
		}
		if q.c != qs[0].c || q.prefix != qs[0].prefix {
			return nil, fmt.Errorf("%w: %s and %s differ", ErrNoQueues, qs[0].name, q.name)
		}
	}
	w := &waiter{qs: qs, idle: qs[0].opt.IdlePoll, wakeKeys: make([]string, len(qs)),
		byKey: make(map[string]int, len(qs)), next: make([]time.Time, len(qs)),
		start: int(nextStart.Add(1) % uint64(len(qs)))}
	if w.idle <= 0 {
		w.idle = time.Second
	}
	for i, q := range qs {
		w.wakeKeys[i] = q.wakeKey()
		w.byKey[w.wakeKeys[i]] = i
	}
	return w, nil
}

// claimFirst claims from the first queue due for a look that has work; a
// nil queue means none had any.
func (w *waiter) claimFirst(ctx context.Context, n int, lease time.Duration, wantPayloads bool) (*Queue, claimResult, error) {
	now := time.Now()
	for i := range w.qs {
		k := (w.start + i) % len(w.qs)
		if now.Before(w.next[k]) {
			continue
		}
		q := w.qs[k]
		r, err := q.claimOnce(ctx, n, lease, claimMode{wantLeft: w.woken, wantPayloads: wantPayloads})
		if err != nil {
			return nil, claimResult{}, err
		}
		if len(r.urls) > 0 {
			// Another idle consumer may take what is left, which it
			// has no news of unless it was just made claimable here or
			// this consumer was woken for it.
			if r.left > 0 && (w.woken || r.promoted > 0) {
				q.wake(ctx)
			}
			return q, r, nil
		}
		if r.more {
			w.next[k] = time.Time{}
			continue
		}
		look := now.Add(sweepPolls * w.idle)
		if !r.next.IsZero() {
			// r.next is in q's clock; wait the same span in real time.
			if due := now.Add(r.next.Sub(q.now())); due.Before(look) {
				look = due
			}
		}
		w.next[k] = maxTime(look, now.Add(w.idle))
	}
	return nil, claimResult{}, nil
}

// wait waits for a wake token, or until the next queue is due for a look.
func (w *waiter) wait(ctx context.Context) error {
	wait := w.idle
	now := time.Now()
	for k := range w.qs {
		if d := w.next[k].Sub(now); d < wait {
			wait = d
		}
	}
	w.woken = false
	if wait <= 0 {
		return nil
	}
	key, err := blpop(ctx, w.qs[0].c, wait, w.wakeKeys)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		// Redis may be restarting: the next claim reports it if it
		// stays away. Do not spin meanwhile.
		w.qs[0].log.Debug("queue wait failed", "err", err)
		return clock.Sleep(ctx, wait)
	}
	if k, ok := w.byKey[key]; ok {
		w.next[k] = time.Time{}
		w.start = k
		w.woken = true
	}
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// blpop waits up to wait for a token on keys and returns the key it came
// from ("" after the timeout). It returns as soon as ctx ends; the BLPOP
// itself then runs out its (short) timeout in the background.
func blpop(ctx context.Context, c redis.UniversalClient, wait time.Duration, keys []string) (string, error) {
	type result struct {
		key string
		err error
	}
	done := make(chan result, 1)
	go func() {
		var v []string
		var err error
		if wait >= time.Second {
			// go-redis allows the socket the BLPOP timeout on top of
			// read_timeout only for its own whole-second BLPop.
			v, err = c.BLPop(context.WithoutCancel(ctx), wait.Truncate(time.Second), keys...).Result()
		} else {
			args := make([]any, 0, len(keys)+2)
			args = append(args, "blpop")
			for _, k := range keys {
				args = append(args, k)
			}
			args = append(args, strconv.FormatFloat(wait.Seconds(), 'f', 3, 64))
			v, err = c.Do(context.WithoutCancel(ctx), args...).StringSlice()
		}
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		r := result{err: err}
		if err == nil && len(v) == 2 {
			r.key = v[0]
		}
		done <- r
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case r := <-done:
		return r.key, r.err
	}
}
