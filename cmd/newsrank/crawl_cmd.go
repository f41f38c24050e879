package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
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

With -once it produces, then consumes until nothing is pending, in flight or
due for a retry (retries due later are left for the next run), showing
progress on the terminal and a summary at the end. The exit status is 1 when
a source failed entirely (no list page could be read, or none of its
articles could be stored).

Without -once it produces once, then keeps consuming until SIGINT or SIGTERM
(the daemon runs the same consumers). A first signal stops claiming new URLs
and lets the pages being fetched finish; a second one aborts.`

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

func runCrawl(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "crawl", "crawl [-once] [-source NAME] [-config FILE] [flags]", crawlAbout)
	common := addCommon(fs)
	once := fs.Bool("once", false, "produce, consume until done, print a summary and exit")
	var sources sourceList
	fs.Var(&sources, "source", "crawl only this source (repeat the flag or separate names with commas; default: all)")
	asJSON := fs.Bool("json", false, "-once: print the summary as JSON (for scripts) instead of a table")
	progress := fs.String("progress", "auto", "progress display: auto (a live line on a terminal, log lines otherwise), line, log or none")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if !slices.Contains([]string{"auto", "line", "log", "none"}, *progress) {
		return usageError("-progress must be auto, line, log or none, got %q", *progress)
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
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	c := a.crawler

	if !*once {
		return crawlForever(ctx, log, c, sources)
	}
	mode := *progress
	if mode == "auto" {
		mode = "log"
		if isTerminal(std.err) {
			mode = "line"
		}
	}
	p := newProgressPrinter(std.err, mode, log)
	// The "crawl" job's run: the same lock as the daemon's scheduled crawl
	// and the systemd timer, recorded in the job's history.
	rep, err := a.crawlOnce(ctx, jobs.TriggerManual, p.update, sources...)
	p.finish()
	summary := printCrawlSummary
	if *asJSON {
		summary = printCrawlJSON
	}
	switch {
	case errors.Is(err, jobs.ErrLocked):
		return fmt.Errorf("%w: another crawl (the daemon's schedule, a timer or another crawl -once) is running", errSkipped)
	case errors.Is(err, context.Canceled):
		summary(std.out, rep)
		fmt.Fprintln(std.err, "newsrank crawl: interrupted; the URLs left stay queued for the next run")
		return err
	case err != nil && len(rep.FailedSources()) == 0:
		return err
	}
	summary(std.out, rep)
	if failed := rep.FailedSources(); len(failed) > 0 {
		return fmt.Errorf("%d of %d sources failed entirely: %s", len(failed), len(rep.Sources), strings.Join(failed, ", "))
	}
	return nil
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

// progressPrinter shows crawl progress: one line rewritten in place on a
// terminal, or a log line every 10 seconds.
type progressPrinter struct {
	w     io.Writer
	mode  string
	log   *slog.Logger
	last  time.Time
	drawn bool
}

func newProgressPrinter(w io.Writer, mode string, log *slog.Logger) *progressPrinter {
	return &progressPrinter{w: w, mode: mode, log: log, last: time.Now()}
}

const logProgressEvery = 10 * time.Second

func (p *progressPrinter) update(pr crawler.Progress) {
	switch p.mode {
	case "line":
		fmt.Fprintf(p.w, "\r\033[Kfetched %d  stored %d  failed %d  left %d  %.1f pages/s  %s",
			pr.Fetched, pr.Stored, pr.Failed, pr.Left, pr.Rate, pr.Elapsed.Round(time.Second))
		p.drawn = true
	case "log":
		if time.Since(p.last) < logProgressEvery {
			return
		}
		p.last = time.Now()
		p.log.Info("crawl progress", "fetched", pr.Fetched, "stored", pr.Stored, "failed", pr.Failed,
			"left", pr.Left, "pages_per_s", fmt.Sprintf("%.1f", pr.Rate), "elapsed", pr.Elapsed.Round(time.Second))
	}
}

func (p *progressPrinter) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

// printCrawlSummary prints one line per source and the totals.
func printCrawlSummary(w io.Writer, rep crawler.Report) {
	prod := map[string]crawler.SourceProduce{}
	for _, p := range rep.Produce.Sources {
		prod[p.Name] = p
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "source\tlist pages\tURLs found\tnew\trefreshed\tpushes retried\tfetched\tstored\tupdated\ttoo old\tfailed\tdead\tleft\tretry later\t")
	var tp crawler.SourceProduce
	for _, s := range rep.Sources {
		p := prod[s.Name]
		tp.Pages += p.Pages
		tp.Found += p.Found
		tp.New += p.New
		tp.Refreshed += p.Refreshed
		tp.Retried += p.Retried
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", s.Name, p.Pages, p.Found, p.New, p.Refreshed, p.Retried,
			s.Fetched, s.Created, s.Updated, s.TooOld, s.Failures(), s.Dead, s.Left.Pending+s.Left.InFlight, s.Left.Delayed)
	}
	t := rep.Totals()
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", tp.Pages, tp.Found, tp.New, tp.Refreshed, tp.Retried,
		t.Fetched, t.Created, t.Updated, t.TooOld, t.Failures(), t.Dead, t.Left.Pending+t.Left.InFlight, t.Left.Delayed)
	tw.Flush()
	if len(t.Failed) > 0 {
		reasons := make([]string, 0, len(t.Failed))
		for r := range t.Failed {
			reasons = append(reasons, r)
		}
		sort.Slice(reasons, func(i, j int) bool {
			return t.Failed[reasons[i]] > t.Failed[reasons[j]] || t.Failed[reasons[i]] == t.Failed[reasons[j]] && reasons[i] < reasons[j]
		})
		var parts []string
		for _, r := range reasons {
			parts = append(parts, fmt.Sprintf("%s %d", r, t.Failed[r]))
		}
		fmt.Fprintf(w, "failures: %s  (newsrank queue dead: the dead letters)\n", strings.Join(parts, ", "))
	}
	for _, p := range rep.Produce.Sources {
		if p.Err != nil {
			fmt.Fprintf(w, "source %s failed: %v\n", p.Name, p.Err)
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
			Fetched: s.Fetched, Created: s.Created, Updated: s.Updated, TooOld: s.TooOld, Failed: s.Failed, Dead: s.Dead,
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
	}{ElapsedS: rep.Elapsed.Seconds(), Failed: rep.FailedSources()}
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

// isTerminal reports whether w is a terminal (a character device other
// than /dev/null).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}
