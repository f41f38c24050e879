package crawler

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/metrics"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// defaultMaxPages is the page cap of a source that sets no max_pages.
const defaultMaxPages = 100

// Produce walks the named sources (all when none are named) and queues
// the article URLs they list. Sources are walked concurrently, each one's
// pages in order. A source that fails entirely is reported in its
// SourceProduce.Err, not as the returned error, which is for an unknown
// source name or a cancelled context.
func (c *Crawler) Produce(ctx context.Context, names ...string) (ProduceReport, error) {
	return c.produceAll(ctx, nil, names...)
}

// produceAll is Produce, keeping running totals in counts (nil: none) for
// RunOnce's progress line. It walks every page, as a crawl does,
// refreshing the comment counts the lists carry, and waits out a list
// page's Retry-After (up to queue.retry_max) before its next try; a poll
// (pollOne) walks one source otherwise (walkOpts).
func (c *Crawler) produceAll(ctx context.Context, counts *produceCounts, names ...string) (ProduceReport, error) {
	srcs, err := c.pick(names)
	if err != nil {
		return ProduceReport{}, err
	}
	rep := ProduceReport{Sources: make([]SourceProduce, len(srcs))}
	o := walkOpts{sendSlots: make(chan struct{}, crawlSendsMax)}
	bounded(ctx, len(srcs), c.cfg.Workers, func(i int, turn bool) {
		if !turn {
			rep.Sources[i] = SourceProduce{Name: srcs[i].cfg.Name, Err: ctx.Err()}
			return
		}
		rep.Sources[i] = c.produce(ctx, srcs[i], counts, o)
	})
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	return rep, nil
}

// listWalk is the state of one source's producer run.
type listWalk struct {
	c       *Crawler
	s       *source
	rep     SourceProduce
	seen    recentKeys      // canonical article URLs found lately in this walk, by key
	visited map[string]bool // list pages read or tried in this run
	lastErr error
	counts  *produceCounts
	cache   *listCache // the list pages' validators (list_cache.go)
	// poll: stop at the first list page whose last URL the queue
	// already had (see walkOpts).
	poll bool
	// noWait, deferred: see walkOpts; deferred is the failure whose
	// Retry-After ended the walk.
	noWait   bool
	deferred *fetch.Error
	// asked: a list page was asked for (see produceCounts.waitFirst).
	asked bool
	// sends: a crawl's walk of HTML lists or a list API sends its pushes
	// in the background (nil: at once, in push).
	sends *sends
}

// walkOpts is how a walk reads its source's lists; the zero value is a
// crawl's walk (produceAll's, which also bounds its walks' sends
// together: sendSlots).
type walkOpts struct {
	// poll stops each walk at the first list page whose last (oldest) URL
	// the queue already had, as a newest-first list has nothing new past
	// it (a poll's walk, unless the last poll's was incomplete).
	poll bool
	// noWait ends the walk at a list page that fails with a Retry-After,
	// instead of waiting it out to try again: the pages left are not
	// asked for (the server asked the client to come back later), and the
	// poll's schedule puts the source's next poll after it. Every poll's
	// walk is so (pollOne).
	noWait bool
	// sendSlots, shared by the walks of one crawl, bounds their
	// background sends together (crawlSendsMax); nil: only each walk's
	// own bound.
	sendSlots chan struct{}
}

