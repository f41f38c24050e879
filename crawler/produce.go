package crawler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/internal/metrics"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// defaultMaxPages is the page cap of a source that sets no max_pages.
const defaultMaxPages = 100

// ProduceReport is what one Produce run did.
type ProduceReport struct {
	Sources []SourceProduce
}

// SourceProduce is what the producer did for one source.
type SourceProduce struct {
	Name string
	// Pages is how many list pages (feeds, sitemaps, API pages) were
	// read; PageErrors how many could not be.
	Pages, PageErrors int
	// Found is how many article URLs the pages listed (on the allowed
	// domains, deduplicated); New how many of them were queued for the
	// first time.
	Found, New int
	// Skipped counts listed URLs dropped: off the allowed domains, not
	// http(s), or list items without a URL.
	Skipped int
	// Refreshed counts stored articles whose comment count the list
	// carried anew (news.Store.Refresh): rescored without fetching their
	// pages, which the queue's done memory would not fetch again yet.
	Refreshed int
	// Retried counts the pushes (one per list page) that met a Redis
	// error and were tried again until Redis answered.
	Retried int
	// Err is set when the source failed entirely: no list page could be
	// read (it wraps the last page's error), or Redis failed.
	Err error
}

// Failed lists the sources that failed entirely.
func (r ProduceReport) Failed() []string {
	var out []string
	for _, s := range r.Sources {
		if s.Err != nil {
			out = append(out, s.Name)
		}
	}
	return out
}

// New is the number of URLs queued for the first time, over all sources.
func (r ProduceReport) New() int {
	n := 0
	for _, s := range r.Sources {
		n += s.New
	}
	return n
}

// Retried is the number of pushes retried after a Redis error, over all
// sources.
func (r ProduceReport) Retried() int {
	n := 0
	for _, s := range r.Sources {
		n += s.Retried
	}
	return n
}

// Refreshed is the number of stored articles whose comment count was
// refreshed from the lists, over all sources.
func (r ProduceReport) Refreshed() int {
	n := 0
	for _, s := range r.Sources {
		n += s.Refreshed
	}
	return n
}

// Produce walks the named sources (all when none are named) and queues
// the article URLs they list. Sources are walked concurrently, each one's
// pages in order. A source that fails entirely is reported in its
// SourceProduce.Err, not as the returned error, which is for an unknown
// source name or a cancelled context.
func (c *Crawler) Produce(ctx context.Context, names ...string) (ProduceReport, error) {
	return c.produceAll(ctx, nil, names...)
}

// produceAll is Produce, keeping running totals in counts (nil: none) for
// RunOnce's progress line.
func (c *Crawler) produceAll(ctx context.Context, counts *produceCounts, names ...string) (ProduceReport, error) {
	srcs, err := c.pick(names)
	if err != nil {
		return ProduceReport{}, err
	}
	rep := ProduceReport{Sources: make([]SourceProduce, len(srcs))}
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(c.cfg.Workers, 1))
	for i, s := range srcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				rep.Sources[i] = SourceProduce{Name: s.cfg.Name, Err: ctx.Err()}
				return
			}
			rep.Sources[i] = c.produce(ctx, s, counts)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	return rep, nil
}

// walk is the state of one source's producer run.
type walk struct {
	c       *Crawler
	s       *source
	rep     SourceProduce
	seen    map[string]bool // canonical article URLs found in this run
	visited map[string]bool // list pages read or tried in this run
	lastErr error
	counts  *produceCounts
}

