package queue

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/redistest"
)

const testPrefix = "test:"

// testConfig is the default queue options with a short idle_poll, so
// waiting tests are quick.
func testConfig() Options {
	cfg := DefaultOptions()
	cfg.IdlePoll = 100 * time.Millisecond
	return cfg
}

// newServer starts a redis-server and returns a client to it.
func newServer(t testing.TB, opts ...redistest.Options) (*redistest.Server, *redis.Client) {
	t.Helper()
	s := redistest.Start(t, opts...)
	return s, s.Client()
}

func quietLogger() *slog.Logger {
	if os.Getenv("QUEUE_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(discard{}, nil))
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func newQueue(c redis.UniversalClient, name string, cfg Options, opts ...Option) *Queue {
	return New(c, testPrefix, name, cfg, append([]Option{WithLogger(quietLogger())}, opts...)...)
}

func testURLs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("https://news.example.com/a/%06d.html", i)
	}
	return out
}

func mustStats(t testing.TB, q *Queue) Stats {
	t.Helper()
	st, err := q.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
