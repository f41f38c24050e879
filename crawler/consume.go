package crawler

import (
	"context"
	"errors"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/newsrank/newsrank/internal/metrics"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// Progress is a snapshot of a consume run, for a progress line.
type Progress struct {
	// Fetched counts article pages fetched, Stored articles handed to the
	// store (new or updated), Failed failed attempts (retried or dead).
	Fetched, Stored, Failed int64
	// Left is what the queues still hold: pending, in flight and waiting
	// for a retry (read at most once a second).
	Left int64
	// Rate is article pages fetched per second since the start.
	Rate    float64
	Elapsed time.Duration
}

// Report is what a RunOnce did.
type Report struct {
	Produce ProduceReport
	// Sources has one entry per source crawled, in config order.
	Sources []SourceReport
	Elapsed time.Duration
}

// SourceReport is what the consumers did for one source.
type SourceReport struct {
	Name string
	// Fetched counts article pages fetched; Created, Updated and TooOld
	// what the store did with them (news.Status).
	Fetched, Created, Updated, TooOld int64
	// Failed counts failed attempts by reason; Dead how many URLs went to
	// the dead letters in this run.
	Failed map[string]int64
	Dead   int64
	// Left is the source's queue at the end (Delayed: retries not yet
	// due, left for a later run).
	Left queue.Stats
}

// Stored is Created + Updated.
func (s SourceReport) Stored() int64 { return s.Created + s.Updated }

// Failures is the total of Failed.
func (s SourceReport) Failures() int64 {
	var n int64
	for _, v := range s.Failed {
		n += v
	}
	return n
}

// FailedSources lists the sources that failed entirely: the producer read
// no list page, or article pages were tried and not one was stored (nor
// found too old).
func (r Report) FailedSources() []string {
	failed := map[string]bool{}
	for _, name := range r.Produce.Failed() {
		failed[name] = true
	}
	for _, s := range r.Sources {
		if s.Failures() > 0 && s.Stored()+s.TooOld == 0 {
			failed[s.Name] = true
		}
	}
	var out []string
	for _, s := range r.Sources {
		if failed[s.Name] {
			out = append(out, s.Name)
		}
	}
	for _, p := range r.Produce.Sources {
		if failed[p.Name] && !slices.Contains(out, p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}

// Totals sums the sources.
func (r Report) Totals() SourceReport {
	t := SourceReport{Name: "total", Failed: map[string]int64{}}
	for _, s := range r.Sources {
		t.Fetched += s.Fetched
		t.Created += s.Created
		t.Updated += s.Updated
		t.TooOld += s.TooOld
		t.Dead += s.Dead
		for k, v := range s.Failed {
			t.Failed[k] += v
		}
		t.Left.Pending += s.Left.Pending
		t.Left.InFlight += s.Left.InFlight
		t.Left.Delayed += s.Left.Delayed
		t.Left.Done += s.Left.Done
		t.Left.Dead += s.Left.Dead
	}
	return t
}

// Consume runs the consumers on every source's queue until ctx ends. When
// it ends, no new URL is claimed; pages being fetched are finished (within
// crawler.request_timeout, after which they are handed back for a retry),
// stored and acknowledged. It returns nil after a normal stop, or an error
// that stopped it (Redis gone for good is not one: it keeps retrying).
func (c *Crawler) Consume(ctx context.Context) error {
	if len(c.sources) == 0 {
		return ErrNoSources
	}
	run := c.newRun(c.sources, false)
	return run.run(ctx, nil)
}

// RunOnce produces the given sources (all when names is empty), then
// consumes their queues until nothing is pending, due for a retry or in
// flight; retries due later are left for the next run (Report's Left). It
// calls progress (if not nil) about once a second. The error is for an
// unknown source or a cancelled context; sources that failed are in the
// report (FailedSources).
func (c *Crawler) RunOnce(ctx context.Context, progress func(Progress), names ...string) (Report, error) {
	srcs, err := c.pick(names)
	if err != nil {
		return Report{}, err
	}
	start := time.Now()
	prep, err := c.Produce(ctx, names...)
	rep := Report{Produce: prep}
	if err != nil {
		return rep, err
	}
	run := c.newRun(srcs, true)
	err = run.run(ctx, progress)
	rep.Sources = run.report(ctx)
	rep.Elapsed = time.Since(start)
	return rep, err
}

// job is one claimed URL.
type job struct {
	s    *source
	url  string
	item Fields
}

// counters are one source's counts in a run.
type counters struct {
	fetched, created, updated, tooOld, dead atomic.Int64
	mu                                      sync.Mutex
	failed                                  map[string]int64
}

// consumeRun is one Consume or RunOnce: a dispatcher claiming URLs for
// idle workers, the workers, and a lease heartbeat.
type consumeRun struct {
	c         *Crawler
	srcs      []*source
	qs        []*queue.Queue
	untilIdle bool
	counts    map[*source]*counters
	byQueue   map[*queue.Queue]*source
	slots     chan struct{} // one token per idle worker
	jobs      chan job
	mu        sync.Mutex
	inflight  map[*source]map[string]bool
	fetched   atomic.Int64
	stored    atomic.Int64
	failed    atomic.Int64
	rr        int
}

func (c *Crawler) newRun(srcs []*source, untilIdle bool) *consumeRun {
	r := &consumeRun{c: c, srcs: srcs, untilIdle: untilIdle, counts: map[*source]*counters{},
		byQueue: map[*queue.Queue]*source{}, inflight: map[*source]map[string]bool{},
		slots: make(chan struct{}, c.cfg.Workers), jobs: make(chan job)}
	for _, s := range srcs {
		r.qs = append(r.qs, s.queue)
		r.counts[s] = &counters{failed: map[string]int64{}}
		r.byQueue[s.queue] = s
		r.inflight[s] = map[string]bool{}
	}
	for range c.cfg.Workers {
		r.slots <- struct{}{}
	}
	return r
}

func (r *consumeRun) run(ctx context.Context, progress func(Progress)) error {
	// Work already claimed runs on a context that outlives ctx by the
	// request timeout, so a shutdown finishes it rather than losing it.
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.NewTimer(r.c.cfg.RequestTimeout.D() + time.Second)
		defer t.Stop()
		select {
		case <-t.C:
			cancelWork()
		case <-work.Done():
		}
	})
	defer stopGrace()

	var wg sync.WaitGroup
	for range r.c.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range r.jobs {
				r.process(work, j)
				r.done(j)
			}
		}()
	}
	hbCtx, stopHB := context.WithCancel(work)
	var aux sync.WaitGroup
	aux.Add(1)
	go func() { defer aux.Done(); r.heartbeat(hbCtx) }()
	start := time.Now()
	if progress != nil {
		aux.Add(1)
		go func() { defer aux.Done(); r.progress(hbCtx, start, progress) }()
	}

	err := r.dispatch(ctx)
	close(r.jobs)
	wg.Wait()
	stopHB()
	aux.Wait()
	if progress != nil {
		octx, cancel := opContext(ctx)
		progress(r.snapshot(octx, start))
		cancel()
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil && !r.untilIdle {
		return nil
	}
	return err
}

