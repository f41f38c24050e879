package queue

import (
	"context"
	"time"
)

// Push canonicalises urls (Canonical) and queues those that are not
// pending, in flight, waiting for a retry, dead, or done within
// done_retention. It returns how many were new. Bad URLs are skipped and
// reported in an error wrapping ErrBadURL, after the good ones are queued.
// Each batch of up to 500 URLs is queued atomically; pushing the same URL
// from many producers at once queues it once.
func (q *Queue) Push(ctx context.Context, urls ...string) (added int, err error) {
	if q.err != nil {
		return 0, q.err
	}
	good, badErr := canonicalAll(urls)
	for _, batch := range chunks(good) {
		s := q.span(q.now())
		keys := append(q.stateKeys(), q.liveDoneKeys(s)...)
		argv := urlFieldArgs(batch, append(make([]any, 0, 4+2*len(batch)), s.now, s.g0*s.glen, s.glen, s.ret))
		n, err := pushCmd.Run(ctx, q.c, keys, argv...).Int()
		if err != nil {
			return added, q.wrap("push", err)
		}
		added += n
	}
	if added > 0 {
		q.wake(ctx)
	}
	return added, q.wrap("push", badErr)
}

// wake signals the queue's idle consumers. A failure only delays them
// (they look again within idle_poll), so it is logged, not returned.
func (q *Queue) wake(ctx context.Context) {
	ttl := max(10*q.cfg.IdlePoll.D(), time.Minute)
	if err := wakeCmd.Run(ctx, q.c, []string{q.wakeKey()}, q.name, wakeTokens, ttl.Milliseconds()).Err(); err != nil {
		q.log.Debug("queue wake signal failed", "err", err)
	}
}
