package crawler

import (
	"context"
	"errors"
	"sync"

	"github.com/newsrank/newsrank/crawler/fetch"
)

// Reading list pages ahead. Where the URLs of a source's next list pages
// are known before they are read (a {page} start URL or page_template
// sequence, a list API's {offset} or {page} pages), a walk asks for
// several at once and still reads them one after the other: each page
// is parsed, pushed and judged (the end of the list, nothing new, a
// poll's stop, a failure) in order, when its turn comes, as without
// read-ahead. Every request goes through package fetch like any other,
// so the host's politeness holds: crawler.per_host_parallelism requests
// at once, crawler.delay between their starts. A walk asks for one page
// first, and for twice as many at once after each page that lets it go
// on, up to readAheadDepth: a poll that stops at its first page costs what
// it did, and a walk that stops has read at most readAheadDepth - 1 pages
// past its stop, which it discards. A page that fails is the walk's
// failure when its turn comes, as without read-ahead; a Retry-After that
// ends the walk (listWalk.endsWalk) also stops the pages after it in
// flight, and no page after it is asked for.

// readAheadMax bounds a walk's pages in flight, whatever
// crawler.per_host_parallelism allows.
const readAheadMax = 8

// readAheadDepth is how many of a walk's list pages may be in flight at
// once: the host's parallelism (crawler.per_host_parallelism), at most
// readAheadMax.
func (c *Crawler) readAheadDepth() int {
	return max(1, min(readAheadMax, c.cfg.PerHostParallelism))
}

// readAhead reads a known sequence of list pages for a walk (see above).
// Its methods are called by the walk's goroutine.
type readAhead struct {
	lw     *listWalk
	accept func(string) bool
	urls   []string
	depth  int
	window int // pages in flight wanted now (1 at first)
	pos    int // the next page the walk reads

	mu     sync.Mutex
	asked  []*aheadPage // asked[i] is urls[i]'s, once asked for
	stopAt int          // no page at or past it is asked for
}

// aheadPage is a page asked for, and its answer once done is closed.
type aheadPage struct {
	url    string
	cond   *fetch.Validators
	done   chan struct{}
	cancel context.CancelFunc
	resp   *fetch.Response
	err    error
	// deferred: not asked for, as the walk had ended at a Retry-After
	// (its err is that failure's).
	deferred bool
}

// readAhead starts reading urls (their validators from the walk's cache).
// The walk calls next for each page in order, more after each page that
// lets it go on, and stop when it is done with them.
func (lw *listWalk) readAhead(urls []string, accept func(string) bool) *readAhead {
	return &readAhead{lw: lw, accept: accept, urls: urls, depth: lw.c.readAheadDepth(), window: 1, stopAt: len(urls)}
}

// aheadAnswer is a page's turn in a read-ahead: what getList would return
// for it.
type aheadAnswer struct {
	page      string
	resp      *fetch.Response
	unchanged bool
	err       error
}

// next waits for the next page and returns it; ok is false past the last
// page.
func (ra *readAhead) next(ctx context.Context) (a aheadAnswer, ok bool) {
	if ra.pos >= len(ra.urls) {
		return aheadAnswer{}, false
	}
	a.page = ra.urls[ra.pos]
	for n := len(ra.asked); n < min(len(ra.urls), ra.pos+ra.window); n++ {
		if err := ra.ask(ctx, n); err != nil {
			a.err = err
			return a, true
		}
	}
	if ra.pos >= len(ra.asked) { // past a Retry-After that ended the walk
		ra.pos++
		a.err = ra.lw.deferred
		return a, true
	}
	p := ra.asked[ra.pos]
	select {
	case <-p.done:
	case <-ctx.Done():
		a.err = ctx.Err()
		return a, true
	}
	ra.pos++
	if p.deferred {
		a.err = p.err
		return a, true
	}
	resp, err := ra.lw.settle(ctx, a.page, ra.accept, p.cond, p.resp, p.err)
	a.resp, a.unchanged, a.err = ra.lw.listAnswer(a.page, resp, err)
	return a, true
}

// more widens the read-ahead: the walk goes on past the page it read.
func (ra *readAhead) more() {
	ra.window = min(2*ra.window, ra.depth)
}

// ask asks for page n: at once when the walk has ended at a Retry-After
// (the page is deferred), else in a goroutine of its own, after the run's
// first article when it is not the walk's first page (waitFirst, as get
// waits).
func (ra *readAhead) ask(ctx context.Context, n int) error {
	lw := ra.lw
	page := ra.urls[n]
	ra.mu.Lock()
	stopped := n >= ra.stopAt
	ra.mu.Unlock()
	if stopped {
		return nil
	}
	if lw.asked {
		if err := lw.counts.waitFirst(ctx); err != nil {
			return err
		}
	}
	lw.asked = true
	lw.visited[page] = true
	fctx, cancel := context.WithCancel(ctx)
	p := &aheadPage{url: page, cond: lw.cache.cond(page), done: make(chan struct{}), cancel: cancel}
	ra.mu.Lock()
	ra.asked = append(ra.asked, p)
	ra.mu.Unlock()
	if lw.deferred != nil {
		p.deferred, p.err = true, lw.deferred
		cancel()
		close(p.done)
		return nil
	}
	go func() {
		defer close(p.done)
		p.resp, p.err = lw.fetchList(fctx, page, ra.accept, p.cond)
		var fe *fetch.Error
		if errors.As(p.err, &fe) && lw.endsWalk(fe) {
			ra.halt(n)
		}
	}()
	return nil
}

// halt stops the pages after page n, whose answer ends the walk: those in
// flight are cancelled, those not asked for yet never will be.
func (ra *readAhead) halt(n int) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	ra.stopAt = min(ra.stopAt, n+1)
	for _, p := range ra.asked[min(n+1, len(ra.asked)):] {
		p.cancel()
	}
}

// stop ends the read-ahead when the walk is done with it: the pages in
// flight past the walk's last are cancelled and waited for, and those
// read are discarded (SourceProduce.Discarded). A Retry-After one of them
// got still counts for the next poll.
func (ra *readAhead) stop() {
	ra.mu.Lock()
	left := ra.asked[min(ra.pos, len(ra.asked)):]
	ra.mu.Unlock()
	for _, p := range left {
		p.cancel()
	}
	for _, p := range left {
		<-p.done
		if p.deferred {
			continue
		}
		if p.resp != nil {
			ra.lw.rep.Discarded++
		}
		var fe *fetch.Error
		if errors.As(p.err, &fe) {
			ra.lw.rep.RetryAfter = max(ra.lw.rep.RetryAfter, fe.RetryAfter)
		}
	}
	for _, p := range ra.asked {
		p.cancel()
	}
}
