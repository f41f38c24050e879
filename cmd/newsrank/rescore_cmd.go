package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/newsrank/newsrank/jobs"
)

func runRescore(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "rescore", "rescore [-config FILE]", `
Rebuild the score: ranking from time: and votes: with the configured
formula (news.formula), as the scheduled "rescore" job does: the new
ranking is built aside and swapped in at once, so readers never see a part
of it. For linear the work is done inside Redis; hot and gravity are
computed here in pipelined batches, and votes, ingests and prunes made
meanwhile are re-scored before the swap. Ranked ids whose article hash is
gone are dropped, and articles missing from votes: get the votes their
hash records; the counts are printed and logged. With news.rank_by:
article, the articles of stories left by rank_by: story are first ranked
by themselves again (ungrouped), as the daemon does when it starts.

The run takes the job's lock and is recorded in its history (newsrank jobs).
Exit status: 0 done, 1 failed, 2 usage or configuration error, 3 skipped
because another run holds the lock, 130/143 interrupted by SIGINT/SIGTERM.`)
	common := addCommon(fs)
	if err := parse(fs, args, false); err != nil {
		return err
	}
	a, err := common.app(ctx, std)
	if err != nil {
		return err
	}
	defer a.Close()
	embeddedNotice(std.err, "rescore", a.cfg.Redis)
	run, err := a.jobs.Run(ctx, jobs.Rescore, jobs.TriggerManual)
	if err != nil {
		return jobError(run, err)
	}
	c := run.Counts
	note := ""
	if n := c["rescored"]; n > 0 {
		note += fmt.Sprintf("; %d articles written during the build re-scored", n)
	}
	if c["votes_repaired"]+c["dropped"]+c["restored"] > 0 {
		note += fmt.Sprintf("; repaired from the article hashes: %d vote counts restored, %d ids without an article dropped, %d articles ranked again",
			c["votes_repaired"], c["dropped"], c["restored"])
	}
	if n := c["ungrouped"]; n > 0 {
		note += fmt.Sprintf("; %d articles of stories (left by news.rank_by: story) ranked by themselves", n)
	}
	fmt.Fprintf(std.out, "rescore: rebuilt score: for %d articles with %s in %s%s\n",
		c["articles"], a.news.Formula().Name(), run.Duration().Round(time.Millisecond), note)
	return nil
}

// jobError maps a job run's error to the command's: a skipped run becomes
// errSkipped (exit status 3) and says who holds the lock.
func jobError(run jobs.Run, err error) error {
	if errors.Is(err, jobs.ErrLocked) {
		return fmt.Errorf("%w: %s", errSkipped, run.Error)
	}
	return err
}
