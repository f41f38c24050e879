package crawler

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler/websub"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/internal/websubhub"
)

// benchFreshnessPush is BenchmarkFreshness's push=third: the demo site
// (daily rhythm) announces a WebSub hub on the feeds of a third of its
// sources (hubSources) and publishes each of their articles through it
// at its post time, as a publisher pings its hub. It crawls the site
// three ways:
//
//   - fixed-15m and adaptive, as in the other variants (no subscriber:
//     the announced hub is left alone);
//   - push: adaptive with the daemon's WebSub subscriber (crawler/websub)
//     on the sources' feeds. It subscribes through the hub
//     (internal/websubhub, served beside the site, on the simulated
//     clock) at the start, and the hub verifies each subscription with a
//     real HTTP callback to the subscriber's handler (a server of its own,
//     as the daemon's web server is). The benchmark's loop moves the clock
//     through two streams of events in time order: the polls as they come
//     due (the subscriber's schedule hook on: a pushed source is polled
//     every hour), and the publications: at each, the hub fetches the feed
//     and pushes it (signed) to the callback, the handler checks it and
//     queues its new links (Crawler.Pushed), and the consumers store them,
//     before the clock moves on. The subscriber's maintenance runs once a
//     simulated minute at most, at the events, as the daemon's does every
//     minute.
//
// A pushed article is stored at its post time on the simulated clock:
// the real processing between the ping and the article stored (the hub's
// fetch, the push, the queue, the article page's fetch, the store) counts
// as 0 there, and is measured on the wall clock and reported beside.
// Pushed bodies count as list bytes of their source (feed bytes the daemon
// receives); the hub's own fetches of the feeds do not (the publisher
// serves them to its hub).
//
// Targets: with a third of the sources announcing a hub, push's median
// delay over all new articles <= 5 min and over the hub sources' articles
// <= 30 s, at <= 10% of fixed-15m's list bytes per new article. It also
// reports the median of the other sources' articles (polled only), how
// many hub sources' articles came by a push, and the slowest source.
func benchFreshnessPush(b *testing.B, seed int64, feedItems int) {
	const articles = 1400
	start, end, err := freshSpan(time.Now())
	if err != nil {
		b.Fatal(err)
	}
	clk := clock.NewFake(start)
	site := demosite.New(demosite.Options{Articles: articles, Now: end, Seed: seed, Clock: clk, FeedItems: feedItems,
		DailyRhythm: true, Hub: "/hub"})
	hubs, err := hubSources(site.Sources(""))
	if err != nil {
		b.Fatal(err)
	}
	cs := &countingSite{h: site, articles: map[string]bool{}, skipUA: hubUA}
	for _, a := range slices.Concat(site.Articles(), site.PrivateArticles()) {
		cs.articles[a.Path] = true
	}
	kinds := map[string]string{}
	var hubNames []string
	for _, s := range site.Sources("") {
		kinds[s.Name] = s.Kind
		if hubs[s.Name] {
			hubNames = append(hubNames, s.Name+" ("+s.Kind+")")
		}
	}
	pr := &pushRig{cs: cs, sources: hubs}
	mux := http.NewServeMux()
	mux.HandleFunc("/hub", pr.serveHub)
	mux.Handle("/", cs)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cb := httptest.NewServer(http.HandlerFunc(pr.serveCallback))
	defer cb.Close()
	pr.callback = cb.URL
	r := redistest.Start(b)
	b.Logf("target: a hub on %s (%d of %d sources): median delay <= 5 min over all new articles, <= 30 s over the hub sources', "+
		"with <= 10%% of a fixed 15 min crawl's list bytes per new article (pushed bodies counted)",
		strings.Join(hubNames, ", "), len(hubNames), len(kinds))
	ways := []string{"fixed-15m", "adaptive", "push"}
	for range b.N {
		fr := &freshRun{b: b, rdb: r.Client(), site: site, cs: cs, clk: clk, start: start, end: end, base: srv.URL, push: pr}
		res := map[string]freshResult{}
		for _, way := range ways {
			res[way] = fr.run(way)
			x := res[way]
			b.Logf("%-9s median delay %s, %d of %d new articles stored, %d list requests (%d answered 304), %d pushes, %.0f list bytes per new article",
				way, x.median.Round(time.Second), x.stored, x.published, x.requests, x.notModified, x.pushes, x.bytesPerNew)
		}
		p, f := res["push"], res["fixed-15m"]
		pushedSrc, polledSrc := splitDelays(p, hubs)
		pushedMed, polledMed := medianOf(pushedSrc), medianOf(polledSrc)
		bytesRatio := p.bytesPerNew / f.bytesPerNew
		met := p.median <= 5*time.Minute && pushedMed <= 30*time.Second && bytesRatio <= 0.10
		printSources(kinds, res, ways...)
		b.Logf("push: median delay %s over all new articles, %s over the hub sources' (%d of %d came by a push), %s over the others' (polled); "+
			"%.1f%% of fixed-15m's list bytes per new article: target %s",
			p.median.Round(time.Second), pushedMed.Round(time.Second), len(p.pushed), len(pushedSrc), polledMed.Round(time.Second),
			100*bytesRatio, map[bool]string{true: "met", false: "NOT met"}[met])
		slow, slowMed := slowestMedian(p)
		worst, worstRatio := slowestSource(p, f)
		b.Logf("slowest source: %s, median delay %s (fixed-15m: %s); against its own under fixed-15m the slowest is %s, %.2fx",
			slow, slowMed.Round(time.Second), f.sources[slow].median().Round(time.Second), worst, worstRatio)
		wall := slices.Clone(p.pushWall)
		slices.Sort(wall)
		if len(wall) == 0 {
			b.Fatal("no publication during the span")
		}
		b.Logf("%d pushes, from the ping to the articles stored, took %s (median), %s (slowest) on the wall clock: 0 on the simulated clock",
			len(wall), wall[len(wall)/2].Round(time.Microsecond), wall[len(wall)-1].Round(time.Microsecond))
		for _, way := range ways {
			b.ReportMetric(res[way].median.Minutes(), way+"-delay-min")
			b.ReportMetric(res[way].bytesPerNew/1024, way+"-KiB/new")
		}
		b.ReportMetric(pushedMed.Seconds(), "push-hub-sources-delay-s")
		b.ReportMetric(polledMed.Minutes(), "push-other-sources-delay-min")
		b.ReportMetric(bytesRatio, "bytes-ratio")
		b.ReportMetric(slowMed.Minutes(), "slowest-source-delay-min")
		b.ReportMetric(float64(wall[len(wall)/2].Microseconds())/1000, "push-wall-ms")
	}
}

