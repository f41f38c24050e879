package news

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
)

// t0 is the fake "now" tests start at.
var t0 = time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)

const week = 7 * 24 * time.Hour

type env struct {
	s     *Store
	c     redis.UniversalClient
	clock *clock.Fake
	ctx   context.Context
}

// newEnv starts a redis-server and a store on it with cfg (nil: defaults)
// and a fake clock at t0.
func newEnv(t *testing.T, mod func(*Options)) *env {
	t.Helper()
	return envOn(t, redistest.Start(t).Client(), "test:", mod)
}

// newClusterEnv is newEnv on a three-master Redis Cluster.
func newClusterEnv(t *testing.T, mod func(*Options)) *env {
	t.Helper()
	return envOn(t, redistest.StartCluster(t).Client(), "cl:", mod)
}

// newEmbeddedEnv is newEnv on the embedded Redis that `newsrank demo`
// uses by default (miniredis: gopher-lua, which has no struct library).
func newEmbeddedEnv(t *testing.T, mod func(*Options)) *env {
	t.Helper()
	c, err := rdb.Open(context.Background(), rdb.DefaultOptions(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return envOn(t, c, c.Prefix, mod)
}

func envOn(t *testing.T, c redis.UniversalClient, prefix string, mod func(*Options)) *env {
	t.Helper()
	cfg := DefaultOptions()
	if mod != nil {
		mod(&cfg)
	}
	fc := clock.NewFake(t0)
	s, err := New(c, prefix, cfg, WithClock(fc), WithLogger(slog.New(slog.NewTextHandler(t.Output(), nil))))
	if err != nil {
		t.Fatal(err)
	}
	return &env{s: s, c: c, clock: fc, ctx: context.Background()}
}

func article(n int, post time.Time, comments int64) Article {
	return Article{
		URL:       fmt.Sprintf("https://news.example.com/a/%d.html", n),
		Title:     fmt.Sprintf("Article %d", n),
		Source:    "example",
		PostTime:  post,
		Comments:  comments,
		CrawlTime: post.Add(time.Minute),
	}
}

func (e *env) ingest(t *testing.T, a Article) IngestResult {
	t.Helper()
	r, err := e.s.Ingest(e.ctx, a)
	if err != nil {
		t.Fatalf("ingest %s: %v", a.URL, err)
	}
	return r
}

func (e *env) get(t *testing.T, id string) Item {
	t.Helper()
	it, err := e.s.Get(e.ctx, id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return it
}

func (e *env) zscore(t *testing.T, key, id string) float64 {
	t.Helper()
	v, err := e.c.ZScore(e.ctx, key, id).Result()
	if err != nil {
		t.Fatalf("ZSCORE %s %s: %v", key, id, err)
	}
	return v
}

func ids(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// counter reads a counter's value.
func counter(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
