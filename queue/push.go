package queue

import (
	"context"
	"time"
)

// Push canonicalises urls (canonurl.Canonical) and queues those that are not
// pending, in flight, waiting for a retry, dead, or done within
// DoneRetention. It returns how many were new. Bad URLs are skipped and
// reported in an error wrapping canonurl.ErrBadURL, after the good ones are
// queued.
// Each batch of up to 500 URLs is queued atomically; pushing the same URL
// from many producers at once queues it once. A URL still queued keeps
// the payload it was pushed with (PushEntries).
func (q *Queue) Push(ctx context.Context, urls ...string) (added int, err error) {
	if q.err != nil {
		return 0, q.err
	}
	good, badErr := canonicalAll(urls)
	added, err = pushBatches(ctx, q, chunks(good), 2, func(argv []any, u string) []any {
		return append(argv, u, doneField(u))
	})
	if err != nil {
		return added, err
	}
	return added, q.wrap("push", badErr)
}

// PushEntries is Push for URLs with payloads, stored in the same script
// that queues them. A URL that is new to the queue is queued with its
// payload. A URL already pending, leased or waiting for a retry gets the
// payload it is pushed with now (the newest listing's fields win), or
// keeps its own when pushed without one. A URL that is dead or done
// within DoneRetention is not queued and its payload not stored. The
// payload leaves Redis with its URL: when the URL is acked, goes to the
// dead letters (a requeued dead letter has none), or the queue is purged;
// it stays through a retry, an expired lease and a Release. ClaimAnyEntries
// and TryClaimEntries return it.
func (q *Queue) PushEntries(ctx context.Context, entries ...Entry) (added int, err error) {
	if q.err != nil {
		return 0, q.err
	}
	good, badErr := canonicalEntries(entries)
	added, err = pushBatches(ctx, q, chunks(good), 3, func(argv []any, e Entry) []any {
		return append(argv, e.URL, doneField(e.URL), e.Payload)
	})
	if err != nil {
		return added, err
	}
	return added, q.wrap("push", badErr)
}

// pushBatches runs pushCmd on each batch, stride arguments per element
// (appended by args), and wakes the consumers when some URL was added.
func pushBatches[T any](ctx context.Context, q *Queue, batches [][]T, stride int, args func([]any, T) []any) (int, error) {
	added := 0
	for _, batch := range batches {
		s := q.doneWindow(q.now())
		keys := append(q.stateKeys(), q.liveDoneKeys(s)...)
		argv := append(make([]any, 0, 5+stride*len(batch)), s.nowMs, s.oldestGen*s.genMs, s.genMs, s.retentionMs, stride)
		for _, x := range batch {
			argv = args(argv, x)
		}
		n, err := pushCmd.Run(ctx, q.c, keys, argv...).Int()
		if err != nil {
			return added, q.wrap("push", err)
		}
		added += n
	}
	if added > 0 {
		q.wake(ctx)
	}
	return added, nil
}

// wake signals the queue's idle consumers. A failure only delays them
// (they look again within IdlePoll), so it is logged, not returned.
func (q *Queue) wake(ctx context.Context) {
	ttl := max(10*q.opt.IdlePoll, time.Minute)
	if err := wakeCmd.Run(ctx, q.c, []string{q.wakeKey()}, q.name, wakeTokens, ttl.Milliseconds()).Err(); err != nil {
		q.log.Debug("queue wake signal failed", "err", err)
	}
}