// hubUA is the User-Agent of the hub's requests: the counting site serves
// the hub's fetches of the feeds it distributes without counting them.
const hubUA = "websubhub (BenchmarkFreshness)"

// hubSources are the sources whose feeds announce the hub: a third of all
// sources, from the rss and atom ones. The demo site announces its hub on
// every feed it has (demosite.Options.Hub), so its feed sources must be
// that third: an error says when they are not.
func hubSources(srcs []demosite.Source) (map[string]bool, error) {
	out := map[string]bool{}
	for _, s := range srcs {
		if s.Kind == "rss" || s.Kind == "atom" {
			out[s.Name] = true
		}
	}
	if want := (len(srcs) + 2) / 3; len(out) != want {
		return nil, fmt.Errorf("the demo site has %d rss and atom sources of %d: a third of the sources would be %d, "+
			"and the site announces its hub on every feed", len(out), len(srcs), want)
	}
	return out, nil
}

// splitDelays are the delays of x's articles of the sources in hubs and
// of the others.
func splitDelays(x freshResult, hubs map[string]bool) (pushed, polled []time.Duration) {
	for s, sr := range x.sources {
		if hubs[s] {
			pushed = append(pushed, sr.delays...)
		} else {
			polled = append(polled, sr.delays...)
		}
	}
	return pushed, polled
}

func medianOf(d []time.Duration) time.Duration { return sourceResult{delays: d}.median() }

// slowestMedian is the source of x whose articles have the longest
// median delay, and that delay.
func slowestMedian(x freshResult) (string, time.Duration) {
	var name string
	var worst time.Duration
	for s, sr := range x.sources {
		if sr.published == 0 {
			continue
		}
		if m := sr.median(); m > worst || (m == worst && s < name) {
			name, worst = s, m
		}
	}
	return name, worst
}

// pushRig serves what the push way adds to the demo site: the hub it
// announces (at /hub, beside the site) and the daemon's WebSub callbacks
// (a server of their own), each run's own hub and subscriber.
type pushRig struct {
	cs       *countingSite
	sources  map[string]bool
	callback string // the callback server's URL
	hub      atomic.Pointer[websubhub.Hub]
	sub      atomic.Pointer[websub.Subscriber]
}

func (pr *pushRig) serveHub(w http.ResponseWriter, r *http.Request) {
	h := pr.hub.Load()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h.ServeHTTP(w, r)
}

// serveCallback is the subscriber's handler; it counts each push's body
// as its source's list bytes.
func (pr *pushRig) serveCallback(w http.ResponseWriter, r *http.Request) {
	s := pr.sub.Load()
	if s == nil {
		http.NotFound(w, r)
		return
	}
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		source, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, websub.CallbackPath), "/")
		pr.cs.pushed(source, int64(len(body)))
	}
	s.Handler().ServeHTTP(w, r)
}

