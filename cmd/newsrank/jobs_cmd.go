package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/websub"
	"github.com/newsrank/newsrank/jobs"
)

func runJobs(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "jobs", "jobs [-config FILE] [-history N] [-json]", `
Show each job (crawl, prune, rescore, archive): its schedule, its last run (start,
result, duration, counts, error), who runs it right now if anyone, and its
next scheduled run; then each crawler source's next poll (the daemon polls
each source as it comes due) and why. -history N also lists the last N recorded runs of each
job, skipped ones included.

The schedules shown are the ones really in use: a running daemon (or demo)
announces its schedule on the Redis it works on, and jobs shows that one,
with its time zone and the next run its scheduler has set, and names the
scheduler. When none runs, it shows this configuration's schedules (in
jobs.time_zone) and the next run a daemon started now would make.

Run a job by hand with newsrank crawl -once, newsrank prune or newsrank
rescore (or POST /api/jobs/{name}/run, archive included).`)
	common := addCommon(fs)
	n := fs.Int("history", 0, "also list the last `N` runs of each job")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *n < 0 {
		return usageError("-history must be >= 0, got %d", *n)
	}
	a, err := common.app(ctx, std)
	if err != nil {
		return err
	}
	defer a.Close()
	embeddedNotice(std.err, "jobs", a.cfg.Redis)
	st, scheds, err := a.jobs.StatusAsScheduled(ctx)
	if err != nil {
		return err
	}
	hist := map[string][]jobs.Run{}
	if *n > 0 {
		for _, s := range st {
			if hist[s.Name], err = a.jobs.History(ctx, s.Name, *n); err != nil {
				return err
			}
		}
	}
	polls, err := a.crawler.PollStates(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		type jobJSON struct {
			jobs.JobStatus
			Runs []jobs.Run `json:"runs,omitempty"`
		}
		out := make([]jobJSON, len(st))
		for i, s := range st {
			out[i] = jobJSON{s, hist[s.Name]}
		}
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	loc := a.jobs.Location()
	if len(scheds) > 0 {
		if l, err := time.LoadLocation(scheds[0].TimeZone); err == nil {
			loc = l
		}
	}
	printSchedulers(std.out, loc, scheds, a.jobs.Jobs())
	printJobs(std.out, loc, st, hist)
	printPolls(std.out, loc, polls)
	if a.websub != nil {
		subs, err := a.websub.Statuses(ctx)
		if err != nil {
			return err
		}
		printSubscriptions(std.out, loc, subs)
	}
	return nil
}

