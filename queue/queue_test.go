package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
)

func TestPushClaimAck(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "basic", testConfig())

	added, err := q.Push(ctx,
		"https://News.Example.com/a.html?utm_source=x",
		"https://news.example.com/a.html#comments", // the same page
		"https://news.example.com/b.html")
	if err != nil || added != 2 {
		t.Fatalf("Push = %d, %v; want 2 new", added, err)
	}
	if st := mustStats(t, q); st != (Stats{Pending: 2}) {
		t.Fatalf("stats after push = %+v", st)
	}
	urls, err := q.Claim(ctx, 10, time.Minute)
	if err != nil || len(urls) != 2 {
		t.Fatalf("Claim = %v, %v; want both", urls, err)
	}
	for _, u := range urls {
		if u != "https://news.example.com/a.html" && u != "https://news.example.com/b.html" {
			t.Errorf("claimed %q, not a canonical URL pushed", u)
		}
	}
	if st := mustStats(t, q); st != (Stats{InFlight: 2}) {
		t.Fatalf("stats after claim = %+v", st)
	}
	// Pushing a URL in flight is ignored.
	if added, err := q.Push(ctx, urls[0]); err != nil || added != 0 {
		t.Fatalf("push of a leased URL = %d, %v; want 0", added, err)
	}
	if err := q.Ack(ctx, urls...); err != nil {
		t.Fatal(err)
	}
	if st := mustStats(t, q); st != (Stats{Done: 2}) {
		t.Fatalf("stats after ack = %+v", st)
	}
	// Done URLs are not queued again, in any spelling.
	if added, err := q.Push(ctx, "https://NEWS.example.com:443/a.html?from=timeline"); err != nil || added != 0 {
		t.Fatalf("push of a done URL = %d, %v; want 0", added, err)
	}
	if got, err := q.TryClaim(ctx, 10, time.Minute); err != nil || len(got) != 0 {
		t.Fatalf("TryClaim on an empty queue = %v, %v", got, err)
	}
	// A second ack is harmless and not counted twice.
	if n, err := q.AckCount(ctx, urls...); err != nil || n != 0 {
		t.Fatalf("second ack = %d, %v; want 0 fresh", n, err)
	}
	if st := mustStats(t, q); st.Done != 2 {
		t.Fatalf("done after a second ack = %d, want 2", st.Done)
	}
}

func TestPushBadURLsKeepsTheGoodOnes(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "bad", testConfig())
	added, err := q.Push(ctx, "https://x.example.com/1", "/relative", "ftp://x.example.com/f", "https://x.example.com/2")
	if added != 2 {
		t.Errorf("added %d, want the 2 good URLs", added)
	}
	if !errors.Is(err, canonurl.ErrBadURL) || !strings.Contains(err.Error(), `"/relative"`) || !strings.Contains(err.Error(), "ftp") {
		t.Errorf("error %v should wrap canonurl.ErrBadURL and name both bad URLs", err)
	}
	if st := mustStats(t, q); st.Pending != 2 {
		t.Errorf("pending = %d, want 2", st.Pending)
	}
	if err := New(c, testPrefix, "a{b}", testConfig()).Ack(ctx, "https://x.example.com/1"); !errors.Is(err, ErrBadName) {
		t.Errorf("queue named a{b}: %v, want ErrBadName", err)
	}
}

func TestConcurrentConsumersExactlyOnce(t *testing.T) {
	const total, consumers = 10_000, 8
	ctx := testCtx(t, 120*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "exactly-once", testConfig())
	urls := testURLs(total)
	// Push in several concurrent batches while consumers already run.
	var (
		mu        sync.Mutex
		processed = map[string]int{}
		finished  atomic.Int64
	)
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	errs := make(chan error, consumers+4)
	for range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				got, err := q.Claim(cctx, 16, time.Minute)
				if err != nil {
					if cctx.Err() == nil {
						errs <- err
					}
					return
				}
				mu.Lock()
				for _, u := range got {
					processed[u]++
				}
				mu.Unlock()
				if err := q.Ack(ctx, got...); err != nil {
					errs <- err
					return
				}
				if finished.Add(int64(len(got))) >= total {
					stop()
				}
			}
		}()
	}
	var pushers sync.WaitGroup
	for p := range 4 {
		pushers.Add(1)
		go func() {
			defer pushers.Done()
			for i := p * 100; i < total; i += 400 {
				if _, err := q.Push(ctx, urls[i:min(i+100, total)]...); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	pushers.Wait()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(processed) != total {
		t.Fatalf("%d distinct URLs processed, want %d", len(processed), total)
	}
	for u, n := range processed {
		if n != 1 {
			t.Errorf("%s processed %d times", u, n)
		}
	}
	if st := mustStats(t, q); st != (Stats{Done: total}) {
		t.Errorf("stats = %+v, want all %d done", st, total)
	}
}

func TestNeverAckingConsumer(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "never-ack", testConfig())
	urls := testURLs(50)
	if _, err := q.Push(ctx, urls...); err != nil {
		t.Fatal(err)
	}
	// The bad consumer claims 10 with a short lease and never answers.
	held, err := q.Claim(ctx, 10, 300*time.Millisecond)
	if err != nil || len(held) != 10 {
		t.Fatalf("claim = %d, %v", len(held), err)
	}
	var mu sync.Mutex
	processed := map[string]int{}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				got, err := q.Claim(cctx, 4, time.Minute)
				if err != nil {
					return
				}
				mu.Lock()
				for _, u := range got {
					processed[u]++
				}
				n := len(processed)
				mu.Unlock()
				if err := q.Ack(ctx, got...); err != nil {
					t.Error(err)
				}
				if n == len(urls) {
					stop()
				}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("not every URL was processed: %d of %d", len(processed), len(urls))
	}
	for _, u := range urls {
		if processed[u] != 1 {
			t.Errorf("%s processed %d times by the live consumers", u, processed[u])
		}
	}
	if st := mustStats(t, q); st != (Stats{Done: 50}) {
		t.Errorf("stats = %+v", st)
	}
	// The bad consumer wakes up and tries to extend: its lease is gone.
	if err := q.Extend(ctx, time.Minute, held...); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("Extend after the lease ended: %v, want ErrLeaseLost", err)
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

func TestConcurrentDuplicatePushes(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "dups", testConfig())
	urls := testURLs(1000)
	var total atomic.Int64
	var wg sync.WaitGroup
	for p := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]string, len(urls))
			for i, u := range urls {
				// each producer spells the URLs its own way
				batch[(i+p*97)%len(urls)] = fmt.Sprintf("%s?utm_source=p%d#c%d", strings.Replace(u, "news.", "NEWS.", 1), p, i)
			}
			for i := 0; i < len(batch); i += 50 {
				n, err := q.Push(ctx, batch[i:i+50]...)
				if err != nil {
					t.Error(err)
					return
				}
				total.Add(int64(n))
			}
		}()
	}
	wg.Wait()
	if total.Load() != 1000 {
		t.Errorf("pushes reported %d new URLs, want 1000", total.Load())
	}
	if st := mustStats(t, q); st.Pending != 1000 {
		t.Errorf("pending = %d, want 1000", st.Pending)
	}
}

