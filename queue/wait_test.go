package queue

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/redistest"
)

func TestIdleConsumerCallRate(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	_, c := newServer(t)
	cfg := testConfig()
	cfg.IdlePoll = time.Second // the default
	var qs []*Queue
	for i := range 10 {
		qs = append(qs, newQueue(c, fmt.Sprintf("idle-%d", i), cfg))
	}
	// A lease held elsewhere and a pending retry give the waiter due times.
	qs[3].Push(ctx, "https://x.example.com/held", "https://x.example.com/retry")
	qs[3].TryClaim(ctx, 2, time.Hour)
	qs[3].Fail(ctx, "https://x.example.com/retry", Failure{Retryable: true, MinDelay: time.Hour})

	// Commands a script runs are counted in commandstats too: count the
	// ones a consumer sends (scripts and BLPOP), and log the rest.
	calls := func() (int64, map[string]int64) {
		m, err := redistest.CommandCalls(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return m["evalsha"] + m["eval"] + m["blpop"], m
	}
	for _, tc := range []struct {
		name string
		qs   []*Queue
	}{{"one queue", qs[:1]}, {"ten queues", qs}} {
		t.Run(tc.name, func(t *testing.T) {
			const idleFor = 5 * time.Second
			before, beforeAll := calls()
			wctx, cancel := context.WithTimeout(ctx, idleFor)
			defer cancel()
			began := time.Now()
			_, got, err := ClaimAny(wctx, tc.qs, 8, time.Minute)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("idle ClaimAny = %v, %v; want the context's deadline", got, err)
			}
			took := time.Since(began)
			// A hang guard, not a measure of speed: ClaimAny returns
			// when its context ends.
			if took > idleFor+20*time.Second {
				t.Errorf("ClaimAny returned %s after its context ended", took-idleFor)
			}
			after, afterAll := calls()
			n := after - before
			rate := float64(n) / took.Seconds()
			diff := map[string]int64{}
			for k, v := range afterAll {
				if d := v - beforeAll[k]; d > 0 && k != "info" {
					diff[k] = d
				}
			}
			t.Logf("idle consumer on %d queue(s): %d Redis calls in %s (%.1f/s); commandstats, script internals included: %v",
				len(tc.qs), n, took.Round(time.Millisecond), rate, diff)
			if rate > 5 {
				t.Errorf("idle consumer made %.1f Redis calls per second, want at most a few (5)", rate)
			}
		})
	}
}

func TestIdleConsumerWakesOnPush(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	_, c := newServer(t)
	cfg := testConfig()
	cfg.IdlePoll = 30 * time.Second // only a wake-up can be quick
	a, b := newQueue(c, "wake-a", cfg), newQueue(c, "wake-b", cfg)
	type result struct {
		q    *Queue
		urls []string
		err  error
	}
	// Several idle consumers: one push of many URLs must reach them all
	// (a woken consumer passes the signal on).
	const consumers = 3
	res := make(chan result, consumers)
	for range consumers {
		go func() {
			q, urls, err := ClaimAny(ctx, []*Queue{a, b}, 2, time.Minute)
			res <- result{q, urls, err}
		}()
	}
	time.Sleep(300 * time.Millisecond) // let them go idle (not needed for correctness)
	began := time.Now()
	if _, err := b.Push(ctx, testURLs(6)...); err != nil {
		t.Fatal(err)
	}
	for range consumers {
		select {
		case r := <-res:
			if r.err != nil || r.q != b || len(r.urls) != 2 {
				t.Fatalf("woken consumer got %v from %v, %v", r.urls, r.q.Name(), r.err)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("an idle consumer did not wake up on push (idle_poll is 30s)")
		}
	}
	t.Logf("3 idle consumers served %s after the push", time.Since(began).Round(time.Millisecond))

	// Cancelling the context ends a wait at once.
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := a.Claim(cctx, 1, time.Minute); done <- err }()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Claim after cancel = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Claim did not return after its context was cancelled")
	}
}

func TestClaimWaitsForRetryDue(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	cfg := testConfig()
	cfg.RetryBase = 200 * time.Millisecond
	cfg.IdlePoll = 100 * time.Millisecond
	q := newQueue(c, "retry-due", cfg)
	u := "https://x.example.com/flaky"
	q.Push(ctx, u)
	got, _ := q.TryClaim(ctx, 1, time.Minute)
	q.Fail(ctx, got[0], Failure{Reason: "timeout", Retryable: true})
	// No push happens: the waiting consumer must look again when it is due.
	got, err := q.Claim(ctx, 1, time.Minute)
	if err != nil || len(got) != 1 || got[0] != u {
		t.Fatalf("Claim = %v, %v; want the retry", got, err)
	}
}