func (c *Crawler) produce(ctx context.Context, s *source, counts *produceCounts, o walkOpts) SourceProduce {
	lw := &listWalk{c: c, s: s, rep: SourceProduce{Name: s.cfg.Name}, visited: map[string]bool{}, counts: counts,
		poll: o.poll, noWait: o.noWait}
	counts.sourceStart()
	defer counts.sourceDone()
	start := time.Now()
	lw.loadLists(ctx)
	var err error
	switch s.cfg.Kind {
	case "html":
		lw.sends = lw.crawlSends(o.sendSlots)
		err = lw.html(ctx)
	case "rss", "atom", "sitemap":
		err = lw.xml(ctx)
	case "json", "jsonp":
		lw.sends = lw.crawlSends(o.sendSlots)
		err = lw.json(ctx)
	default:
		err = fmt.Errorf("source %s: unknown kind %q", s.cfg.Name, s.cfg.Kind)
	}
	if serr := lw.sends.wait(); err == nil && serr != nil {
		err = serr
	}
	if err != nil {
		lw.cache.fail() // an interrupted walk keeps no validators but those of whole feeds
	}
	lw.saveLists(context.WithoutCancel(ctx))
	switch {
	case err != nil:
		lw.rep.Err = err
	case lw.rep.Pages == 0 && lw.lastErr != nil:
		lw.rep.Err = fmt.Errorf("source %s: no list page could be read: %w", s.cfg.Name, lw.lastErr)
	}
	lvl, msg, attrs := c.log.Info, "produced", []any{"source", s.cfg.Name, "pages", lw.rep.Pages, "page_errors", lw.rep.PageErrors,
		"discarded", lw.rep.Discarded,
		"not_modified", lw.rep.NotModified, "unchanged", lw.rep.Unchanged,
		"found", lw.rep.Found, "new", lw.rep.New, "refreshed", lw.rep.Refreshed, "skipped", lw.rep.Skipped, "retried", lw.rep.Retried,
		"took", time.Since(start).Round(time.Millisecond)}
	switch {
	case lw.rep.Err != nil && ctx.Err() != nil:
		msg = "produce interrupted"
	case lw.rep.Err != nil:
		lvl, attrs = c.log.Error, append(attrs, "err", lw.rep.Err)
	}
	lvl(msg, attrs...)
	return lw.rep
}

// crawlSends are the background sends of a crawl's walk, bounded with
// those of the crawl's other walks by shared (nil: by their own only); a
// poll's walk has none (its stop needs each push's answer, pushed.more).
func (lw *listWalk) crawlSends(shared chan struct{}) *sends {
	if lw.poll {
		return nil
	}
	s := newSends(lw)
	s.shared = shared
	return s
}

func (lw *listWalk) maxPages() int {
	if lw.s.cfg.MaxPages > 0 {
		return lw.s.cfg.MaxPages
	}
	return defaultMaxPages
}

// pageURLs expands a start URL's {page} placeholder (from first_page,
// default 1, up to the page cap); other URLs are returned as they are.
func (lw *listWalk) pageURLs(raw string) []string {
	if !strings.Contains(raw, "{page}") {
		return []string{raw}
	}
	first := lw.firstPage(1)
	var out []string
	for n := first; n < first+lw.maxPages(); n++ {
		out = append(out, strings.ReplaceAll(raw, "{page}", strconv.Itoa(n)))
	}
	return out
}

// get fetches a list page with cond (never nil: see listCache.cond),
// retrying retryable failures up to crawler.list_attempts times with
// backoff (at least the Retry-After; a noWait walk ends at a failure with
// a Retry-After instead, and asks for no page after it). A failed page is
// counted and logged; the error is returned too. A feed head the server
// refuses is followed by the whole feed (head_read.go).
func (lw *listWalk) get(ctx context.Context, pageURL string, accept func(string) bool, cond *fetch.Validators) (*fetch.Response, error) {
	if lw.deferred != nil {
		return nil, lw.deferred
	}
	if lw.asked {
		if err := lw.counts.waitFirst(ctx); err != nil {
			return nil, err
		}
	}
	lw.asked = true
	lw.visited[pageURL] = true
	resp, err := lw.fetchList(ctx, pageURL, accept, cond)
	return lw.settle(ctx, pageURL, accept, cond, resp, err)
}

