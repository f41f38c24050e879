package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

func runDaemon(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "daemon", "daemon [-config FILE] [-listen HOST:PORT]", `
Run newsrank as a service, in one process:
  - the HTTP server (JSON API, pages, /metrics, /healthz) on web.listen;
  - the crawl consumers, fetching the article URLs queued for every source;
  - the job schedule (jobs.*): crawl (queue new URLs), prune and rescore,
    each under its Redis lock, with a missed run caught up at start.

SIGINT or SIGTERM stops it: no new URL is claimed, pages being fetched are
finished and stored or handed back to their queue, running jobs are
cancelled, HTTP requests are drained, all within jobs.shutdown_timeout;
then it exits with status 0. URLs still leased when the timeout passes go
back to their queue when the lease expires. A second signal exits at once.

On start it prints "newsrank daemon: serving http://HOST:PORT" on stdout.`)
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
	srv, err := a.webServer()
	if err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	l, err := net.Listen("tcp", cfg.Web.Listen)
	if err != nil {
		return fmt.Errorf("web.listen %s: %w", cfg.Web.Listen, err)
	}

	// Every part runs until runCtx ends; the first signal cancels ctx and
	// so runCtx, and a part that stops on its own stops the others.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	type part struct {
		name string
		run  func(context.Context) error
	}
	parts := []part{
		{"http", func(ctx context.Context) error { return srv.Serve(ctx, l) }},
		{"scheduler", a.jobs.Schedule},
	}
	if len(a.crawler.Sources()) > 0 {
		parts = append(parts, part{"consumers", a.crawler.Consume})
	} else {
		log.Warn("no crawler.sources configured: no consumers run")
	}
	type result struct {
		name string
		err  error
	}
	done := make(chan result, len(parts))
	for _, p := range parts {
		go func() { done <- result{p.name, p.run(runCtx)} }()
	}
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.name
	}
	fmt.Fprintf(std.out, "newsrank daemon: serving http://%s\n", l.Addr())
	log.Info("daemon started", "http", l.Addr().String(), "parts", strings.Join(names, ","),
		"sources", len(a.crawler.Sources()), "workers", cfg.Crawler.Workers, "redis", a.rdb.Addr)

	var failed error
	running := len(parts)
	select {
	case <-ctx.Done():
		log.Info("shutting down", "timeout", cfg.Jobs.ShutdownTimeout)
	case r := <-done:
		running--
		failed = r.err
		if failed == nil || errors.Is(failed, context.Canceled) {
			failed = errors.New("stopped unexpectedly")
		}
		log.Error("daemon part stopped; shutting down", "part", r.name, "err", failed)
		failed = fmt.Errorf("%s: %w", r.name, failed)
	}
	stop()
	timeout := time.NewTimer(cfg.Jobs.ShutdownTimeout.D())
	defer timeout.Stop()
	for running > 0 {
		select {
		case r := <-done:
			running--
			if r.err != nil && !errors.Is(r.err, context.Canceled) {
				log.Error("stopped with an error", "part", r.name, "err", r.err)
				if failed == nil {
					failed = fmt.Errorf("%s: %w", r.name, r.err)
				}
			} else {
				log.Info("stopped", "part", r.name)
			}
		case <-timeout.C:
			log.Warn("jobs.shutdown_timeout passed with parts still stopping; exiting anyway "+
				"(URLs still leased return to their queue when their lease expires)", "still_running", running)
			return failed
		}
	}
	if failed == nil {
		log.Info("daemon stopped")
	}
	return failed
}
