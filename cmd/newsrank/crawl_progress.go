package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/newsrank/newsrank/crawler"
)

// progressPrinter shows crawl progress: a status line redrawn in place on
// a terminal (the console keeps log records above it), or a log line
// every 10 seconds.
type progressPrinter struct {
	con  *console
	mode string // line, log or none
	log  *slog.Logger
	last time.Time
	rate rateWindow
}

// newProgressPrinter resolves mode: auto and line draw a line on a
// terminal and log elsewhere.
func newProgressPrinter(w io.Writer, mode string, log *slog.Logger) *progressPrinter {
	con := consoleOf(w)
	if mode == "auto" || mode == "line" {
		mode = "log"
		if con.Terminal() {
			mode = "line"
		}
	}
	return &progressPrinter{con: con, mode: mode, log: log, last: time.Now()}
}

const logProgressEvery = 10 * time.Second

func (p *progressPrinter) update(pr crawler.Progress) {
	recent := p.rate.add(pr)
	switch p.mode {
	case "line":
		p.con.SetStatus(progressLine(pr, recent))
	case "log":
		if time.Since(p.last) < logProgressEvery {
			return
		}
		p.last = time.Now()
		msg, attrs := progressAttrs(pr, recent)
		p.log.Info(msg, attrs...)
	}
}

// finish removes the progress line before the summary.
func (p *progressPrinter) finish() {
	if p.mode == "line" {
		p.con.ClearStatus()
	}
}

// rateWindow is the rate of article pages over the last rateSpan of
// progress reports, for the ETA: the rate since the start would lag when
// the crawl speeds up or slows down.
type rateWindow struct {
	samples []rateSample
}

type rateSample struct {
	at      time.Duration
	fetched int64
}

// rateSpan is the window; minRateSpan the least it takes to be used.
const (
	rateSpan    = 10 * time.Second
	minRateSpan = 3 * time.Second
)

// add takes a progress report and returns the recent rate of article
// pages per second: over the window once it spans minRateSpan, until
// then the rate since the consumers started.
func (w *rateWindow) add(pr crawler.Progress) float64 {
	if pr.Listing {
		w.samples = w.samples[:0]
		return 0
	}
	w.samples = append(w.samples, rateSample{pr.Elapsed, pr.Fetched})
	for len(w.samples) > 2 && pr.Elapsed-w.samples[1].at >= rateSpan {
		w.samples = w.samples[1:]
	}
	first, last := w.samples[0], w.samples[len(w.samples)-1]
	if d := last.at - first.at; d >= minRateSpan {
		return float64(last.fetched-first.fetched) / d.Seconds()
	}
	return pr.Rate
}

// eta is how long the URLs left take at rate; ok false when unknown.
func eta(left int64, rate float64) (time.Duration, bool) {
	if left <= 0 || rate <= 0 {
		return 0, false
	}
	return time.Duration(float64(left) / rate * float64(time.Second)), true
}

// shortDuration writes 42s, 3m05s or 2h10m.
func shortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// progressLine is the terminal's progress line; recent is the recent
// rate of article pages per second (for the ETA).
func progressLine(pr crawler.Progress, recent float64) string {
	var b strings.Builder
	if pr.Listing {
		fmt.Fprintf(&b, "reading lists: %s read, %s found (%d new), %d of %d sources done",
			plural(pr.ListPages, "list page"), plural(pr.Found, "URL"), pr.New, pr.SourcesDone, pr.Sources)
	} else {
		fmt.Fprintf(&b, "fetched %d  stored %d  failed %d", pr.Fetched, pr.Stored, pr.Failed)
		if pr.Disallowed > 0 {
			fmt.Fprintf(&b, "  robots %d", pr.Disallowed)
		}
		fmt.Fprintf(&b, "  left %d", pr.Left)
		if pr.RetryLater > 0 {
			fmt.Fprintf(&b, "  retry later %d", pr.RetryLater)
		}
		fmt.Fprintf(&b, "  %.1f pages/s", recent)
		if d, ok := eta(pr.Left, recent); ok {
			fmt.Fprintf(&b, "  ETA %s", shortDuration(max(d, time.Second)))
		}
		if pr.NextRetry > 0 {
			fmt.Fprintf(&b, "  waiting for retries (next in %s)", shortDuration(pr.NextRetry))
		}
	}
	fmt.Fprintf(&b, "  %s", shortDuration(pr.Elapsed))
	if pr.Limit != nil {
		fmt.Fprintf(&b, "  limited by %s", pr.Limit)
	}
	return b.String()
}

// progressAttrs is the progress as a log record (off a terminal).
func progressAttrs(pr crawler.Progress, recent float64) (string, []any) {
	var msg string
	var attrs []any
	if pr.Listing {
		msg = "reading lists"
		attrs = []any{"list_pages", pr.ListPages, "urls_found", pr.Found, "urls_new", pr.New,
			"sources_done", pr.SourcesDone, "sources", pr.Sources}
	} else {
		msg = "crawl progress"
		attrs = []any{"fetched", pr.Fetched, "stored", pr.Stored, "failed", pr.Failed, "robots", pr.Disallowed,
			"left", pr.Left, "retry_later", pr.RetryLater, "pages_per_s", fmt.Sprintf("%.1f", recent)}
		if d, ok := eta(pr.Left, recent); ok {
			attrs = append(attrs, "eta", shortDuration(d))
		}
	}
	attrs = append(attrs, "elapsed", shortDuration(pr.Elapsed))
	if pr.Limit != nil {
		attrs = append(attrs, "limited_by", pr.Limit.String())
	}
	return msg, attrs
}
