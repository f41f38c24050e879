package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
)

const crawlAbout = `
Crawl the sources of crawler.sources: the producer walks each source's list
pages, feeds, sitemaps or list API and queues the article URLs it has not
seen; the consumers fetch the article pages and store the articles.

With -once it produces and consumes at once (the consumers fetch the
articles of the list pages read so far while the producer reads the next
ones) until the lists are read and nothing is pending or in flight, and
prints a summary per source. Retries not due yet are left for
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

With news.rank_by: story, -once then regroups the stories (the regroup
job's run, under its lock, recorded in its history): the ingest groups the
articles in the order the crawl brings them (a site's back pages newest
first), and the regroup replays them in publication order, so that the
stories are those publication order gives (newsrank stories -h). It looks
at the stories posted since a day before the crawl's oldest new article
(at least jobs.regroup.span, at most news.window) and prints what it did;
-regroup=false leaves it to the scheduled job.

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

// regroupAfterCrawl runs the regroup job once after crawl -once, with
// news.rank_by: story and new articles stored: over the stories posted
// since a day before the oldest new article (a story it joined may have
// begun the day before), at least jobs.regroup.span (the store caps it at
// news.window). A regroup already running elsewhere is no error.
func (a *app) regroupAfterCrawl(ctx context.Context, w io.Writer, rep crawler.Report) error {
	t := rep.Totals()
	if a.cfg.News.RankBy != news.RankByStory || t.Created == 0 || ctx.Err() != nil {
		return nil
	}
	o := a.cfg.Jobs.Regroup.Options()
	if !t.Oldest.IsZero() {
		o.Span = max(o.Span, a.clock.Now().Sub(t.Oldest)+24*time.Hour)
	}
	var res news.RegroupResult
	run, err := a.jobs.RunFunc(ctx, jobs.Regroup, jobs.TriggerManual, func(ctx context.Context) (jobs.Counts, error) {
		var err error
		res, err = a.news.Regroup(ctx, o)
		return regroupCounts(res), err
	})
	switch {
	case errors.Is(err, jobs.ErrLocked):
		fmt.Fprintln(w, "regroup: another regroup is running; the stories are regrouped by it or the next scheduled run")
		return nil
	case err != nil:
		return fmt.Errorf("regroup after the crawl: %w", err)
	}
	fmt.Fprintf(w, "regroup: %d stories (%d articles) posted since %s: %d merged, %d joined, %d moved, %d split in %s\n",
		res.Stories, res.Articles, res.From.Format(time.RFC3339), res.Merged, res.Joined, res.Moved, res.Split, run.Duration().Round(time.Millisecond))
	return nil
}

func runCrawl(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "crawl", "crawl [-once [-wait-retries [-wait 5m]] [-regroup=false]] [-source NAME] [-cpuprofile FILE] [-memprofile FILE] [-trace FILE] [-config FILE] [flags]", crawlAbout)
	common := addCommon(fs)
	once := fs.Bool("once", false, "produce, consume until done, print a summary and exit")
	var sources sourceList
	fs.Var(&sources, "source", "crawl only this source (repeat the flag or separate names with commas; default: all)")
	asJSON := fs.Bool("json", false, "-once: print the summary as JSON (for scripts) instead of a table")
	progress := fs.String("progress", "auto", "-once: progress display: auto or line (a live line on a terminal, log lines every 10s otherwise), log or none")
	waitRetries := fs.Bool("wait-retries", false, "-once: when only retries are left, wait for those due within -wait instead of leaving them to the next run")
	wait := fs.Duration("wait", defaultRetryWait, "with -wait-retries: how long to wait for retries once nothing else is left")
	cpuProfile := fs.String("cpuprofile", "", "write a Go CPU profile of the crawl to `FILE` (for go tool pprof)")
	memProfile := fs.String("memprofile", "", "write a Go allocations profile of the crawl to `FILE` at its end (go tool pprof -sample_index=alloc_space)")
	tracePath := fs.String("trace", "", "write a Go execution trace of the crawl to `FILE` (for go tool trace)")
	regroup := fs.Bool("regroup", true, "-once with news.rank_by: story: regroup the stories the crawl's new articles reach at its end (the regroup job's run)")
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
	if err := checkSources(cfg, sources); err != nil {
		return err
	}
	embeddedNotice(std.err, "crawl", cfg.Redis)
	tuneCrawlGC(cfg.Redis.Mode() == "embedded")
	if *cpuProfile != "" || *memProfile != "" || *tracePath != "" {
		stop, err := startProfiles(*cpuProfile, *memProfile, *tracePath)
		if err != nil {
			return err
		}
		defer stop()
	}
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	if !*once {
		return crawlForever(ctx, log, a.crawler, sources)
	}
	opts := crawlOnceOptions{progress: *progress, asJSON: *asJSON, regroup: *regroup}
	if *waitRetries {
		opts.waitRetries = *wait
	}
	return a.crawlOnceCmd(ctx, std, opts, sources)
}

// checkSources returns a usage error for a -source not in crawler.sources.
func checkSources(cfg config.Config, sources []string) error {
	for _, n := range sources {
		if !slices.ContainsFunc(cfg.Crawler.Sources, func(s config.Source) bool { return s.Name == n }) {
			var names []string
			for _, s := range cfg.Crawler.Sources {
				names = append(names, s.Name)
			}
			return usageError("-source %q: not in crawler.sources (%s)", n, strings.Join(names, ", "))
		}
	}
	return nil
}

// crawlOnceOptions are the flags of crawl -once.
type crawlOnceOptions struct {
	progress    string        // -progress
	asJSON      bool          // -json
	waitRetries time.Duration // -wait with -wait-retries; 0 without
	regroup     bool          // -regroup
}

// crawlOnceCmd is crawl -once: the "crawl" job's run, under the same lock
// as the daemon's scheduled crawl and the systemd timer, recorded in the
// job's history; then the summary.
func (a *app) crawlOnceCmd(ctx context.Context, std *stdio, o crawlOnceOptions, sources []string) error {
	p := newProgressPrinter(std.err, o.progress, a.log)
	opts := crawler.RunOptions{Progress: p.update, WaitRetries: o.waitRetries}
	rep, err := a.crawlOnce(ctx, jobs.TriggerManual, opts, sources...)
	p.finish()
	summary := printCrawlSummary
	if o.asJSON {
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
	if o.regroup {
		out := std.out
		if o.asJSON {
			out = std.err // the summary stays one JSON document
		}
		if err := a.regroupAfterCrawl(ctx, out, rep); err != nil {
			return err
		}
	}
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
