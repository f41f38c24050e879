package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/redis/go-redis/v9"
)

// ErrLeaseLost is returned (wrapped) by Extend when a URL is no longer
// leased: its lease expired and it went back to pending, or it was
// finished. The consumer may still finish and Ack it; nothing is lost.
var ErrLeaseLost = errors.New("lease lost")

const (
	// scriptBatch bounds the URLs one script call handles; longer calls
	// are split.
	scriptBatch = 500
	// housekeepingLimit bounds the due retries promoted and the expired
	// leases reaped by one claim or reap call.
	housekeepingLimit = 100
	// housekeepingEvery is how often (by the queue's clock) a process's
	// claims do the housekeeping while pending has enough URLs; a claim
	// that finds fewer than it asked for always does it.
	housekeepingEvery = time.Second
	// maxClaim bounds n of one claim.
	maxClaim = 1000
	// maxErrorLen bounds the stored error text.
	maxErrorLen = 1000
	// wakeTokens is the most wake tokens a queue's wake list keeps.
	wakeTokens = 16
)

// Queue is one named URL queue (one per crawler source) in Redis. It is
// safe for concurrent use by any number of goroutines and processes.
type Queue struct {
	c      redis.UniversalClient
	prefix string
	name   string
	opt    Options
	clock  clock.Clock
	log    *slog.Logger
	rand   func() float64
	err    error    // a bad name: every method returns it
	keyTag string   // "<prefix>{q:<name>}:", the start of every key
	state  []string // stateKeys

	// nextHousekeeping is when (unix ms, queue clock) the next claim
	// does the housekeeping even if pending has enough URLs.
	nextHousekeeping atomic.Int64
	// short is set when the last claim found fewer pending URLs than it
	// asked for: the next one goes straight to the housekeeping script.
	short atomic.Bool
	// expirySet is 1 + the done memory generation whose expiry this
	// process's acks have set (0: none).
	expirySet atomic.Int64
	deadDone  atomic.Pointer[deadDone]
}

// Option configures a Queue.
type Option func(*Queue)

// WithClock sets the clock the queue reads "now" from (default: the
// system clock). Times stored in Redis come from it, so tests can pass a
// *clock.Fake and move it.
func WithClock(c clock.Clock) Option { return func(q *Queue) { q.clock = c } }

// WithLogger sets the logger (default: slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(q *Queue) { q.log = l } }

// WithRand sets the source of the retry jitter: a function returning a
// number in [0, 1) (default: math/rand/v2.Float64). It must be safe for
// concurrent use.
func WithRand(f func() float64) Option { return func(q *Queue) { q.rand = f } }

// New returns the queue name (a crawler source name) on c; every key
// starts with prefix (the configured redis.key_prefix). o should be sane
// (see Options); every process using a queue must use the same
// DoneRetention. A name ValidName refuses makes every method return an
// error wrapping ErrBadName.
func New(c redis.UniversalClient, prefix, name string, o Options, opts ...Option) *Queue {
	q := &Queue{c: c, prefix: prefix, name: name, opt: o, clock: clock.Real{}, log: slog.Default(), rand: rand.Float64}
	for _, apply := range opts {
		apply(q)
	}
	q.err = ValidName(name)
	q.keyTag = prefix + "{q:" + name + "}:"
	q.initStateKeys()
	q.log = q.log.With("queue", name)
	return q
}

// Name returns the queue's name.
func (q *Queue) Name() string { return q.name }

func (q *Queue) now() time.Time { return q.clock.Now() }

func (q *Queue) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("queue %s: %s: %w", q.name, op, err)
}

// Entry is a URL with its payload: bytes the queue keeps beside the URL
// while it is queued, for whoever claims it (a list item's fields).
type Entry struct {
	URL     string
	Payload []byte // nil or empty: none
}

// canonicalAll canonicalises urls, dropping duplicates; bad URLs are
// reported in one error wrapping canonurl.ErrBadURL (at most 5 named).
func canonicalAll(urls []string) ([]string, error) {
	return canonicalEach(urls, func(u *string) *string { return u })
}

// canonicalEntries is canonicalAll for entries; of a URL given twice, the
// first entry is kept.
func canonicalEntries(es []Entry) ([]Entry, error) {
	return canonicalEach(es, func(e *Entry) *string { return &e.URL })
}

// canonicalEach canonicalises the URL of each element of in (url points
// into an element), dropping duplicates and bad URLs.
func canonicalEach[T any](in []T, url func(*T) *string) ([]T, error) {
	out := make([]T, 0, len(in))
	var seen map[string]bool // for long lists; short ones are searched
	if len(in) > 32 {
		seen = make(map[string]bool, len(in))
	}
	var bad []error
	nbad := 0
	for _, x := range in {
		p := url(&x)
		u, err := canonurl.Canonical(*p)
		if err != nil {
			if nbad++; nbad <= 5 {
				bad = append(bad, err)
			}
			continue
		}
		switch {
		case seen != nil:
			if seen[u] {
				continue
			}
			seen[u] = true
		case slices.ContainsFunc(out, func(y T) bool { return *url(&y) == u }):
			continue
		}
		*p = u
		out = append(out, x)
	}
	if nbad > 5 {
		bad = append(bad, fmt.Errorf("%w: and %d more", canonurl.ErrBadURL, nbad-5))
	}
	return out, errors.Join(bad...)
}

// chunks cuts xs into batches of at most scriptBatch.
func chunks[T any](xs []T) [][]T {
	var out [][]T
	for len(xs) > scriptBatch {
		out = append(out, xs[:scriptBatch])
		xs = xs[scriptBatch:]
	}
	if len(xs) > 0 {
		out = append(out, xs)
	}
	return out
}

func boolArg(b bool) int {
	if b {
		return 1
	}
	return 0
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

func toArgs(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// Purge deletes every key of this queue: its states, attempts, errors,
// dead letters and the done memory (the live generations and the two
// before them, computed, not scanned), with UNLINK, which frees big keys
// off Redis' main thread.
func (q *Queue) Purge(ctx context.Context) error {
	if q.err != nil {
		return q.err
	}
	s := q.doneWindow(q.now())
	keys := append(q.stateKeys(), q.deadDoneKeys(s)...)
	keys = append(keys, q.liveDoneKeys(s)...)
	keys = append(keys, q.doneKey(s.currentGen+1))
	q.expirySet.Store(0)
	if err := q.c.Unlink(ctx, keys...).Err(); err != nil {
		return q.wrap("purge", err)
	}
	// The wake key has another hash tag: delete it apart.
	if err := q.c.Unlink(ctx, q.wakeKey()).Err(); err != nil {
		return q.wrap("purge", err)
	}
	return nil
}
