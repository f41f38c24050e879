package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/jobs"
)

const crawlAbout = `
Crawl the sources of crawler.sources: the producer walks each source's list
pages, feeds, sitemaps or list API and queues the article URLs it has not
seen; the consumers fetch the article pages and store the articles.

With -once it produces, then consumes until nothing is pending or in
flight, and prints a summary per source. Retries not due yet are left for
the next run; -wait-retries waits up to -wait for those due within it. On
a terminal a live progress line shows the list pages read and URLs found,
then the pages fetched, what is left, the rate, an ETA and, when the
per-host politeness is what holds the crawl back, which setting (for
example "limited by crawler.delay 500ms on news.example.com"); log records
print above it. Elsewhere a progress log line comes every 10 seconds.

Exit status: 0 done; 1 when a source could not be read at all (none of its
list pages); 2 usage or configuration error; 3 another crawl holds the
lock; 130 (SIGINT, Ctrl-C) or 143 (SIGTERM) when interrupted. An interrupted
crawl finishes the pages being fetched (within crawler.request_timeout),
prints "interrupted", the summary so far and what is kept: on a real Redis
the URLs left stay queued for the next run or a daemon's consumers; on the
embedded Redis they are lost with the process.

Without -once it produces once, then keeps consuming until SIGINT or SIGTERM
(the daemon runs the same consumers), and exits 0. A first signal stops
claiming new URLs and lets the pages being fetched finish; a second one
aborts.`

// sourceList is a repeatable -source flag that also takes commas.
type sourceList []string

func (s *sourceList) String() string { return strings.Join(*s, ",") }

func (s *sourceList) Set(v string) error {
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(*s, n) {
			*s = append(*s, n)
		}
	}
	return nil
}

// defaultRetryWait is -wait's default.
const defaultRetryWait = 5 * time.Minute

func runCrawl(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "crawl", "crawl [-once [-wait-retries [-wait 5m]]] [-source NAME] [-config FILE] [flags]", crawlAbout)
	common := addCommon(fs)
	once := fs.Bool("once", false, "produce, consume until done, print a summary and exit")
	var sources sourceList
	fs.Var(&sources, "source", "crawl only this source (repeat the flag or separate names with commas; default: all)")
	asJSON := fs.Bool("json", false, "-once: print the summary as JSON (for scripts) instead of a table")
	progress := fs.String("progress", "auto", "-once: progress display: auto or line (a live line on a terminal, log lines every 10s otherwise), log or none")
	waitRetries := fs.Bool("wait-retries", false, "-once: when only retries are left, wait for those due within -wait instead of leaving them to the next run")
	wait := fs.Duration("wait", defaultRetryWait, "with -wait-retries: how long to wait for retries once nothing else is left")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if !slices.Contains([]string{"auto", "line", "log", "none"}, *progress) {
		return usageError("-progress must be auto, line, log or none, got %q", *progress)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case set["wait"] && !*waitRetries:
		return usageError("-wait is the bound of -wait-retries: add -wait-retries")
	case *waitRetries && !*once:
		return usageError("-wait-retries is for -once (without -once the consumers keep running and take retries when due)")
	case *wait <= 0:
		return usageError("-wait must be positive, got %s", *wait)
	}
	cfg, log, err := common.load(std)
	if err != nil {
		return err
	}
	if len(cfg.Crawler.Sources) == 0 {
		return fmt.Errorf("%w: crawler.sources is empty: nothing to crawl", errConfig)
	}
	for _, n := range sources {
		if !slices.ContainsFunc(cfg.Crawler.Sources, func(s config.Source) bool { return s.Name == n }) {
			var names []string
			for _, s := range cfg.Crawler.Sources {
				names = append(names, s.Name)
			}
			return usageError("-source %q: not in crawler.sources (%s)", n, strings.Join(names, ", "))
		}
	}
	embeddedNotice(std.err, "crawl", cfg.Redis)
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	c := a.crawler

	if !*once {
		return crawlForever(ctx, log, c, sources)
	}
	p := newProgressPrinter(std.err, *progress, log)
	opts := crawler.RunOptions{Progress: p.update}
	if *waitRetries {
		opts.WaitRetries = *wait
	}
	// The "crawl" job's run: the same lock as the daemon's scheduled crawl
	// and the systemd timer, recorded in the job's history.
	rep, err := a.crawlOnce(ctx, jobs.TriggerManual, opts, sources...)
	p.finish()
	summary := printCrawlSummary
	if *asJSON {
		summary = printCrawlJSON
	}
	switch {
	case errors.Is(err, jobs.ErrLocked):
		return fmt.Errorf("%w: another crawl (the daemon's schedule, a timer or another crawl -once) is running", errSkipped)
	case rep.Interrupted:
		summary(std.out, rep)
		return &interruptedError{a.keptAfterInterrupt(rep)}
	case err != nil && len(rep.FailedSources()) == 0:
		return err
	}
	summary(std.out, rep)
	if failed := rep.FailedSources(); len(failed) > 0 {
		return fmt.Errorf("%d of %d sources could not be read at all (no list page): %s", len(failed), len(rep.Produce.Sources), strings.Join(failed, ", "))
	}
	return nil
}

