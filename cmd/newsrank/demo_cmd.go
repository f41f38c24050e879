package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/websubhub"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
)

const demoAbout = `
Runs the daemon (newsrank daemon -h: the web server, the crawl consumers,
the poller that reads each source's lists as they come due, and the job
schedule) with nothing to install: on an embedded in-memory Redis
(redis.url "embedded", the default) and with the bundled demo news site on
another local port as the crawl target, which it crawls once before the
other parts start. A few simulated users read, vote, comment and invite so
that the rankings and leaderboards move. Open the printed URL; Ctrl-C stops
it as it stops the daemon (the data is kept in memory only). The embedded
Redis serves on a local port, which the demo prints: other commands
(newsrank jobs, queue stats, ...) reach the demo's data with
-set redis.url=redis://127.0.0.1:PORT.

The demo crawls its own site: crawler.sources are the site's sections,
fetched with no politeness delay (crawler.delay and crawler.jitter 0,
crawler.per_host_parallelism at least crawler.workers). Its jobs run more
often than the daemon's by default: a crawl every 15 minutes, a rescore
every minute, a prune hourly, a regroup of the stories (with
news.rank_by: story) every 15 minutes; a schedule given in a -config file or with
-set replaces the demo's (-set 'jobs.rescore.schedule=@every 10s'). API
tokens are generated and printed when the configuration has none. With
-set news.rank_by=story the demo site also publishes the reports of the
latest events of a labelled set of hand-written news coverage (one event
per 12 articles, each reported by several outlets in their own words, in
Chinese or English) in the sections of their language, so that the
rankings show stories with "also: ..." their other outlets. The site's
other articles are written from a few dozen stock sentences that every
article repeats, unlike real coverage; grouped as stories, many of them
gather into large stories of unrelated articles. The labelled reports'
stories are the ones to look at.`

// demoDefaults is the configuration the demo reads its -config files and
// -set flags over: the built-in defaults with short job schedules, so that
// the operations page shows runs. A schedule a file or -set gives wins.
func demoDefaults() config.Config {
	c := config.DefaultConfig()
	c.Jobs.Crawl.Schedule = "@every 15m"
	c.Jobs.Rescore.Schedule = "@every 1m"
	c.Jobs.Prune.Schedule = "@every 1h"
	c.Jobs.Regroup.Schedule = "@every 15m"
	return c
}

// runDemo is "newsrank demo".
func runDemo(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "demo", "demo [-listen 127.0.0.1:8080] [-articles N] [-users N] [-every 2s]", demoAbout)
	c := addCommon(fs)
	listen := fs.String("listen", "", "host:port of the web server; port 0 picks a free one (default: web.listen, 127.0.0.1:8080)")
	articles := fs.Int("articles", demosite.DefaultArticles, "number of articles on the demo site (1 to 5000)")
	users := fs.Int("users", 8, "number of simulated users (0 to 100; 0: none)")
	every := fs.Duration("every", 2*time.Second, "how often a simulated user acts (>= 10ms)")
	publish := fs.Duration("publish-every", 45*time.Second, "how often the demo site publishes a new World or Sports article, pushed through its WebSub hub (>= 100ms)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	switch {
	case *articles < 1 || *articles > 5000:
		return usageError("-articles must be between 1 and 5000, got %d", *articles)
	case *users < 0 || *users > 100:
		return usageError("-users must be between 0 and 100, got %d", *users)
	case *every < 10*time.Millisecond:
		return usageError("-every must be at least 10ms, got %s", *every)
	case *publish < 100*time.Millisecond:
		return usageError("-publish-every must be at least 100ms, got %s", *publish)
	}
	cfg, log, err := c.loadOver(std, demoDefaults)
	if err != nil {
		return err
	}
	if *listen != "" {
		if _, _, err := net.SplitHostPort(*listen); err != nil {
			return usageError("-listen must be host:port, got %q", *listen)
		}
		cfg.Web.Listen = *listen
	}
	d := &demo{std: std, log: log, cfg: cfg, articles: *articles, users: *users, every: *every, publishEvery: *publish}
	return d.run(ctx)
}

// demo is one run of "newsrank demo".
type demo struct {
	std      *stdio
	log      *slog.Logger
	cfg      config.Config
	articles int
	users    int
	every    time.Duration
	// publishEvery: the demo site publishes an article this often
	// (demoUpcoming of them), through its WebSub hub.
	publishEvery time.Duration
	// stories and copies: the events of the labelled coverage set the
	// demo site publishes (ranking by story) and their reports.
	stories, copies int

	// token is what the simulated users send; shownToken and shownAdmin
	// are printed (generated tokens, or where the configured ones are).
	token, shownToken, shownAdmin string
}