func (c *Crawler) produce(ctx context.Context, s *source, counts *produceCounts) SourceProduce {
	defer counts.sourceDone()
	w := &walk{c: c, s: s, rep: SourceProduce{Name: s.cfg.Name}, seen: map[string]bool{}, visited: map[string]bool{}, counts: counts}
	start := time.Now()
	var err error
	switch s.cfg.Kind {
	case "html":
		err = w.html(ctx)
	case "rss", "atom", "sitemap":
		err = w.xml(ctx)
	case "json", "jsonp":
		err = w.json(ctx)
	default:
		err = fmt.Errorf("source %s: unknown kind %q", s.cfg.Name, s.cfg.Kind)
	}
	switch {
	case err != nil:
		w.rep.Err = err
	case w.rep.Pages == 0 && w.lastErr != nil:
		w.rep.Err = fmt.Errorf("source %s: no list page could be read: %w", s.cfg.Name, w.lastErr)
	}
	lvl, msg, attrs := c.log.Info, "produced", []any{"source", s.cfg.Name, "pages", w.rep.Pages, "page_errors", w.rep.PageErrors,
		"found", w.rep.Found, "new", w.rep.New, "refreshed", w.rep.Refreshed, "skipped", w.rep.Skipped, "retried", w.rep.Retried,
		"took", time.Since(start).Round(time.Millisecond)}
	switch {
	case w.rep.Err != nil && ctx.Err() != nil:
		msg = "produce interrupted"
	case w.rep.Err != nil:
		lvl, attrs = c.log.Error, append(attrs, "err", w.rep.Err)
	}
	lvl(msg, attrs...)
	return w.rep
}

func (w *walk) maxPages() int {
	if w.s.cfg.MaxPages > 0 {
		return w.s.cfg.MaxPages
	}
	return defaultMaxPages
}

// pageURLs expands a start URL's {page} placeholder (from first_page,
// default 1, up to the page cap); other URLs are returned as they are.
func (w *walk) pageURLs(raw string) []string {
	if !strings.Contains(raw, "{page}") {
		return []string{raw}
	}
	first := w.firstPage(1)
	var out []string
	for n := first; n < first+w.maxPages(); n++ {
		out = append(out, strings.ReplaceAll(raw, "{page}", strconv.Itoa(n)))
	}
	return out
}

