package crawler

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
)

// A poll stops at its first page with nothing new, or at a feed's head;
// the crawl job reads on through every page changed since it last read
// them. Before, a poll kept the validators of the page it read, so the
// crawl job after it got a 304 (or the same body) on that page, stopped
// there, and never read the entries listed below: a back-dated article
// was lost for good. These tests publish one article on top and one
// back-dated (listed below the head, or on page 3), poll, then crawl.

func TestCrawlAfterPollFindsBackdatedInFeed(t *testing.T) {
	f := &feedSite{n: 100}
	e := newFeedPollEnv(t, f)
	produceNew(t, e.c, 100)
	f.set(func(f *feedSite) { f.n++; f.back++ })
	if st := e.poll(t); st.New != 1 {
		t.Fatalf("poll: %+v, want the one on top", st)
	}
	if h := f.hits(); len(h) != 2 || h[1].status != 206 {
		t.Fatalf("the poll read %+v, want the feed's head", h)
	}
	produceNew(t, e.c, 1) // the back-dated one
	produceNew(t, e.c, 0) // and then a 304
	if h := f.hits(); len(h) != 2 || h[1].status != 304 {
		t.Fatalf("the crawls read %+v, want the feed whole, then a 304", h)
	}
}

func TestCrawlAfterPollFindsBackdatedInHTML(t *testing.T) {
	for _, etags := range []bool{true, false} {
		t.Run(fmt.Sprint("etags=", etags), func(t *testing.T) {
			l := &pagedList{etags: etags}
			for i := 50; i >= 1; i-- {
				l.ids = append(l.ids, fmt.Sprint(i))
			}
			e := &pollEnv{env: newEnv(t), clk: clock.NewFake(time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC))}
			e.opts.Poll = PollOptions{Min: 10 * time.Minute, Max: 6 * time.Hour}
			for n := 1; n <= 10; n++ {
				e.site.handle(fmt.Sprintf("%s/l/%d.html", host, n), l.serve)
			}
			e.c = e.newCrawler([]Source{{Name: "p", Kind: "html", URLs: []string{"http://" + host + "/l/1.html"},
				LinkSelector: sel("a.t"), NextSelector: sel("a.next"), MaxPages: 10}},
				WithTransport(e.site.transport()), WithClock(e.clk))
			produceNew(t, e.c, 50)
			l.mu.Lock()
			l.ids = slices.Insert(l.ids, 25, "back") // page 3
			l.ids = slices.Insert(l.ids, 0, "top")
			l.mu.Unlock()
			if st := e.poll(t); st.New != 1 {
				t.Fatalf("poll: %+v, want the one on top", st)
			}
			produceNew(t, e.c, 1) // the back-dated one
			produceNew(t, e.c, 0)
		})
	}
}

// produceNew runs a crawl job's producer and checks how many new URLs
// it queued.
func produceNew(t *testing.T, c *Crawler, want int) {
	t.Helper()
	rep, err := c.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Sources[0].New; got != want {
		t.Fatalf("crawl: %d new, want %d (%+v)", got, want, rep.Sources[0])
	}
}

// pagedList serves ids newest first, 10 a page, with next links; with
// etags, an ETag of the page's body and 304s.
type pagedList struct {
	mu    sync.Mutex
	ids   []string
	etags bool
}

func (l *pagedList) serve(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int
	fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/l/"), "%d.html", &n)
	var b strings.Builder
	for _, id := range l.ids[min((n-1)*10, len(l.ids)):min(n*10, len(l.ids))] {
		fmt.Fprintf(&b, `<a class="t" href="/a/%s.html">x</a>`, id)
	}
	if n*10 < len(l.ids) {
		fmt.Fprintf(&b, `<a class="next" href="/l/%d.html">next</a>`, n+1)
	}
	body := b.String()
	w.Header().Set("Content-Type", "text/html")
	if l.etags {
		tag := fmt.Sprintf(`"%x"`, sha256.Sum256([]byte(body)))
		w.Header().Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	fmt.Fprint(w, body)
}

// TestPollFeedChangedBetweenHeadAndRest: a feed that changes between a
// poll's read of its head and of its rest is read whole, whatever the
// server does with If-Range: with a weak ETag (If-Range cannot take it:
// none is sent) or ignoring If-Range, the rest came from the newer feed,
// was joined to the old head, and the entries that moved across the cut
// were lost for good (the newer feed's validators were kept).
func TestPollFeedChangedBetweenHeadAndRest(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(f *feedSite)
	}{
		{"weak etag", func(f *feedSite) { f.weak = true }},
		{"if-range ignored", func(f *feedSite) { f.noIfRange = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &feedSite{n: 100}
			tc.set(f)
			e := newFeedPollEnv(t, f)
			if st := e.poll(t); st.New != 100 {
				t.Fatalf("first poll: %+v", st)
			}
			st := e.pollNew(t, f, func(f *feedSite) { f.n += 40; f.onRest = 2 })
			if st.New != 42 {
				t.Fatalf("40 published, 2 more before the rest: %+v, requests %+v; want 42", st, f.hits())
			}
			for _, h := range f.hits() {
				if strings.HasPrefix(h.ifRange, `W/`) || strings.Contains(h.ifRange, "GMT") {
					t.Errorf("If-Range %q: a weak validator or a date", h.ifRange)
				}
			}
		})
	}
}

// TestList304WithoutValidators: a 304 to a request that sent no
// validators is a failure (nothing was read), not "not modified".
func TestList304WithoutValidators(t *testing.T) {
	e := newPollEnv(t)
	e.mu.Lock()
	e.code = http.StatusNotModified
	e.mu.Unlock()
	rep, err := e.c.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Sources[0]
	if p.NotModified != 0 || p.PageErrors != 1 || p.Err == nil || !strings.Contains(p.Err.Error(), "304 Not Modified to a request without validators") {
		t.Fatalf("a 304 to an unconditional request: %+v", p)
	}
}

// TestCrawlDoesNotWaitOutLongRetryAfter: a crawl waits out a list page's
// Retry-After up to MaxListWait (TestCrawlWaitsOutRetryAfterAPollDoesNot);
// a longer one fails that source for the run at once, with the answer's
// error, where it slept up to queue.retry_max (an hour) per try and held
// a crawl -once that long.
func TestCrawlDoesNotWaitOutLongRetryAfter(t *testing.T) {
	e := newPollEnv(t)
	e.site.handle(host+"/poll", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := e.c.Produce(ctx)
	if err != nil {
		t.Fatalf("crawl: %v (it waited)", err)
	}
	p := rep.Sources[0]
	if p.Err == nil || !strings.Contains(p.Err.Error(), "503") || e.site.hitCount(host+"/poll") != 1 {
		t.Fatalf("crawl of a source asking for an hour: %+v after %d requests, want it failed after one", p, e.site.hitCount(host+"/poll"))
	}
}
