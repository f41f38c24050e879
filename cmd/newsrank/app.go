package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/websub"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
	"github.com/newsrank/newsrank/web"
)

// app is the wiring every command that works on Redis shares, built one way
// from the configuration so that the daemon, the demo and the one-shot
// commands (crawl, prune, rescore, jobs) see the same keys, queues, locks
// and job definitions:
//
//	rdb      the Redis connection (redis.*)
//	news     the article store (news.*)
//	crawler  the producer/consumers of crawler.sources, one queue per source
//	queues   those queues, in source order
//	rescore  prune and rebuild (news.window, news.formula)
//	activity, invites  the user leaderboards (board.*)
//	jobs     the job manager: "crawl", "prune", "rescore", "archive", "regroup" with the
//	         schedules, lock TTL and history of jobs.*
//
// The scheduled "crawl" job runs the producer only (it queues new article
// URLs): the processes that schedule it, the daemon and the demo, run the
// consumers all the time. `newsrank crawl -once` runs produce + consume
// through crawlOnce, under the same "crawl" lock, so the two never overlap.
type app struct {
	cfg      config.Config
	log      *slog.Logger
	clock    clock.Clock
	rdb      *rdb.Client
	news     *news.Store
	crawler  *crawler.Crawler
	queues   []*queue.Queue
	activity *board.Activity
	invites  *board.Invites
	jobs     *jobs.Manager
	// websub is the WebSub subscriber (crawler.websub); nil when off.
	websub *websub.Subscriber
}

// newApp connects to Redis and builds every part. Close it when done.
func newApp(ctx context.Context, cfg config.Config, log *slog.Logger) (*app, error) {
	c, err := openRedis(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, clock: clock.Real{}, rdb: c}
	if err := a.build(); err != nil {
		c.Close()
		return nil, err
	}
	return a, nil
}

func (a *app) build() error {
	cfg, c := a.cfg, a.rdb
	bopts, err := cfg.Board.Options()
	if err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	if a.activity, err = board.NewActivity(c, c.Prefix, bopts, board.WithClock(a.clock), board.WithLogger(a.log)); err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	if a.news, err = news.New(c, c.Prefix, cfg.News.Options(), news.WithClock(a.clock), news.WithLogger(a.log), news.WithActivity(a.activity)); err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	copts, err := cfg.Crawler.Options()
	if err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	if a.crawler, err = crawler.New(copts, cfg.Queue.Options(), c, c.Prefix, a.news, crawler.WithLogger(a.log), crawler.WithClock(a.clock)); err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	for _, name := range a.crawler.Sources() {
		a.queues = append(a.queues, a.crawler.Queue(name))
	}
	if err := a.buildWebSub(); err != nil {
		return err
	}
	if a.invites, err = board.NewInvites(c, c.Prefix, bopts, board.WithClock(a.clock), board.WithLogger(a.log)); err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	jopts, err := cfg.Jobs.Options()
	if err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	jopts.Clock, jopts.Logger = a.clock, a.log
	a.jobs, err = jobs.NewManager(c, c.Prefix, jopts,
		jobs.Job{Name: jobs.Crawl, About: "queue new article URLs from every source (consumers fetch them)",
			Schedule: cfg.Jobs.Crawl.Schedule, Enabled: cfg.Jobs.Crawl.Enabled, Run: a.produceJob},
		jobs.Job{Name: jobs.Prune, About: "remove articles older than news.window",
			Schedule: cfg.Jobs.Prune.Schedule, Enabled: cfg.Jobs.Prune.Enabled, Run: a.pruneJob},
		jobs.Job{Name: jobs.Rescore, About: "rebuild score: from time: and votes: with the " + a.news.Formula().Name() + " formula",
			Schedule: cfg.Jobs.Rescore.Schedule, Enabled: cfg.Jobs.Rescore.Enabled, Run: a.rescoreJob},
		jobs.Job{Name: jobs.Archive, About: "snapshot the top of each closed day and month board (board.archive_top)",
			Schedule: cfg.Jobs.Archive.Schedule, Enabled: cfg.Jobs.Archive.Enabled, Run: a.archiveJob},
		jobs.Job{Name: jobs.Regroup, About: "merge the recent stories the ingest split, move articles filed in the wrong story (news.rank_by: story)",
			Schedule: cfg.Jobs.Regroup.Schedule, Enabled: cfg.Jobs.Regroup.Enabled, Run: a.regroupJob},
	)
	if err != nil {
		return fmt.Errorf("%w: jobs: %w", errConfig, err)
	}
	return nil
}

// buildWebSub builds the WebSub subscriber when crawler.websub is on:
// its hub requests go through the crawler's guarded transport, and the
// crawler's poll schedule asks it which sources are pushed.
func (a *app) buildWebSub() error {
	cfg := a.cfg
	if !cfg.WebSubOn() {
		return nil
	}
	var err error
	a.websub, err = websub.New(a.rdb, a.rdb.Prefix, cfg.Crawler.WebSubFeeds(), a.crawler, websub.Options{
		PublicURL: cfg.Web.PublicURL, Lease: cfg.Crawler.WebSub.Lease.D(), Poll: cfg.Crawler.WebSub.Poll.D(),
		MaxBody: int64(cfg.Crawler.MaxBodySize), Transport: a.crawler.Transport(), RequestTimeout: cfg.Crawler.RequestTimeout.D(),
		UserAgent: cfg.Crawler.UserAgent, Clock: a.clock, Log: a.log,
	})
	if err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	a.crawler.SetPushPolls(a.websub)
	return nil
}

