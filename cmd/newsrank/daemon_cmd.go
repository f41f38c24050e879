package main

import (
	"context"
	"fmt"
	"net"
	"strings"
)

func runDaemon(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "daemon", "daemon [-config FILE] [-listen HOST:PORT]", `
Run newsrank as a service, in one process:
  - the HTTP server (JSON API, pages, /metrics, /healthz) on web.listen;
  - the crawl consumers, fetching the article URLs queued for every source;
  - the poller, reading each source's lists as it comes due (every
    crawler.poll.min..max, adapted to how often the source has new
    articles; newsrank jobs shows each source's next poll and why);
  - with crawler.websub on (web.public_url set), the WebSub subscriber:
    feeds that announce a hub are subscribed to it, and the hub's pushes,
    served under web.public_url/websub/, queue new articles at once;
  - the job schedule (jobs.*): crawl (queue new URLs), prune, rescore and
    archive (snapshot closed boards), each under its Redis lock, with a
    missed run caught up at start.

SIGINT or SIGTERM stops it: no new URL is claimed, pages being fetched are
finished and stored or handed back to their queue, running jobs are
cancelled, HTTP requests are drained, all within jobs.shutdown_timeout;
then it exits with status 0. URLs still leased when the timeout passes go
back to their queue when the lease expires. A second signal exits at once.

With news.rank_by: article, it first ranks by themselves again the
articles of stories left by rank_by: story. On start it prints "newsrank daemon: serving http://HOST:PORT" on stdout.`)
	common := addCommon(fs)
	listen := fs.String("listen", "", "serve HTTP on this host:port (default web.listen)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	cfg, log, err := common.load(std)
	if err != nil {
		return err
	}
	if *listen != "" {
		cfg.Web.Listen = *listen
	}
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	embeddedServingNotice(std.err, "daemon", a.rdb, cfg.Redis)
	return a.serve(ctx, service{name: "daemon", serving: func(_ context.Context, url string) bool {
		fmt.Fprintf(std.out, "newsrank daemon: serving %s\n", url)
		return true
	}})
}

// service is what a process that serves adds to the daemon's parts:
// newsrank daemon adds nothing, newsrank demo a first crawl and its
// simulated users.
type service struct {
	// name is the command, in the log: "daemon" or "demo".
	name string
	// listenHint follows the error of a listen on web.listen that failed.
	listenHint string
	// listener, when set, is web.listen's listener, opened by the caller
	// (the demo, to know its address first); nil: serve opens it.
	listener net.Listener
	// serving runs once the HTTP server serves at url (http://HOST:PORT),
	// before the other parts start: it says where, and it may do work
	// first. It returns false when ctx ended meanwhile.
	serving func(ctx context.Context, url string) bool
	// more returns the parts started after the daemon's, given the URL
	// the HTTP server serves at; nil: none.
	more func(url string) []part
}

// part is one long-lived part of a process, run by its supervisor.
type part struct {
	name string
	run  func(context.Context) error
}

// serve runs the daemon's parts until ctx ends (a signal) or one of them
// stops on its own, then stops them all within jobs.shutdown_timeout. It
// is the one list of parts: the HTTP server on web.listen, then the job
// scheduler, the crawl consumers and the source poller, then svc.more's.
// With news.rank_by: article, it first ranks by themselves the articles of
// stories left by rank_by: story.
func (a *app) serve(ctx context.Context, svc service) error {
	cfg, log := a.cfg, a.log
	if _, err := a.ungroup(ctx); err != nil {
		return err
	}
	srv, err := a.webServer()
	if err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	l := svc.listener
	if l == nil {
		if l, err = net.Listen("tcp", cfg.Web.Listen); err != nil {
			return fmt.Errorf("web.listen %s: %w%s", cfg.Web.Listen, err, svc.listenHint)
		}
	}

	// Every part runs until the first signal or until one of them stops
	// on its own, which stops the others.
	sup := newSupervisor(ctx, log)
	sup.Go("http", func(ctx context.Context) error { return srv.Serve(ctx, l) })
	url := "http://" + l.Addr().String()
	if svc.serving(sup.Context(), url) {
		sup.Go("scheduler", a.jobs.Schedule)
		if len(a.crawler.Sources()) > 0 {
			sup.Go("consumers", a.crawler.Consume)
			sup.Go("poller", a.crawler.Poll)
			if a.websub != nil {
				sup.Go("websub", a.websub.Run)
			}
		} else {
			log.Warn("no crawler.sources configured: no consumers run")
		}
		if svc.more != nil {
			for _, p := range svc.more(url) {
				sup.Go(p.name, p.run)
			}
		}
		log.Info(svc.name+" started", "http", l.Addr().String(), "parts", strings.Join(sup.Names(), ","),
			"sources", len(a.crawler.Sources()), "workers", cfg.Crawler.Workers, "redis", a.rdb.Addr)
	}

	<-sup.Done()
	if ctx.Err() != nil {
		log.Info("shutting down", "timeout", cfg.Jobs.ShutdownTimeout)
	}
	running, err := sup.Stop(cfg.Jobs.ShutdownTimeout.D())
	switch {
	case running > 0:
		log.Warn("jobs.shutdown_timeout passed with parts still stopping; exiting anyway "+
			"(URLs still leased return to their queue when their lease expires)", "still_running", running)
	case err == nil:
		log.Info(svc.name + " stopped")
	}
	return err
}