// dispatch claims URLs for idle workers until ctx ends or, untilIdle,
// until the queues are drained.
func (r *consumeRun) dispatch(ctx context.Context) error {
	lease := r.c.qcfg.Lease.D()
	batch := max(r.c.qcfg.ClaimBatch, 1)
	errDelay := r.c.qcfg.IdlePoll.D()
	for {
		// Take one idle worker (waiting for one), then any others idle now.
		select {
		case <-r.slots:
		case <-ctx.Done():
			return ctx.Err()
		}
		n := 1
	more:
		for n < batch {
			select {
			case <-r.slots:
				n++
			default:
				break more
			}
		}
		q, urls, err := r.claim(ctx, n, lease)
		for range n - len(urls) {
			r.slots <- struct{}{}
		}
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, errDrained):
			return nil
		case err != nil:
			r.c.log.Error("claim failed, retrying", "err", err, "retry_in", errDelay)
			if err := sleep(ctx, errDelay); err != nil {
				return err
			}
			// Capped low: after an outage the consumers should be back
			// within seconds of Redis, not idle for half a minute.
			errDelay = min(errDelay*2, 5*time.Second)
			continue
		}
		errDelay = r.c.qcfg.IdlePoll.D()
		if len(urls) == 0 {
			continue
		}
		s := r.byQueue[q]
		items := make([]Fields, len(urls))
		if s.items {
			octx, cancel := opContext(ctx)
			if items, err = r.c.loadItems(octx, s.cfg.Name, urls); err != nil {
				r.c.log.Warn("list item fields unavailable", "source", s.cfg.Name, "err", err)
				items = make([]Fields, len(urls))
			}
			cancel()
		}
		r.mu.Lock()
		for _, u := range urls {
			r.inflight[s][u] = true
		}
		r.mu.Unlock()
		for i, u := range urls {
			r.jobs <- job{s: s, url: u, item: items[i]}
		}
	}
}