func (d *demo) run(ctx context.Context) error {
	// The demo news site, on a free local port. Ranking by story, it also
	// publishes the reports of the latest events of the labelled coverage
	// set (one event per 12 articles), each report an article of a section
	// in its language, so that the rankings show stories of several
	// outlets. The site runs on the real clock and publishes a few World and
	// Sports articles while the demo runs, announcing a WebSub hub
	// served beside it (/hub) that pushes them to newsrank.
	site, hub, siteURL, stopSite, err := d.startSite()
	if err != nil {
		return err
	}
	defer stopSite()

	cfg := &d.cfg
	cfg.Crawler.Sources = config.DemoSources(site.Sources(siteURL))
	// The site is ours and local: no politeness delays.
	cfg.Crawler.Delay, cfg.Crawler.Jitter = 0, 0
	cfg.Crawler.PerHostParallelism = max(cfg.Crawler.PerHostParallelism, cfg.Crawler.Workers)
	if err := d.tokens(); err != nil {
		return err
	}
	// The web server's listener first: the hub calls newsrank back on
	// its address (web.public_url, unless the configuration sets one).
	wl, err := net.Listen("tcp", cfg.Web.Listen)
	if err != nil {
		return fmt.Errorf("web.listen %s: %w (choose another address with -listen, e.g. -listen 127.0.0.1:0)", cfg.Web.Listen, err)
	}
	defer wl.Close()
	if cfg.Web.PublicURL == "" && cfg.Crawler.WebSub.Enabled != "false" {
		cfg.Web.PublicURL = "http://" + wl.Addr().String()
	}
	if err := cfg.Validate(); err != nil {
		return &configError{err}
	}

	a, err := newApp(ctx, *cfg, d.log)
	if err != nil {
		return err
	}
	// a.serve stops the parts, then Redis closes (a.Close) and then the
	// demo site (the defers above run after this one).
	defer a.Close()
	err = a.serve(ctx, service{name: "demo", listener: wl,
		listenHint: " (choose another address with -listen, e.g. -listen 127.0.0.1:0)",
		// The web server serves while the first crawl runs; the scheduled
		// crawl then only queues new URLs, as in the daemon.
		serving: func(ctx context.Context, webURL string) bool {
			d.printIntro(a, webURL, siteURL)
			return d.firstCrawl(ctx, a)
		},
		more: func(webURL string) []part {
			return append(d.simulatedUsers(webURL), d.publisher(a, site, hub, siteURL))
		},
	})
	if ctx.Err() != nil {
		fmt.Fprintln(d.std.out, "newsrank demo: stopped")
	}
	return err
}

// startSite starts the demo news site and its WebSub hub on a free local
// port and counts the labelled stories it publishes; stop closes both.
func (d *demo) startSite() (site *demosite.Site, hub *websubhub.Hub, siteURL string, stop func(), err error) {
	so := demosite.Options{Articles: d.articles, Clock: clock.Real{}, Hub: "/hub",
		Upcoming: min(demoUpcoming, max(1, d.articles/5)), UpcomingEvery: d.publishEvery}
	if d.cfg.News.RankBy == news.RankByStory {
		so.Stories = max(1, d.articles/12)
	}
	site = demosite.New(so)
	reports, _ := site.StoryCopies()
	events := map[string]bool{}
	for _, a := range reports.Articles {
		events[a.Event] = true
	}
	d.stories, d.copies = len(events), len(reports.Articles)
	sl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, "", nil, fmt.Errorf("demo site: %w", err)
	}
	siteURL = "http://" + sl.Addr().String()
	// The hub's connections to the web server are not kept: an idle one
	// would hold the web server's graceful shutdown.
	hub = websubhub.New(websubhub.Options{URL: siteURL + "/hub", Log: d.log, Client: &http.Client{Timeout: 10 * time.Second,
		Transport:     &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}})
	siteMux := http.NewServeMux()
	siteMux.Handle("/hub", hub)
	siteMux.Handle("/", site)
	siteSrv := &http.Server{Handler: siteMux, ReadHeaderTimeout: 10 * time.Second}
	siteDone := make(chan struct{})
	go func() { siteSrv.Serve(sl); close(siteDone) }()
	stop = func() {
		siteSrv.Close()
		<-siteDone
		hub.Close()
	}
	return site, hub, siteURL, stop, nil
}

