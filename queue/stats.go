package queue

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// Stats counts the URLs in each state. Done counts the URLs acked within
// about the retention (per generation of the done memory: a URL acked
// again in a later generation counts twice).
type Stats struct{ Pending, InFlight, Delayed, Done, Dead int64 }

// Stats returns the queue's counts, read atomically.
func (q *Queue) Stats(ctx context.Context) (Stats, error) {
	if q.err != nil {
		return Stats{}, q.err
	}
	var pending, lease, delayed, dead *redis.IntCmd
	var sentinel *redis.FloatCmd
	var done []*redis.IntCmd
	_, err := q.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		pending = p.SCard(ctx, q.pendingKey())
		lease = p.ZCard(ctx, q.leaseKey())
		sentinel = p.ZScore(ctx, q.leaseKey(), leaseSentinel)
		delayed = p.ZCard(ctx, q.delayedKey())
		dead = p.ZCard(ctx, q.deadKey())
		for _, k := range q.liveDoneKeys(q.doneWindow(q.now())) {
			done = append(done, p.HLen(ctx, k))
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) { // Nil: no sentinel
		return Stats{}, q.wrap("stats", err)
	}
	for _, c := range append([]*redis.IntCmd{pending, lease, delayed, dead}, done...) {
		if err := c.Err(); err != nil {
			return Stats{}, q.wrap("stats", err)
		}
	}
	st := Stats{Pending: pending.Val(), InFlight: lease.Val(), Delayed: delayed.Val(), Dead: dead.Val()}
	if sentinel.Err() == nil {
		st.InFlight--
	}
	for _, c := range done {
		st.Done += c.Val()
	}
	return st, nil
}

// NextRetry returns when the earliest retry of the queue is due (by the
// queue's clock); ok is false when no URL waits for a retry.
func (q *Queue) NextRetry(ctx context.Context) (due time.Time, ok bool, err error) {
	if q.err != nil {
		return time.Time{}, false, q.err
	}
	zs, err := q.c.ZRangeWithScores(ctx, q.delayedKey(), 0, 0).Result()
	if err != nil {
		return time.Time{}, false, q.wrap("next retry", err)
	}
	if len(zs) == 0 {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(int64(zs[0].Score)), true, nil
}