// errDrained ends an untilIdle run.
var errDrained = errors.New("queues drained")

// claim claims up to n URLs. Consume waits for work (queue.ClaimAny);
// RunOnce looks at each queue in turn and, when none has work, waits for
// its own workers, then ends once no queue has anything pending or in
// flight.
func (r *consumeRun) claim(ctx context.Context, n int, lease time.Duration) (*queue.Queue, []string, error) {
	if !r.untilIdle {
		return queue.ClaimAny(ctx, r.qs, n, lease)
	}
	poll := min(r.c.qcfg.IdlePoll.D(), 50*time.Millisecond)
	for {
		for range r.qs {
			q := r.qs[r.rr%len(r.qs)]
			r.rr++
			urls, err := q.TryClaim(ctx, n, lease)
			if err != nil {
				return nil, nil, err
			}
			if len(urls) > 0 {
				return q, urls, nil
			}
		}
		if r.inflightCount() == 0 {
			busy, err := r.busy(ctx)
			if err != nil {
				return nil, nil, err
			}
			if !busy {
				return nil, nil, errDrained
			}
			// Another consumer holds leases: wait for it (or for its leases
			// to expire, which TryClaim reaps).
			poll = r.c.qcfg.IdlePoll.D()
		}
		if err := sleep(ctx, poll); err != nil {
			return nil, nil, err
		}
	}
}

// busy reports whether any queue has URLs pending or in flight.
func (r *consumeRun) busy(ctx context.Context) (bool, error) {
	for _, q := range r.qs {
		st, err := q.Stats(ctx)
		if err != nil {
			return false, err
		}
		if st.Pending > 0 || st.InFlight > 0 {
			return true, nil
		}
	}
	return false, nil
}

func (r *consumeRun) inflightCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.inflight {
		n += len(m)
	}
	return n
}

// done returns a worker's slot after a job.
func (r *consumeRun) done(j job) {
	r.mu.Lock()
	delete(r.inflight[j.s], j.url)
	r.mu.Unlock()
	r.slots <- struct{}{}
}

// heartbeat extends the leases of the URLs being fetched every third of
// the lease, so a slow fetch is not handed to another consumer.
func (r *consumeRun) heartbeat(ctx context.Context) {
	lease := r.c.qcfg.Lease.D()
	t := time.NewTicker(max(lease/3, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.mu.Lock()
		held := map[*source][]string{}
		for s, m := range r.inflight {
			if len(m) > 0 {
				held[s] = slices.Collect(maps.Keys(m))
			}
		}
		r.mu.Unlock()
		for s, urls := range held {
			if err := s.queue.Extend(ctx, lease, urls...); err != nil && ctx.Err() == nil {
				r.c.log.Warn("lease extension failed", "source", s.cfg.Name, "urls", len(urls), "err", err)
			}
		}
	}
}

func (r *consumeRun) progress(ctx context.Context, start time.Time, f func(Progress)) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f(r.snapshot(ctx, start))
		}
	}
}

