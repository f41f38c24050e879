package crawler

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
)

// sourcesPollEnv is a crawler on a fake clock with three HTML sources on
// hosts of their own: good, whose list a test publishes to; busy, which
// answers 503 with Retry-After: 3600; and hang, which answers only when
// the test lets it (its request hangs until then: a slow or timing-out
// site). Only the sources named are configured.
type sourcesPollEnv struct {
	*env
	c       *Crawler
	clk     *clock.Fake
	mu      sync.Mutex
	items   int
	release chan struct{}
	once    sync.Once
}

func newSourcesPollEnv(t *testing.T, names ...string) *sourcesPollEnv {
	e := &sourcesPollEnv{env: newEnv(t), clk: clock.NewFake(time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)), items: 2,
		release: make(chan struct{})}
	t.Cleanup(e.let) // before the server's Close, which waits for hang's handler
	e.opts.Poll = PollOptions{Min: 10 * time.Second, Max: time.Hour}
	e.opts.RequestTimeout = time.Minute // hang answers when the test lets it, not at a timeout
	e.qopts.RetryMax = 2 * time.Hour    // a crawl's backoff may wait out the whole Retry-After
	list := func(w http.ResponseWriter, n int) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, links(1, n))
	}
	e.site.handle("good.example.test/list", func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		n := e.items
		e.mu.Unlock()
		list(w, n)
	})
	e.site.handle("busy.example.test/list", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	hang := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-e.release:
			list(w, 2)
		case <-r.Context().Done():
		}
	}
	var srcs []Source
	for _, n := range names {
		if strings.HasPrefix(n, "hang") { // hang, hang2...: each hangs until let
			e.site.handle(n+".example.test/list", hang)
		}
		srcs = append(srcs, Source{Name: n, Kind: "html", URLs: []string{"http://" + n + ".example.test/list"}, LinkSelector: sel("a.t")})
	}
	e.c = e.newCrawler(srcs, WithTransport(e.site.transport()), WithClock(e.clk))
	return e
}

// let lets hang answer.
func (e *sourcesPollEnv) let() { e.once.Do(func() { close(e.release) }) }

func (e *sourcesPollEnv) hits(name string) int { return e.site.hitCount(name + ".example.test/list") }

// states are the sources' poll states, by name; each must be truthful:
// "being polled" only with a next poll ahead (a live claim).
func (e *sourcesPollEnv) states(t *testing.T) map[string]PollState {
	t.Helper()
	sts, err := e.c.PollStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]PollState{}
	for _, st := range sts {
		if st.Reason == "being polled" && !st.Next.After(e.clk.Now()) {
			t.Errorf("%s shown being polled with its next poll at %v, not after now (%v)", st.Source, st.Next, e.clk.Now())
		}
		out[st.Source] = st
	}
	return out
}

// await waits (in real time, for the poller's goroutines) until ok holds
// of the poll states, or fails the test after 15s.
func (e *sourcesPollEnv) await(t *testing.T, what string, ok func(map[string]PollState) bool) map[string]PollState {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; {
		sts := e.states(t)
		if ok(sts) {
			return sts
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never happened: poll states %+v", what, sts)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// startPoll runs the poller until the test ends or stop is called; stop
// returns once Poll has.
func (e *sourcesPollEnv) startPoll(t *testing.T) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.c.Poll(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Poll: %v", err)
		}
	})
	t.Cleanup(stop)
	return stop
}

// TestPollSlowSourcesDelayNoOther: busy answers 503 with Retry-After:
// 3600 and hang's request hangs; good is polled on its own schedule all
// the same, each of its polls shown as it ends, while busy's poll ended
// at its one answer with its next poll an hour ahead, and hang is shown
// being polled (never with a next poll past) until it answers.
func TestPollSlowSourcesDelayNoOther(t *testing.T) {
	e := newSourcesPollEnv(t, "busy", "hang", "good")
	t0 := e.clk.Now()
	e.startPoll(t)
	sts := e.await(t, "the first polls of good and busy", func(s map[string]PollState) bool {
		return s["good"].Last.Equal(t0) && s["busy"].Last.Equal(t0)
	})
	if b := sts["busy"]; b.Reason != "Retry-After 1h" || !b.Next.Equal(t0.Add(time.Hour)) || e.hits("busy") != 1 {
		t.Errorf("busy after its poll: %+v, %d requests; want one request and the next poll an hour ahead", b, e.hits("busy"))
	}
	if g := sts["good"]; g.New != 2 || g.Reason != "first poll" {
		t.Errorf("good after its first poll: %+v", g)
	}
	e.await(t, "hang's request", func(map[string]PollState) bool { return e.hits("hang") == 1 })
	if h := e.states(t)["hang"]; h.Reason != "being polled" || !h.Last.IsZero() {
		t.Errorf("hang while its request hangs: %+v, want being polled", h)
	}

	for round := 1; round <= 3; round++ {
		sts = e.nextGoodPoll(t, sts, round+1)
		if g := sts["good"]; g.New != 1 || e.hits("good") != round+1 {
			t.Errorf("good's poll %d: %+v, %d requests; want 1 new", round+1, g, e.hits("good"))
		}
		if h := sts["hang"]; h.Reason != "being polled" || e.hits("hang") != 1 {
			t.Errorf("hang during good's poll %d: %+v", round+1, h)
		}
		if b := sts["busy"]; !b.Next.Equal(t0.Add(time.Hour)) || e.hits("busy") != 1 {
			t.Errorf("busy during good's poll %d: %+v, %d requests", round+1, b, e.hits("busy"))
		}
	}

	e.let()
	now := e.clk.Now()
	sts = e.await(t, "hang's poll's end", func(s map[string]PollState) bool { return s["hang"].Last.Equal(now) })
	if h := sts["hang"]; h.New != 2 || h.Reason != "first poll" || !h.Next.After(now) {
		t.Errorf("hang after it answered: %+v", h)
	}
}