// Close closes the Redis connection (and stops an embedded Redis).
func (a *app) Close() error { return a.rdb.Close() }

// webServer builds the HTTP server over the app's parts, which serve
// (the daemon, the demo) serves on web.listen.
func (a *app) webServer() (*web.Server, error) {
	o := a.cfg.WebOptions()
	o.Redis = a.rdb
	o.News = a.news
	o.Activity = a.activity
	o.Invites = a.invites
	o.Queues = a.queues
	o.Jobs = a.jobs
	o.Polls = a.crawler
	if a.websub != nil {
		o.WebSub = a.websub.Handler()
		o.Subscriptions = a.websub
	}
	o.Clock = a.clock
	o.Log = a.log
	return web.New(o)
}

// produceJob is the scheduled crawl: walk the sources and queue new URLs.
func (a *app) produceJob(ctx context.Context) (jobs.Counts, error) {
	rep, err := a.crawler.Produce(ctx)
	counts := jobs.Counts{"new": int64(rep.New()), "refreshed": int64(rep.Refreshed()), "retried": int64(rep.Retried())}
	var pages, found int64
	for _, s := range rep.Sources {
		pages += int64(s.Pages)
		found += int64(s.Found)
	}
	counts["pages"], counts["found"] = pages, found
	if err != nil {
		return counts, err
	}
	if failed := rep.Failed(); len(failed) > 0 && len(failed) == len(rep.Sources) && len(rep.Sources) > 0 {
		return counts, fmt.Errorf("no source could be read: %s", strings.Join(failed, ", "))
	}
	return counts, nil
}

// crawlOnce produces and consumes until the queues are idle (newsrank
// crawl -once), as the "crawl" job: it takes the same lock as the
// scheduled crawl and is recorded in its history. It returns jobs.ErrLocked
// when another crawl runs.
func (a *app) crawlOnce(ctx context.Context, trigger string, opts crawler.RunOptions, sources ...string) (crawler.Report, error) {
	var rep crawler.Report
	_, err := a.jobs.RunFunc(ctx, jobs.Crawl, trigger, func(ctx context.Context) (jobs.Counts, error) {
		var err error
		rep, err = a.crawler.RunOnceWith(ctx, opts, sources...)
		t := rep.Totals()
		counts := jobs.Counts{"new": int64(rep.Produce.New()), "refreshed": int64(rep.Produce.Refreshed()), "retried": int64(rep.Produce.Retried()),
			"fetched": t.Fetched, "created": t.Created,
			"updated": t.Updated, "too_old": t.TooOld, "failed": t.Failures() - t.Disallowed(), "robots": t.Disallowed(), "dead": t.Dead,
			"retry_later": t.Left.Delayed}
		if err == nil {
			if failed := rep.FailedSources(); len(failed) > 0 {
				err = fmt.Errorf("%d of %d sources could not be read at all: %s", len(failed), len(rep.Produce.Sources), strings.Join(failed, ", "))
			}
		}
		return counts, err
	})
	return rep, err
}

func (a *app) pruneJob(ctx context.Context) (jobs.Counts, error) {
	res, err := a.news.Prune(ctx, a.clock.Now(), news.PruneOptions{})
	return jobs.Counts{"removed": res.Removed, "kept": res.Kept, "batches": int64(res.Batches), "swept": res.Swept, "journaled": int64(res.Journaled)}, err
}

// archiveJob is the scheduled archive: snapshot the closed periods'
// boards (board.archive_top), catching up on missed ones.
func (a *app) archiveJob(ctx context.Context) (jobs.Counts, error) {
	rep, err := a.activity.Archive(ctx)
	return jobs.Counts{"archived": int64(rep.Archived), "present": int64(rep.Present), "missing": int64(rep.Missing)}, err
}

func (a *app) rescoreJob(ctx context.Context) (jobs.Counts, error) {
	ungrouped, err := a.ungroup(ctx)
	if err != nil {
		return nil, err
	}
	res, err := a.news.Rebuild(ctx, news.RebuildOptions{})
	reconciled := int64(0)
	if res.Repaired {
		reconciled = 1
	}
	return jobs.Counts{"articles": res.Articles, "batches": int64(res.Batches), "rescored": res.Rescored,
		"reconciled": reconciled, "votes_repaired": res.VotesRepaired, "dropped": res.Dropped, "restored": res.Restored,
		"ungrouped": ungrouped}, err
}

// ungroup ranks by themselves the articles of stories left by
// news.rank_by: story when the store now ranks by article (news.Store.Ungroup);
// it does nothing ranking by story.
func (a *app) ungroup(ctx context.Context) (int64, error) {
	if a.cfg.News.RankBy == news.RankByStory {
		return 0, nil
	}
	return a.news.Ungroup(ctx)
}
