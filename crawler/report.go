package crawler

import (
	"context"
	"errors"
	"maps"
	"time"

	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/queue"
)

// Report is what a RunOnce did.
type Report struct {
	Produce ProduceReport
	// Sources has one entry per source crawled, in config order, also
	// when the run was interrupted (what it did until then).
	Sources []SourceReport
	Elapsed time.Duration
	// Interrupted: the context ended before the run did.
	Interrupted bool
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
	// Oldest is the earliest post time of the articles created (zero:
	// none): how far back the run's new articles reach, which the regroup
	// after a crawl -once looks at.
	Oldest time.Time
	// Left is the source's queue at the end (Delayed: retries not yet
	// due, left for a later run).
	Left queue.Stats
}

// Stored is Created + Updated.
func (s SourceReport) Stored() int64 { return s.Created + s.Updated }

// Failures is the total of Failed, robots.txt-disallowed URLs included.
func (s SourceReport) Failures() int64 {
	var n int64
	for _, v := range s.Failed {
		n += v
	}
	return n
}

// Disallowed is how many URLs robots.txt disallows: they are dead letters
// with reason "robots" and were never fetched. Policy, not a failure.
func (s SourceReport) Disallowed() int64 { return s.Failed[fetch.ReasonRobots] }

// FailedSources lists the sources that could not be read at all in this
// run: not one of their list pages (feeds, sitemaps, list API pages) could
// be read. What happened to single article pages does not fail a source:
// a page that failed for good is a dead letter, one that may work later
// waits for its retry (SourceReport.Left.Delayed), and both are in the
// report. A source whose listing was interrupted did not fail.
func (r Report) FailedSources() []string {
	var out []string
	for _, p := range r.Produce.Sources {
		if p.Err != nil && !errors.Is(p.Err, context.Canceled) && !errors.Is(p.Err, context.DeadlineExceeded) {
			out = append(out, p.Name)
		}
	}
	return out
}

// InterruptedSources lists the sources whose list pages were not all read
// because the run was interrupted.
func (r Report) InterruptedSources() []string {
	var out []string
	for _, p := range r.Produce.Sources {
		if errors.Is(p.Err, context.Canceled) || errors.Is(p.Err, context.DeadlineExceeded) {
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
		if !s.Oldest.IsZero() && (t.Oldest.IsZero() || s.Oldest.Before(t.Oldest)) {
			t.Oldest = s.Oldest
		}
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

// ProduceReport is what one Produce run did.
type ProduceReport struct {
	Sources []SourceProduce
}

// SourceProduce is what the producer did for one source.
type SourceProduce struct {
	Name string
	// Pages is how many list pages (feeds, sitemaps, API pages) were
	// read; PageErrors how many could not be. Discarded counts the pages
	// read ahead past where the walk stopped (read_ahead.go), not used.
	Pages, PageErrors, Discarded int
	// NotModified counts the list pages that answered 304 to a
	// conditional request, Unchanged those whose body was the same as at
	// their last answer: neither is parsed again. Bytes is the list
	// bodies' size, after inflation.
	NotModified, Unchanged int
	Bytes                  int64
	// Found is how many article URLs the pages listed (on the allowed
	// domains, deduplicated among the walk's last 1,024 or more: a URL
	// listed again further away counts again); New how many of them were
	// queued for the first time.
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
	// MaxAge is the longest the list pages' answers stay fresh
	// (Cache-Control max-age less Age, at most 30 days), RetryAfter the
	// longest Retry-After sent with a failed one (at most 7 days): the
	// adaptive poll honours them.
	MaxAge, RetryAfter time.Duration
	// maxAgeWhy says how MaxAge was read, for the poll's reason.
	maxAgeWhy string
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

// report is the run's SourceReports, with each queue's stats at the end.
func (r *consumeRun) report(ctx context.Context) []SourceReport {
	octx, cancel := opContext(ctx)
	defer cancel()
	var out []SourceReport
	for _, s := range r.srcs {
		k := r.counts[s]
		sr := SourceReport{Name: s.cfg.Name, Fetched: k.fetched.Load(), Created: k.created.Load(),
			Updated: k.updated.Load(), TooOld: k.tooOld.Load(), Dead: k.dead.Load()}
		if o := k.oldest.Load(); o != 0 {
			sr.Oldest = time.Unix(o, 0)
		}
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
