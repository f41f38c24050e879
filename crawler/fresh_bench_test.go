package crawler

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// BenchmarkFreshness runs the demo site on a simulated clock for two days
// (the same two days whenever it runs: freshSpan; its articles appear at
// their post times: about 1,400 in the week before the end, so about 400
// during the two days, ~1.4 an hour per section on average),
// served by a real HTTP server into a real redis-server, and crawls it
// three ways with every source kind (HTML lists, RSS, Atom, sitemaps,
// JSONP list API):
//
//   - fixed-6h: a full crawl every 6 hours, every list page read in full
//     (the list validators are dropped before each crawl: the crawl as it
//     was before conditional GET);
//   - fixed-15m: the same every 15 minutes;
//   - adaptive: PollDue, the per-source polls the daemon's poller runs (crawler.poll
//     defaults, 10 min to 6 h), with conditional GET, the clock moved to
//     each next poll, the articles of each poll stored before the next
//     (so the sources' rhythms are learned as the daemon learns them); past
//     the end it polls on until what was published in the span's last
//     minutes is stored (the fixed ways crawl at the end itself).
//
// Each crawl's articles are fetched and stored at the simulated time of
// the crawl. For each way it reports the median delay from an article's
// publication to its storage in news (articles never stored count as
// slower than every stored one), and the list-page bytes (bodies served for
// list pages, feeds, sitemaps and the list API) per new article; the first
// crawl, which reads the backlog, is left out of the bytes. A table on
// stdout splits the figures of fixed-15m and adaptive by source (and
// kind): list requests, 304s, bytes, new articles and their median delay.
//
// The demo site publishes in a daily rhythm (rhythm=daily,
// demosite.Options.DailyRhythm): each section by the clock of its own
// zone, busy in the morning or the evening, quiet at night, two of them
// in bursts; the seed varies every shape. Target there: adaptive within
// 1.2x fixed-15m's median delay, with <= 10% of its list bytes per new
// article. It also reports the slowest source's median delay against
// that source's under fixed-15m (not a target: a rule can meet the
// median over all articles by slowing one kind of source), and
// adaptive's list requests against fixed-15m's. It runs on feeds of the
// newest 50 entries (feeds=50), as real feeds carry, and on feeds of
// every article (feeds=all), the demo site's default, for a one-shot
// crawl to find them all; and once on a site whose articles come at
// uniform times (rhythm=flat: no rhythm to learn; reported against the
// 2x of the polls before rhythms were learned). These variants are the
// site without any WebSub hub. push=third (daily rhythm, feeds=50) has a
// third of the sources announce one and publish through it, and crawls
// with the daemon's subscriber too (benchFreshnessPush). FRESH_SEED
// (default 7) picks another demo site.
func BenchmarkFreshness(b *testing.B) {
	seed := int64(7)
	if v := os.Getenv("FRESH_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatalf("FRESH_SEED: %v", err)
		}
		seed = n
	}
	b.Run("rhythm=daily", func(b *testing.B) {
		for _, feeds := range []int{50, 0} {
			name := "feeds=" + strconv.Itoa(feeds)
			if feeds == 0 {
				name = "feeds=all"
			}
			b.Run(name, func(b *testing.B) { benchFreshness(b, seed, feeds, true) })
		}
	})
	b.Run("rhythm=flat", func(b *testing.B) {
		b.Run("feeds=50", func(b *testing.B) { benchFreshness(b, seed, 50, false) })
	})
	b.Run("push=third", func(b *testing.B) {
		b.Run("rhythm=daily", func(b *testing.B) {
			b.Run("feeds=50", func(b *testing.B) { benchFreshnessPush(b, seed, 50) })
		})
	})
}