// keptAfterInterrupt says what an interrupted crawl leaves behind.
func (a *app) keptAfterInterrupt(rep crawler.Report) string {
	t := rep.Totals()
	left, later := t.Left.Pending+t.Left.InFlight, t.Left.Delayed
	var msg string
	switch {
	case a.rdb.Embedded():
		msg = fmt.Sprintf("this crawl used the embedded in-memory Redis, which ends with this process: the %s left%s are lost, "+
			"and so are the %s stored", plural(left, "URL"), waitingText(later), plural(t.Stored(), "article"))
	default:
		msg = fmt.Sprintf("the %s left%s stay queued in Redis (%s) for the next crawl -once or a daemon's consumers; the %s stored are kept",
			plural(left, "URL"), waitingText(later), a.rdb.Addr, plural(t.Stored(), "article"))
	}
	if srcs := rep.InterruptedSources(); len(srcs) > 0 {
		msg += fmt.Sprintf("; the list pages of %s were not all read: the next run reads them again", strings.Join(srcs, ", "))
	}
	return msg
}

func waitingText(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (and %s waiting for a retry)", plural(n, "URL"))
}

// plural writes "1 URL", "2 URLs".
func plural[N int | int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// crawlForever produces once, then consumes until ctx ends.
func crawlForever(ctx context.Context, log *slog.Logger, c *crawler.Crawler, sources []string) error {
	rep, err := c.Produce(ctx, sources...)
	if err != nil {
		return err
	}
	if failed := rep.Failed(); len(failed) > 0 {
		log.Error("some sources could not be read; consuming what is queued", "failed", strings.Join(failed, ","))
	}
	log.Info("consuming until SIGINT or SIGTERM", "new_urls", rep.New(), "sources", len(rep.Sources))
	return c.Consume(ctx)
}

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

// printCrawlSummary prints one line per source and the totals.
func printCrawlSummary(w io.Writer, rep crawler.Report) {
	prod := map[string]crawler.SourceProduce{}
	for _, p := range rep.Produce.Sources {
		prod[p.Name] = p
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "source\tlist pages\tURLs found\tnew\trefreshed\tpushes retried\tfetched\tstored\tupdated\ttoo old\tfailed\trobots\tdead\tleft\tretry later\t")
	var tp crawler.SourceProduce
	row := func(s crawler.SourceReport, p crawler.SourceProduce) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", s.Name, p.Pages, p.Found, p.New, p.Refreshed, p.Retried,
			s.Fetched, s.Created, s.Updated, s.TooOld, s.Failures()-s.Disallowed(), s.Disallowed(), s.Dead, s.Left.Pending+s.Left.InFlight, s.Left.Delayed)
	}
	for _, s := range rep.Sources {
		p := prod[s.Name]
		tp.Pages += p.Pages
		tp.Found += p.Found
		tp.New += p.New
		tp.Refreshed += p.Refreshed
		tp.Retried += p.Retried
		row(s, p)
	}
	t := rep.Totals()
	row(t, tp)
	tw.Flush()
	reasons := make([]string, 0, len(t.Failed))
	for r := range t.Failed {
		if r != crawler.ReasonRobots {
			reasons = append(reasons, r)
		}
	}
	if len(reasons) > 0 {
		sort.Slice(reasons, func(i, j int) bool {
			return t.Failed[reasons[i]] > t.Failed[reasons[j]] || t.Failed[reasons[i]] == t.Failed[reasons[j]] && reasons[i] < reasons[j]
		})
		var parts []string
		for _, r := range reasons {
			parts = append(parts, fmt.Sprintf("%s %d", r, t.Failed[r]))
		}
		fmt.Fprintf(w, "failures: %s  (newsrank queue dead: the dead letters)\n", strings.Join(parts, ", "))
	}
	if n := t.Disallowed(); n > 0 {
		fmt.Fprintf(w, "robots: %s disallowed by robots.txt, not fetched (dead letters with reason robots)\n", plural(n, "URL"))
	}
	if n := t.Left.Delayed; n > 0 && !rep.Interrupted {
		fmt.Fprintf(w, "retry later: %s wait for a retry that is not due yet: the next crawl -once or a daemon's consumers fetch them "+
			"(crawl -once -wait-retries waits for those due soon)\n", plural(n, "URL"))
	}
	for _, p := range rep.Produce.Sources {
		if p.Err != nil && !slices.Contains(rep.InterruptedSources(), p.Name) {
			fmt.Fprintf(w, "source %s could not be read: %v\n", p.Name, p.Err)
		}
	}
	rate := 0.0
	if secs := rep.Elapsed.Seconds(); secs > 0 {
		rate = float64(t.Fetched) / secs
	}
	fmt.Fprintf(w, "took %s, %.1f article pages/s\n", rep.Elapsed.Round(time.Millisecond), rate)
}