// fetchList is get's requests: the page, and its tries again. It
// returns the page, the context's error, or the page's last *fetch.Error.
// It changes nothing of the walk's, so that pages read ahead
// (read_ahead.go) are fetched at once; settle records the outcome.
func (lw *listWalk) fetchList(ctx context.Context, pageURL string, accept func(string) bool, cond *fetch.Validators) (*fetch.Response, error) {
	attempts := max(lw.c.cfg.ListAttempts, 1)
	for i := 1; ; i++ {
		resp, err := lw.c.fetcher.Fetch(ctx, fetch.Request{URL: pageURL, Allowed: lw.s.allowed, Charset: lw.s.cfg.Charset, Accept: accept,
			Cond: cond})
		if err == nil {
			metrics.PagesFetched.WithLabelValues(lw.s.cfg.Name, "list").Inc()
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var fe *fetch.Error
		if !errors.As(err, &fe) {
			fe = &fetch.Error{URL: pageURL, Reason: fetch.ReasonConn, Retryable: true, Err: err}
		}
		metrics.PagesFailed.WithLabelValues(lw.s.cfg.Name, fe.Reason).Inc()
		if headRefused(cond, fe) || lw.endsWalk(fe) || !fe.Retryable || i >= attempts {
			return nil, fe
		}
		d := lw.c.backoff(i, fe.RetryAfter)
		lw.c.log.Warn("list page failed, retrying", "source", lw.s.cfg.Name, "url", pageURL, "reason", fe.Reason,
			"attempt", i, "retry_in", d, "err", fe.Err)
		if err := clock.Sleep(ctx, d); err != nil {
			return nil, err
		}
	}
}

// headRefused reports whether fe is a server's refusal of a feed's head
// (a 416, a compressed range...): the feed is then read whole.
func headRefused(cond *fetch.Validators, fe *fetch.Error) bool {
	return cond.Range != "" && cond.IfRange == "" && !fe.Retryable
}

// endsWalk reports whether fe ends the walk at once: a Retry-After that
// a poll does not wait out (noWait), or one longer than a crawl waits.
func (lw *listWalk) endsWalk(fe *fetch.Error) bool {
	return fe.Retryable && fe.RetryAfter > 0 && (lw.noWait || fe.RetryAfter > MaxListWait)
}

// settle records what fetchList got for a page asked for: a page read,
// or a failure (counted and logged; one that ends the walk is kept as
// deferred, the error of every page asked for after it).
func (lw *listWalk) settle(ctx context.Context, pageURL string, accept func(string) bool, cond *fetch.Validators,
	resp *fetch.Response, err error) (*fetch.Response, error) {
	if err == nil {
		lw.rep.Pages++
		lw.counts.page(1)
		return resp, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		fe = &fetch.Error{URL: pageURL, Reason: fetch.ReasonConn, Retryable: true, Err: err}
	}
	if headRefused(cond, fe) {
		// A feed's head refused (416, a compressed range...): the
		// feed, whole and conditional, as a crawl reads it.
		lw.c.log.Info("feed head refused, reading the feed whole", "source", lw.s.cfg.Name, "url", pageURL,
			"reason", fe.Reason, "err", fe.Err)
		return lw.get(ctx, pageURL, accept, lw.cache.cond(pageURL))
	}
	if lw.endsWalk(fe) {
		lw.rep.PageErrors++
		lw.lastErr, lw.deferred = fe, fe
		msg := "list page failed with a Retry-After: the poll ends, the next one comes after it"
		if !lw.noWait {
			msg = "list page failed with a Retry-After longer than a crawl waits: the source is read next time"
		}
		lw.c.log.Warn(msg, "source", lw.s.cfg.Name, "url", pageURL, "reason", fe.Reason, "retry_after", fe.RetryAfter, "err", fe.Err)
		return nil, fe
	}
	lw.pageFailed(fe)
	return nil, fe
}

// MaxListWait is the longest Retry-After a crawl (RunOnce, the crawl job)
// waits out on a list page before it tries again: a longer one ends that
// source's walk for this run (the source fails, with the answer's error),
// so that one server asking for an hour does not hold a crawl -once for
// hours; the poller comes back after it, and so does the next crawl. A
// poll waits out none.
const MaxListWait = time.Minute

// pageFailed records a list page that could not be read or parsed.
func (lw *listWalk) pageFailed(fe *fetch.Error) {
	lw.rep.PageErrors++
	lw.lastErr = fe
	lw.c.log.Warn("list page failed", "source", lw.s.cfg.Name, "url", fe.URL, "reason", fe.Reason, "err", fe.Err)
}

// badPage records a fetched list page that could not be parsed.
func (lw *listWalk) badPage(pageURL string, err error) {
	lw.rep.Pages--
	lw.counts.page(-1)
	lw.cache.fail()
	metrics.PagesFailed.WithLabelValues(lw.s.cfg.Name, ReasonBadList).Inc()
	lw.pageFailed(&fetch.Error{URL: pageURL, Reason: ReasonBadList, Err: err})
}

// backoff is the wait before retry attempt i+1 of a list page:
// queue.retry_base doubling, capped at a minute (or Retry-After, capped
// at queue.retry_max).
func (c *Crawler) backoff(i int, retryAfter time.Duration) time.Duration {
	d := c.qopt.RetryBase << min(i-1, 16)
	d = min(d, time.Minute)
	if retryAfter > d {
		d = min(retryAfter, c.qopt.RetryMax)
	}
	return d
}

// skip records a listed URL (article, next page or child sitemap) that
// is not taken: user info is worth a warning, a link elsewhere is not.
func (lw *listWalk) skip(raw string, err error) {
	lw.rep.Skipped++
	lvl := slog.LevelDebug
	if errors.Is(err, fetch.ErrUserInfo) {
		lvl = slog.LevelWarn
	}
	lw.c.log.Log(context.Background(), lvl, "listed URL skipped", "source", lw.s.cfg.Name, "err", err)
}

// pushed is what a list page's push did: how many URLs were new to this
// run (found), how many of those were new to the queue (added: not
// pending, done or dead there), and whether the last of them (the
// oldest, on a newest-first list) was new to the queue. A crawl's push
// (sent in the background: sends) knows found only.
type pushed struct {
	found, added int
	lastNew      bool
}

// more reports whether a poll reads on past the page: a newest-first list
// has nothing new past a page whose last (oldest) URL the queue knew.
func (p pushed) more() bool { return p.added > 0 && p.lastNew }

// batch is a list page's URLs new to the walk, canonical, with their
// items and queue entries, to send to Redis.
type batch struct {
	urls    []string
	items   []extract.ListItem
	entries []queue.Entry
}

// push canonicalises items, drops those off the allowed domains and those
// already found in this run, queues them with their fields, and
// refreshes the comment counts of the articles already stored (send). A
// poll's push is done when push returns; a crawl's walk of HTML lists or
// a list API hands it to its sends, in the background, as all it needs
// to go on is found.
func (lw *listWalk) push(ctx context.Context, items []extract.ListItem) (pushed, error) {
	var b batch
	for _, it := range items {
		if err := lw.s.allowed.Check(it.URL); err != nil {
			lw.skip(it.URL, err)
			continue
		}
		cu, err := canonurl.Canonical(it.URL)
		if err != nil {
			lw.skip(it.URL, err)
			continue
		}
		k := keyOf(cu)
		if lw.seen.has(k) {
			continue
		}
		e, err := lw.s.entry(cu, it)
		if err != nil {
			lw.skip(it.URL, err)
			continue
		}
		lw.seen.add(k)
		b.urls = append(b.urls, cu)
		b.items = append(b.items, it)
		b.entries = append(b.entries, e)
	}
	if len(b.urls) == 0 {
		return pushed{}, nil
	}
	lw.rep.Found += len(b.urls)
	if lw.sends != nil {
		return pushed{found: len(b.urls)}, lw.sends.start(ctx, b)
	}
	res, st := lw.send(ctx, b)
	st.addTo(&lw.rep)
	return res, st.err
}

// sent is what sends of batches did, for SourceProduce.
type sent struct {
	added, refreshed, retried int
	err                       error // the first error
}

func (st sent) addTo(rep *SourceProduce) {
	rep.New += st.added
	rep.Refreshed += st.refreshed
	rep.Retried += st.retried
}

// send queues a batch, then hands its comment counts to the store
// (refresh), each Redis step retried while Redis is away (redisRetry). A
// poll pushes the last URL on its own, to tell whether it was new to the
// queue (pushed.more). A batch whose every URL was new to the queue skips
// the refresh: the queue had none of them pending, leased, delayed, dead
// or done within its retention, so each will be fetched and ingested with
// the count its item carries (or its page's), which is all the refresh
// would have written; a first crawl of a site is such batches only. It
// changes nothing of the walk's but its progress counts, so that a
// crawl's sends run in the background.
func (lw *listWalk) send(ctx context.Context, b batch) (pushed, sent) {
	res := pushed{found: len(b.urls)}
	var st sent
	r := &redisRetry{lw: lw, what: fmt.Sprintf("push of %d URLs", len(b.urls))}
	err := r.do(ctx, func(ctx context.Context) error {
		// A retry pushes them all again: the queue counts only the new ones.
		first := b.entries
		if lw.poll {
			first = b.entries[:len(b.entries)-1]
		}
		n, err := lw.s.queue.PushEntries(ctx, first...)
		res.added += n
		if n > 0 {
			lw.counts.queued(lw.s.queue) // the consumers need not wait for the last URL's push
		}
		if err == nil && lw.poll {
			n, err = lw.s.queue.PushEntries(ctx, b.entries[len(b.entries)-1])
			res.added += n
			res.lastNew = res.lastNew || n == 1
		}
		if err != nil {
			return fmt.Errorf("source %s: push %d URLs: %w", lw.s.cfg.Name, len(b.urls), err)
		}
		return nil
	})
	var refreshErr error
	rr := &redisRetry{lw: lw}
	if err != nil || res.added < len(b.entries) {
		rr.what = fmt.Sprintf("refresh of %d comment counts", len(b.urls))
		refreshErr = rr.do(ctx, func(ctx context.Context) error {
			n, err := lw.refresh(ctx, b.urls, b.items)
			st.refreshed += n
			return err
		})
	}
	st.added = res.added
	lw.counts.urls(lw.s.queue, len(b.urls), res.added)
	if r.tries > 0 || rr.tries > 0 {
		st.retried = 1
	}
	st.err = cmp.Or(err, refreshErr)
	if st.err == nil {
		r.done()
		rr.done()
	}
	return res, st
}

// sendsMax bounds a walk's sends under way. Each send is two Redis calls
// (the push and the comment refresh) and every walk of a crawl has its
// own: with more, the walks' sends fill the Redis client's connection
// pool and redis-server's backlog while list pages are read, and the
// consumers' claims, one at a time, wait behind them, so articles are
// fetched at a fraction of their rate until the lists are read. Two keep
// the walk reading on while one send waits for Redis.
const sendsMax = 2

// crawlSendsMax bounds the background sends of all the walks of a crawl
// together, for the same reason: a crawl walks up to crawler.workers
// sources at once, and sendsMax each would let a crawl of many sources
// fill the client's connection pool again.
const crawlSendsMax = 4

// sends are a crawl's sends of its pages' batches in the background, up to
// sendsMax at once: the walk reads on while Redis takes its URLs.
// Their pages' pushes may overlap and end in any order (the queue is a
// set: order carries no meaning there). The first error ends the walk at
// its next push, or when it waits for them (wait, before its validators
// are kept: a walk whose push failed keeps none).
type sends struct {
	lw     *listWalk
	sem    chan struct{}
	shared chan struct{} // the crawl's (crawlSendsMax), or nil
	wg     sync.WaitGroup
	mu     sync.Mutex
	done   sent
}

func newSends(lw *listWalk) *sends {
	return &sends{lw: lw, sem: make(chan struct{}, sendsMax)}
}

// start sends b in the background, once fewer than sendsMax sends of
// the walk, and fewer than crawlSendsMax of its crawl, are under way; it
// returns the error of a send that failed already.
func (s *sends) start(ctx context.Context, b batch) error {
	if err := s.failed(); err != nil {
		return err
	}
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.shared != nil {
		select {
		case s.shared <- struct{}{}:
		case <-ctx.Done():
			<-s.sem
			return ctx.Err()
		}
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			if s.shared != nil {
				<-s.shared
			}
			<-s.sem
		}()
		_, st := s.lw.send(ctx, b)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.done.added += st.added
		s.done.refreshed += st.refreshed
		s.done.retried += st.retried
		if s.done.err == nil {
			s.done.err = st.err
		}
	}()
	return nil
}