func (r *consumeRun) snapshot(ctx context.Context, start time.Time) Progress {
	p := Progress{Fetched: r.fetched.Load(), Stored: r.stored.Load(), Failed: r.failed.Load(), Elapsed: time.Since(start)}
	if secs := p.Elapsed.Seconds(); secs > 0 {
		p.Rate = float64(p.Fetched) / secs
	}
	octx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	for _, q := range r.qs {
		if st, err := q.Stats(octx); err == nil {
			p.Left += st.Pending + st.InFlight + st.Delayed
		}
	}
	return p
}

func (r *consumeRun) report(ctx context.Context) []SourceReport {
	octx, cancel := opContext(ctx)
	defer cancel()
	var out []SourceReport
	for _, s := range r.srcs {
		k := r.counts[s]
		sr := SourceReport{Name: s.cfg.Name, Fetched: k.fetched.Load(), Created: k.created.Load(),
			Updated: k.updated.Load(), TooOld: k.tooOld.Load(), Dead: k.dead.Load()}
		k.mu.Lock()
		sr.Failed = maps.Clone(k.failed)
		k.mu.Unlock()
		if st, err := s.queue.Stats(octx); err == nil {
			sr.Left = st
		} else {
			r.c.log.Warn("queue stats", "source", s.cfg.Name, "err", err)
		}
		out = append(out, sr)
	}
	return out
}

// process fetches, extracts, stores and acknowledges one URL, or records
// its failure.
func (r *consumeRun) process(ctx context.Context, j job) {
	a, fetched, fe := r.c.article(ctx, j)
	if fetched {
		r.counts[j.s].fetched.Add(1)
		r.fetched.Add(1)
	}
	if fe == nil {
		fe = r.store(ctx, j, a)
	}
	if fe != nil && ctx.Err() != nil {
		// The shutdown grace ran out before the page was done: hand the
		// URL back without counting an attempt.
		r.release(ctx, j)
		return
	}
	if fe != nil {
		r.fail(ctx, j, fe)
		return
	}
	octx, cancel := opContext(ctx)
	defer cancel()
	if err := j.s.queue.Ack(octx, j.url); err != nil {
		// The article is stored; the lease will expire and the page be
		// fetched again, which updates it: nothing is lost.
		r.c.log.Error("ack failed", "source", j.s.cfg.Name, "url", j.url, "err", err)
		return
	}
	if j.s.items && !j.item.empty() {
		r.c.dropItem(octx, j.s.cfg.Name, j.url)
	}
}

// store hands a to the store and counts the outcome.
func (r *consumeRun) store(ctx context.Context, j job, a news.Article) *FetchError {
	octx, cancel := opContext(ctx)
	defer cancel()
	res, err := r.c.store.Ingest(octx, a)
	k := r.counts[j.s]
	switch {
	case errors.Is(err, news.ErrBadInput):
		return &FetchError{URL: j.url, Reason: "rejected", Err: err}
	case err != nil:
		return &FetchError{URL: j.url, Reason: ReasonStore, Retryable: true, Err: err}
	}
	switch res.Status {
	case news.Created:
		k.created.Add(1)
		r.stored.Add(1)
	case news.Updated:
		k.updated.Add(1)
		r.stored.Add(1)
	case news.TooOld:
		k.tooOld.Add(1)
	}
	return nil
}

// fail records a failed attempt: metrics, counts, and the queue (retry
// or dead letter).
func (r *consumeRun) fail(ctx context.Context, j job, fe *FetchError) {
	k := r.counts[j.s]
	reason, retryable, minDelay := fe.Reason, fe.Retryable, fe.RetryAfter
	metrics.PagesFailed.WithLabelValues(j.s.cfg.Name, reason).Inc()
	k.mu.Lock()
	k.failed[reason]++
	k.mu.Unlock()
	r.failed.Add(1)
	octx, cancel := opContext(ctx)
	defer cancel()
	dead, err := j.s.queue.Fail(octx, j.url, queue.Failure{Reason: reason, Err: fe, Retryable: retryable, MinDelay: minDelay})
	if err != nil {
		r.c.log.Error("recording a failure failed", "source", j.s.cfg.Name, "url", j.url, "reason", reason, "err", err)
		return
	}
	if dead {
		k.dead.Add(1)
		if j.s.items && !j.item.empty() {
			r.c.dropItem(octx, j.s.cfg.Name, j.url)
		}
	} else {
		r.c.log.Debug("page failed, will retry", "source", j.s.cfg.Name, "url", j.url, "reason", reason, "err", fe.Err)
	}
}

