package crawler

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunOncePipelines: RunOnce's consumers store the articles of the
// first list page while the producer still waits for the second one (the
// second page is served only once an article of the first is stored, or
// after 10 s, which fails the test).
func TestRunOncePipelines(t *testing.T) {
	e := newEnv(t)
	e.serveArticles(20, time.Now())
	e.serveList(20, 10, true, "")
	src := htmlSource("pipe")
	c := e.crawler(src)
	page2 := e.site.routes[host+"/list/index_2.html"]
	storedFirst := make(chan bool, 1)
	e.site.handle(host+"/list/index_2.html", func(w http.ResponseWriter, r *http.Request) {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			for i := range 10 {
				if _, err := e.article(articleURL(i)); err == nil {
					storedFirst <- true
					page2(w, r)
					return
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		storedFirst <- false
		page2(w, r)
	})
	rep := e.runOnce(c)
	if !<-storedFirst {
		t.Error("no article of list page 1 was stored while the producer waited for list page 2")
	}
	p, s := rep.Produce.Sources[0], rep.Sources[0]
	if p.Pages != 2 || p.Found != 20 || s.Fetched != 20 || s.Created != 20 || s.Left.Pending != 0 {
		t.Fatalf("produce %+v, consume %+v", p, s)
	}
	if got := fmt.Sprint(rep.FailedSources()); got != "[]" {
		t.Errorf("FailedSources = %s", got)
	}
}

// TestWorkersBoundFetches: crawler.workers bounds the article pages
// fetched at once, though the run claims ahead of the fetch slots, for
// more workers than slots.
func TestWorkersBoundFetches(t *testing.T) {
	e := newEnv(t)
	e.opts.Workers, e.opts.PerHostParallelism = 3, 10
	const n = 40
	e.serveArticles(n, time.Now())
	e.serveList(n, 10, true, "")
	var mu sync.Mutex
	active, peak := 0, 0
	for i := range n {
		key := fmt.Sprintf("%s/a/%d.html", host, i)
		page := e.site.routes[key]
		e.site.handle(key, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			active++
			peak = max(peak, active)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond) // so that fetches overlap
			page(w, r)
			mu.Lock()
			active--
			mu.Unlock()
		})
	}
	rep := e.runOnce(e.crawler(htmlSource("bound")))
	if s := rep.Sources[0]; s.Fetched != n || s.Created != n {
		t.Fatalf("consume %+v", s)
	}
	if peak > e.opts.Workers {
		t.Errorf("%d article pages fetched at once, crawler.workers is %d", peak, e.opts.Workers)
	}
}

// TestRunOnceNothingNew: the walks' wait for the run's first article
// (produceCounts.waitFirst) ends when the first list pages queue nothing
// to fetch: a second run over the same pages reads them all and ends,
// also with more sources than crawler.workers (walks at once), whose
// last ones start only when the first ones are done.
func TestRunOnceNothingNew(t *testing.T) {
	e := newEnv(t)
	e.opts.Workers = 2
	e.serveArticles(25, time.Now())
	e.serveList(25, 10, true, "")
	c := e.crawler(htmlSource("again"), htmlSource("again2"), htmlSource("again3"))
	e.runOnce(c)
	e.serveList(25, 10, true, "<li>changed</li>") // not a 304
	rep := e.runOnce(c)
	for i, p := range rep.Produce.Sources {
		if s := rep.Sources[i]; p.Pages != 3 || p.Found != 25 || p.New != 0 || s.Fetched != 0 {
			t.Errorf("second run: produce %+v, consume %+v", p, s)
		}
	}
}

// TestRunOnceRetryInDryQueue: a retry that comes due in a queue the
// claims skip as run dry (pass) is fetched in the same run once the other
// queues are empty, with RunOptions.WaitRetries.
func TestRunOnceRetryInDryQueue(t *testing.T) {
	e := newEnv(t)
	const flaky = "flaky.example.test"
	var hits atomic.Int64
	e.site.handle(flaky+"/a", func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>At last</title>")
	})
	e.site.page(flaky+"/list/", "text/html", `<a class="t" href="/a">x</a>`)
	e.serveArticles(40, time.Now())
	e.serveList(40, 10, true, "")
	c := e.crawler(Source{Name: "flaky", Kind: "html", URLs: []string{"http://" + flaky + "/list/"}, LinkSelector: sel("a.t")},
		htmlSource("many"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := c.RunOnceWith(ctx, RunOptions{WaitRetries: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Totals(); got.Created != 41 || got.Left.Pending+got.Left.Delayed+got.Left.InFlight != 0 {
		t.Fatalf("totals %+v, want 41 stored and nothing left", got)
	}
	if hits.Load() != 2 {
		t.Errorf("the flaky page was fetched %d times, want 2", hits.Load())
	}
}

// TestRunOnceFirstArticleHangs: the walks' wait for the run's first
// article is bounded: while every article of the first list page hangs,
// the second list page is still read (its handler lets them go on).
func TestRunOnceFirstArticleHangs(t *testing.T) {
	e := newEnv(t)
	e.opts.PerHostParallelism = 2 * e.opts.Workers // a host slot left for the list page
	e.serveArticles(20, time.Now())
	e.serveList(20, 10, true, "")
	page2Read := make(chan struct{})
	var once sync.Once
	page2 := e.site.routes[host+"/list/index_2.html"]
	e.site.handle(host+"/list/index_2.html", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(page2Read) })
		page2(w, r)
	})
	var waitedOut atomic.Bool
	for i := range 10 {
		key := fmt.Sprintf("%s/a/%d.html", host, i)
		page := e.site.routes[key]
		e.site.handle(key, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-page2Read:
			case <-time.After(10 * time.Second):
				waitedOut.Store(true)
			}
			page(w, r)
		})
	}
	rep := e.runOnce(e.crawler(htmlSource("hang")))
	if waitedOut.Load() {
		t.Error("list page 2 was read only once an article of page 1 was done")
	}
	if s := rep.Sources[0]; s.Created != 20 {
		t.Fatalf("consume %+v", s)
	}
}
