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

// pollEnv is a crawler of one HTML source on a fake clock, whose list
// page a test rewrites.
type pollEnv struct {
	*env
	c     *Crawler
	clk   *clock.Fake
	mu    sync.Mutex
	body  string
	hdr   http.Header
	code  int
	items int
}

func newPollEnv(t *testing.T) *pollEnv {
	e := &pollEnv{env: newEnv(t), clk: clock.NewFake(time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)), code: 200}
	e.opts.Poll = PollOptions{Min: 10 * time.Minute, Max: 6 * time.Hour}
	e.publish(2)
	e.site.handle(host+"/poll", func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		defer e.mu.Unlock()
		for k, v := range e.hdr {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(e.code)
		fmt.Fprint(w, e.body)
	})
	e.c = e.newCrawler([]Source{{Name: "p", Kind: "html", URLs: []string{"http://" + host + "/poll"}, LinkSelector: sel("a.t")}},
		WithTransport(e.site.transport()), WithClock(e.clk))
	return e
}

// publish puts n more articles on the list.
func (e *pollEnv) publish(n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.items += n
	e.body = links(1, e.items)
}

func (e *pollEnv) poll(t *testing.T) PollState {
	t.Helper()
	if _, err := e.c.PollDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, err := e.c.PollStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st[0]
}

// advance moves the clock to the source's next poll.
func (e *pollEnv) advance(st PollState) { e.clk.Set(st.Next) }

func within(d, iv time.Duration) bool { return d >= iv*9/10 && d <= iv*11/10 }

func TestPollAdapts(t *testing.T) {
	e := newPollEnv(t)
	st := e.poll(t)
	if st.Reason != "first poll" || st.Interval != 10*time.Minute || st.New != 2 ||
		st.Next.Before(e.clk.Now().Add(10*time.Minute)) || st.Next.After(e.clk.Now().Add(11*time.Minute)) {
		t.Fatalf("after the first poll: %+v", st)
	}
	// Not due yet: nothing is fetched.
	if again := e.poll(t); !again.Next.Equal(st.Next) || e.site.hitCount(host+"/poll") != 1 {
		t.Errorf("a poll before the source is due fetched (hits %d) or moved it: %+v", e.site.hitCount(host+"/poll"), again)
	}

	// Nothing new: later, by half, then again.
	e.advance(st)
	st = e.poll(t)
	if st.Interval != 15*time.Minute || st.Reason != "nothing new: later" || !within(st.Next.Sub(e.clk.Now()), 15*time.Minute) {
		t.Errorf("after a poll with nothing new: %+v", st)
	}
	e.advance(st)
	st = e.poll(t)
	if st.Interval != 22*time.Minute+30*time.Second {
		t.Errorf("after two polls with nothing new: %+v", st)
	}

	// New articles: sooner, down to crawler.poll.min.
	e.publish(1)
	e.advance(st)
	st = e.poll(t)
	if st.Interval != 11*time.Minute+15*time.Second || st.New != 1 || st.Reason != "1 new: sooner" {
		t.Errorf("after a poll with a new article: %+v", st)
	}
	e.publish(1)
	e.advance(st)
	if st = e.poll(t); st.Interval != 10*time.Minute || st.Reason != "1 new: sooner (crawler.poll.min)" {
		t.Errorf("at the floor: %+v", st)
	}

	// A quiet source ends at crawler.poll.max, jitter included.
	for range 12 {
		e.advance(st)
		st = e.poll(t)
	}
	if st.Interval != 6*time.Hour || !strings.HasSuffix(st.Reason, "(crawler.poll.max)") || st.Next.Sub(e.clk.Now()) > 6*time.Hour {
		t.Errorf("a quiet source: %+v (next in %v)", st, st.Next.Sub(e.clk.Now()))
	}
}

func TestPollHonoursMaxAgeAndRetryAfter(t *testing.T) {
	e := newPollEnv(t)
	e.hdr = http.Header{"Cache-Control": {"public, max-age=3600"}}
	st := e.poll(t)
	if st.Interval != time.Hour || st.Reason != "Cache-Control max-age 1h" || !within(st.Next.Sub(e.clk.Now()), time.Hour) {
		t.Errorf("with max-age: %+v", st)
	}

	e.mu.Lock()
	e.hdr = http.Header{"Retry-After": {"7200"}}
	e.code = http.StatusServiceUnavailable
	e.mu.Unlock()
	e.advance(st)
	st = e.poll(t)
	if st.Reason != "Retry-After 2h" || st.Next.Sub(e.clk.Now()) != 2*time.Hour {
		t.Errorf("with Retry-After: %+v (next in %v)", st, st.Next.Sub(e.clk.Now()))
	}
}

