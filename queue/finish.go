package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/internal/rdb"
)

// Ack marks urls done: they leave every state, their payloads are
// deleted, and they are remembered for DoneRetention, so that pushing
// them again is ignored. Acking a URL
// whose lease has expired, or that is no longer in the queue, still marks
// it done.
func (q *Queue) Ack(ctx context.Context, urls ...string) error {
	_, err := q.AckCount(ctx, urls...)
	return err
}

// AckCount is Ack that also returns how many of urls were new to the
// current generation of the done memory (DoneRetention/4): a URL acked
// twice counts once, unless the acks fall in different generations.
func (q *Queue) AckCount(ctx context.Context, urls ...string) (int, error) {
	if q.err != nil {
		return 0, q.err
	}
	good, badErr := canonicalAll(urls)
	fresh := 0
	for _, batch := range chunks(good) {
		call := q.ackCall(batch)
		n, err := ackCmd.Run(ctx, q.c, call.keys, call.args...).Int()
		if err != nil {
			return fresh, q.wrap("ack", err)
		}
		q.ackDone(call)
		fresh += n
	}
	return fresh, q.wrap("ack", badErr)
}

// ackScriptCall is one ackCmd call.
type ackScriptCall struct {
	keys []string
	args []any
	gen  int64 // the done memory's current generation
	// setsExpiry: the call sets the generation's expiry.
	setsExpiry bool
}

// ackCall builds the ackCmd call of batch (canonical URLs, at most
// scriptBatch).
func (q *Queue) ackCall(batch []string) ackScriptCall {
	s := q.doneWindow(q.now())
	keys := append(q.stateKeys(), q.doneKey(s.currentGen))
	expireAt := int64(0)
	if q.expirySet.Load() != s.currentGen+1 {
		expireAt = s.expireAt()
	}
	argv := make([]any, 3, 3+2*len(batch))
	argv[0], argv[1], argv[2] = s.minutes(), expireAt, len(batch)
	for _, u := range batch {
		argv = append(argv, u)
	}
	for _, u := range batch {
		argv = append(argv, doneField(u))
	}
	return ackScriptCall{keys: keys, args: argv, gen: s.currentGen, setsExpiry: expireAt != 0}
}

// ackDone records what a successful call did.
func (q *Queue) ackDone(c ackScriptCall) {
	if c.setsExpiry {
		q.expirySet.Store(c.gen + 1)
	}
}

// Acks are URLs of one queue to acknowledge with AckClaimed.
type Acks struct {
	Queue *Queue
	// URLs as a claim returned them (canonical): they are not
	// canonicalised again.
	URLs []string
}

// AckClaimed acknowledges, as Ack does, the URLs of several queues in one
// pipeline (one round trip to Redis), and returns one error per element
// of sets (nil: acknowledged). The queues must share one Redis client.
// The URLs must be as a claim returned them: a URL in another form would
// not leave its lease (it would be fetched again once the lease ends).
func AckClaimed(ctx context.Context, sets []Acks) []error {
	errs := make([]error, len(sets))
	type part struct {
		set  int
		call ackScriptCall
	}
	var parts []part
	var c redis.UniversalClient
	for i, set := range sets {
		q := set.Queue
		switch {
		case q.err != nil:
			errs[i] = q.err
			continue
		case c == nil:
			c = q.c
		case c != q.c:
			errs[i] = q.Ack(ctx, set.URLs...)
			continue
		}
		for _, batch := range chunks(dedup(set.URLs)) {
			parts = append(parts, part{set: i, call: q.ackCall(batch)})
		}
	}
	if len(parts) == 0 {
		return errs
	}
	cmds, _ := rdb.EvalEach(ctx, c, ackCmd, len(parts), func(i int) ([]string, []any) {
		return parts[i].call.keys, parts[i].call.args
	})
	for i, p := range parts {
		q := sets[p.set].Queue
		if err := cmds[i].Err(); err != nil {
			if errs[p.set] == nil {
				errs[p.set] = q.wrap("ack", err)
			}
			continue
		}
		q.ackDone(p.call)
	}
	return errs
}