// pushWay is one run of the push way: its hub, its subscriber, and the
// publications still to come.
type pushWay struct {
	fr         *freshRun
	c          *Crawler
	store      *stampStore
	hub        *websubhub.Hub
	sub        *websub.Subscriber
	pubs       []demosite.ArticleInfo // post time order
	maintained time.Time
	wall       []time.Duration
}

// start starts a run of the push way: a new hub (on the simulated clock),
// a subscriber on the hub sources' feeds, which the crawler's poll
// schedule asks, and the feeds subscribed and verified.
func (pr *pushRig) start(ctx context.Context, fr *freshRun, c *Crawler, store *stampStore) *pushWay {
	b := fr.b
	hub := websubhub.New(websubhub.Options{Clock: fr.clk, Log: quietLog(), Client: &http.Client{Timeout: 10 * time.Second,
		Transport:     userAgent{rt: http.DefaultTransport, ua: hubUA},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}})
	var feeds []websub.Feed
	for _, s := range fr.site.Sources(fr.base) {
		if pr.sources[s.Name] {
			for _, u := range s.URLs {
				feeds = append(feeds, websub.Feed{Source: s.Name, URL: u})
			}
		}
	}
	sub, err := websub.New(fr.rdb, "f:", feeds, c, websub.Options{PublicURL: pr.callback, Transport: c.Transport(),
		MaxBody: c.cfg.MaxBodySize, UserAgent: c.cfg.UserAgent, Clock: fr.clk, Log: quietLog()})
	if err != nil {
		b.Fatal(err)
	}
	pr.hub.Store(hub)
	pr.sub.Store(sub)
	c.SetPushPolls(sub)
	pw := &pushWay{fr: fr, c: c, store: store, hub: hub, sub: sub}
	for _, a := range fr.site.Articles() {
		if pr.sources[a.Section] && a.PostTime.After(fr.start) && !a.PostTime.After(fr.end) {
			pw.pubs = append(pw.pubs, a)
		}
	}
	slices.SortFunc(pw.pubs, func(x, y demosite.ArticleInfo) int {
		return cmp.Or(x.PostTime.Compare(y.PostTime), strings.Compare(x.Path, y.Path))
	})
	pw.maintain(ctx)
	if err := hub.Idle(ctx); err != nil {
		b.Fatal(err)
	}
	if n := len(hub.Subscriptions("")); n != len(feeds) {
		b.Fatalf("the hub holds %d subscriptions, want %d (one per feed: %v)", n, len(feeds), feeds)
	}
	return pw
}

// maintain runs the subscriber's maintenance when a simulated minute has
// passed since the last (the daemon runs it every minute).
func (pw *pushWay) maintain(ctx context.Context) {
	if pw == nil {
		return
	}
	now := pw.fr.clk.Now()
	if !pw.maintained.IsZero() && now.Sub(pw.maintained) < time.Minute {
		return
	}
	pw.maintained = now
	rep, err := pw.sub.Maintain(ctx)
	if err != nil || rep.Failed > 0 || rep.NoHub > 0 {
		pw.fr.b.Fatalf("websub maintenance: %+v, %v", rep, err)
	}
}

// publishUntil publishes, in order, each article whose post time is not
// after t: the clock moves to its post time, the publisher pings the hub
// (Hub.Publish: the hub fetches the feed and pushes it to the callback),
// and the consumers store what the push queued, all before the next.
func (pw *pushWay) publishUntil(ctx context.Context, t time.Time) {
	if pw == nil {
		return
	}
	b := pw.fr.b
	for len(pw.pubs) > 0 && !pw.pubs[0].PostTime.After(t) {
		a := pw.pubs[0]
		pw.pubs = pw.pubs[1:]
		pw.fr.clk.Set(later(a.PostTime, pw.fr.clk.Now()))
		pw.maintain(ctx)
		pw.store.afterPush(true)
		began := time.Now()
		n, err := pw.hub.Publish(ctx, pw.fr.base+demosite.FeedPaths[a.Section])
		if err != nil || n != 1 {
			b.Fatalf("publish %s through the hub: pushed to %d subscribers, %v", a.Path, n, err)
		}
		if err := pw.c.newRun(pw.c.sources, true).run(ctx); err != nil {
			b.Fatal(err)
		}
		pw.wall = append(pw.wall, time.Since(began))
		pw.store.afterPush(false)
	}
}

// close ends the run's hub and subscriber.
func (pw *pushWay) close() {
	pr := pw.fr.push
	pr.hub.Store(nil)
	pr.sub.Store(nil)
	pw.hub.Close()
}

// userAgent sends every request with the User-Agent ua.
type userAgent struct {
	rt http.RoundTripper
	ua string
}

func (t userAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", t.ua)
	return t.rt.RoundTrip(r)
}
