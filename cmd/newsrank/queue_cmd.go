package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/queue"
)

const queueAbout = `
Inspect and repair the URL queues, one per crawler source:

  stats          pending, in flight, waiting for a retry, done (within
                 queue.done_retention) and dead URLs, one line per source
  dead           the dead letters, newest first: URL, reason, attempts,
                 time, last error (-limit N)
  requeue-dead   put dead letters back in the queue with fresh attempts:
                 the URLs given as arguments, or all of them
  purge          delete every key of the queue, and what the crawler
                 remembers of the source's list pages (validators, body
                 hashes), so the next crawl reads every list in full and
                 finds every listed URL again (needs -yes)

Without -source every source of crawler.sources is meant.`

func runQueue(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "queue", "queue stats|dead|requeue-dead|purge [-source NAME] [-config FILE] [flags] [URL...]", queueAbout)
	common := addCommon(fs)
	source := fs.String("source", "", "the source (queue) to act on (default: every source of crawler.sources)")
	limit := fs.Int("limit", 50, "dead: how many dead letters to list per source")
	yes := fs.Bool("yes", false, "purge: confirm deleting the queue")
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fs.Usage()
		if len(args) == 0 {
			return usageError("missing subcommand: stats, dead, requeue-dead or purge")
		}
		return nil
	}
	sub := args[0]
	if !slices.Contains([]string{"stats", "dead", "requeue-dead", "purge"}, sub) {
		fs.Usage()
		return usageError("unknown subcommand %q: want stats, dead, requeue-dead or purge", sub)
	}
	if err := parse(fs, args[1:], sub == "requeue-dead"); err != nil {
		return err
	}
	if sub == "requeue-dead" && fs.NArg() > 0 && *source == "" {
		return usageError("requeue-dead with URLs needs -source")
	}
	if sub == "purge" && !*yes {
		return usageError("purge deletes every URL, lease, retry, dead letter and the done memory of the queue: add -yes to confirm")
	}
	if *limit < 1 {
		return usageError("-limit must be >= 1, got %d", *limit)
	}
	cfg, log, err := common.load(std)
	if err != nil {
		return err
	}
	embeddedNotice(std.err, "queue", cfg.Redis)
	names, err := queueNames(std, cfg, *source)
	if err != nil {
		return err
	}
	rc, err := openRedis(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer rc.Close()
	qs := make([]*queue.Queue, len(names))
	for i, n := range names {
		qs[i] = queue.New(rc, rc.Prefix, n, cfg.Queue.Options(), queue.WithLogger(log))
	}

	switch sub {
	case "stats":
		return queueStats(ctx, std, qs)
	case "dead":
		return queueDead(ctx, std, qs, *limit)
	case "requeue-dead":
		for _, q := range qs {
			n, err := q.RequeueDead(ctx, fs.Args()...)
			if err != nil {
				return err
			}
			fmt.Fprintf(std.out, "%s: %d dead letters requeued\n", q.Name(), n)
		}
	case "purge":
		for _, q := range qs {
			if err := q.Purge(ctx); err != nil {
				return err
			}
			if err := crawler.ForgetLists(ctx, rc, rc.Prefix, q.Name()); err != nil {
				return err
			}
			fmt.Fprintf(std.out, "%s: queue purged (and the list pages' validators)\n", q.Name())
		}
	}
	return nil
}

// queueNames returns the queues to act on: -source, or every configured
// source. A -source not configured is allowed (a source removed from the
// config may have left a queue behind), with a note.
func queueNames(std *stdio, cfg config.Config, source string) ([]string, error) {
	var configured []string
	for _, s := range cfg.Crawler.Sources {
		configured = append(configured, s.Name)
	}
	if source == "" {
		if len(configured) == 0 {
			return nil, usageError("no sources in crawler.sources: name a queue with -source")
		}
		return configured, nil
	}
	if err := queue.ValidName(source); err != nil {
		return nil, usageError("-source: %v", err)
	}
	if !slices.Contains(configured, source) {
		fmt.Fprintf(std.err, "newsrank queue: note: source %q is not in crawler.sources (configured: %s)\n",
			source, strings.Join(configured, ", "))
	}
	return []string{source}, nil
}

func queueStats(ctx context.Context, std *stdio, qs []*queue.Queue) error {
	w := tabwriter.NewWriter(std.out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "SOURCE\tPENDING\tIN FLIGHT\tDELAYED\tDONE\tDEAD\t")
	var sum queue.Stats
	for _, q := range qs {
		st, err := q.Stats(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t\n", q.Name(), st.Pending, st.InFlight, st.Delayed, st.Done, st.Dead)
		sum.Pending += st.Pending
		sum.InFlight += st.InFlight
		sum.Delayed += st.Delayed
		sum.Done += st.Done
		sum.Dead += st.Dead
	}
	if len(qs) > 1 {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t\n", "total", sum.Pending, sum.InFlight, sum.Delayed, sum.Done, sum.Dead)
	}
	return w.Flush()
}

func queueDead(ctx context.Context, std *stdio, qs []*queue.Queue, limit int) error {
	w := tabwriter.NewWriter(std.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "SOURCE\tURL\tREASON\tATTEMPTS\tTIME\tLAST ERROR")
	for _, q := range qs {
		dead, err := q.Dead(ctx, limit)
		if err != nil {
			return err
		}
		for _, d := range dead {
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\n", q.Name(), d.URL, d.Reason, d.Attempts,
				d.At.Local().Format(time.DateTime), strings.Map(printable, d.Error))
		}
	}
	return w.Flush()
}

// printable keeps one dead letter on one table line.
func printable(r rune) rune {
	if r == '\t' || r == '\n' || r == '\r' {
		return ' '
	}
	return r
}