func benchFreshness(b *testing.B, seed int64, feedItems int, rhythm bool) {
	const articles = 1400
	start, end, err := freshSpan(time.Now())
	if err != nil {
		b.Fatal(err)
	}
	clk := clock.NewFake(start)
	site := demosite.New(demosite.Options{Articles: articles, Now: end, Seed: seed, Clock: clk, FeedItems: feedItems,
		DailyRhythm: rhythm})
	cs := &countingSite{h: site, articles: map[string]bool{}}
	for _, a := range slices.Concat(site.Articles(), site.PrivateArticles()) {
		cs.articles[a.Path] = true
	}
	kinds := map[string]string{}
	for _, s := range site.Sources("") {
		kinds[s.Name] = s.Kind
	}
	maxDelay := 1.2
	if !rhythm {
		maxDelay = 2
	}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	r := redistest.Start(b)
	b.Logf("target: adaptive polling + conditional GET within %.1fx the median delay of a fixed 15 min crawl, with <= 10%% of its list bytes per new article", maxDelay)
	for range b.N {
		fr := &freshRun{b: b, rdb: r.Client(), site: site, cs: cs, clk: clk, start: start, end: end, base: srv.URL}
		res := map[string]freshResult{}
		for _, way := range []string{"fixed-6h", "fixed-15m", "adaptive"} {
			res[way] = fr.run(way)
			x := res[way]
			b.Logf("%-9s median delay %s, %d of %d new articles stored, %d list requests (%d answered 304), %.0f list bytes per new article",
				way, x.median.Round(time.Second), x.stored, x.published, x.requests, x.notModified, x.bytesPerNew)
		}
		a, f := res["adaptive"], res["fixed-15m"]
		delayRatio := a.median.Seconds() / f.median.Seconds()
		bytesRatio := a.bytesPerNew / f.bytesPerNew
		met := delayRatio <= maxDelay && bytesRatio <= 0.10
		printSources(kinds, res, "fixed-15m", "adaptive")
		b.Logf("adaptive vs fixed-15m: %.2fx the median delay, %.1f%% of the list bytes per new article: target %s; %.0f%% of its list requests",
			delayRatio, 100*bytesRatio, map[bool]string{true: "met", false: "NOT met"}[met], 100*float64(a.requests)/float64(f.requests))
		for _, way := range []string{"fixed-6h", "fixed-15m", "adaptive"} {
			b.ReportMetric(res[way].median.Minutes(), way+"-delay-min")
			b.ReportMetric(res[way].bytesPerNew/1024, way+"-KiB/new")
		}
		b.ReportMetric(delayRatio, "delay-ratio")
		b.ReportMetric(bytesRatio, "bytes-ratio")
		slow, worst := slowestSource(res["adaptive"], res["fixed-15m"])
		b.Logf("slowest source against fixed-15m: %s, %.2fx its median delay (reported, not a target: the median over all articles hides a slow source)",
			slow, worst)
		b.ReportMetric(worst, "worst-source-delay-ratio")
		b.ReportMetric(float64(a.requests)/float64(f.requests), "requests-ratio")
	}
}

// slowestSource is the source whose median delay is the most times that
// of the same source in base, and how many times.
func slowestSource(x, base freshResult) (string, float64) {
	var name string
	var worst float64
	for s, sr := range x.sources {
		b := base.sources[s].median()
		if b <= 0 || sr.published == 0 {
			continue
		}
		if r := sr.median().Seconds() / b.Seconds(); r > worst || (r == worst && s < name) {
			name, worst = s, r
		}
	}
	return name, worst
}

// stampStore is the news store noting when (on the simulated clock) each
// URL was first stored, and which were first stored by the consumers run
// after a hub's push.
type stampStore struct {
	*news.Store
	clk     clock.Clock
	mu      sync.Mutex
	at      map[string]time.Time
	pushing bool
	pushed  map[string]bool
}

func (s *stampStore) note(url string, r news.IngestResult) {
	if r.Err != nil || (r.Status != news.Created && r.Status != news.Updated) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.at[url]; !ok {
		s.at[url] = s.clk.Now()
		if s.pushing {
			s.pushed[url] = true
		}
	}
}

// afterPush tells the store whether what it stores now follows a push.
func (s *stampStore) afterPush(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pushing = on
}

func (s *stampStore) Ingest(ctx context.Context, a news.Article) (news.IngestResult, error) {
	r, err := s.Store.Ingest(ctx, a)
	if err == nil {
		s.note(a.URL, r)
	}
	return r, err
}

func (s *stampStore) IngestBatch(ctx context.Context, as []news.Article) ([]news.IngestResult, error) {
	rs, err := s.Store.IngestBatch(ctx, as)
	if err == nil {
		for i, r := range rs {
			s.note(as[i].URL, r)
		}
	}
	return rs, err
}

type freshResult struct {
	median            time.Duration
	published, stored int
	listCount
	bytesPerNew float64
	sources     map[string]sourceResult
	// pushed are the articles of the span first stored after a hub's push
	// (the push way only), by canonical URL; pushWall the wall-clock time
	// each push took, from the publisher's ping of the hub to its
	// articles stored.
	pushed   map[string]bool
	pushWall []time.Duration
}

type freshRun struct {
	b          *testing.B
	rdb        *redis.Client
	site       *demosite.Site
	cs         *countingSite
	clk        *clock.Fake
	start, end time.Time
	base       string
	// push is the hub and callback server of the push way; nil when the
	// site announces no hub.
	push *pushRig
}

