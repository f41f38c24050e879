package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/clock"
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
	cfg    config.Queue
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
// starts with prefix (config redis.key_prefix). cfg should be valid
// (config.Validate); every process using a queue must use the same
// done_retention. A name ValidName refuses makes every method return an
// error wrapping ErrBadName.
func New(c redis.UniversalClient, prefix, name string, cfg config.Queue, opts ...Option) *Queue {
	q := &Queue{c: c, prefix: prefix, name: name, cfg: cfg, clock: clock.Real{}, log: slog.Default(), rand: rand.Float64}
	for _, o := range opts {
		o(q)
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

// canonicalAll canonicalises urls, dropping duplicates; bad URLs are
// reported in one error wrapping ErrBadURL (at most 5 named).
func canonicalAll(urls []string) ([]string, error) {
	out := make([]string, 0, len(urls))
	var seen map[string]bool // for long lists; short ones are searched
	if len(urls) > 32 {
		seen = make(map[string]bool, len(urls))
	}
	var bad []error
	nbad := 0
	for _, raw := range urls {
		u, err := Canonical(raw)
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
		case slices.Contains(out, u):
			continue
		}
		out = append(out, u)
	}
	if nbad > 5 {
		bad = append(bad, fmt.Errorf("%w: and %d more", ErrBadURL, nbad-5))
	}
	return out, errors.Join(bad...)
}

func chunks(urls []string) [][]string {
	var out [][]string
	for len(urls) > scriptBatch {
		out = append(out, urls[:scriptBatch])
		urls = urls[scriptBatch:]
	}
	if len(urls) > 0 {
		out = append(out, urls)
	}
	return out
}

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

// Ack marks urls done: they leave every state and are remembered for
// done_retention, so that pushing them again is ignored. Acking a URL
// whose lease has expired, or that is no longer in the queue, still marks
// it done.
func (q *Queue) Ack(ctx context.Context, urls ...string) error {
	_, err := q.AckCount(ctx, urls...)
	return err
}

// AckCount is Ack that also returns how many of urls were new to the
// current generation of the done memory (done_retention/4): a URL acked
// twice counts once, unless the acks fall in different generations.
func (q *Queue) AckCount(ctx context.Context, urls ...string) (int, error) {
	if q.err != nil {
		return 0, q.err
	}
	good, badErr := canonicalAll(urls)
	fresh := 0
	for _, batch := range chunks(good) {
		s := q.span(q.now())
		keys := append(q.stateKeys(), q.doneKey(s.gcur))
		expireAt := int64(0)
		if q.expirySet.Load() != s.gcur+1 {
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
		n, err := ackCmd.Run(ctx, q.c, keys, argv...).Int()
		if err != nil {
			return fresh, q.wrap("ack", err)
		}
		if expireAt != 0 {
			q.expirySet.Store(s.gcur + 1)
		}
		fresh += n
	}
	return fresh, q.wrap("ack", badErr)
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
// before max_attempts schedules a retry after retry_base × 2^(attempt-1)
// (capped at retry_max, with equal jitter: half of it fixed, half random),
// and at least f.MinDelay; otherwise the URL goes to the dead letters with
// f as its last error, and dead is true. Failing a URL that is not leased
// (its lease expired, or another consumer finished it) changes nothing
// but its last error and is not an error.
func (q *Queue) Fail(ctx context.Context, url string, f Failure) (dead bool, err error) {
	if q.err != nil {
		return false, q.err
	}
	u, err := Canonical(url)
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
		f.MinDelay.Milliseconds(), q.cfg.RetryBase.D().Milliseconds(), q.cfg.RetryMax.D().Milliseconds(),
		q.cfg.MaxAttempts, q.rand(), q.cfg.DoneRetention.D().Milliseconds()).Int64Slice()
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

// Extend renews the lease of urls to lease from now (<= 0: config lease),
// the heartbeat of a slow fetch. URLs no longer leased are not re-leased:
// the error then wraps ErrLeaseLost and says how many.
func (q *Queue) Extend(ctx context.Context, lease time.Duration, urls ...string) error {
	if q.err != nil {
		return q.err
	}
	if lease <= 0 {
		lease = q.cfg.Lease.D()
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

func toArgs(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
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
			q.cfg.MaxAttempts, q.cfg.DoneRetention.D().Milliseconds()).Int64Slice()
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
		for _, k := range q.liveDoneKeys(q.span(q.now())) {
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

// DeadLetter is a URL that failed for good: its last failure, how many
// attempts it had, and when it died.
type DeadLetter struct {
	URL, Reason, Error string
	Attempts           int
	At                 time.Time
}

// Dead lists up to limit dead letters (limit <= 0: 100; at most 10,000),
// newest first. Dead letters older than done_retention are forgotten.
func (q *Queue) Dead(ctx context.Context, limit int) ([]DeadLetter, error) {
	if q.err != nil {
		return nil, q.err
	}
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 10000)
	rows, err := deadCmd.Run(ctx, q.c, q.stateKeys(), limit).StringSlice()
	if err != nil {
		return nil, q.wrap("dead", err)
	}
	out := make([]DeadLetter, 0, len(rows)/4)
	for i := 0; i+3 < len(rows); i += 4 {
		ms, _ := strconv.ParseFloat(rows[i+1], 64)
		reason, msg, _ := strings.Cut(rows[i+2], "\n")
		att, _ := strconv.Atoi(rows[i+3])
		out = append(out, DeadLetter{URL: rows[i], Reason: reason, Error: msg, Attempts: att, At: time.UnixMilli(int64(ms))})
	}
	return out, nil
}

// RequeueDead moves dead letters back to pending with their attempts
// reset: urls, or with no urls all of them (in batches of 500). It returns
// how many were requeued; URLs that are not dead are ignored.
func (q *Queue) RequeueDead(ctx context.Context, urls ...string) (int, error) {
	if q.err != nil {
		return 0, q.err
	}
	total := 0
	defer func() {
		if total > 0 {
			q.wake(ctx)
		}
	}()
	if len(urls) == 0 {
		for {
			n, err := requeueDeadCmd.Run(ctx, q.c, q.stateKeys(), scriptBatch).Int()
			if err != nil {
				return total, q.wrap("requeue dead", err)
			}
			total += n
			if n < scriptBatch {
				return total, nil
			}
		}
	}
	good, badErr := canonicalAll(urls)
	for _, batch := range chunks(good) {
		argv := []any{scriptBatch}
		for _, u := range batch {
			argv = append(argv, u)
		}
		n, err := requeueDeadCmd.Run(ctx, q.c, q.stateKeys(), argv...).Int()
		if err != nil {
			return total, q.wrap("requeue dead", err)
		}
		total += n
	}
	return total, q.wrap("requeue dead", badErr)
}

// Purge deletes every key of this queue: its states, attempts, errors,
// dead letters and the done memory (the live generations and the two
// before them, computed, not scanned), with UNLINK, which frees big keys
// off Redis' main thread.
func (q *Queue) Purge(ctx context.Context) error {
	if q.err != nil {
		return q.err
	}
	s := q.span(q.now())
	keys := append(q.stateKeys(), q.deadDoneKeys(s)...)
	keys = append(keys, q.liveDoneKeys(s)...)
	keys = append(keys, q.doneKey(s.gcur+1))
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