// TestPollStopsAtTheFirstPageWithNothingNew: a newest-first list of three
// pages (no validators, the bodies change as articles are published). The
// first poll reads every page; once one article is published, a poll reads
// page 1 (the new article), whose last (oldest) article the queue already
// has, and stops there; once seven are, it reads page 1 (all new) and
// page 2 (two new, then known ones) and stops there; a crawl (Produce)
// still reads every changed page.
func TestPollStopsAtTheFirstPageWithNothingNew(t *testing.T) {
	e := newPagedPollEnv(t, 15)
	hits := func() (n [3]int) {
		for p := range 3 {
			n[p] = e.site.hitCount(fmt.Sprintf("%s/news/%d", host, p+1))
		}
		return n
	}

	if st := e.poll(t); st.New != 15 {
		t.Fatalf("first poll: %+v, want 15 new", st)
	}
	if h := hits(); h != [3]int{1, 1, 1} {
		t.Fatalf("first poll read pages %v times, want each once", h)
	}
	e.consume(t)
	e.set(16, 0) // one article published: every page shifts by one
	e.next()
	if st := e.poll(t); st.New != 1 {
		t.Fatalf("second poll: %+v, want 1 new", st)
	}
	if h := hits(); h != [3]int{2, 1, 1} {
		t.Fatalf("after the second poll pages were read %v times, want [2 1 1]: page 1 ends with a known article", h)
	}
	e.set(23, 0) // seven published: more than a page
	e.next()
	if st := e.poll(t); st.New != 7 {
		t.Fatalf("third poll: %+v, want 7 new", st)
	}
	if h := hits(); h != [3]int{3, 2, 1} {
		t.Fatalf("after the third poll pages were read %v times, want [3 2 1]: page 2 ends with a known article", h)
	}
	// A crawl walks every page that changed: one more article shifts them
	// all, and the crawl reads on past page 2, which adds nothing new.
	e.set(24, 0)
	if _, err := e.c.Produce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h := hits(); h != [3]int{4, 3, 2} {
		t.Fatalf("after a crawl pages were read %v times, want [4 3 2]", h)
	}
}

// A poll whose walk stops at a failed list page leaves the articles that
// page lists unqueued, and the next poll would stop at page 1 (its last
// article known by then): so the next poll walks every page, once.
func TestPollAfterAFailedPageReadsEveryPage(t *testing.T) {
	e := newPagedPollEnv(t, 15)
	if st := e.poll(t); st.New != 15 || st.Incomplete {
		t.Fatalf("first poll: %+v, want 15 new", st)
	}
	e.consume(t)
	// Ten published: pages 1 and 2 are all new, and page 2 fails.
	e.set(25, 2)
	e.next()
	st := e.poll(t)
	if st.New != 5 || !st.Incomplete || !strings.Contains(st.Reason, "reads every page") {
		t.Fatalf("poll with a failed page: %+v, want 5 new (page 1) and the next poll a whole walk", st)
	}
	e.consume(t)
	e.set(25, 0)
	e.next()
	if st := e.poll(t); st.New != 5 || st.Incomplete {
		t.Fatalf("poll after it: %+v, want the 5 articles of the page that failed, and the walk complete", st)
	}
	// Back to polls: one published, page 1 ends with a known article.
	e.consume(t)
	e.set(26, 0)
	e.next()
	before := e.site.hitCount(host + "/news/2")
	if st := e.poll(t); st.New != 1 || st.Incomplete {
		t.Fatalf("next poll: %+v, want 1 new", st)
	}
	if n := e.site.hitCount(host + "/news/2"); n != before {
		t.Errorf("page 2 read again by a poll whose page 1 ended with a known article")
	}
}

// pagedPollEnv is a poll environment of one HTML source of three list
// pages of five articles each, newest first: the articles newest down to
// 1, the next link on pages 1 and 2; page failing (0: none) answers 500.
type pagedPollEnv struct {
	*pollEnv
	newest, failing int
}

func newPagedPollEnv(t *testing.T, newest int) *pagedPollEnv {
	e := &pagedPollEnv{pollEnv: &pollEnv{env: newEnv(t), clk: clock.NewFake(time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC))}, newest: newest}
	e.opts.Poll = PollOptions{Min: 10 * time.Minute, Max: 6 * time.Hour}
	const per = 5
	for p := 1; p <= 3; p++ {
		e.site.handle(fmt.Sprintf("%s/news/%d", host, p), func(w http.ResponseWriter, r *http.Request) {
			e.mu.Lock()
			top, fail := e.newest, e.failing == p
			e.mu.Unlock()
			if fail {
				http.Error(w, "down", http.StatusInternalServerError)
				return
			}
			var b strings.Builder
			b.WriteString(`<ul class="list">`)
			for i := top - (p-1)*per; i > top-p*per && i > 0; i-- {
				fmt.Fprintf(&b, `<a class="t" href="/a/%d.html">x</a>`, i)
			}
			b.WriteString(`</ul>`)
			if p < 3 {
				fmt.Fprintf(&b, `<a class="next" href="/news/%d">next</a>`, p+1)
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, b.String())
		})
	}
	e.c = e.newCrawler([]Source{{Name: "p", Kind: "html", URLs: []string{"http://" + host + "/news/1"},
		LinkSelector: sel("a.t"), NextSelector: sel("a.next"), MaxPages: 3}},
		WithTransport(e.site.transport()), WithClock(e.clk))
	return e
}

// set publishes up to article newest and makes page failing fail (0: none).
func (e *pagedPollEnv) set(newest, failing int) {
	e.mu.Lock()
	e.newest, e.failing = newest, failing
	e.mu.Unlock()
}

// consume fetches every queued article: the queue remembers them as done.
func (e *pagedPollEnv) consume(t *testing.T) {
	t.Helper()
	if err := e.c.newRun(e.c.sources, true).run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// next moves the clock to the source's next poll.
func (e *pagedPollEnv) next() {
	st, _ := e.c.PollStates(context.Background())
	e.advance(st[0])
}
