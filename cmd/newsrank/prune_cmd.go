package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
)

func runPrune(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "prune", "prune [-config FILE] [-dry-run [-list N]]", `
Remove the articles whose post time is older than the window (news.window)
from time:, score:, votes: and the groups, and delete their hashes and
voted: keys, in bounded batches, as the scheduled "prune" job does.

-dry-run changes nothing: it reports how many articles would go, their
post-time range, and lists the oldest of them (-list N, only with
-dry-run). A dry run takes no lock and is not recorded.

A real run takes the job's lock and is recorded in its history (newsrank
jobs). Exit status: 0 done, 1 failed, 2 usage or configuration error,
3 skipped because another run holds the lock, 130/143 interrupted by
SIGINT/SIGTERM.`)
	common := addCommon(fs)
	dry := fs.Bool("dry-run", false, "report what would be removed; change nothing")
	list := fs.Int("list", 20, "only with -dry-run: list up to this many of the articles that would go, oldest first")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *list < 0 {
		return usageError("-list must be >= 0, got %d", *list)
	}
	listSet := false
	fs.Visit(func(f *flag.Flag) { listSet = listSet || f.Name == "list" })
	if listSet && !*dry {
		return usageError("-list only goes with -dry-run: it lists what a dry run would remove (a real prune removes them, it does not list them)")
	}
	a, err := common.app(ctx, std)
	if err != nil {
		return err
	}
	defer a.Close()
	embeddedNotice(std.err, "prune", a.cfg.Redis)
	if *dry {
		res, err := a.news.Prune(ctx, a.clock.Now(), news.PruneOptions{DryRun: true, Sample: *list})
		if err != nil {
			return err
		}
		fmt.Fprintf(std.out, "prune -dry-run: %d of %d articles are older than %s (posted before %s) and would be removed; nothing was changed\n",
			res.Removed, res.Removed+res.Kept, a.cfg.News.Window, res.Cutoff.Format(time.RFC3339))
		if res.Removed > 0 {
			fmt.Fprintf(std.out, "posted from %s to %s\n", res.Oldest.Format(time.RFC3339), res.Newest.Format(time.RFC3339))
		}
		for _, e := range res.Sample {
			fmt.Fprintf(std.out, "  %s  %s  %s  %s\n", e.ID, e.PostTime.Format("2006-01-02 15:04"), e.Title, e.URL)
		}
		if int64(len(res.Sample)) < res.Removed && len(res.Sample) > 0 {
			fmt.Fprintf(std.out, "  ... and %d more\n", res.Removed-int64(len(res.Sample)))
		}
		return nil
	}
	run, err := a.jobs.Run(ctx, jobs.Prune, jobs.TriggerManual)
	if err != nil {
		return jobError(run, err)
	}
	fmt.Fprintf(std.out, "prune: removed %d articles older than %s in %d batches; %d kept (%s)\n",
		run.Counts["removed"], a.cfg.News.Window, run.Counts["batches"], run.Counts["kept"], run.Duration().Round(time.Millisecond))
	if n := run.Counts["swept"]; n > 0 {
		fmt.Fprintf(std.out, "prune: swept %d group and story index entries of articles that had expired\n", n)
	}
	return nil
}