// dedup returns urls without repeats (in order; urls itself when it has
// none).
func dedup(urls []string) []string {
	if len(urls) < 2 {
		return urls
	}
	seen := make(map[string]bool, len(urls))
	out := urls[:0:0]
	for _, u := range urls {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// Failure describes why fetching a URL failed.
type Failure struct {
	// Reason is a short machine-readable reason: "http_404", "timeout",
	// "too_large", "robots", ... (empty: "error").
	Reason string
	// Err is stored (as text, at most 1000 bytes) as the URL's last error.
	Err error
	// Retryable false sends the URL straight to the dead letters.
	Retryable bool
	// MinDelay is a lower bound for the retry delay, e.g. from Retry-After.
	MinDelay time.Duration
}

// Fail records a failed attempt of a leased URL. A retryable failure
// before MaxAttempts schedules a retry after RetryBase × 2^(attempt-1)
// (capped at RetryMax, with equal jitter: half of it fixed, half random),
// and at least f.MinDelay (the payload is kept); otherwise the URL goes
// to the dead letters with f as its last error, its payload is deleted,
// and dead is true. Failing a URL that is not leased
// (its lease expired, or another consumer finished it) changes nothing
// but its last error and is not an error.
func (q *Queue) Fail(ctx context.Context, url string, f Failure) (dead bool, err error) {
	if q.err != nil {
		return false, q.err
	}
	u, err := canonurl.Canonical(url)
	if err != nil {
		return false, q.wrap("fail", err)
	}
	reason := cleanReason(f.Reason)
	msg := "unknown error"
	if f.Err != nil {
		msg = f.Err.Error()
	}
	msg = truncate(strings.ReplaceAll(msg, "\n", " "), maxErrorLen)
	retryable := 0
	if f.Retryable {
		retryable = 1
	}
	res, err := failCmd.Run(ctx, q.c, q.stateKeys(), q.now().UnixMilli(), u, reason+"\n"+msg, retryable,
		f.MinDelay.Milliseconds(), q.opt.RetryBase.Milliseconds(), q.opt.RetryMax.Milliseconds(),
		q.opt.MaxAttempts, q.rand(), q.opt.DoneRetention.Milliseconds()).Int64Slice()
	if err != nil {
		return false, q.wrap("fail", err)
	}
	switch res[0] {
	case 1:
		// The caller, who knows what the reason means, says it louder.
		q.log.Debug("URL is dead", "url", u, "reason", reason, "attempts", res[1], "err", msg)
		return true, nil
	case 0:
		q.log.Debug("URL will be retried", "url", u, "reason", reason, "attempts", res[1], "due", time.UnixMilli(res[2]))
	default:
		q.log.Debug("failed URL was not leased", "url", u, "reason", reason)
	}
	return false, nil
}

// cleanReason keeps reasons machine-readable: lower-case letters, digits
// and '_' (others become '_'), at most 40 bytes.
func cleanReason(r string) string {
	r = strings.ToLower(strings.TrimSpace(r))
	if r == "" {
		return "error"
	}
	b := []byte(truncate(r, 40))
	for i, c := range b {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// Extend renews the lease of urls to lease from now (<= 0: the Lease option),
// the heartbeat of a slow fetch. URLs no longer leased are not re-leased:
// the error then wraps ErrLeaseLost and says how many.
func (q *Queue) Extend(ctx context.Context, lease time.Duration, urls ...string) error {
	if q.err != nil {
		return q.err
	}
	if lease <= 0 {
		lease = q.opt.Lease
	}
	good, badErr := canonicalAll(urls)
	lost := 0
	for _, batch := range chunks(good) {
		argv := make([]any, 0, len(batch)+1)
		argv = append(argv, q.now().Add(lease).UnixMilli())
		for _, u := range batch {
			argv = append(argv, u)
		}
		n, err := extendCmd.Run(ctx, q.c, q.stateKeys(), argv...).Int()
		if err != nil {
			return q.wrap("extend", err)
		}
		lost += len(batch) - n
	}
	if lost > 0 {
		return q.wrap("extend", errors.Join(fmt.Errorf("%w: %d of %d URLs", ErrLeaseLost, lost, len(good)), badErr))
	}
	return q.wrap("extend", badErr)
}

// Release hands leased URLs back to pending at once, without counting an
// attempt: for a consumer that stops (SIGTERM) before it fetched them.
// URLs not leased are ignored; it returns how many went back.
func (q *Queue) Release(ctx context.Context, urls ...string) (int, error) {
	if q.err != nil {
		return 0, q.err
	}
	good, badErr := canonicalAll(urls)
	total := 0
	for _, batch := range chunks(good) {
		n, err := releaseCmd.Run(ctx, q.c, q.stateKeys(), toArgs(batch)...).Int()
		if err != nil {
			return total, q.wrap("release", err)
		}
		total += n
	}
	if total > 0 {
		q.wake(ctx)
	}
	return total, q.wrap("release", badErr)
}

// Reap returns the URLs whose lease has expired to pending, counting an
// attempt (those out of attempts go to the dead letters), in batches of
// 100 until none is left. It returns how many leases had expired. Claim
// also reaps, so Reap is for a periodic sweep and for tests.
func (q *Queue) Reap(ctx context.Context) (int, error) {
	if q.err != nil {
		return 0, q.err
	}
	total, requeued := 0, 0
	for {
		res, err := reapCmd.Run(ctx, q.c, q.stateKeys(), q.now().UnixMilli(), housekeepingLimit,
			q.opt.MaxAttempts, q.opt.DoneRetention.Milliseconds()).Int64Slice()
		if err != nil {
			return total, q.wrap("reap", err)
		}
		total += int(res[0])
		requeued += int(res[1])
		if res[0] < housekeepingLimit {
			break
		}
	}
	if total > 0 {
		q.log.Info("expired leases reaped", "expired", total, "requeued", requeued, "dead", total-requeued)
	}
	if requeued > 0 {
		q.wake(ctx)
	}
	return total, nil
}
