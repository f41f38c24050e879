package queue

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// claimResult is what one claim script call found.
type claimResult struct {
	urls     []string
	left     int64     // pending after the claim; -1: not counted
	next     time.Time // earliest retry due or lease deadline; zero: none
	more     bool      // housekeeping hit its limit: call again at once
	promoted int64     // due retries and expired leases moved to pending
}

// claimOnce claims up to n URLs with one script call, or two when
// pending runs short. A busy queue is claimed from with claimFastCmd;
// claimCmd, which also does the housekeeping and tells the caller when to
// look again, runs about once a second, when the caller wants the pending
// URLs left counted (wantLeft), and when pending has run short, until a
// claim gets n URLs again.
func (q *Queue) claimOnce(ctx context.Context, n int, lease time.Duration, wantLeft bool) (claimResult, error) {
	if q.err != nil {
		return claimResult{}, q.err
	}
	if n <= 0 {
		n = q.cfg.ClaimBatch
	}
	n = min(n, maxClaim)
	if lease <= 0 {
		lease = q.cfg.Lease.D()
	}
	now := q.now()
	ms := now.UnixMilli()
	deadline := now.Add(lease).UnixMilli()
	housekeep := false
	if next := q.nextHousekeeping.Load(); ms >= next && q.nextHousekeeping.CompareAndSwap(next, ms+housekeepingEvery.Milliseconds()) {
		housekeep = true
	}
	var fast []string
	if !housekeep && !wantLeft && !q.short.Load() {
		joined, err := claimFastCmd.Run(ctx, q.c, q.state[:2], n, deadline).Text()
		if err != nil {
			return claimResult{}, q.wrap("claim", err)
		}
		var urls []string
		if joined != "" {
			urls = strings.Split(joined, "\n")
		}
		if len(urls) == n {
			return claimResult{urls: urls, left: -1}, nil
		}
		fast, n = urls, n-len(urls)
	}
	s := q.span(now)
	keys := append(q.stateKeys(), q.deadDoneKeys(s)...)
	keys = append(keys, q.doneKey(s.gcur))
	res, err := claimCmd.Run(ctx, q.c, keys, ms, n, deadline, q.cfg.MaxAttempts, housekeepingLimit,
		q.cfg.DoneRetention.D().Milliseconds(), 1, boolArg(wantLeft), s.expireAt()).Slice()
	if err != nil {
		if len(fast) > 0 {
			// They are leased: whoever claimed them gets them after the
			// lease, as with a lost reply.
			q.log.Debug("claim: housekeeping failed after a partial claim", "err", err)
			return claimResult{urls: fast, left: -1}, nil
		}
		return claimResult{}, q.wrap("claim", err)
	}
	if len(res) != 5 {
		return claimResult{}, q.wrap("claim", fmt.Errorf("unexpected reply %v", res))
	}
	r := claimResult{urls: fast}
	for _, u := range asSlice(res[0]) {
		if s, ok := u.(string); ok {
			r.urls = append(r.urls, s)
		}
	}
	q.short.Store(len(r.urls)-len(fast) < n)
	r.left = asInt(res[1])
	if ms := asInt(res[2]); ms >= 0 {
		r.next = time.UnixMilli(ms)
	}
	r.more = asInt(res[3]) == 1
	r.promoted = asInt(res[4])
	return r, nil
}

// TryClaim leases up to n URLs (n <= 0: claim_batch; at most 1000) for
// lease (<= 0: config lease) without waiting: it may return none. When
// pending has fewer than n URLs, and at least once a second anyway, it
// also moves due retries to pending and reaps a bounded number of expired
// leases.
func (q *Queue) TryClaim(ctx context.Context, n int, lease time.Duration) ([]string, error) {
	for {
		r, err := q.claimOnce(ctx, n, lease, false)
		if err != nil {
			return nil, err
		}
		if r.promoted > 0 && r.left > 0 {
			q.wake(ctx)
		}
		if len(r.urls) > 0 || !r.more {
			return r.urls, nil
		}
	}
}

// Claim leases up to n URLs (n <= 0: claim_batch; at most 1000) for lease
// (<= 0: config lease). While the queue is empty it waits, without
// hammering Redis, until work arrives or ctx ends: it returns at least
// one URL, or an error (ctx.Err() when ctx ends). Each URL must then be
// Acked, Failed, or Extended before the lease ends, after which another
// consumer gets it.
func (q *Queue) Claim(ctx context.Context, n int, lease time.Duration) ([]string, error) {
	_, urls, err := ClaimAny(ctx, []*Queue{q}, n, lease)
	return urls, err
}
