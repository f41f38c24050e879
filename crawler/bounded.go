package crawler

import (
	"context"
	"sync"
)

// bounded runs fn(i) for each i below n, each in its own goroutine, at
// most workers at once, and returns when all are done; turn is false for
// an fn whose turn did not come before ctx ended.
func bounded(ctx context.Context, n, workers int, fn func(i int, turn bool)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(workers, 1))
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
				fn(i, true)
			case <-ctx.Done():
				fn(i, false)
			}
		}()
	}
	wg.Wait()
}