// get fetches a list page, retrying retryable failures up to
// crawler.list_attempts times with backoff (at least the Retry-After).
// A failed page is counted and logged; the error is returned too.
func (w *walk) get(ctx context.Context, pageURL string, accept func(string) bool) (*response, error) {
	w.visited[pageURL] = true
	attempts := max(w.c.cfg.ListAttempts, 1)
	for i := 1; ; i++ {
		resp, err := w.c.fetch.fetch(ctx, fetchReq{url: pageURL, allowed: w.s.allowed, charset: w.s.cfg.Charset, accept: accept})
		if err == nil {
			w.rep.Pages++
			w.counts.page(1)
			metrics.PagesFetched.WithLabelValues(w.s.cfg.Name, "list").Inc()
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var fe *FetchError
		if !errors.As(err, &fe) {
			fe = &FetchError{URL: pageURL, Reason: ReasonConn, Retryable: true, Err: err}
		}
		metrics.PagesFailed.WithLabelValues(w.s.cfg.Name, fe.Reason).Inc()
		if !fe.Retryable || i >= attempts {
			w.pageFailed(fe)
			return nil, fe
		}
		d := w.c.backoff(i, fe.RetryAfter)
		w.c.log.Warn("list page failed, retrying", "source", w.s.cfg.Name, "url", pageURL, "reason", fe.Reason,
			"attempt", i, "retry_in", d, "err", fe.Err)
		if err := sleep(ctx, d); err != nil {
			return nil, err
		}
	}
}

// pageFailed records a list page that could not be read or parsed.
func (w *walk) pageFailed(fe *FetchError) {
	w.rep.PageErrors++
	w.lastErr = fe
	w.c.log.Warn("list page failed", "source", w.s.cfg.Name, "url", fe.URL, "reason", fe.Reason, "err", fe.Err)
}

// badPage records a fetched list page that could not be parsed.
func (w *walk) badPage(pageURL string, err error) {
	w.rep.Pages--
	w.counts.page(-1)
	metrics.PagesFailed.WithLabelValues(w.s.cfg.Name, ReasonBadList).Inc()
	w.pageFailed(&FetchError{URL: pageURL, Reason: ReasonBadList, Err: err})
}

// backoff is the wait before retry attempt i+1 of a list page:
// queue.retry_base doubling, capped at a minute (or Retry-After, capped
// at queue.retry_max).
func (c *Crawler) backoff(i int, retryAfter time.Duration) time.Duration {
	d := c.qcfg.RetryBase.D() << min(i-1, 16)
	d = min(d, time.Minute)
	if retryAfter > d {
		d = min(retryAfter, c.qcfg.RetryMax.D())
	}
	return d
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// skip records a listed URL (article, next page or child sitemap) that
// is not taken: user info is worth a warning, a link elsewhere is not.
func (w *walk) skip(raw string, err error) {
	w.rep.Skipped++
	lvl := slog.LevelDebug
	if errors.Is(err, ErrUserInfo) {
		lvl = slog.LevelWarn
	}
	w.c.log.Log(context.Background(), lvl, "listed URL skipped", "source", w.s.cfg.Name, "err", err)
}

// push canonicalises items, drops those off the allowed domains and those
// already found in this run, queues them with their fields, and
// refreshes the comment counts of the articles already stored. It returns
// how many URLs were new to this run.
func (w *walk) push(ctx context.Context, items []ListItem) (int, error) {
	var urls []string
	var keep []ListItem
	var entries []queue.Entry
	for _, it := range items {
		if err := w.s.allowed.check(it.URL); err != nil {
			w.skip(it.URL, err)
			continue
		}
		cu, err := canonurl.Canonical(it.URL)
		if err != nil {
			w.skip(it.URL, err)
			continue
		}
		if w.seen[cu] {
			continue
		}
		e, err := w.s.entry(cu, it)
		if err != nil {
			w.skip(it.URL, err)
			continue
		}
		w.seen[cu] = true
		urls = append(urls, cu)
		keep = append(keep, it)
		entries = append(entries, e)
	}
	if len(urls) == 0 {
		return 0, nil
	}
	w.rep.Found += len(urls)
	r := &redisRetry{w: w, what: fmt.Sprintf("push of %d URLs", len(urls))}
	added := 0
	err := r.do(ctx, func(ctx context.Context) error {
		n, err := w.s.queue.PushEntries(ctx, entries...)
		added += n // a retry pushes them all again: the queue counts only the new ones
		if err != nil {
			return fmt.Errorf("source %s: push %d URLs: %w", w.s.cfg.Name, len(urls), err)
		}
		return nil
	})
	w.rep.New += added
	w.counts.urls(len(urls), added)
	if err != nil {
		return 0, err
	}
	if err := r.do(ctx, func(ctx context.Context) error { return w.refresh(ctx, urls, keep) }); err != nil {
		return 0, err
	}
	r.done()
	return len(urls), nil
}

// maxPushOutage bounds how long one push is retried when the run's
// context has no deadline of its own.
const maxPushOutage = 10 * time.Minute

// redisRetryMax caps the wait between two tries of a Redis operation:
// after an outage, work resumes within seconds of Redis.
const redisRetryMax = 5 * time.Second

// redisRetry retries the Redis steps of one push: a failed step is tried
// again with backoff (queue.idle_poll doubling, at most redisRetryMax)
// until it succeeds, the run's context ends (its deadline, a shutdown,
// the job's lock lost) or maxPushOutage has passed since the first
// failure. The list walk waits meanwhile, so it goes on from the page it
// was at, skipping nothing. Each step is idempotent: items are SET, the
// queue takes a URL once, a comment count is set, not added.
type redisRetry struct {
	w        *walk
	what     string
	tries    int
	deadline time.Time
}

func (r *redisRetry) do(ctx context.Context, op func(context.Context) error) error {
	for {
		err := op(ctx)
		if err == nil || ctx.Err() != nil || errors.Is(err, canonurl.ErrBadURL) {
			return err
		}
		now := time.Now()
		if r.tries == 0 {
			r.deadline = now.Add(maxPushOutage)
			if d, ok := ctx.Deadline(); ok {
				r.deadline = d
			}
		}
		d := min(r.w.c.qcfg.IdlePoll.D()<<min(r.tries, 16), redisRetryMax)
		if !now.Add(d).Before(r.deadline) {
			return fmt.Errorf("%w (gave up after %d retries)", err, r.tries)
		}
		if r.tries == 0 {
			r.w.rep.Retried++
		}
		r.tries++
		r.w.c.log.Warn("Redis failed during a push, retrying", "source", r.w.s.cfg.Name, "op", r.what,
			"retry", r.tries, "retry_in", d, "err", err)
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
}

// done says that a retried push went through.
func (r *redisRetry) done() {
	if r.tries == 0 {
		return
	}
	r.w.c.log.Info("push went through after Redis came back", "source", r.w.s.cfg.Name, "op", r.what, "retries", r.tries)
}

// refresh hands the comment counts of a list page's items to the store
// (one call per page), so an article already stored gets its current
// count and score even while the queue skips its URL as recently done.
// A URL the store does not have is left to the queue; a count of 0 is
// "not known", as on a re-crawl. urls[i] is items[i]'s canonical URL.
func (w *walk) refresh(ctx context.Context, urls []string, items []ListItem) error {
	var es []news.Engagement
	for i, it := range items {
		if it.Comments != nil && *it.Comments > 0 {
			es = append(es, news.Engagement{URL: urls[i], Comments: *it.Comments})
		}
	}
	if len(es) == 0 {
		return nil
	}
	n, err := w.c.store.Refresh(ctx, es)
	w.rep.Refreshed += n
	switch {
	case errors.Is(err, news.ErrBadInput):
		w.c.log.Warn("comment counts rejected", "source", w.s.cfg.Name, "err", err)
	case err != nil:
		return fmt.Errorf("source %s: refresh %d comment counts: %w", w.s.cfg.Name, len(es), err)
	}
	return nil
}

// html walks HTML list pages: each start URL and the next-page links
// from it (a start URL with {page} is a numbered sequence), then the
// page_template sequence. A sequence ends at the page cap, at a page that
// fails, or at a page that lists nothing new to this run.
func (w *walk) html(ctx context.Context) error {
	budget := w.maxPages()
	for _, raw := range w.s.cfg.URLs {
		if strings.Contains(raw, "{page}") {
			if err := w.sequence(ctx, raw, w.firstPage(1), &budget); err != nil {
				return err
			}
			continue
		}
		for page := raw; page != "" && budget > 0 && !w.visited[page]; {
			budget--
			items, next, ok, err := w.readHTML(ctx, page, w.s.next)
			if err != nil || !ok {
				return err
			}
			n, err := w.push(ctx, items)
			if err != nil {
				return err
			}
			if n == 0 && page != raw {
				break // nothing new: the end, or a loop
			}
			page = ""
			if next != "" {
				if err := w.s.allowed.check(next); err != nil {
					w.skip(next, err)
				} else {
					page = next
				}
			}
		}
	}
	if tmpl := w.s.cfg.PageTemplate; tmpl != "" {
		return w.sequence(ctx, tmpl, w.firstPage(2), &budget)
	}
	return nil
}

func (w *walk) firstPage(def int) int {
	if w.s.cfg.FirstPage > 0 {
		return w.s.cfg.FirstPage
	}
	return def
}

// sequence reads the pages tmpl numbers from first on.
func (w *walk) sequence(ctx context.Context, tmpl string, first int, budget *int) error {
	for n := first; *budget > 0; n++ {
		page := strings.ReplaceAll(tmpl, "{page}", strconv.Itoa(n))
		if w.visited[page] {
			continue
		}
		*budget--
		items, _, ok, err := w.readHTML(ctx, page, selector{})
		if err != nil || !ok {
			return err
		}
		added, err := w.push(ctx, items)
		if err != nil || added == 0 {
			return err
		}
	}
	return nil
}

// readHTML fetches and parses an HTML list page. ok is false when the
// page failed (it is recorded); err is for a cancelled context only.
func (w *walk) readHTML(ctx context.Context, page string, next selector) (items []ListItem, nextURL string, ok bool, err error) {
	resp, err := w.get(ctx, page, isHTML)
	if err != nil {
		return nil, "", false, ctx.Err()
	}
	items, nextURL, err = parseHTMLList(resp.body, resp.contentType, resp.url, w.s.links, next, "")
	if err != nil {
		w.badPage(page, err)
		return nil, "", false, nil
	}
	return items, nextURL, true, nil
}

// xml reads feeds and sitemaps; a sitemap index's children are read too,
// up to the page cap.
func (w *walk) xml(ctx context.Context) error {
	limit := w.maxPages()
	todo := append([]string(nil), w.s.cfg.URLs...)
	for tried := 0; len(todo) > 0 && tried < limit; {
		page := todo[0]
		todo = todo[1:]
		if w.visited[page] {
			continue
		}
		tried++
		resp, err := w.get(ctx, page, nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		body := resp.body
		if w.s.cfg.Charset != "" {
			// colly decoded the forced charset; the declaration would lie now.
			body = stripXMLDecl(body)
		}
		l, err := ParseXMLList(body, resp.contentType, resp.url, w.s.rules, w.c.clock.Now())
		if err != nil {
			w.badPage(page, err)
			continue
		}
		for _, sm := range l.Sitemaps {
			if w.visited[sm] {
				continue
			}
			if err := w.s.allowed.check(sm); err != nil {
				w.skip(sm, err)
				continue
			}
			todo = append(todo, sm)
		}
		if _, err := w.push(ctx, l.Items); err != nil {
			return err
		}
	}
	return nil
}

// json reads list API pages: {offset} from json.offset.start by step
// below limit, {page} from first_page, until the page cap or an empty
// page.
func (w *walk) json(ctx context.Context) error {
	limit := w.maxPages()
	tried := 0
	jsonp := w.s.cfg.Kind == "jsonp"
	for _, raw := range w.s.cfg.URLs {
		for _, page := range w.apiPages(raw) {
			if tried >= limit {
				return nil
			}
			if w.visited[page] {
				continue
			}
			tried++
			resp, err := w.get(ctx, page, nil)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				break // next start URL
			}
			items, skipped, err := ParseJSONList(resp.body, jsonp, w.s.cfg.JSON, resp.url, w.s.rules, w.c.clock.Now())
			if err != nil {
				w.badPage(page, err)
				break
			}
			w.rep.Skipped += skipped
			if len(items) == 0 {
				break // past the last page
			}
			n, err := w.push(ctx, items)
			if err != nil {
				return err
			}
			if n == 0 {
				break // the API repeats itself: nothing new to this run
			}
		}
	}
	return nil
}

func (w *walk) apiPages(raw string) []string {
	o := w.s.cfg.JSON.Offset
	if strings.Contains(raw, "{offset}") && o.Step > 0 {
		var out []string
		for off := o.Start; off < o.Limit && len(out) < w.maxPages(); off += o.Step {
			out = append(out, strings.ReplaceAll(raw, "{offset}", strconv.Itoa(off)))
		}
		return out
	}
	return w.pageURLs(raw)
}

// stripXMLDecl removes the <?xml ...?> declaration (and its encoding).
func stripXMLDecl(b []byte) []byte {
	s := strings.TrimLeft(string(b[:min(len(b), 512)]), "\ufeff \t\r\n")
	if strings.HasPrefix(s, "<?xml") {
		if i := strings.Index(string(b), "?>"); i >= 0 {
			return b[i+2:]
		}
	}
	return b
}