func (s *sends) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done.err
}

// wait waits for the sends under way and adds what they all did to the
// walk's report; it returns the first error.
func (s *sends) wait() error {
	if s == nil {
		return nil
	}
	s.wg.Wait()
	s.done.addTo(&s.lw.rep)
	err := s.done.err
	s.done = sent{}
	return err
}

// refresh hands the comment counts of a list page's items to the store
// (one call per page), so an article already stored gets its current
// count and score even while the queue skips its URL as recently done.
// A URL the store does not have is left to the queue; a count of 0 is
// "not known", as on a re-crawl. urls[i] is items[i]'s canonical URL. It
// returns how many stored articles were refreshed.
func (lw *listWalk) refresh(ctx context.Context, urls []string, items []extract.ListItem) (int, error) {
	var es []news.Engagement
	for i, it := range items {
		if it.Comments != nil && *it.Comments > 0 {
			es = append(es, news.Engagement{URL: urls[i], Comments: *it.Comments})
		}
	}
	if len(es) == 0 {
		return 0, nil
	}
	n, err := lw.c.store.Refresh(ctx, es)
	switch {
	case errors.Is(err, news.ErrBadInput):
		lw.c.log.Warn("comment counts rejected", "source", lw.s.cfg.Name, "err", err)
	case err != nil:
		return n, fmt.Errorf("source %s: refresh %d comment counts: %w", lw.s.cfg.Name, len(es), err)
	}
	return n, nil
}

