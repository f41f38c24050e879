package news

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
)

const (
	prefix = "test:"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// rebuildEnv is a news store on one Redis, with a fake clock, and a
// rescorer running its prunes and rebuilds.
type rebuildEnv struct {
	ctx   context.Context
	c     redis.UniversalClient
	clock *clock.Fake
	store *Store
	r     *rescorer
	keys  keyspace
	cfg   Options
}

// rescorer runs Store.Prune and Store.Rebuild with the options (and the
// test hooks) a test sets.
type rescorer struct {
	s *Store
	RebuildOptions
	pruneBatch int
}

// rescorerOption configures a rescorer.
type rescorerOption func(*rescorer)

// withBatch sets the batch of prunes and of the rebuild's reads.
func withBatch(n int) rescorerOption {
	return func(r *rescorer) { r.Batch, r.pruneBatch = n, n }
}

// withSplit makes the rebuild walk time: in two ranges at once from n
// articles on (splitMin in production).
func withSplit(n int) rescorerOption { return func(r *rescorer) { r.split = n } }

// withLog sets the store's logger.
func withLog(l *slog.Logger) rescorerOption { return func(r *rescorer) { r.s.log = l } }

func newRescorer(s *Store, opts ...rescorerOption) *rescorer {
	r := &rescorer{s: s}
	for _, o := range opts {
		o(r)
	}
	return r
}

func (r *rescorer) Rebuild(ctx context.Context) (RebuildResult, error) {
	return r.s.Rebuild(ctx, r.RebuildOptions)
}

func (r *rescorer) Prune(ctx context.Context, now time.Time) (PruneResult, error) {
	return r.s.Prune(ctx, now, PruneOptions{Batch: r.pruneBatch})
}

func (r *rescorer) DryRun(ctx context.Context, now time.Time, sample int) (PruneResult, error) {
	return r.s.Prune(ctx, now, PruneOptions{Batch: r.pruneBatch, DryRun: true, Sample: sample})
}

func (r *rescorer) Formula() Formula { return r.s.Formula() }

func newRebuildEnv(t testing.TB, c redis.UniversalClient, formula string, opts ...rescorerOption) *rebuildEnv {
	t.Helper()
	cfg := DefaultOptions()
	cfg.Formula = formula
	fc := clock.NewFake(t0)
	s, err := New(c, prefix, cfg, WithClock(fc), WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	return &rebuildEnv{ctx: context.Background(), c: c, clock: fc, store: s, r: newRescorer(s, opts...), keys: s.keys, cfg: cfg}
}

// withFormula returns a rescorer on the same keys with another formula.
func (e *rebuildEnv) withFormula(t testing.TB, formula string, opts ...rescorerOption) *rescorer {
	t.Helper()
	cfg := e.cfg
	cfg.Formula = formula
	s, err := New(e.c, prefix, cfg, WithClock(e.clock), WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	return newRescorer(s, opts...)
}

// ingest stores article n posted at post with comments and groups; it
// returns the id.
func (e *rebuildEnv) ingest(t testing.TB, n int, post time.Time, comments int64, groups ...string) string {
	t.Helper()
	r, err := e.store.Ingest(e.ctx, Article{
		URL:       fmt.Sprintf("https://news.example.com/a/%d.html", n),
		Title:     fmt.Sprintf("Article %d", n),
		Source:    "example",
		PostTime:  post,
		Comments:  comments,
		CrawlTime: post.Add(time.Second),
		Groups:    groups,
	})
	if err != nil || r.Status != Created {
		t.Fatalf("ingest %d: %+v, %v", n, r, err)
	}
	return r.ID
}

func (e *rebuildEnv) vote(t testing.TB, user, id string, d Dir) {
	t.Helper()
	if _, err := e.store.Vote(e.ctx, user, id, d); err != nil {
		t.Fatalf("vote %s on %s: %v", user, id, err)
	}
}

// zmap reads a whole (small, test-sized) ZSET.
func (e *rebuildEnv) zmap(t testing.TB, key string) map[string]float64 {
	t.Helper()
	zs, err := e.c.ZRangeWithScores(e.ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]float64, len(zs))
	for _, z := range zs {
		m[z.Member.(string)] = z.Score
	}
	return m
}

// The formulas, written out independently of package news.
func linear(t, v float64) float64 { return t + 432*v }

func hot(t, v float64) float64 {
	s := 0.0
	if v > 0 {
		s = 1
	} else if v < 0 {
		s = -1
	}
	return s*math.Log10(math.Max(math.Abs(v), 1)) + t/45000
}

func gravity(now time.Time) func(t, v float64) float64 {
	return func(t, v float64) float64 {
		age := (float64(now.Unix()) - t) / 3600
		if age < 0 {
			age = 0
		}
		return v / math.Pow(age+2, 1.8)
	}
}

// expected computes the ranking from time: and votes: with f.
func (e *rebuildEnv) expected(t testing.TB, f func(t, v float64) float64) map[string]float64 {
	t.Helper()
	times, votes := e.zmap(t, e.keys.Time()), e.zmap(t, e.keys.Votes())
	out := make(map[string]float64, len(times))
	for id, ts := range times {
		out[id] = f(ts, votes[id])
	}
	return out
}

// sameRanking reports how got differs from want (nil when equal within a
// relative 1e-12).
func sameRanking(got, want map[string]float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d members, want %d", len(got), len(want))
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			return fmt.Errorf("%s missing", id)
		}
		if math.Abs(g-w) > 1e-12*math.Max(1, math.Abs(w)) {
			return fmt.Errorf("%s scored %.17g, want %.17g", id, g, w)
		}
	}
	return nil
}

// logBuffer collects a logger's output for a test to read.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// arriveAndLeave is what happens during a rebuild in the tests that race
// one: ten new articles (ids 1000–1009) arrive and pruner's prune at
// t0+20h removes ten old ones.
func (e *rebuildEnv) arriveAndLeave(t testing.TB, pruner *rescorer) {
	t.Helper()
	for i := 1000; i < 1010; i++ {
		e.ingest(t, i, t0.Add(-time.Duration(i-1000)*time.Minute), int64(i%7))
	}
	if res, err := pruner.Prune(e.ctx, t0.Add(20*time.Hour)); err != nil || res.Removed != 10 {
		t.Errorf("prune during rebuild: %+v, %v", res, err)
	}
}
