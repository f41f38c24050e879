package crawler

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

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/queue"
)

// apiPages is a list API of numbered pages (/api/1, /api/2, ...) of per
// items each, newest first: items newest down to 1, /a/<n>.html. A page
// past the items is empty, unless extra, which lists items after the end
// (an API that does not end where it should). A handler can be held
// (hold: page → a channel it waits on, up to a minute), answer 500
// (fail) or 429 with a Retry-After of 2 hours (busy).
type apiPages struct {
	e          *env
	per        int
	mu         sync.Mutex
	newest     int
	extra      map[int]bool
	hold       map[int]chan struct{}
	fail, busy int
	asked      map[int]chan struct{} // closed when the page is first asked for
	waitedOut  []int                 // held pages whose wait ran out
}

// heldUntilAsked checks that every held page was let go by the page it
// waited for being asked for, not after a minute.
func (a *apiPages) heldUntilAsked(t *testing.T) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.waitedOut) > 0 {
		t.Errorf("pages %v waited a minute for the pages after them: those were not read ahead", a.waitedOut)
	}
}

func newAPIPages(e *env, per, newest int) *apiPages {
	a := &apiPages{e: e, per: per, newest: newest, extra: map[int]bool{}, hold: map[int]chan struct{}{}, asked: map[int]chan struct{}{}}
	for p := 1; p <= 20; p++ {
		a.asked[p] = make(chan struct{})
		var once sync.Once
		e.site.handle(fmt.Sprintf("%s/api/%d", apiHost, p), func(w http.ResponseWriter, r *http.Request) {
			once.Do(func() { close(a.asked[p]) })
			a.mu.Lock()
			top, extra, hold, fail, busy := a.newest, a.extra[p], a.hold[p], a.fail == p, a.busy == p
			a.mu.Unlock()
			if hold != nil {
				select {
				case <-hold:
				case <-time.After(time.Minute):
					a.mu.Lock()
					a.waitedOut = append(a.waitedOut, p)
					a.mu.Unlock()
				}
			}
			switch {
			case fail:
				http.Error(w, "down", http.StatusInternalServerError)
				return
			case busy:
				w.Header().Set("Retry-After", "7200")
				http.Error(w, "busy", http.StatusTooManyRequests)
				return
			}
			var items []string
			from := top - (p-1)*per
			if extra {
				from = per * 3
			}
			for i := from; i > from-per && i > 0; i-- {
				items = append(items, fmt.Sprintf(`{"u":"http://%s/a/%d.html","t":"Item %d"}`, apiHost, i, i))
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"items":[%s]}`, strings.Join(items, ","))
		})
	}
	return a
}

func (a *apiPages) source(maxPages int) Source {
	return Source{Name: "api", Kind: "json", URLs: []string{"http://" + apiHost + "/api/{page}"}, MaxPages: maxPages,
		JSON: extract.JSONList{ItemsPath: "items", Fields: map[string]string{"url": "u", "title": "t"}}}
}

func (a *apiPages) hits(p int) int { return a.e.site.hitCount(fmt.Sprintf("%s/api/%d", apiHost, p)) }

// queued returns the items pending in the source's queue, in order (it
// claims them all and hands them back).
func queued(t *testing.T, c *Crawler) []int {
	t.Helper()
	ctx := context.Background()
	q := c.Queue("api")
	es, err := q.TryClaimEntries(ctx, 1000, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	var urls []string
	for _, e := range es {
		var n int
		if _, err := fmt.Sscanf(e.URL, "http://"+apiHost+"/a/%d.html", &n); err != nil {
			t.Fatalf("queued %s: %v", e.URL, err)
		}
		out = append(out, n)
		urls = append(urls, e.URL)
	}
	if len(urls) > 0 {
		if _, err := q.Release(ctx, urls...); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

// TestReadAheadWithinPolitenessAndPageLimit: a crawl of a list API of 12
// pages capped at 8, on a host of 2 requests at once: pages 2 and 3 are
// asked for together (page 2 is held until page 3 is asked for), never
// more than 2 at once, and nothing past page 8.
func TestReadAheadWithinPolitenessAndPageLimit(t *testing.T) {
	e := newEnv(t)
	e.opts.PerHostParallelism = 2
	a := newAPIPages(e, 5, 60)
	a.hold[2] = a.asked[3]
	c := e.crawler(a.source(8))
	rep, err := c.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Sources[0]
	if p.Pages != 8 || p.Found != 40 || p.Err != nil || p.Discarded != 0 {
		t.Fatalf("produce = %+v, want 8 pages and 40 URLs", p)
	}
	a.heldUntilAsked(t)
	if got := a.e.site.peakOf(apiHost); got > 2 {
		t.Errorf("%d requests at once to the host, want at most crawler.per_host_parallelism (2)", got)
	}
	for pg := 9; pg <= 12; pg++ {
		if a.hits(pg) != 0 {
			t.Errorf("page %d read: past max_pages (8)", pg)
		}
	}
	if got := queued(t, c); len(got) != 40 || got[0] != 21 {
		t.Errorf("queued items %v, want 21..60", got)
	}
}

// TestReadAheadStopsInOrder: a crawl of an API whose page 4 is empty (the
// end) and whose pages 5 and on list items again. Page 3 is held until
// page 5 is asked for, so pages read ahead answer before it: the walk
// still reads the pages in order, stops at page 4 and queues nothing of
// page 5 or later, and read at most readAheadDepth - 1 pages past it.
func TestReadAheadStopsInOrder(t *testing.T) {
	e := newEnv(t) // 4 requests at once per host: 4 pages in flight
	a := newAPIPages(e, 5, 15)
	for p := 5; p <= 20; p++ {
		a.extra[p] = true
	}
	a.hold[3] = a.asked[5]
	c := e.crawler(a.source(20))
	rep, err := c.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Sources[0]
	depth := c.readAheadDepth()
	if p.Pages != 4 || p.Found != 15 || p.Err != nil || p.Discarded > depth-1 {
		t.Fatalf("produce = %+v, want 4 pages (the 4th empty), 15 URLs, at most %d discarded", p, depth-1)
	}
	a.heldUntilAsked(t)
	if got := queued(t, c); len(got) != 15 {
		t.Errorf("queued %v, want items 1..15", got)
	}
	// Pages 5 and on list items 11 to 15 again: not new, but not to be
	// read either, past the read-ahead.
	for pg := 4 + depth; pg <= 20; pg++ {
		if a.hits(pg) != 0 {
			t.Errorf("page %d read, past the stop (page 4) by more than the read-ahead", pg)
		}
	}
}

// TestReadAheadPollCostsWhatItDid: a poll whose first page ends with a
// known item reads that page only, as without read-ahead; one whose first
// two pages are all new reads on, the read-ahead widening, and stops at
// the page that ends with a known item, having read at most
// readAheadDepth - 1 pages past it.
func TestReadAheadPollCostsWhatItDid(t *testing.T) {
	e := newEnv(t)
	a := newAPIPages(e, 5, 20)
	c := e.crawler(a.source(8))
	poll := func() SourceProduce { // a poll's walk
		return c.produce(context.Background(), c.sources[0], nil, walkOpts{poll: true, noWait: true})
	}
	if p := poll(); p.New != 20 {
		t.Fatalf("first poll: %+v", p)
	}
	hits := func(from, to int) (n int) {
		for pg := from; pg <= to; pg++ {
			n += a.hits(pg)
		}
		return n
	}
	page2 := a.hits(2)
	a.mu.Lock()
	a.newest = 22 // two new: page 1 ends with a known item
	a.mu.Unlock()
	if p := poll(); p.New != 2 || p.Pages != 1 || p.Discarded != 0 {
		t.Fatalf("poll with two new: %+v, want page 1 only", p)
	}
	if a.hits(2) != page2 {
		t.Errorf("page 2 read by a poll that stopped at page 1")
	}
	a.mu.Lock()
	a.newest = 34 // twelve new: pages 1 and 2 all new, page 3 ends with known ones
	a.mu.Unlock()
	past := hits(4, 8)
	p := poll()
	if p.New != 12 || p.Pages != 3 {
		t.Fatalf("poll with twelve new: %+v, want pages 1 to 3", p)
	}
	if extra, most := hits(4, 8)-past, c.readAheadDepth()-1; extra > most || p.Discarded > extra {
		t.Errorf("pages past page 3 read %d times (discarded %d) by a poll that stopped there, want at most %d", extra, p.Discarded, most)
	}
}

// TestReadAheadFailedPage: a page that fails (500, after its tries) ends
// the start URL's walk at its turn, as without read-ahead: what the pages
// before it listed is queued, nothing after it, and the walk keeps no
// validators (the next crawl reads page 1 whole). A 429 with a
// Retry-After ends a poll there, and the next poll comes after it.
func TestReadAheadFailedPage(t *testing.T) {
	e := newEnv(t)
	a := newAPIPages(e, 5, 40)
	a.fail = 3
	a.hold[3] = a.asked[4] // pages after it answer first
	clk := clock.NewFake(time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC))
	e.opts.Poll = PollOptions{Min: 10 * time.Minute, Max: 6 * time.Hour}
	c := e.newCrawler([]Source{a.source(8)}, WithTransport(e.site.transport()), WithClock(clk))
	rep, err := c.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Sources[0]
	if p.Pages != 2 || p.PageErrors != 1 || p.Found != 10 || p.Err != nil {
		t.Fatalf("produce = %+v, want 2 pages read, page 3 failed, 10 URLs", p)
	}
	a.heldUntilAsked(t)
	if got := queued(t, c); len(got) != 10 || got[0] != 31 {
		t.Errorf("queued %v, want items 31..40 (pages 1 and 2)", got)
	}
	if m, _ := e.rdb.HGetAll(context.Background(), c.listsKey("api")).Result(); len(m) != 0 {
		t.Errorf("validators kept after a failed page: %v", m)
	}

	// A poll meets a 429 with a Retry-After at page 3.
	a.mu.Lock()
	a.fail, a.busy, a.newest = 0, 3, 60
	delete(a.hold, 3)
	a.mu.Unlock()
	e.rdb.FlushAll(context.Background())
	if _, err := c.PollDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	sts, err := c.PollStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st := sts[0]; !strings.HasPrefix(st.Reason, "Retry-After 2h") || st.Next.Sub(clk.Now()) != 2*time.Hour || !st.Incomplete || st.New != 10 {
		t.Errorf("poll with a 429 at page 3: %+v, want the next poll in 2h, 10 new, the next walk whole", st)
	}
	if got := queued(t, c); len(got) != 10 || got[0] != 51 {
		t.Errorf("queued %v, want items 51..60 (pages 1 and 2)", got)
	}
}

// TestCrawlListsSite crawls a site of JSONP list APIs (demosite.Lists: 3
// sources of 6 pages, read ahead, queued in the background) and stores
// every article with the fields its list item carried, no page read past
// the lists' ends.
func TestCrawlListsSite(t *testing.T) {
	e := newEnv(t)
	now := time.Now().UTC().Truncate(time.Second)
	site := demosite.NewLists(demosite.ListsOptions{Pages: 6, Now: now, Seed: 2})
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	e.opts.Workers = 8
	e.opts.Sources = demoSources(site.Sources(srv.URL))
	c, err := New(e.opts, e.qopts, e.rdb, testPrefix, e.store, WithLogger(quietLog()),
		WithTransport(http.DefaultTransport.(*http.Transport).Clone()), WithQueueOptions(queue.WithLogger(quietLog())))
	if err != nil {
		t.Fatal(err)
	}
	rep := e.runOnce(c)
	for _, p := range rep.Produce.Sources {
		if p.Pages != 6 || p.Found != 120 || p.New != 120 || p.Discarded != 0 || p.Err != nil {
			t.Errorf("source %s: %+v, want 6 pages, 120 new URLs", p.Name, p)
		}
	}
	if tot := rep.Totals(); tot.Created != 360 || tot.Failures() != 0 {
		t.Fatalf("stored %d of 360 articles, %d failures", tot.Created, tot.Failures())
	}
	for _, a := range everyNth(site.Articles(), 37) {
		got := e.mustArticle(srv.URL + a.Path)
		if got.Title != a.Title || got.PostTime.Unix() != a.PostTime.Unix() || got.Source != a.Source || got.Comments != a.Comments {
			t.Errorf("%s stored as %+v, want %+v", a.Path, got, a)
		}
	}
}

func everyNth[T any](xs []T, n int) []T {
	var out []T
	for i := 0; i < len(xs); i += n {
		out = append(out, xs[i])
	}
	return out
}