// crawlJSON is the -json summary of one source or of the total.
type crawlJSON struct {
	Source     string           `json:"source"`
	ListPages  int              `json:"list_pages"`
	PageErrors int              `json:"list_page_errors"`
	Found      int              `json:"urls_found"`
	New        int              `json:"urls_new"`
	Refreshed  int              `json:"refreshed"`
	Retried    int              `json:"pushes_retried"`
	Fetched    int64            `json:"fetched"`
	Created    int64            `json:"stored"`
	Updated    int64            `json:"updated"`
	TooOld     int64            `json:"too_old"`
	Failed     map[string]int64 `json:"failed"`
	Robots     int64            `json:"robots"`
	Dead       int64            `json:"dead"`
	Left       int64            `json:"left"`
	RetryLater int64            `json:"retry_later"`
	Error      string           `json:"error,omitempty"`
}

func printCrawlJSON(w io.Writer, rep crawler.Report) {
	prod := map[string]crawler.SourceProduce{}
	for _, p := range rep.Produce.Sources {
		prod[p.Name] = p
	}
	view := func(s crawler.SourceReport, p crawler.SourceProduce) crawlJSON {
		v := crawlJSON{Source: s.Name, ListPages: p.Pages, PageErrors: p.PageErrors, Found: p.Found, New: p.New, Refreshed: p.Refreshed, Retried: p.Retried,
			Fetched: s.Fetched, Created: s.Created, Updated: s.Updated, TooOld: s.TooOld, Failed: s.Failed, Robots: s.Disallowed(), Dead: s.Dead,
			Left: s.Left.Pending + s.Left.InFlight, RetryLater: s.Left.Delayed}
		if p.Err != nil {
			v.Error = p.Err.Error()
		}
		return v
	}
	out := struct {
		Sources  []crawlJSON `json:"sources"`
		Total    crawlJSON   `json:"total"`
		ElapsedS float64     `json:"elapsed_s"`
		Failed   []string    `json:"failed_sources"`
		// Interrupted: a signal stopped the crawl; the counts are until then.
		Interrupted bool `json:"interrupted"`
	}{ElapsedS: rep.Elapsed.Seconds(), Failed: rep.FailedSources(), Interrupted: rep.Interrupted}
	var tp crawler.SourceProduce
	for _, s := range rep.Sources {
		p := prod[s.Name]
		tp.Pages += p.Pages
		tp.PageErrors += p.PageErrors
		tp.Found += p.Found
		tp.New += p.New
		tp.Refreshed += p.Refreshed
		tp.Retried += p.Retried
		out.Sources = append(out.Sources, view(s, p))
	}
	out.Total = view(rep.Totals(), tp)
	if out.Failed == nil {
		out.Failed = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out)
}
