package queue

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
)

// coreFlow runs push, claim, ack, fail, dead letters, requeue, retention,
// waiting and purge on c: the embedded Redis and a cluster run it too.
func coreFlow(t *testing.T, c redis.UniversalClient) {
	ctx := testCtx(t, 60*time.Second)
	clk := clock.NewFake(time.Now().Truncate(time.Second))
	cfg := testConfig()
	cfg.MaxAttempts = 2
	cfg.DoneRetention = config.Duration(24 * time.Hour)
	q := newQueue(c, "core", cfg, WithClock(clk), WithRand(func() float64 { return 0 }))
	other := newQueue(c, "core-other", cfg, WithClock(clk))

	urls := testURLs(30)
	if n, err := q.Push(ctx, append(urls, urls[:5]...)...); err != nil || n != 30 {
		t.Fatalf("Push = %d, %v", n, err)
	}
	got, err := q.Claim(ctx, 25, time.Minute)
	if err != nil || len(got) != 25 {
		t.Fatalf("Claim = %d, %v", len(got), err)
	}
	if err := q.Extend(ctx, 2*time.Minute, got...); err != nil {
		t.Fatal(err)
	}
	if err := q.Ack(ctx, got[:20]...); err != nil {
		t.Fatal(err)
	}
	if dead, err := q.Fail(ctx, got[20], Failure{Reason: "http_404", Err: errors.New("gone")}); !dead || err != nil {
		t.Fatalf("non-retryable Fail = %v, %v", dead, err)
	}
	if dead, err := q.Fail(ctx, got[21], Failure{Reason: "timeout", Retryable: true}); dead || err != nil {
		t.Fatalf("retryable Fail = %v, %v", dead, err)
	}
	// got[22:25] stay leased; 5 pending.
	if st := mustStats(t, q); st != (Stats{Pending: 5, InFlight: 3, Delayed: 1, Done: 20, Dead: 1}) {
		t.Fatalf("stats = %+v", st)
	}
	clk.Advance(3 * time.Minute) // the retry is due, the leases ended
	if n, err := q.Reap(ctx); err != nil || n != 3 {
		t.Fatalf("Reap = %d, %v", n, err)
	}
	rest, err := q.TryClaim(ctx, 100, time.Minute)
	if err != nil || len(rest) != 9 {
		t.Fatalf("TryClaim = %d, %v; want 5 pending + 3 reaped + 1 retry", len(rest), err)
	}
	for _, u := range rest {
		if _, err := q.Fail(ctx, u, Failure{Reason: "http_500", Retryable: true}); err != nil {
			t.Fatal(err)
		}
	}
	// The 4 URLs with a second attempt are dead now, beside the 404.
	d, err := q.Dead(ctx, 100)
	if err != nil || len(d) != 5 {
		t.Fatalf("Dead = %d, %v", len(d), err)
	}
	if d[len(d)-1].URL != got[20] || d[len(d)-1].Reason != "http_404" || d[len(d)-1].Error != "gone" {
		t.Errorf("oldest dead letter = %+v", d[len(d)-1])
	}
	if n, err := q.RequeueDead(ctx, got[20]); err != nil || n != 1 {
		t.Fatalf("RequeueDead(url) = %d, %v", n, err)
	}
	if n, err := q.RequeueDead(ctx); err != nil || n != 4 {
		t.Fatalf("RequeueDead() = %d, %v", n, err)
	}
	// Retention: done URLs are ignored for a day, then queued again.
	if n, _ := q.Push(ctx, got[:20]...); n != 0 {
		t.Errorf("push of done URLs added %d", n)
	}
	clk.Advance(25 * time.Hour)
	if n, _ := q.Push(ctx, got[:20]...); n != 20 {
		t.Errorf("push after the retention added %d, want 20", n)
	}
	// A waiting consumer of two queues is woken by a push.
	if n, err := q.TryClaim(ctx, 1000, time.Minute); err != nil || len(n) != 30 {
		t.Fatalf("TryClaim = %d, %v; want 20 pushed + 5 requeued + 5 retries due", len(n), err)
	}
	res := make(chan error, 1)
	go func() {
		from, urls, err := ClaimAny(ctx, []*Queue{other, q}, 10, time.Minute)
		if err == nil && (from != other || len(urls) != 1) {
			err = fmt.Errorf("ClaimAny = %s %v", from.Name(), urls)
		}
		res <- err
	}()
	time.Sleep(200 * time.Millisecond) // let it wait (the push would wake it anyway)
	if _, err := other.Push(ctx, "https://other.example.com/1"); err != nil {
		t.Fatal(err)
	}
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if err := q.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if err := other.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	for _, qq := range []*Queue{q, other} {
		if st := mustStats(t, qq); st != (Stats{}) {
			t.Errorf("%s after purge: %+v", qq.Name(), st)
		}
	}
}

func TestEmbeddedRedis(t *testing.T) {
	// The default config's redis.url is "embedded": miniredis in process.
	rc, err := rdb.Open(context.Background(), rdb.DefaultOptions(), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if !rc.Embedded() {
		t.Fatal("the default config did not give the embedded Redis")
	}
	coreFlow(t, rc)
}

func TestRealRedis(t *testing.T) {
	_, c := newServer(t)
	coreFlow(t, c)
}

func TestRedisCluster(t *testing.T) {
	cl := redistest.StartCluster(t)
	c := cl.Client()
	coreFlow(t, c)
}
