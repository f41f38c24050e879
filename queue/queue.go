package queue

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/clock"
)

// ErrLeaseLost is returned by Extend when a URL is no longer leased: its
// lease expired and it went back to pending (or another consumer finished
// it). The consumer may finish and Ack anyway; nothing is lost.
var ErrLeaseLost = errors.New("lease lost")

var errNotYet = errors.New("queue: not implemented yet")

// Queue is one named URL queue (one per crawler source) in Redis.
type Queue struct {
	c      redis.UniversalClient
	prefix string
	name   string
	cfg    config.Queue
	clock  clock.Clock
	log    *slog.Logger
	rand   func() float64
}

// Option configures a Queue.
type Option func(*Queue)

// WithClock sets the clock the queue reads "now" from (default: the
// system clock). Tests pass a *clock.Fake.
func WithClock(c clock.Clock) Option { return func(q *Queue) { q.clock = c } }

// WithLogger sets the logger (default: slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(q *Queue) { q.log = l } }

// WithRand sets the source of the retry jitter: a function returning a
// number in [0, 1) (default: math/rand/v2.Float64). It must be safe for
// concurrent use.
func WithRand(f func() float64) Option { return func(q *Queue) { q.rand = f } }

// New returns the queue name (a source name) on c; every key starts with
// prefix (config redis.key_prefix).
func New(c redis.UniversalClient, prefix, name string, cfg config.Queue, opts ...Option) *Queue {
	q := &Queue{c: c, prefix: prefix, name: name, cfg: cfg, clock: clock.Real{}, log: slog.Default(), rand: rand.Float64}
	for _, o := range opts {
		o(q)
	}
	return q
}

// Name returns the queue's name.
func (q *Queue) Name() string { return q.name }

// Push canonicalises urls and queues those not pending, in flight,
// delayed, dead, or done within the retention. It returns how many were
// new.
func (q *Queue) Push(ctx context.Context, urls ...string) (added int, err error) {
	return 0, errNotYet
}

// Claim leases up to n URLs for lease, waiting while the queue is empty.
func (q *Queue) Claim(ctx context.Context, n int, lease time.Duration) ([]string, error) {
	return nil, errNotYet
}

// TryClaim is Claim without waiting: it may return no URLs.
func (q *Queue) TryClaim(ctx context.Context, n int, lease time.Duration) ([]string, error) {
	return nil, errNotYet
}

// Ack marks urls done.
func (q *Queue) Ack(ctx context.Context, urls ...string) error { return errNotYet }

// Failure describes why fetching a URL failed.
type Failure struct {
	// Reason is a short machine-readable reason: "http_404", "timeout",
	// "too_large", "robots", ...
	Reason string
	// Err is stored (as text) as the URL's last error.
	Err error
	// Retryable false sends the URL straight to the dead letters.
	Retryable bool
	// MinDelay is a lower bound for the retry delay, e.g. from Retry-After.
	MinDelay time.Duration
}

// Fail records a failed attempt on a leased URL and schedules a retry, or
// moves it to the dead letters; dead reports the latter.
func (q *Queue) Fail(ctx context.Context, url string, f Failure) (dead bool, err error) {
	return false, errNotYet
}

// Extend renews the lease of urls (heartbeat for slow fetches).
func (q *Queue) Extend(ctx context.Context, lease time.Duration, urls ...string) error {
	return errNotYet
}

// Reap returns expired leases to pending, counting an attempt.
func (q *Queue) Reap(ctx context.Context) (int, error) { return 0, errNotYet }

// Stats counts the URLs in each state.
type Stats struct{ Pending, InFlight, Delayed, Done, Dead int64 }

// Stats returns the queue's counts.
func (q *Queue) Stats(ctx context.Context) (Stats, error) { return Stats{}, errNotYet }

// DeadLetter is a URL that failed for good.
type DeadLetter struct {
	URL, Reason, Error string
	Attempts           int
	At                 time.Time
}

// Dead lists up to limit dead letters, newest first.
func (q *Queue) Dead(ctx context.Context, limit int) ([]DeadLetter, error) { return nil, errNotYet }

// RequeueDead moves dead letters back to pending; no urls: all of them.
func (q *Queue) RequeueDead(ctx context.Context, urls ...string) (int, error) { return 0, errNotYet }

// Purge deletes every key of this queue.
func (q *Queue) Purge(ctx context.Context) error { return errNotYet }

// ClaimAny claims from the first of qs that has work.
func ClaimAny(ctx context.Context, qs []*Queue, n int, lease time.Duration) (*Queue, []string, error) {
	return nil, nil, errNotYet
}
