package crawler

import (
	"context"
	"errors"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/queue"
)

// errDrained ends an untilIdle run.
var errDrained = errors.New("queues drained")

// claim claims up to n URLs with their payloads. Consume waits for work
// (queue.ClaimAnyEntries);
// RunOnce looks at each queue in turn and, when none has work, waits for
// its own workers, then ends once no queue has anything pending or in
// flight.
func (r *consumeRun) claim(ctx context.Context, n int, lease time.Duration) (*queue.Queue, []queue.Entry, error) {
	if !r.untilIdle {
		return queue.ClaimAnyEntries(ctx, r.qs, n, lease)
	}
	poll := min(r.c.qopt.IdlePoll, 50*time.Millisecond)
	for {
		q, entries, skipped, err := r.pass(ctx, n, lease)
		switch {
		case err != nil:
			return nil, nil, err
		case len(entries) > 0:
			r.retryDue.Store(0)
			return q, entries, nil
		case skipped:
			clear(r.dry) // look at every queue before waiting
			continue
		}
		if r.listing.Load() {
			if r.prod.idleWalks() && r.inflightCount() == 0 {
				r.prod.openFirst() // the first pages queued nothing to fetch
			}
			// The producer may queue more: wait for it, not for the
			// workers (an empty queue now does not end the run).
			if err := r.prod.waitPush(ctx, poll); err != nil {
				return nil, nil, err
			}
			continue
		}
		if r.inflightCount() > 0 {
			// Look again once the workers' last URL is done (the run may
			// then be over), or after poll (a retry may come due, or
			// another consumer's lease expire, which TryClaim reaps).
			if err := r.waitWorkers(ctx, poll); err != nil {
				return nil, nil, err
			}
			continue
		}
		busy, err := r.busy(ctx)
		if err != nil {
			return nil, nil, err
		}
		poll = r.c.qopt.IdlePoll
		if !busy {
			wait, err := r.retryWait(ctx)
			if err != nil {
				return nil, nil, err
			}
			if wait < 0 {
				return nil, nil, errDrained
			}
			poll = max(min(wait, poll), time.Millisecond)
		}
		// Else another consumer holds leases: wait for it (or for its
		// leases to expire, which TryClaim reaps).
		if err := clock.Sleep(ctx, poll); err != nil {
			return nil, nil, err
		}
	}
}

// pass tries to claim up to n URLs from one queue: first the one the
// producer pushed to last (the first list page's URLs are claimed in one
// call, not after a call per queue), then each in turn. Once the producer
// is done, a queue that gave less than asked is dry: nothing is pushed to
// it any more, so passes skip it (skipped) until one finds nothing in the
// others (a retry may come due in it meanwhile).
func (r *consumeRun) pass(ctx context.Context, n int, lease time.Duration) (*queue.Queue, []queue.Entry, bool, error) {
	skipped := false
	for i := -1; i < len(r.qs); i++ {
		var q *queue.Queue
		if i < 0 {
			if q = r.prod.lastPush.Swap(nil); q == nil || r.byQueue[q] == nil {
				continue
			}
		} else {
			q = r.qs[r.nextQueue%len(r.qs)]
			r.nextQueue++
			if r.dry[q] {
				skipped = true
				continue
			}
		}
		listing := r.listing.Load()
		entries, err := q.TryClaimEntries(ctx, n, lease)
		if err != nil {
			return nil, nil, false, err
		}
		if !listing && len(entries) < n {
			if r.dry == nil {
				r.dry = map[*queue.Queue]bool{}
			}
			r.dry[q] = true
		}
		if len(entries) > 0 {
			return q, entries, false, nil
		}
	}
	return nil, nil, skipped, nil
}

// waitWorkers waits until no claimed URL is left in flight, at most d.
func (r *consumeRun) waitWorkers(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	for r.inflightCount() > 0 {
		select {
		case <-r.left:
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// retryWait is called when nothing is pending or in flight: it returns
// how long to wait for the next retry when RunOptions.WaitRetries asks to
// and one comes due within it, else -1 (the run is over).
func (r *consumeRun) retryWait(ctx context.Context) (time.Duration, error) {
	if r.waitRetries <= 0 {
		return -1, nil
	}
	now := r.c.clock.Now()
	if r.idleSince.IsZero() {
		r.idleSince = now
	}
	var next time.Time
	for _, q := range r.qs {
		due, ok, err := q.NextRetry(ctx)
		if err != nil {
			return 0, err
		}
		if ok && (next.IsZero() || due.Before(next)) {
			next = due
		}
	}
	if next.IsZero() || next.After(r.idleSince.Add(r.waitRetries)) {
		r.retryDue.Store(0)
		return -1, nil
	}
	wait := max(next.Sub(now), 0)
	r.retryDue.Store(time.Now().Add(wait).UnixNano())
	return wait, nil
}

// busy reports whether any queue has URLs pending or in flight.
func (r *consumeRun) busy(ctx context.Context) (bool, error) {
	for _, q := range r.qs {
		st, err := q.Stats(ctx)
		if err != nil {
			return false, err
		}
		if st.Pending > 0 || st.InFlight > 0 {
			return true, nil
		}
	}
	return false, nil
}