// urlKey stands for a canonical URL in a walk's seen set: the first 16
// bytes of its SHA-256, not the URL itself (a collision, 2^-128 per pair,
// would skip one URL in one run; the next run finds it).
type urlKey [16]byte

func keyOf(u string) urlKey {
	sum := sha256.Sum256([]byte(u))
	return urlKey(sum[:16])
}

// recentCap is how many keys a generation of recentKeys holds.
const recentCap = 1024

// recentKeys is a list walk's memory of the article URLs it found, by
// key, bounded: it holds the last recentCap to 2×recentCap keys added (two
// generations; the older is dropped when the newer fills), about 50 KB at
// most, whatever the number of URLs a walk finds: 50 to 100 list pages of
// 20 links, and a crawler walks one list of every source at once. A URL
// listed again within that is skipped; one listed again further away is
// pushed again, and the queue, which remembers every URL, does not queue
// it twice.
type recentKeys struct {
	cur, prev map[urlKey]struct{}
}

// has reports whether k was added lately.
func (r *recentKeys) has(k urlKey) bool {
	if _, ok := r.cur[k]; ok {
		return true
	}
	_, ok := r.prev[k]
	return ok
}

// add remembers k.
func (r *recentKeys) add(k urlKey) {
	if r.cur == nil || len(r.cur) >= recentCap {
		r.prev, r.cur = r.cur, make(map[urlKey]struct{}, min(recentCap, 256+2*len(r.cur)))
	}
	r.cur[k] = struct{}{}
}

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
