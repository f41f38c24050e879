package crawler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/internal/clock"
)

// maxPushOutage bounds how long one push is retried when the run's
// context has no deadline of its own.
const maxPushOutage = 10 * time.Minute

// redisRetryMax caps the wait between two tries of a Redis operation:
// after an outage, work resumes within seconds of Redis.
const redisRetryMax = 5 * time.Second

// redisRetry retries the Redis steps of one push: a failed step is tried
// again with backoff (queue.idle_poll doubling, at most redisRetryMax)
// until it succeeds, the run's context ends (its deadline, a shutdown,
// the job's lock lost) or maxPushOutage has passed since the first
// failure. The list listWalk waits meanwhile, so it goes on from the page it
// was at, skipping nothing. Each step is idempotent: items are SET, the
// queue takes a URL once, a comment count is set, not added.
type redisRetry struct {
	lw       *listWalk
	what     string
	tries    int
	deadline time.Time
}

func (r *redisRetry) do(ctx context.Context, op func(context.Context) error) error {
	for {
		err := op(ctx)
		if err == nil || ctx.Err() != nil || errors.Is(err, canonurl.ErrBadURL) {
			return err
		}
		now := time.Now()
		if r.tries == 0 {
			r.deadline = now.Add(maxPushOutage)
			if d, ok := ctx.Deadline(); ok {
				r.deadline = d
			}
		}
		d := min(r.lw.c.qopt.IdlePoll<<min(r.tries, 16), redisRetryMax)
		if !now.Add(d).Before(r.deadline) {
			return fmt.Errorf("%w (gave up after %d retries)", err, r.tries)
		}
		if r.tries == 0 {
			r.lw.rep.Retried++
		}
		r.tries++
		r.lw.c.log.Warn("Redis failed during a push, retrying", "source", r.lw.s.cfg.Name, "op", r.what,
			"retry", r.tries, "retry_in", d, "err", err)
		if err := clock.Sleep(ctx, d); err != nil {
			return err
		}
	}
}

// done says that a retried push went through.
func (r *redisRetry) done() {
	if r.tries == 0 {
		return
	}
	r.lw.c.log.Info("push went through after Redis came back", "source", r.lw.s.cfg.Name, "op", r.what, "retries", r.tries)
}

// opContext is for Redis calls that must complete even while the caller's
// context is shutting down (acknowledging a page fetched before the
// shutdown), bounded in time.
func opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
}