// run crawls the site over the simulated span one way.
func (fr *freshRun) run(way string) freshResult {
	b, ctx := fr.b, context.Background()
	fr.rdb.FlushAll(ctx)
	fr.clk.Set(fr.start)
	ns, err := news.New(fr.rdb, "f:", news.DefaultOptions(), news.WithLogger(quietLog()), news.WithClock(fr.clk))
	if err != nil {
		b.Fatal(err)
	}
	store := &stampStore{Store: ns, clk: fr.clk, at: map[string]time.Time{}, pushed: map[string]bool{}}
	opts := DefaultOptions()
	opts.Workers, opts.PerHostParallelism = 8, 8
	opts.Delay, opts.Jitter = 0, 0
	opts.Sources = demoSources(fr.site.Sources(fr.base))
	c, err := New(opts, queue.DefaultOptions(), fr.rdb, "f:", store, WithLogger(quietLog()), WithClock(fr.clk),
		WithQueueOptions(queue.WithLogger(quietLog())))
	if err != nil {
		b.Fatal(err)
	}
	first := true
	round := func() {
		if first {
			fr.cs.reset() // the backlog's crawl is not counted
		}
		first = false
	}
	var pw *pushWay
	switch way {
	case "adaptive", "push":
		if way == "push" {
			pw = fr.push.start(ctx, fr, c, store)
			defer pw.close()
		}
		for {
			pw.maintain(ctx)
			next, err := c.PollDue(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.newRun(c.sources, true).run(ctx); err != nil {
				b.Fatal(err)
			}
			round()
			at := later(next, fr.clk.Now().Add(time.Second))
			// The publications up to the next poll, each at its own time.
			pw.publishUntil(ctx, at)
			// Past the span's end the polls go on (as they come due) until
			// they have stored what was published in its last minutes:
			// the fixed ways crawl at the end itself.
			if next.After(fr.end) && (fr.spanStored(store) || next.After(fr.end.Add(c.cfg.Poll.Max))) {
				break
			}
			fr.clk.Set(at)
		}
	default:
		every := 6 * time.Hour
		if way == "fixed-15m" {
			every = 15 * time.Minute
		}
		for t := fr.start; !t.After(fr.end); t = t.Add(every) {
			fr.clk.Set(t)
			for _, s := range c.Sources() {
				fr.rdb.Del(ctx, c.listsKey(s))
			}
			if _, err := c.RunOnce(ctx, nil); err != nil {
				b.Fatal(err)
			}
			round()
		}
	}
	res := fr.result(store)
	if pw != nil {
		res.pushWall = pw.wall
	}
	return res
}

// freshEnd is the end of the simulated span, the same whenever the
// benchmark runs: the poll jitter hashes the clock's instants, the
// finance section's daily sitemaps change at its midnight and the dates
// in the lists are part of their bytes, so a span that followed the wall
// clock gave other figures at every hour.
var freshEnd = time.Date(2099, time.June, 1, 0, 0, 0, 0, time.UTC)

// freshSpan is the simulated span: the two days before freshEnd, whatever
// the wall clock's now. They must lie ahead of now: Redis expires the
// queue's done memory at instants of the queue's clock (PEXPIREAT), so
// days in the past would expire it at once and every poll would find
// every listed URL new again.
func freshSpan(now time.Time) (start, end time.Time, err error) {
	const span = 48 * time.Hour
	start = freshEnd.Add(-span)
	if !now.Add(24 * time.Hour).Before(start) {
		return time.Time{}, time.Time{}, fmt.Errorf("the simulated span (%s to %s) must start a day after now (%s): move freshEnd ahead",
			start.Format(time.RFC3339), freshEnd.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	return start, freshEnd, nil
}

// spanArticles are the canonical URLs of the articles published during
// the span, each with its section and post time.
func (fr *freshRun) spanArticles() map[string]demosite.ArticleInfo {
	out := map[string]demosite.ArticleInfo{}
	for _, a := range fr.site.Articles() {
		if !a.PostTime.After(fr.start) || a.PostTime.After(fr.end) {
			continue
		}
		u, err := canonurl.Canonical(fr.base + a.Path)
		if err != nil {
			fr.b.Fatal(err)
		}
		out[u] = a
	}
	return out
}

// spanStored reports whether every article published during the span is
// stored.
func (fr *freshRun) spanStored(store *stampStore) bool {
	store.mu.Lock()
	defer store.mu.Unlock()
	for u := range fr.spanArticles() {
		if _, ok := store.at[u]; !ok {
			return false
		}
	}
	return true
}

// result is the median delay of the articles published during the span
// and the list bytes per new article.
func (fr *freshRun) result(store *stampStore) freshResult {
	per, total := fr.cs.counts()
	res := freshResult{listCount: total, sources: map[string]sourceResult{}, pushed: map[string]bool{}}
	for s, n := range per {
		res.sources[s] = sourceResult{listCount: n}
	}
	var delays []time.Duration
	for u, a := range fr.spanArticles() {
		res.published++
		sr := res.sources[a.Section]
		sr.published++
		at, ok := store.at[u]
		if ok {
			sr.stored++
		}
		if store.pushed[u] {
			res.pushed[u] = true
		}
		d := time.Duration(1 << 62) // never stored: slower than all
		if ok {
			d = at.Sub(a.PostTime)
			res.stored++
		}
		sr.delays = append(sr.delays, d)
		res.sources[a.Section] = sr
		delays = append(delays, d)
	}
	if res.published == 0 {
		fr.b.Fatal("no article published during the span")
	}
	slices.Sort(delays)
	res.median = delays[len(delays)/2]
	res.bytesPerNew = float64(res.bytes) / float64(res.published)
	return res
}