func TestDoneRetention(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	clk := clock.NewFake(time.Now())
	cfg := testConfig()
	cfg.DoneRetention = 7 * 24 * time.Hour
	q := newQueue(c, "retention", cfg, WithClock(clk))
	u := "https://x.example.com/once"
	q.Push(ctx, u)
	got, _ := q.TryClaim(ctx, 1, time.Minute)
	if err := q.Ack(ctx, got...); err != nil {
		t.Fatal(err)
	}
	// The done memory expires (a safety net: claims unlink it earlier).
	s := q.doneWindow(clk.Now())
	key := q.doneKey(s.currentGen)
	if ttl, err := c.PTTL(ctx, key).Result(); err != nil || ttl <= 7*24*time.Hour*5/4 || ttl > 7*24*time.Hour*6/4+2*time.Minute {
		t.Errorf("done generation TTL = %s, %v; want between 1.25 and 1.5 × the retention", ttl, err)
	}
	for _, step := range []struct {
		advance time.Duration
		added   int
	}{
		{time.Hour, 0},
		{3 * 24 * time.Hour, 0},
		{3*24*time.Hour + 22*time.Hour, 0}, // 6d23h after the ack: still within the retention
		{2 * time.Hour, 1},                 // 7d1h: forgotten, queued anew
	} {
		clk.Advance(step.advance)
		n, err := q.Push(ctx, u)
		if err != nil || n != step.added {
			t.Fatalf("push %s after the ack: added %d, %v; want %d", clk.Now().Sub(s.nowTime()), n, err, step.added)
		}
	}
	// Once all it holds is older than the retention, a claim's
	// housekeeping unlinks the generation, long before its TTL.
	if n := c.Exists(ctx, key).Val(); n != 1 {
		t.Fatalf("done generation %s gone before its time", key)
	}
	clk.Advance(2 * 24 * time.Hour)
	if _, err := q.TryClaim(ctx, 10, time.Minute); err != nil {
		t.Fatal(err)
	}
	if n := c.Exists(ctx, key).Val(); n != 0 {
		t.Errorf("done generation %s older than the retention was not unlinked", key)
	}
}

func (s doneWindow) nowTime() time.Time { return time.UnixMilli(s.nowMs) }

func TestPurge(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "purge", testConfig())
	other := newQueue(c, "other", testConfig())
	other.Push(ctx, "https://x.example.com/keep")
	q.Push(ctx, testURLs(20)...)
	got, _ := q.TryClaim(ctx, 10, time.Minute)
	q.Ack(ctx, got[:5]...)
	q.Fail(ctx, got[5], Failure{Reason: "x"})
	q.Fail(ctx, got[6], Failure{Reason: "x", Retryable: true})
	if err := q.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if st := mustStats(t, q); st != (Stats{}) {
		t.Errorf("stats after purge = %+v", st)
	}
	// Only the other queue's keys are left (a test server: scanning is fine).
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	if want := []string{other.wakeKey(), other.pendingKey()}; !slices.Equal(keys, want) {
		t.Errorf("keys after purge = %v; want only %v", keys, want)
	}
	// The done memory comes back with its TTL.
	if err := q.Ack(ctx, got[0]); err != nil {
		t.Fatal(err)
	}
	key := q.doneKey(q.doneWindow(q.now()).currentGen)
	if ttl := c.PTTL(ctx, key).Val(); ttl <= 0 {
		t.Errorf("done generation recreated after the purge has TTL %s", ttl)
	}
}

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
