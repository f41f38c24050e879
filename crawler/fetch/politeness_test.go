package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
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
		release, err := l.acquire(ctx, host, crawlDelay, false)
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
		release, err := l.acquire(ctx, "news.test", 0, false) // the first request starts at once
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
		release, _ := l.acquire(ctx, "slow.test", 2*time.Hour, false)
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

// waitQueued waits until n requests wait for a slot of host.
func waitQueued(t *testing.T, l *hostLimiter, host string, n int64) {
	t.Helper()
	s := l.slot(host)
	deadline := time.Now().Add(10 * time.Second)
	for s.waiting.forSlot.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests wait for a slot of %s, want %d", s.waiting.forSlot.Load(), host, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// A freed slot goes to the list page that waits longest, then to the
// other pages in their order, whatever the order they came in.
func TestHostSlotsListPagesFirst(t *testing.T) {
	l := newHostLimiter(1, 0, 0)
	ctx := context.Background()
	hold, err := l.acquire(ctx, "news.test", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 5)
	queue := func(name string, list bool, n int64) {
		go func() {
			release, err := l.acquire(ctx, "news.test", 0, list)
			if err != nil {
				order <- "error: " + err.Error()
				return
			}
			order <- name
			release()
		}()
		waitQueued(t, l, "news.test", n)
	}
	queue("article 1", false, 1)
	queue("article 2", false, 2)
	queue("list 1", true, 3)
	queue("article 3", false, 4)
	queue("list 2", true, 5)
	hold()
	want := []string{"list 1", "list 2", "article 1", "article 2", "article 3"}
	for i, w := range want {
		if got := <-order; got != w {
			t.Fatalf("slot %d went to %q, want %q (order %q)", i+1, got, w, want)
		}
	}
	// Every slot is back: one can be taken at once.
	release, err := l.acquire(ctx, "news.test", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	release()
}

// A request whose context ends while it waits leaves the queue, and one
// handed a slot as its context ends passes it on: no slot is lost.
func TestHostSlotsCancelledWaiters(t *testing.T) {
	l := newHostLimiter(1, 0, 0)
	hold, _ := l.acquire(context.Background(), "news.test", 0, false)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, err := l.acquire(ctx, "news.test", 0, true)
		errs <- err
	}()
	waitQueued(t, l, "news.test", 1)
	cancel()
	if err := <-errs; err != context.Canceled {
		t.Fatalf("cancelled acquire: %v", err)
	}
	waitQueued(t, l, "news.test", 0)
	hold()

	// A slot freed while its waiter is cancelled, many times over.
	for i := range 500 {
		hold, err := l.acquire(context.Background(), "news.test", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan func(), 1)
		go func() {
			release, err := l.acquire(ctx, "news.test", 0, i%2 == 0)
			if err != nil {
				release = func() {}
			}
			done <- release
		}()
		waitQueued(t, l, "news.test", 1)
		go cancel()
		hold()
		(<-done)()
	}
	tctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	release, err := l.acquire(tctx, "news.test", 0, false)
	if err != nil {
		t.Fatalf("a slot was lost: %v", err)
	}
	release()
	s := l.slot("news.test")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy != 0 || len(s.lists)+len(s.pages) != 0 {
		t.Errorf("after every release: %d slots busy, %d waiting", s.busy, len(s.lists)+len(s.pages))
	}
}

// The fetcher takes a list page (a request with validators) ahead of the
// article pages waiting for the same host.
func TestFetchListPageBeforeArticles(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>x</body></html>")
	}))
	t.Cleanup(srv.Close)
	o := testOptions()
	o.PerHostParallelism = 1
	f := New(o, http.DefaultTransport, time.Now)
	host := strings.TrimPrefix(srv.URL, "http://")
	ctx := context.Background()
	hold, err := f.hosts.acquire(ctx, host, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() {
		_, err := f.Fetch(ctx, Request{URL: srv.URL + "/a/1.html", Accept: IsHTML})
		done <- err
	}()
	waitQueued(t, f.hosts, host, 1)
	go func() {
		_, err := f.Fetch(ctx, Request{URL: srv.URL + "/list/1", Accept: IsHTML, Cond: &Validators{}})
		done <- err
	}()
	waitQueued(t, f.hosts, host, 2)
	hold()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"/list/1", "/a/1.html"}; !slices.Equal(got, want) {
		t.Errorf("requests in the order %q, want %q", got, want)
	}
}
