package redistest

import (
	"context"
	"testing"
)

func TestRestartKeepsAppendOnlyData(t *testing.T) {
	ctx := context.Background()
	s := Start(t, Options{AppendOnly: true})
	c := s.Client()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	s.Restart()
	got, err := c.Get(ctx, "k").Result()
	if err != nil || got != "v" {
		t.Fatalf("after restart: got %q, %v; want \"v\"", got, err)
	}
}

func TestRestartWithoutAppendOnlyLosesData(t *testing.T) {
	ctx := context.Background()
	s := Start(t)
	c := s.Client()
	c.Set(ctx, "k", "v", 0)
	s.Restart()
	if n, err := c.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("after restart without AOF: exists=%d err=%v, want 0", n, err)
	}
}

func TestCommandCalls(t *testing.T) {
	ctx := context.Background()
	c := Start(t).Client()
	for range 3 {
		c.Incr(ctx, "n")
	}
	calls, err := CommandCalls(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if calls["incr"] != 3 {
		t.Fatalf("incr calls = %d, want 3 (all: %v)", calls["incr"], calls)
	}
}
