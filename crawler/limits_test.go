package crawler

import (
	"context"
	"testing"
	"time"
)

// waitLimit polls l.limit until it reports want (or none when want is
// zero); requests waiting in acquire are goroutines, so their state shows
// up shortly after they start.
func waitLimit(t *testing.T, l *hostLimiter, want HostLimit) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, ok := l.limit()
		if ok == (want.Waiting > 0) && got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("limit() = %+v, %v; want %+v", got, ok, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// acquireAsync starts an acquire that holds its slot until ctx ends.
func acquireAsync(ctx context.Context, l *hostLimiter, host string, crawlDelay time.Duration) {
	go func() {
		release, err := l.acquire(ctx, host, crawlDelay)
		if err == nil {
			<-ctx.Done()
			release()
		}
	}()
}

func TestHostLimitNamesTheSettingThatHoldsRequestsBack(t *testing.T) {
	t.Run("delay", func(t *testing.T) {
		l := newHostLimiter(2, time.Hour, 0)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		release, err := l.acquire(ctx, "news.test", 0) // the first request starts at once
		if err != nil {
			t.Fatal(err)
		}
		release()
		waitLimit(t, l, HostLimit{})
		acquireAsync(ctx, l, "news.test", 0) // waits out the hour
		waitLimit(t, l, HostLimit{Host: "news.test", Setting: "crawler.delay", Value: "1h", Waiting: 1})
		acquireAsync(ctx, l, "news.test", 0)
		acquireAsync(ctx, l, "news.test", 0) // no slot: both taken by requests waiting out the delay
		waitLimit(t, l, HostLimit{Host: "news.test", Setting: "crawler.delay", Value: "1h", Waiting: 3})
		cancel()
		waitLimit(t, l, HostLimit{})
	})
	t.Run("robots crawl-delay", func(t *testing.T) {
		l := newHostLimiter(1, time.Second, 0)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		release, _ := l.acquire(ctx, "slow.test", 2*time.Hour)
		release()
		acquireAsync(ctx, l, "slow.test", 2*time.Hour)
		waitLimit(t, l, HostLimit{Host: "slow.test", Setting: "robots.txt Crawl-delay", Value: "2h", Waiting: 1})
	})
	t.Run("parallelism", func(t *testing.T) {
		l := newHostLimiter(1, 0, 0)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		hold, cancelHold := context.WithCancel(ctx)
		acquireAsync(hold, l, "busy.test", 0) // fetching: holds the only slot
		acquireAsync(ctx, l, "other.test", 0)
		waitLimit(t, l, HostLimit{}) // fetching is not being held back
		acquireAsync(ctx, l, "busy.test", 0)
		acquireAsync(ctx, l, "busy.test", 0)
		waitLimit(t, l, HostLimit{Host: "busy.test", Setting: "crawler.per_host_parallelism", Value: "1", Waiting: 2})
		cancelHold() // the slot frees: one of the two gets it, the other still waits
		waitLimit(t, l, HostLimit{Host: "busy.test", Setting: "crawler.per_host_parallelism", Value: "1", Waiting: 1})
	})
	t.Run("the host most held back", func(t *testing.T) {
		l := newHostLimiter(1, 0, 0)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		for _, h := range []string{"a.test", "b.test"} {
			acquireAsync(ctx, l, h, 0)
		}
		waitLimit(t, l, HostLimit{})
		acquireAsync(ctx, l, "a.test", 0)
		for range 2 {
			acquireAsync(ctx, l, "b.test", 0)
		}
		waitLimit(t, l, HostLimit{Host: "b.test", Setting: "crawler.per_host_parallelism", Value: "1", Waiting: 2})
	})
}
