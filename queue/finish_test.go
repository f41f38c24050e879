package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
)

// TestAckClaimed: the claimed URLs of two queues are acknowledged in one
// pipeline, also when the server forgot the ack script, and a queue whose
// set is empty is left alone; on one server and on a cluster, where the
// queues' keys are in different slots.
func TestAckClaimed(t *testing.T) {
	t.Run("server", func(t *testing.T) {
		_, c := newServer(t)
		testAckClaimed(t, c)
	})
	t.Run("cluster", func(t *testing.T) {
		testAckClaimed(t, redistest.StartCluster(t).Client())
	})
}

func testAckClaimed(t *testing.T, c redis.UniversalClient) {
	ctx := testCtx(t, 30*time.Second)
	a, b, idle := newQueue(c, "ack-a", testConfig()), newQueue(c, "ack-b", testConfig()), newQueue(c, "ack-idle", testConfig())
	for _, q := range []*Queue{a, b, idle} {
		if _, err := q.Push(ctx, testURLs(5)...); err != nil {
			t.Fatal(err)
		}
	}
	ua, err := a.TryClaim(ctx, 5, time.Minute)
	if err != nil || len(ua) != 5 {
		t.Fatalf("claim a = %v, %v", ua, err)
	}
	ub, err := b.TryClaim(ctx, 3, time.Minute)
	if err != nil || len(ub) != 3 {
		t.Fatalf("claim b = %v, %v", ub, err)
	}
	flush := func(ctx context.Context, c *redis.Client) error { return c.ScriptFlush(ctx).Err() }
	if cc, ok := c.(*redis.ClusterClient); ok {
		err = cc.ForEachShard(ctx, flush)
	} else {
		err = flush(ctx, c.(*redis.Client))
	}
	if err != nil {
		t.Fatal(err)
	}
	errs := AckClaimed(ctx, []Acks{{Queue: a, URLs: append(ua, ua[0])}, {Queue: b, URLs: ub}, {Queue: idle}})
	for i, err := range errs {
		if err != nil {
			t.Errorf("set %d: %v", i, err)
		}
	}
	if st := mustStats(t, a); st != (Stats{Done: 5}) {
		t.Errorf("a after ack = %+v", st)
	}
	if st := mustStats(t, b); st != (Stats{Pending: 2, Done: 3}) {
		t.Errorf("b after ack = %+v", st)
	}
	if st := mustStats(t, idle); st != (Stats{Pending: 5}) {
		t.Errorf("idle queue after ack = %+v", st)
	}
	// Done URLs are not queued again.
	if added, err := b.Push(ctx, ub...); err != nil || added != 0 {
		t.Errorf("push of acked URLs = %d, %v; want 0", added, err)
	}
}

func TestExtendKeepsTheLease(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	clk := clock.NewFake(time.Now())
	q := newQueue(c, "extend", testConfig(), WithClock(clk))
	q.Push(ctx, testURLs(3)...)
	got, err := q.TryClaim(ctx, 3, 10*time.Second)
	if err != nil || len(got) != 3 {
		t.Fatal(got, err)
	}
	clk.Advance(8 * time.Second)
	if err := q.Extend(ctx, 10*time.Second, got[:2]...); err != nil {
		t.Fatal(err)
	}
	clk.Advance(8 * time.Second) // got[2]'s lease has ended, the others' not
	n, err := q.Reap(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Reap = %d, %v; want the one not extended", n, err)
	}
	if st := mustStats(t, q); st.InFlight != 2 || st.Pending != 1 {
		t.Fatalf("stats = %+v", st)
	}
	if err := q.Extend(ctx, time.Minute, got...); !errors.Is(err, ErrLeaseLost) || !strings.Contains(err.Error(), "1 of 3") {
		t.Fatalf("Extend with a lost lease: %v", err)
	}
}

func TestRelease(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "release", testConfig())
	q.Push(ctx, testURLs(5)...)
	got, _ := q.TryClaim(ctx, 5, time.Minute)
	if err := q.Ack(ctx, got[0]); err != nil {
		t.Fatal(err)
	}
	n, err := q.Release(ctx, got...)
	if err != nil || n != 4 {
		t.Fatalf("Release = %d, %v; want the 4 still leased", n, err)
	}
	if st := mustStats(t, q); st != (Stats{Pending: 4, Done: 1}) {
		t.Fatalf("stats = %+v", st)
	}
	if a := c.HLen(ctx, q.failuresKey()).Val(); a != 0 {
		t.Errorf("release counted %d attempts", a)
	}
}

