package crawler

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/queue"
)

// Progress is a snapshot of a RunOnce, for a progress line.
type Progress struct {
	// Listing is true while the producer reads the sources' list pages
	// (feeds, sitemaps, list APIs); ListPages counts the pages read, Found
	// the article URLs they listed and New those queued for the first
	// time; SourcesDone of Sources have been read to the end.
	Listing               bool
	ListPages, Found, New int64
	SourcesDone, Sources  int
	// Fetched counts article pages fetched, Stored articles handed to the
	// store (new or updated), Failed failed attempts (retried or dead),
	// Disallowed URLs robots.txt disallows (dead, never fetched).
	Fetched, Stored, Failed, Disallowed int64
	// Left is what the queues still hold to fetch now (pending and in
	// flight); RetryLater the URLs waiting for a retry that is not due
	// yet. Both are read from Redis at most once a second.
	Left, RetryLater int64
	// Rate is article pages fetched per second since the consumers started.
	Rate float64
	// Elapsed is the time since the run started.
	Elapsed time.Duration
	// NextRetry, when not zero, is how long until the next retry is due
	// while RunOptions.WaitRetries waits for it (nothing else is left).
	NextRetry time.Duration
	// Limit, when not nil, names the per-host politeness setting that holds
	// requests back right now (fetch.Fetcher.Limit).
	Limit *fetch.HostLimit
}

// RunOptions adjust RunOnceWith.
type RunOptions struct {
	// Progress, when set, is called about once a second while the run
	// goes on, and once at its end.
	Progress func(Progress)
	// WaitRetries: once nothing is pending or in flight, keep going for up
	// to this long for the retries that come due within it, instead of
	// leaving them to the next run. 0 leaves them.
	WaitRetries time.Duration
}

// produceCounts are a producer run's running totals, for Progress. Its
// methods do nothing on a nil receiver (Produce keeps no totals).
type produceCounts struct {
	pages, found, new, sourcesDone atomic.Int64
	// pushed, when not nil, is signalled when URLs were queued or a
	// source is done, so RunOnce's consumers claim them at once.
	pushed chan struct{}
	// lastPush is the queue URLs were last queued to, for the consumers
	// to claim from first (not one claim per queue in turn).
	lastPush atomic.Pointer[queue.Queue]
	// first, when not nil, is closed once the run's first article URL is
	// done (see waitFirst), and then onFirst lets the consumers claim for
	// all their fetch slots; started counts the walks begun, reading
	// those begun and not done that do not wait in waitFirst.
	first            chan struct{}
	firstOnce        sync.Once
	onFirst          func()    // called when first is closed
	begun            time.Time // the run's start
	firstPush        sync.Once
	started, reading atomic.Int64
}

// waitFirst is called by a source's walk before each list page after its
// first one: in a RunOnce, it waits until the consumers are done with the
// run's first article URL, so that the first article is not fetched while
// every source reads its next list pages at once (on a couple of cores,
// it would be stored only when they are all read). It waits no longer
// than that: the consumers open it also when they find nothing to claim
// while no walk is reading a page (every walk begun waits here or is
// done: the walks not begun yet may wait for those, crawler.workers at
// once), and when they stop; and it opens at the latest as long after
// the first push as the run took to get there (openFirstLater).
func (p *produceCounts) waitFirst(ctx context.Context) error {
	if p == nil || p.first == nil {
		return nil
	}
	select {
	case <-p.first:
		return nil
	default:
	}
	p.reading.Add(-1)
	defer p.reading.Add(1)
	p.wakeConsumers() // to look whether anything was queued at all
	select {
	case <-p.first:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// idleWalks reports whether walks began and none is reading a page now.
func (p *produceCounts) idleWalks() bool {
	return p.started.Load() > 0 && p.reading.Load() == 0
}

// openFirstLater opens first at the latest as long after the run's first
// push as the run took to get there (robots.txt and a list page): the
// first article's head start is bounded even if its page hangs.
func (p *produceCounts) openFirstLater() {
	if p != nil && p.first != nil {
		p.firstPush.Do(func() { time.AfterFunc(time.Since(p.begun), p.openFirst) })
	}
}

// beforeFirst reports whether a RunOnce waits for its first article URL
// to be done (waitFirst).
func (p *produceCounts) beforeFirst() bool {
	if p == nil || p.first == nil {
		return false
	}
	select {
	case <-p.first:
		return false
	default:
		return true
	}
}

// openFirst lets the walks read on (waitFirst).
func (p *produceCounts) openFirst() {
	if p != nil && p.first != nil {
		p.firstOnce.Do(func() {
			close(p.first)
			if p.onFirst != nil {
				p.onFirst()
			}
		})
	}
}

// wakeConsumers signals pushed without waiting.
func (p *produceCounts) wakeConsumers() {
	if p != nil && p.pushed != nil {
		select {
		case p.pushed <- struct{}{}:
		default:
		}
	}
}

// waitPush waits until the producer queued URLs (or a source is done),
// at most d.
func (p *produceCounts) waitPush(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.pushed:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

func (p *produceCounts) page(n int64) {
	if p != nil {
		p.pages.Add(n)
	}
}

func (p *produceCounts) urls(q *queue.Queue, found, added int) {
	if p != nil {
		p.found.Add(int64(found))
		p.new.Add(int64(added))
		if added > 0 {
			p.queued(q)
		}
	}
}

// queued tells the consumers that URLs were queued to q.
func (p *produceCounts) queued(q *queue.Queue) {
	if p != nil {
		p.lastPush.Store(q)
		p.wakeConsumers()
		p.openFirstLater()
	}
}

// sourceStart counts a walk begun.
func (p *produceCounts) sourceStart() {
	if p != nil {
		p.started.Add(1)
		p.reading.Add(1)
	}
}

func (p *produceCounts) sourceDone() {
	if p != nil {
		p.reading.Add(-1)
		p.sourcesDone.Add(1)
		p.wakeConsumers()
	}
}

// watchProgress calls f about once a second until the returned stop is
// called; stop waits for it and makes the last call.
func (r *consumeRun) watchProgress(ctx context.Context, f func(Progress)) (stop func()) {
	if f == nil {
		return func() {}
	}
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				octx, cancel := opContext(ctx)
				f(r.snapshot(octx))
				cancel()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		octx, cancel := opContext(ctx)
		defer cancel()
		f(r.snapshot(octx))
	}
}

func (r *consumeRun) snapshot(ctx context.Context) Progress {
	p := Progress{
		Listing:     r.listing.Load(),
		ListPages:   r.prod.pages.Load(),
		Found:       r.prod.found.Load(),
		New:         r.prod.new.Load(),
		SourcesDone: int(r.prod.sourcesDone.Load()),
		Sources:     len(r.srcs),
		Fetched:     r.fetched.Load(),
		Stored:      r.stored.Load(),
		Failed:      r.failed.Load(),
		Disallowed:  r.disallowed.Load(),
		Elapsed:     time.Since(r.start),
	}
	if at := r.consumeStart.Load(); at != 0 {
		if secs := time.Since(time.Unix(0, at)).Seconds(); secs > 0 {
			p.Rate = float64(p.Fetched) / secs
		}
	}
	if due := r.retryDue.Load(); due != 0 {
		p.NextRetry = max(time.Until(time.Unix(0, due)), 0)
	}
	octx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	for _, q := range r.qs {
		if st, err := q.Stats(octx); err == nil {
			p.Left += st.Pending + st.InFlight
			p.RetryLater += st.Delayed
		}
	}
	if l, ok := r.c.fetcher.Limit(); ok {
		p.Limit = &l
	}
	return p
}
