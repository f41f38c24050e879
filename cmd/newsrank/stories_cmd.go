package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
)

func runStories(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "stories", "stories [-config FILE] [-set KEY=VALUE] [-dry-run]", `
Revisit the stories of the last jobs.regroup.span (48h) with news.rank_by:
story, as the scheduled "regroup" job does (hourly, and at the end of a
crawl -once): the ingest decides an article's story once, as it arrives,
so the order a crawl brings the articles in (a feed's newest first, a
site's back pages in any order) splits stories and files reports in the
wrong one. This replays the span's articles in publication order, as the
ingest would have grouped them had they come so, then merges the stories
whose first articles match by jobs.regroup.merge_margin and moves an
article that is jobs.regroup.margin more similar to another story, and
turns the stories into that: stories whose first articles fall in one
replayed story merge into the one whose first article is the oldest (a
story's first article is never moved: its id, votes and rank stay), and
the other articles move to their story. A replayed story holding no
story's first article starts with its oldest article, which leaves its
story to lead one of its own ("split"), and the others move to it. It prints each step: the
stories (their first article's id and title, their outlets) and the
similarity.

Votes stay exact: a merged story's votes are both stories' minus the votes
of users who voted on both, each of whom keeps their vote on the older
story. Each step is one atomic script that refuses when its stories
changed since they were read (a vote, a new copy): the step is read and
tried again.

-dry-run prints what would be done and changes nothing; it takes no lock
and is not recorded. A real run takes the job's lock and is recorded in
its history (newsrank jobs). Exit status: 0 done, 1 failed, 2 usage or
configuration error, 3 skipped because another run holds the lock,
130/143 interrupted by SIGINT/SIGTERM.`)
	common := addCommon(fs)
	dry := fs.Bool("dry-run", false, "print what would be merged and moved; change nothing")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	a, err := common.app(ctx, std)
	if err != nil {
		return err
	}
	defer a.Close()
	embeddedNotice(std.err, "stories", a.cfg.Redis)
	if a.cfg.News.RankBy != news.RankByStory {
		fmt.Fprintf(std.out, "stories: news.rank_by is %s: there are no stories to regroup\n", a.cfg.News.RankBy)
		return nil
	}
	if *dry {
		res, err := a.regroup(ctx, true)
		if err != nil {
			return err
		}
		printRegroup(std.out, res, 0)
		return nil
	}
	var res news.RegroupResult
	run, err := a.jobs.RunFunc(ctx, jobs.Regroup, jobs.TriggerManual, func(ctx context.Context) (jobs.Counts, error) {
		var err error
		res, err = a.regroup(ctx, false)
		return regroupCounts(res), err
	})
	if err != nil {
		return jobError(run, err)
	}
	printRegroup(std.out, res, run.Duration())
	return nil
}

// regroupJob is the scheduled regroup; with news.rank_by: article it has
// nothing to do.
func (a *app) regroupJob(ctx context.Context) (jobs.Counts, error) {
	res, err := a.regroup(ctx, false)
	return regroupCounts(res), err
}

// regroup runs news.Store.Regroup with jobs.regroup's options, or nothing
// with news.rank_by: article.
func (a *app) regroup(ctx context.Context, dry bool) (news.RegroupResult, error) {
	if a.cfg.News.RankBy != news.RankByStory {
		return news.RegroupResult{DryRun: dry}, nil
	}
	o := a.cfg.Jobs.Regroup.Options()
	o.DryRun = dry
	return a.news.Regroup(ctx, o)
}

// regroupCounts are the counts a regroup run records in its history.
func regroupCounts(r news.RegroupResult) jobs.Counts {
	return jobs.Counts{"examined": int64(r.Stories), "articles": int64(r.Articles), "merged": int64(r.Merged),
		"joined": int64(r.Joined), "moved": int64(r.Moved), "split": int64(r.Split), "retried": int64(r.Retried), "skipped": int64(r.Skipped)}
}

// printRegroup prints what a regroup run did (or, a dry run, would do).
func printRegroup(w io.Writer, r news.RegroupResult, took time.Duration) {
	head, verb := "stories", ""
	if r.DryRun {
		head, verb = "stories -dry-run", "would be "
	}
	fmt.Fprintf(w, "%s: %d stories (%d articles) posted since %s examined: %s%d merged, %d joined, %d moved, %d split",
		head, r.Stories, r.Articles, r.From.Format(time.RFC3339), verb, r.Merged, r.Joined, r.Moved, r.Split)
	if took > 0 {
		fmt.Fprintf(w, " in %s", took.Round(time.Millisecond))
	}
	fmt.Fprintln(w)
	if r.Retried > 0 {
		fmt.Fprintf(w, "%d steps found their stories changed since they were read (a vote, a new copy) and were done again\n", r.Retried)
	}
	if r.Skipped > 0 {
		fmt.Fprintf(w, "%d steps left for the next run (their stories closed or kept changing)\n", r.Skipped)
	}
	if r.Unreported > 0 {
		fmt.Fprintf(w, "%d like points of moved votes could not be recorded (the votes stand; see the log)\n", r.Unreported)
	}
	for _, st := range r.Steps {
		switch st.Kind {
		case "split":
			fmt.Fprintf(w, "split  %s  leads a story of its own (%.3f with the rest of its story)\n", storyRef(*st.Article, false), st.Own)
			fmt.Fprintf(w, "  from %s\n", storyRef(st.From, true))
		case "move":
			fmt.Fprintf(w, "move   %s  similarity %.3f (%.3f with the rest of its story)\n", storyRef(*st.Article, false), st.Score, st.Own)
			fmt.Fprintf(w, "  from %s\n", storyRef(st.From, true))
			fmt.Fprintf(w, "  to   %s\n", storyRef(st.Into, true))
		default:
			fmt.Fprintf(w, "%-6s %s\n", st.Kind, storyRef(st.Into, true))
			fmt.Fprintf(w, "  <-   %s  similarity %.3f\n", storyRef(st.From, true), st.Score)
			switch {
			case r.DryRun && st.Doubles > 0:
				fmt.Fprintf(w, "       %d users voted on both: each would keep their vote on the first\n", st.Doubles)
			case !r.DryRun:
				fmt.Fprintf(w, "       story votes %s + %s - %d users' votes on the second (they voted on both) = %s\n",
					voteNum(st.Into.Votes), voteNum(st.From.Votes), st.Doubles, voteNum(st.Votes))
			}
		}
	}
	if r.DryRun {
		fmt.Fprintln(w, "nothing was changed")
	}
}

// storyRef prints a story (or an article) as id "title" [outlets], and
// its size and votes when story.
func storyRef(s news.StoryRef, story bool) string {
	out := fmt.Sprintf("%s %q", s.ID, s.Title)
	if len(s.Sources) > 0 {
		out += " [" + strings.Join(s.Sources, ", ") + "]"
	}
	if story {
		n := "articles"
		if s.Size == 1 {
			n = "article"
		}
		out += fmt.Sprintf(" (%d %s, %s votes)", s.Size, n, voteNum(s.Votes))
	}
	return out
}

// voteNum prints a vote count without a needless fraction.
func voteNum(v float64) string { return fmt.Sprintf("%g", v) }