// release hands an unfinished URL back to the queue at shutdown.
func (r *consumeRun) release(ctx context.Context, j job) {
	octx, cancel := opContext(ctx)
	defer cancel()
	if _, err := j.s.queue.Release(octx, j.url); err != nil {
		r.c.log.Warn("could not hand back a URL at shutdown; it returns when its lease ends",
			"source", j.s.cfg.Name, "url", j.url, "err", err)
	}
}

// article fetches and reads the page of j; fetched reports whether the
// page itself was fetched.
func (c *Crawler) article(ctx context.Context, j job) (a news.Article, fetched bool, fe *FetchError) {
	s := j.s
	resp, err := c.fetch.fetch(ctx, fetchReq{url: j.url, allowed: s.allowed, charset: s.cfg.Charset, accept: isHTML})
	if err != nil {
		if errors.As(err, &fe) {
			return a, false, fe
		}
		return a, false, &FetchError{URL: j.url, Reason: "shutdown", Retryable: true, Err: err}
	}
	metrics.PagesFetched.WithLabelValues(s.cfg.Name, "article").Inc()
	a, fe = c.read(j, resp)
	return a, true, fe
}

// read extracts the article from a fetched page and merges the list
// item's fields.
func (c *Crawler) read(j job, resp *response) (news.Article, *FetchError) {
	s := j.s
	now := c.clock.Now()
	page, err := Extract(resp.body, resp.contentType, resp.url, s.rules, now, j.item)
	if err != nil {
		return news.Article{}, &FetchError{URL: j.url, Reason: ReasonDecode, Status: resp.status, Err: err}
	}
	f := page.Merge(j.item)
	if f.PostTime.IsZero() && f.BadTime != "" {
		metrics.PostTimesUnread.WithLabelValues(s.cfg.Name).Inc()
		c.log.Warn("post time unreadable; the crawl time stands in", "source", s.cfg.Name, "url", j.url, "time", f.BadTime)
	}
	if strings.TrimSpace(f.Title) == "" {
		return news.Article{}, &FetchError{URL: j.url, Reason: ReasonNoTitle, Status: resp.status, Err: ErrNoTitle}
	}
	a := news.Article{
		URL:       c.articleURL(s, j.url, resp.url, page.Canonical),
		Title:     clip(f.Title, news.MaxTitle),
		PostTime:  f.PostTime,
		Source:    clip(firstNonEmpty(f.Source, s.cfg.Name), 200),
		Summary:   clip(f.Summary, 2000),
		Image:     f.Image,
		BodyLen:   page.BodyLen,
		Groups:    s.cfg.Groups,
		CrawlTime: now,
	}
	if len(a.Image) > queue.MaxURLLen {
		a.Image = ""
	}
	if f.Comments != nil {
		a.Comments = *f.Comments
	}
	if a.URL != j.url {
		// Stored under the page's canonical or final URL: the list's URL
		// still leads to it when the producer refreshes its comment count.
		a.Aliases = []string{j.url}
	}
	return a, nil
}

// articleURL is the URL the article is stored under: the page's declared
// canonical URL when it is on the source's allowed domains and is not a
// site's front page, else the final URL after redirects, canonicalised.
func (c *Crawler) articleURL(s *source, claimed, final, declared string) string {
	for _, u := range []string{declared, final} {
		if u == "" {
			continue
		}
		cu, err := queue.Canonical(u)
		if err != nil || !domainAllowed(hostOf(cu), s.allowed) {
			continue
		}
		if u == declared {
			if p, err := url.Parse(cu); err != nil || (p.Path == "/" && p.RawQuery == "") {
				continue // "canonical" pointing at the front page: a site bug
			}
		}
		return cu
	}
	return claimed
}

// clip cuts s to at most n bytes on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
