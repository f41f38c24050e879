package crawler

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestGroupCommit: every item gets its own outcome, items handed in while
// a call runs go together in the next one, and no call runs twice at once.
func TestGroupCommit(t *testing.T) {
	var calls, running, overlap atomic.Int64
	bad := errors.New("bad item")
	g := &group[int, int]{flush: func(_ context.Context, items []int) []outcome[int] {
		if running.Add(1) > 1 {
			overlap.Add(1)
		}
		defer running.Add(-1)
		calls.Add(1)
		time.Sleep(2 * time.Millisecond)
		out := make([]outcome[int], len(items))
		for i, v := range items {
			out[i].val = v * 10
			if v%7 == 0 {
				out[i].err = bad
			}
		}
		return out
	}}
	const n = 64
	var wg sync.WaitGroup
	for v := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := g.do(context.Background(), v)
			if got != v*10 || (err != nil) != (v%7 == 0) {
				t.Errorf("item %d: got %d, %v", v, got, err)
			}
		}()
	}
	wg.Wait()
	if overlap.Load() != 0 {
		t.Errorf("%d calls overlapped", overlap.Load())
	}
	if c := calls.Load(); c >= n {
		t.Errorf("%d calls for %d items: nothing was grouped", c, n)
	}
}
