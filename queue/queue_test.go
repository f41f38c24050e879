package queue

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
