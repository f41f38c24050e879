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
	payloads [][]byte  // with the payloads asked for: urls[i]'s (nil: none)
	left     int64     // pending after the claim; -1: not counted
	next     time.Time // earliest retry due or lease deadline; zero: none
	more     bool      // housekeeping hit its limit: call again at once
	promoted int64     // due retries and expired leases moved to pending
}

// entries returns the claimed URLs with their payloads.
func (r claimResult) entries() []Entry {
	out := make([]Entry, len(r.urls))
	for i, u := range r.urls {
		out[i].URL = u
		if i < len(r.payloads) {
			out[i].Payload = r.payloads[i]
		}
	}
	return out
}

// claimMode says what a claim returns beside the URLs.
type claimMode struct {
	wantLeft     bool // count the pending URLs left
	wantPayloads bool // return the URLs' payloads
}

// claimOnce claims up to n URLs with one script call, or two when
// pending runs short. A busy queue is claimed from with claimFastCmd;
// claimCmd, which also does the housekeeping and tells the caller when to
// look again, runs about once a second, when the caller wants the pending
// URLs left counted (wantLeft), and when pending has run short, until a
// claim gets n URLs again.
func (q *Queue) claimOnce(ctx context.Context, n int, lease time.Duration, m claimMode) (claimResult, error) {
	if q.err != nil {
		return claimResult{}, q.err
	}
	if n <= 0 {
		n = q.opt.ClaimBatch
	}
	n = min(n, maxClaim)
	if lease <= 0 {
		lease = q.opt.Lease
	}
	now := q.now()
	ms := now.UnixMilli()
	deadline := now.Add(lease).UnixMilli()
	housekeep := false
	if next := q.nextHousekeeping.Load(); ms >= next && q.nextHousekeeping.CompareAndSwap(next, ms+housekeepingEvery.Milliseconds()) {
		housekeep = true
	}
	var fast claimResult
	if !housekeep && !m.wantLeft && !q.short.Load() {
		var err error
		if fast, err = q.claimFast(ctx, n, deadline, m.wantPayloads); err != nil || len(fast.urls) == n {
			return fast, err
		}
		n -= len(fast.urls)
	}
	r, err := q.claimHousekeeping(ctx, now, n, deadline, m)
	if err != nil {
		if len(fast.urls) > 0 {
			// They are leased: whoever claimed them gets them after the
			// lease, as with a lost reply.
			q.log.Debug("claim: housekeeping failed after a partial claim", "err", err)
			return fast, nil
		}
		return claimResult{}, err
	}
	q.short.Store(len(r.urls) < n)
	r.urls = append(fast.urls, r.urls...)
	if m.wantPayloads {
		r.payloads = append(fast.payloads, r.payloads...)
	}
	return r, nil
}

// claimFast claims up to n URLs with claimFastCmd.
func (q *Queue) claimFast(ctx context.Context, n int, deadline int64, wantPayloads bool) (claimResult, error) {
	r := claimResult{left: -1}
	var joined string
	if wantPayloads {
		res, err := claimFastCmd.Run(ctx, q.c, []string{q.state[0], q.state[1], q.payloadKey()}, n, deadline).Slice()
		if err != nil {
			return claimResult{}, q.wrap("claim", err)
		}
		if len(res) != 2 {
			return claimResult{}, q.wrap("claim", fmt.Errorf("unexpected reply %v", res))
		}
		joined, _ = res[0].(string)
		r.payloads = asPayloads(res[1])
	} else {
		var err error
		if joined, err = claimFastCmd.Run(ctx, q.c, q.state[:2], n, deadline).Text(); err != nil {
			return claimResult{}, q.wrap("claim", err)
		}
	}
	if joined != "" {
		r.urls = strings.Split(joined, "\n")
	}
	return r, nil
}

// claimHousekeeping claims up to n URLs with claimCmd, which also does
// the housekeeping.
func (q *Queue) claimHousekeeping(ctx context.Context, now time.Time, n int, deadline int64, m claimMode) (claimResult, error) {
	s := q.doneWindow(now)
	keys := append(q.stateKeys(), q.deadDoneKeys(s)...)
	keys = append(keys, q.doneKey(s.currentGen))
	res, err := claimCmd.Run(ctx, q.c, keys, now.UnixMilli(), n, deadline, q.opt.MaxAttempts, housekeepingLimit,
		q.opt.DoneRetention.Milliseconds(), 1, boolArg(m.wantLeft), s.expireAt(), boolArg(m.wantPayloads)).Slice()
	if err != nil {
		return claimResult{}, q.wrap("claim", err)
	}
	if len(res) != 6 {
		return claimResult{}, q.wrap("claim", fmt.Errorf("unexpected reply %v", res))
	}
	var r claimResult
	for _, u := range asSlice(res[0]) {
		if s, ok := u.(string); ok {
			r.urls = append(r.urls, s)
		}
	}
	r.left = asInt(res[1])
	if ms := asInt(res[2]); ms >= 0 {
		r.next = time.UnixMilli(ms)
	}
	r.more = asInt(res[3]) == 1
	r.promoted = asInt(res[4])
	if m.wantPayloads {
		r.payloads = asPayloads(res[5])
	}
	return r, nil
}

// asPayloads reads an HMGET reply of payloads (nil: none).
func asPayloads(v any) [][]byte {
	vals := asSlice(v)
	out := make([][]byte, len(vals))
	for i, x := range vals {
		if s, ok := x.(string); ok && s != "" {
			out[i] = []byte(s)
		}
	}
	return out
}

// TryClaim leases up to n URLs (n <= 0: ClaimBatch; at most 1000) for
// lease (<= 0: the Lease option) without waiting: it may return none. When
// pending has fewer than n URLs, and at least once a second anyway, it
// also moves due retries to pending and reaps a bounded number of expired
// leases. Payloads stay in Redis (TryClaimEntries returns them).
func (q *Queue) TryClaim(ctx context.Context, n int, lease time.Duration) ([]string, error) {
	r, err := q.tryClaim(ctx, n, lease, claimMode{})
	return r.urls, err
}

// TryClaimEntries is TryClaim that also returns each URL's payload.
func (q *Queue) TryClaimEntries(ctx context.Context, n int, lease time.Duration) ([]Entry, error) {
	r, err := q.tryClaim(ctx, n, lease, claimMode{wantPayloads: true})
	if err != nil {
		return nil, err
	}
	return r.entries(), nil
}

func (q *Queue) tryClaim(ctx context.Context, n int, lease time.Duration, m claimMode) (claimResult, error) {
	for {
		r, err := q.claimOnce(ctx, n, lease, m)
		if err != nil {
			return claimResult{}, err
		}
		if r.promoted > 0 && r.left > 0 {
			q.wake(ctx)
		}
		if len(r.urls) > 0 || !r.more {
			return r, nil
		}
	}
}

// Claim leases up to n URLs (n <= 0: ClaimBatch; at most 1000) for lease
// (<= 0: the Lease option). While the queue is empty it waits, without
// hammering Redis, until work arrives or ctx ends: it returns at least
// one URL, or an error (ctx.Err() when ctx ends). Each URL must then be
// Acked, Failed, or Extended before the lease ends, after which another
// consumer gets it.
func (q *Queue) Claim(ctx context.Context, n int, lease time.Duration) ([]string, error) {
	_, urls, err := ClaimAny(ctx, []*Queue{q}, n, lease)
	return urls, err
}