// demoUpcoming is how many articles the demo site publishes while the
// demo runs (fewer on a site of fewer than 30 articles).
const demoUpcoming = 6

// publisher is the demo site's publisher: as each of the site's upcoming
// articles appears, it tells the hub, which pushes the feed to newsrank
// (with crawler.websub on), and prints when the article is ranked.
func (d *demo) publisher(a *app, site *demosite.Site, hub *websubhub.Hub, siteURL string) part {
	return part{"demo site publisher", func(ctx context.Context) error {
		for _, p := range site.Publications() {
			if err := clock.Sleep(ctx, time.Until(p.At)); err != nil {
				return nil
			}
			n, err := hub.Publish(ctx, siteURL+p.Feed)
			if err != nil {
				d.log.Warn("demo site: publish through the hub", "feed", p.Feed, "err", err)
				continue
			}
			fmt.Fprintf(d.std.out, "demo site published %q; its hub pushed %s to %d subscriber(s)\n", p.Title, p.Feed, n)
			if n > 0 {
				d.reportRanked(ctx, a, siteURL+p.Path, p.Title, p.At)
			}
		}
		<-ctx.Done() // a part that returns stops the demo
		return nil
	}}
}

// reportRanked prints when the article at url is stored and ranked (or
// gives up after a minute).
func (d *demo) reportRanked(ctx context.Context, a *app, url, title string, published time.Time) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cu, err := canonurl.Canonical(url)
	if err != nil {
		return
	}
	for ctx.Err() == nil {
		if _, err := a.news.Get(ctx, news.ID(cu)); err == nil {
			fmt.Fprintf(d.std.out, "  ranked %q %s after it was published (pushed, not polled)\n", title,
				time.Since(published).Round(time.Millisecond))
			return
		}
		clock.Sleep(ctx, 200*time.Millisecond)
	}
}

// simulatedUsers is the demo's part that plays its users on the web
// server at webURL; none with -users 0.
func (d *demo) simulatedUsers(webURL string) []part {
	if d.users == 0 {
		return nil
	}
	sim := &simulator{base: webURL, token: d.token, users: demoUserNames(d.users), every: d.every, log: d.log,
		client: &http.Client{Timeout: 10 * time.Second}}
	return []part{{"simulated users", sim.run}}
}

// printIntro prints where the demo, its news site and its Redis are.
func (d *demo) printIntro(a *app, webURL, siteURL string) {
	out := d.std.out
	fmt.Fprintf(out, "newsrank demo: open %s/\n", webURL)
	fmt.Fprintf(out, "  demo news site (the crawl target): %s/ (%d articles)\n", siteURL, d.articles)
	if d.stories > 0 {
		fmt.Fprintf(out, "  ranking by story: the site also publishes %d reports of %d events by several outlets\n", d.copies, d.stories)
	}
	if addr := a.rdb.EmbeddedAddr(); addr != "" {
		fmt.Fprintf(out, "  redis: embedded, in memory only, on %s; other commands (jobs, queue, ...) reach it with %s\n",
			addr, embeddedSet(addr, d.cfg.Redis))
	} else {
		fmt.Fprintf(out, "  redis: %s\n", a.rdb.Addr)
	}
	fmt.Fprintf(out, "  API token: %s   admin token: %s\n", d.shownToken, d.shownAdmin)
	fmt.Fprintf(out, "  try: curl -s '%s/api/news?page=1&size=3'\n", webURL)
	fmt.Fprintln(out, "  Ctrl-C stops the demo.")
}

// firstCrawl produces and consumes until the queues are idle, and prints
// how it went. It returns false when ctx ended first.
func (d *demo) firstCrawl(ctx context.Context, a *app) bool {
	rep, err := a.crawlOnce(ctx, jobs.TriggerManual, crawler.RunOptions{})
	t := rep.Totals()
	switch {
	case ctx.Err() != nil:
		return false
	case err != nil:
		// Keep serving: the pages and /api/jobs show what went wrong.
		d.log.Error("first crawl failed", "err", err)
		fmt.Fprintf(d.std.out, "first crawl failed: %v\n", err)
	default:
		fmt.Fprintf(d.std.out, "first crawl: %d pages fetched, %d articles stored (%d older than the window) in %s\n",
			t.Fetched, t.Created, t.TooOld, rep.Elapsed.Round(10*time.Millisecond))
	}
	return true
}

