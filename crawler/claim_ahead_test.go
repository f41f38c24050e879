package crawler

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestClaimAhead: while one claim waits for Redis's reply, the next
// claim is made, not after it. The test holds the run's second claim
// until a third one starts (which a dispatcher that claims one batch at a
// time never does: the guard fails the test instead of hanging); the run
// still fetches, stores and acknowledges every URL, and leaves none in
// flight.
func TestClaimAhead(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	const n = 40
	e.serveArticles(n, now)
	e.serveList(n, n, false, "")
	c := e.crawler(htmlSource("html"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.Produce(ctx); err != nil {
		t.Fatal(err)
	}

	r := c.newRun(c.sources, true)
	var (
		mu       sync.Mutex
		calls    int
		third    = make(chan struct{})
		overlaps bool
	)
	r.claimHook = func(int) {
		mu.Lock()
		calls++
		k := calls
		mu.Unlock()
		switch k {
		case 2:
			select {
			case <-third:
				overlaps = true
			case <-time.After(10 * time.Second): // a guard against a hang, not a measure
			}
		case 3:
			close(third)
		}
	}
	if err := r.run(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !overlaps {
		t.Errorf("the third claim (of %d) did not start while the second was under way", calls)
	}
	if got := r.stored.Load(); got != n {
		t.Errorf("%d articles stored, want %d", got, n)
	}
	if r.inflightCount() != 0 {
		t.Errorf("%d URLs left in flight", r.inflightCount())
	}
	st, err := c.sources[0].queue.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pending != 0 || st.InFlight != 0 {
		t.Errorf("queue after the run: %+v, want nothing pending or in flight", st)
	}
}
