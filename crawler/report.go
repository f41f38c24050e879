package crawler

import (
	"context"
	"errors"
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