// tokens makes API tokens for the demo when the configuration has none,
// so that the simulated users (and whoever tries the API) can write. Only
// generated tokens are printed.
func (d *demo) tokens() error {
	cfg := &d.cfg.Web
	d.shownToken, d.shownAdmin = "(from web.tokens)", "(from web.admin_tokens)"
	if len(cfg.Tokens) == 0 {
		t, err := randomToken("demo-")
		if err != nil {
			return err
		}
		cfg.Tokens, d.shownToken = []string{t}, t
	}
	if len(cfg.AdminTokens) == 0 {
		t, err := randomToken("admin-")
		if err != nil {
			return err
		}
		cfg.AdminTokens, d.shownAdmin = []string{t}, t
	}
	d.token = cfg.Tokens[0]
	return nil
}

func randomToken(prefix string) (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("demo token: %w", err)
	}
	return prefix + hex.EncodeToString(b), nil
}

// simulator plays a few users through the JSON API, so the demo's pages
// move: they read (visits), vote, comment, collect, follow and invite.
type simulator struct {
	base, token string
	users       []string
	every       time.Duration
	log         *slog.Logger
	client      *http.Client
	guests      int
}

func demoUserNames(n int) []string {
	names := []string{"ana", "bo", "chen", "dara", "eli", "fang", "gus", "hana", "ivo", "jun", "kai", "lena", "mei", "nils", "omar", "pia"}
	out := make([]string, n)
	for i := range out {
		out[i] = names[i%len(names)]
		if i >= len(names) {
			out[i] += fmt.Sprint(i / len(names))
		}
	}
	return out
}

func (s *simulator) run(ctx context.Context) error {
	t := time.NewTimer(s.every / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := s.act(ctx); err != nil && ctx.Err() == nil {
			s.log.Debug("simulated user", "err", err)
		}
		// jitter: between half and one and a half times every
		t.Reset(s.every/2 + time.Duration(mrand.Int64N(int64(s.every))))
	}
}

// act makes one random user do one random thing.
func (s *simulator) act(ctx context.Context) error {
	user := s.users[mrand.IntN(len(s.users))]
	order := "score"
	if mrand.IntN(3) == 0 {
		order = "time"
	}
	var page struct {
		Items []struct {
			ID         string `json:"id"`
			VotingOpen bool   `json:"voting_open"`
		} `json:"items"`
	}
	if err := s.call(ctx, "GET", "/api/news?order="+order+"&size=30", nil, &page); err != nil {
		return err
	}
	if len(page.Items) == 0 {
		return nil
	}
	// Popular articles get more attention: pick from the top more often.
	it := page.Items[min(mrand.IntN(len(page.Items)), mrand.IntN(len(page.Items)))]
	switch r := mrand.IntN(100); {
	case r < 45 && it.VotingOpen:
		dir := "up"
		switch v := mrand.IntN(10); {
		case v == 0:
			dir = "none"
		case v <= 2:
			dir = "down"
		}
		return s.call(ctx, "POST", "/api/news/"+it.ID+"/vote", map[string]string{"user": user, "dir": dir}, nil)
	case r < 75:
		return s.call(ctx, "POST", "/api/activity", map[string]any{"user": user, "action": "visit", "target": "/news/" + it.ID}, nil)
	case r < 85:
		return s.call(ctx, "POST", "/api/activity", map[string]any{"user": user, "action": "comment", "target": it.ID + "#" + fmt.Sprint(mrand.IntN(1000))}, nil)
	case r < 90:
		return s.call(ctx, "POST", "/api/activity", map[string]any{"user": user, "action": "collect", "target": it.ID, "undo": mrand.IntN(4) == 0}, nil)
	case r < 95:
		other := s.users[mrand.IntN(len(s.users))]
		if other == user {
			return nil
		}
		return s.call(ctx, "POST", "/api/activity", map[string]any{"user": user, "action": "follow", "target": other}, nil)
	default:
		s.guests++
		guest := fmt.Sprintf("guest-%d-%d", time.Now().Unix()%100000, s.guests)
		return s.call(ctx, "POST", "/api/invites", map[string]string{"invitee": guest, "inviter": user}, nil)
	}
}

// call sends one API request; a reply other than 2xx is an error.
func (s *simulator) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	res, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, strings.TrimSpace(string(b)))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}