func TestReapCountsAttemptsAndBuries(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	clk := clock.NewFake(time.Now())
	cfg := testConfig()
	cfg.MaxAttempts = 3
	q := newQueue(c, "reap", cfg, WithClock(clk))
	u := "https://x.example.com/slow"
	q.Push(ctx, u)
	if _, err := q.TryClaim(ctx, 1, time.Second); err != nil {
		t.Fatal(err)
	}
	if dead, err := q.Fail(ctx, u, Failure{Reason: "timeout", Err: errors.New("i/o timeout"), Retryable: true}); dead || err != nil {
		t.Fatal(dead, err)
	}
	for i := range 2 { // two expired leases: attempts 2 and 3
		clk.Advance(2 * time.Hour)
		got, err := q.TryClaim(ctx, 1, time.Second)
		if err != nil || len(got) != 1 {
			t.Fatalf("claim %d: %v, %v", i, got, err)
		}
		clk.Advance(2 * time.Second)
		if _, err := q.Reap(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := mustStats(t, q); st != (Stats{Dead: 1}) {
		t.Fatalf("stats = %+v, want the URL dead", st)
	}
	d, err := q.Dead(ctx, 10)
	if err != nil || len(d) != 1 {
		t.Fatal(d, err)
	}
	if d[0].URL != u || d[0].Reason != "lease_expired" || d[0].Attempts != 3 || !strings.Contains(d[0].Error, "timeout: i/o timeout") {
		t.Errorf("dead letter = %+v", d[0])
	}
}

func TestFailRetriesThenDeadThenRequeue(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	start := time.Now().Truncate(time.Second)
	clk := clock.NewFake(start)
	cfg := testConfig()
	cfg.MaxAttempts = 4
	cfg.RetryBase = 10 * time.Second
	cfg.RetryMax = 30 * time.Second
	q := newQueue(c, "fail", cfg, WithClock(clk), WithRand(func() float64 { return 0.5 }))
	u := "https://x.example.com/always-500"
	q.Push(ctx, u)

	// equal jitter with r = 0.5: d × 0.75; d = 10s, 20s, 30s (capped)
	wantDelay := []time.Duration{7500 * time.Millisecond, 15 * time.Second, 22500 * time.Millisecond}
	for attempt := 1; attempt <= 4; attempt++ {
		got, err := q.TryClaim(ctx, 1, time.Minute)
		if err != nil || len(got) != 1 {
			t.Fatalf("attempt %d: claim = %v, %v", attempt, got, err)
		}
		dead, err := q.Fail(ctx, got[0], Failure{Reason: "http_500", Err: fmt.Errorf("HTTP 500 on try %d\nsecond line", attempt), Retryable: true})
		if err != nil {
			t.Fatal(err)
		}
		if dead != (attempt == 4) {
			t.Fatalf("attempt %d: dead = %v", attempt, dead)
		}
		if dead {
			break
		}
		due, err := c.ZScore(ctx, q.delayedKey(), u).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got := time.UnixMilli(int64(due)).Sub(clk.Now()); got != wantDelay[attempt-1] {
			t.Errorf("attempt %d: retry in %s, want %s", attempt, got, wantDelay[attempt-1])
		}
		// Not claimable before it is due.
		clk.Advance(wantDelay[attempt-1] - time.Millisecond)
		if got, _ := q.TryClaim(ctx, 1, time.Minute); len(got) != 0 {
			t.Fatalf("attempt %d: claimed %v before the retry was due", attempt, got)
		}
		clk.Advance(time.Millisecond)
	}
	if st := mustStats(t, q); st != (Stats{Dead: 1}) {
		t.Fatalf("stats = %+v, want 1 dead", st)
	}
	d, err := q.Dead(ctx, 0)
	if err != nil || len(d) != 1 {
		t.Fatal(d, err)
	}
	want := DeadLetter{URL: u, Reason: "http_500", Error: "HTTP 500 on try 4 second line", Attempts: 4, At: clk.Now()}
	if d[0] != want {
		t.Errorf("dead letter = %+v\nwant          %+v", d[0], want)
	}
	// A dead URL is not queued again by a push...
	if added, _ := q.Push(ctx, u); added != 0 {
		t.Errorf("push of a dead URL added it")
	}
	// ...but requeue-dead brings it back with fresh attempts.
	if n, err := q.RequeueDead(ctx); err != nil || n != 1 {
		t.Fatalf("RequeueDead = %d, %v", n, err)
	}
	if st := mustStats(t, q); st != (Stats{Pending: 1}) {
		t.Fatalf("stats after requeue = %+v", st)
	}
	got, _ := q.TryClaim(ctx, 1, time.Minute)
	if dead, _ := q.Fail(ctx, got[0], Failure{Reason: "http_500", Retryable: true}); dead {
		t.Error("requeued URL died on its first new failure: attempts were not reset")
	}
}

func TestFailHonoursMinDelayAndNonRetryable(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	clk := clock.NewFake(time.Now().Truncate(time.Second))
	q := newQueue(c, "fail2", testConfig(), WithClock(clk), WithRand(func() float64 { return 0 }))
	a, b := "https://x.example.com/429", "https://x.example.com/404"
	q.Push(ctx, a, b)
	q.TryClaim(ctx, 2, time.Minute)
	if dead, err := q.Fail(ctx, a, Failure{Reason: "http_429", Retryable: true, MinDelay: 2 * time.Minute}); dead || err != nil {
		t.Fatal(dead, err)
	}
	due, _ := c.ZScore(ctx, q.delayedKey(), a).Result()
	if got := time.UnixMilli(int64(due)).Sub(clk.Now()); got != 2*time.Minute {
		t.Errorf("retry in %s, want Retry-After's 2m", got)
	}
	if dead, err := q.Fail(ctx, b, Failure{Reason: "HTTP 404", Err: errors.New("not found")}); !dead || err != nil {
		t.Fatalf("non-retryable failure: dead = %v, %v", dead, err)
	}
	d, _ := q.Dead(ctx, 10)
	if len(d) != 1 || d[0].Reason != "http_404" || d[0].Attempts != 1 {
		t.Errorf("dead = %+v", d)
	}
	// Failing a URL not leased is not an error and changes no state.
	if dead, err := q.Fail(ctx, "https://x.example.com/never-pushed", Failure{Retryable: true}); dead || err != nil {
		t.Errorf("Fail of an unknown URL = %v, %v", dead, err)
	}
	if st := mustStats(t, q); st != (Stats{Delayed: 1, Dead: 1}) {
		t.Errorf("stats = %+v", st)
	}
	// requeue-dead by URL ignores URLs that are not dead
	if n, err := q.RequeueDead(ctx, a, b); err != nil || n != 1 {
		t.Errorf("RequeueDead(a, b) = %d, %v; want 1", n, err)
	}
}