// printSubscriptions writes each feed's WebSub subscription.
func printSubscriptions(w io.Writer, loc *time.Location, subs []websub.Status) {
	if len(subs) == 0 {
		return
	}
	at := func(t time.Time, zero string) string {
		if t.IsZero() {
			return zero
		}
		return t.In(loc).Format("2006-01-02 15:04:05")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tWEBSUB\tHUB\tLEASE ENDS\tLAST PUSH\tPUSHES\tREJECTED\tWHY")
	for _, s := range subs {
		state, hub := s.State, s.Hub
		if state == "" {
			state = "-"
		}
		if s.Pending != "" {
			state += " (" + s.Pending + " pending)"
		}
		if hub == "" {
			hub = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", s.Source, state, hub, at(s.LeaseEnd, "-"), at(s.LastPush, "never"),
			s.Pushes, s.Rejected, s.Reason)
	}
	tw.Flush()
}

// printPolls writes each source's next poll and why.
func printPolls(w io.Writer, loc *time.Location, polls []crawler.PollState) {
	if len(polls) == 0 {
		return
	}
	at := func(t time.Time) string { return t.In(loc).Format("2006-01-02 15:04:05") }
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tLAST POLL\tNEW\tNEXT POLL\tWHY")
	for _, p := range polls {
		last, next := "never", "due now"
		if !p.Last.IsZero() {
			last = at(p.Last)
		}
		if !p.Next.IsZero() {
			next = at(p.Next)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", p.Source, last, p.New, next, p.Reason)
	}
	tw.Flush()
}

// printSchedulers says whose schedules the table shows.
func printSchedulers(w io.Writer, loc *time.Location, scheds []jobs.Scheduler, own []jobs.Job) {
	if len(scheds) == 0 {
		fmt.Fprintln(w, "No daemon runs the job schedule on this Redis now: these are this configuration's schedules;")
		fmt.Fprintln(w, "NEXT RUN is when a daemon started now would run each job.")
		fmt.Fprintln(w)
		return
	}
	s := scheds[0]
	fmt.Fprintf(w, "Schedules as run by %s (running since %s).\n", s.Holder, s.Since.In(loc).Format("2006-01-02 15:04:05"))
	var differ []string
	for _, j := range own {
		for _, sj := range s.Jobs {
			if sj.Name == j.Name && (sj.Schedule != j.Schedule || sj.Enabled != j.Enabled) {
				differ = append(differ, j.Name)
			}
		}
	}
	if len(differ) > 0 {
		fmt.Fprintf(w, "They differ from this configuration's for %s.\n", strings.Join(differ, ", "))
	}
	if len(scheds) > 1 {
		others := make([]string, 0, len(scheds)-1)
		for _, o := range scheds[1:] {
			others = append(others, o.Holder)
		}
		fmt.Fprintf(w, "Also running the schedule: %s (each job still runs once at a time).\n", strings.Join(others, ", "))
	}
	fmt.Fprintln(w)
}

// printJobs writes the job table and, under it, each job's details.
func printJobs(w io.Writer, loc *time.Location, st []jobs.JobStatus, hist map[string][]jobs.Run) {
	at := func(t time.Time) string { return t.In(loc).Format("2006-01-02 15:04:05") }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "JOB\tSCHEDULE (%s)\tLAST RUN\tRESULT\tTOOK\tNEXT RUN\n", loc)
	for _, s := range st {
		sched := s.Schedule
		if !s.Enabled {
			sched += " (disabled)"
		}
		last, result, took, next := "never", "-", "-", "-"
		if s.Last != nil {
			last, result, took = at(s.Last.Start), string(s.Last.Status), s.Last.Duration().Round(time.Millisecond).String()
		}
		if s.Running != nil {
			result = "running"
		}
		if s.Next != nil {
			next = at(*s.Next)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, sched, last, result, took, next)
	}
	tw.Flush()
	for _, s := range st {
		var lines []string
		if s.Running != nil {
			lines = append(lines, fmt.Sprintf("running now: %s since %s", s.Running.Holder, at(s.Running.Since)))
		}
		if s.Last != nil {
			l := fmt.Sprintf("last run: %s by %s", s.Last.Trigger, s.Last.Holder)
			if c := counts(s.Last.Counts); c != "" {
				l += "; " + c
			}
			lines = append(lines, l)
			if s.Last.Error != "" {
				lines = append(lines, "error: "+firstLine(s.Last.Error))
			}
		}
		if s.Latest != nil && s.Latest.Status == jobs.StatusSkipped && (s.Last == nil || s.Latest.Start.After(s.Last.Start)) {
			lines = append(lines, fmt.Sprintf("skipped at %s (%s): %s", at(s.Latest.Start), s.Latest.Trigger, s.Latest.Error))
		}
		for _, r := range hist[s.Name] {
			l := fmt.Sprintf("  %s  %-8s %-8s %8s  %s", at(r.Start), r.Status, r.Trigger, r.Duration().Round(time.Millisecond), counts(r.Counts))
			if r.Error != "" {
				l += "  " + firstLine(r.Error)
			}
			lines = append(lines, strings.TrimRight(l, " "))
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\n%s (%s):\n", s.Name, s.About)
			for _, l := range lines {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
}

// counts formats a run's counts as "k=v" pairs in key order.
func counts(c jobs.Counts) string {
	keys := slices.Sorted(maps.Keys(c))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, c[k])
	}
	return strings.Join(parts, " ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
