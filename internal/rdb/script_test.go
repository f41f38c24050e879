package rdb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
)

// incrCmd is not idempotent, so a call run twice shows.
// KEYS[1] -> counter; ARGV[1] -> increment. Returns the new value.
var incrCmd = redis.NewScript(`return redis.call('INCRBY', KEYS[1], ARGV[1])`)

// echoCmd returns ARGV[1].
var echoCmd = redis.NewScript(`return ARGV[1]`)

func evalIncr(t *testing.T, ctx context.Context, c rdb.Pipeliner, n int) []int64 {
	t.Helper()
	cmds, err := rdb.EvalEach(ctx, c, incrCmd, n, func(i int) ([]string, []any) {
		return []string{fmt.Sprintf("{t}:n%d", i)}, []any{i + 1}
	})
	if err != nil {
		t.Fatalf("rdb.EvalEach: %v", err)
	}
	out := make([]int64, n)
	for i, cmd := range cmds {
		if out[i], err = cmd.Int64(); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	return out
}

func TestEvalEachReloadsAfterScriptFlush(t *testing.T) {
	ctx := context.Background()
	s := redistest.Start(t)
	c := s.Client()
	for round := 1; round <= 3; round++ {
		// The first round finds the script never loaded, the others
		// flushed: each loads it once and runs every call exactly once.
		if err := c.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		got := evalIncr(t, ctx, c, 5)
		for i, v := range got {
			if want := int64(round * (i + 1)); v != want {
				t.Fatalf("round %d call %d = %d, want %d (a call ran twice or not at all)", round, i, v, want)
			}
		}
		calls, err := redistest.CommandCalls(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if calls["evalsha"] != 10 || calls["script|load"] != 1 || calls["eval"] != 0 {
			t.Fatalf("round %d: commands %v, want 10 evalsha (5 NOSCRIPT, 5 run) and 1 script load", round, calls)
		}
	}
	// Loaded: one pipeline, no load.
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	evalIncr(t, ctx, c, 5)
	calls, _ := redistest.CommandCalls(ctx, c)
	if calls["evalsha"] != 5 || calls["script|load"] != 0 {
		t.Fatalf("commands %v, want 5 evalsha and no load", calls)
	}
}

func TestPipelinedRunsOtherCommandsOnce(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	var incr *redis.IntCmd
	var echo, scripted *redis.Cmd
	_, err := rdb.Pipelined(ctx, c, func(p redis.Pipeliner) {
		incr = p.Incr(ctx, "plain")
		echo = echoCmd.EvalSha(ctx, p, nil, "hello")
		scripted = incrCmd.EvalSha(ctx, p, []string{"counter"}, 2)
	}, echoCmd, incrCmd)
	if err != nil {
		t.Fatal(err)
	}
	if incr.Val() != 1 {
		t.Errorf("INCR = %d, want 1", incr.Val())
	}
	if v, err := echo.Text(); err != nil || v != "hello" {
		t.Errorf("echo = %q, %v", v, err)
	}
	if v, err := scripted.Int64(); err != nil || v != 2 {
		t.Errorf("incr script = %d, %v", v, err)
	}
	if n, _ := c.Get(ctx, "plain").Int(); n != 1 {
		t.Errorf("plain = %d: the command that ran was sent again", n)
	}
}

func TestPipelinedReportsUnknownScript(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	// echoCmd is not among the scripts rdb.Pipelined may load.
	_, err := rdb.Pipelined(ctx, c, func(p redis.Pipeliner) {
		echoCmd.EvalSha(ctx, p, nil, "x")
	}, incrCmd)
	if !rdb.IsNoScript(err) {
		t.Fatalf("err = %v, want NOSCRIPT", err)
	}
}

func TestEvalEachReportsScriptErrors(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	if err := c.Set(ctx, "{t}:n1", "text", 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, err := rdb.EvalEach(ctx, c, incrCmd, 3, func(i int) ([]string, []any) {
		return []string{fmt.Sprintf("{t}:n%d", i)}, []any{1}
	})
	if err == nil || !strings.Contains(err.Error(), "not an integer") {
		t.Fatalf("err = %v, want the script's error", err)
	}
}

func TestEvalEachOnClusterReloadsOnlyWhereFlushed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis cluster")
	}
	ctx := context.Background()
	cl := redistest.StartCluster(t)
	c := cl.Client()
	n := 30 // keys without a shared tag, spread over the three masters
	run := func() []int64 {
		cmds, err := rdb.EvalEach(ctx, c, incrCmd, n, func(i int) ([]string, []any) {
			return []string{fmt.Sprintf("n%d", i)}, []any{1}
		})
		if err != nil {
			t.Fatalf("rdb.EvalEach: %v", err)
		}
		out := make([]int64, n)
		for i, cmd := range cmds {
			out[i], _ = cmd.Int64()
		}
		return out
	}
	run()
	// One master forgets the script: its calls are sent again, the
	// others' are not.
	if err := cl.Nodes[0].Client().ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for i, v := range run() {
		if v != 2 {
			t.Fatalf("call %d = %d, want 2", i, v)
		}
	}
}