// TestPollShutdownLeavesSourcesDue: a poll in flight when the poller
// stops ends its claim with the source due, so that a restart polls it at
// once; a claim whose process stopped without ending it is not shown as
// being polled once it lapsed.
func TestPollShutdownLeavesSourcesDue(t *testing.T) {
	e := newSourcesPollEnv(t, "hang", "good")
	stop := e.startPoll(t)
	e.await(t, "hang's request and good's poll", func(s map[string]PollState) bool {
		return e.hits("hang") == 1 && !s["good"].Last.IsZero()
	})
	stop()
	now := e.clk.Now()
	h := e.states(t)["hang"]
	if h.Next.After(now) || !strings.Contains(h.Reason, "interrupted") || !h.Last.IsZero() {
		t.Fatalf("hang after a shutdown during its poll: %+v, want due now", h)
	}
	// A restart polls it at once.
	e.let()
	if _, err := e.c.PollDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h := e.states(t)["hang"]; !h.Last.Equal(now) || h.New != 2 {
		t.Errorf("hang after the restart's poll: %+v", h)
	}

	// A process that claimed good and stopped without a word.
	cl, _, err := e.c.claimDue(context.Background(), 1, map[string]bool{"hang": true})
	if err == nil && len(cl) == 0 {
		e.clk.Set(e.states(t)["good"].Next)
		cl, _, err = e.c.claimDue(context.Background(), 1, map[string]bool{"hang": true})
	}
	if err != nil || len(cl) != 1 {
		t.Fatalf("claim of good: %v, %v", cl, err)
	}
	if g := e.states(t)["good"]; g.Reason != "being polled" {
		t.Errorf("good claimed: %+v", g)
	}
	e.clk.Advance(pollLease)
	if g := e.states(t)["good"]; !strings.Contains(g.Reason, "due now") {
		t.Errorf("good with its claim lapsed: %+v, want due now", g)
	}
}

// TestCrawlWaitsOutRetryAfterAPollDoesNot: a list page that answers 503
// with Retry-After: 1 every other time is tried again by a crawl's walk
// (after the Retry-After, capped at queue.retry_max), and not by a
// poll's, which ends at it.
func TestCrawlWaitsOutRetryAfterAPollDoesNot(t *testing.T) {
	e := newPollEnv(t)
	var mu sync.Mutex
	n := 0
	e.site.handle(host+"/poll", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		busy := n%2 == 1
		mu.Unlock()
		if busy {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, links(1, 2))
	})
	rep, err := e.c.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Sources[0]; p.Pages != 1 || p.New != 2 || e.site.hitCount(host+"/poll") != 2 {
		t.Fatalf("crawl: %+v after %d requests, want the page read at its second try", p, e.site.hitCount(host+"/poll"))
	}
	st := e.poll(t)
	if hits := e.site.hitCount(host + "/poll"); hits != 3 || !st.Last.Equal(e.clk.Now()) {
		t.Errorf("poll: %+v after %d requests in all, want one request, no retry", st, hits)
	}
}

// TestPollHangingSourcesTakeNoSlot: more sources hang than
// crawler.workers, listed first; the good source is still polled on its
// schedule (with a cap of workers polls at once, hanging sources held
// every slot and it waited for their timeouts).
func TestPollHangingSourcesTakeNoSlot(t *testing.T) {
	e := newSourcesPollEnv(t, "hang", "hang2", "hang3", "good")
	e.c.cfg.Workers = 2
	t0 := e.clk.Now()
	e.startPoll(t)
	sts := e.await(t, "good's first poll while three sources hang", func(s map[string]PollState) bool {
		return s["good"].Last.Equal(t0) && e.hits("hang")+e.hits("hang2")+e.hits("hang3") == 3
	})
	for round := 1; round <= 2; round++ {
		sts = e.nextGoodPoll(t, sts, round+1)
		if g := sts["good"]; g.New != 1 {
			t.Errorf("good's poll %d: %+v, want 1 new", round+1, g)
		}
	}
}

// nextGoodPoll publishes one more article on good, moves the clock to
// good's next poll (sts: the states after its last) and waits for poll n
// to end; it returns the states then.
func (e *sourcesPollEnv) nextGoodPoll(t *testing.T, sts map[string]PollState, n int) map[string]PollState {
	t.Helper()
	e.mu.Lock()
	e.items++
	e.mu.Unlock()
	e.clk.Set(sts["good"].Next)
	now := e.clk.Now()
	return e.await(t, fmt.Sprintf("good's poll %d", n), func(s map[string]PollState) bool { return s["good"].Last.Equal(now) })
}
