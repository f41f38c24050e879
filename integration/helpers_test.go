package integration

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"gopkg.in/yaml.v3"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// prefix is the key prefix of every test deployment.
const prefix = "it:"

// quietRedis drops go-redis's own log lines ("failed to dial ..."): the
// fault tests provoke them on purpose, and newsrank logs what matters.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quietRedis{}) }

// testConfig is the default configuration on Redis r, tuned for tests:
// no politeness delays, short leases and retries, a fake-free real clock.
func testConfig(r rdb.Options) config.Config {
	cfg := config.DefaultConfig()
	cfg.Redis = config.RedisFromOptions(r)
	cfg.Redis.KeyPrefix = prefix
	cfg.Log.Level = "warn"
	cfg.Crawler.Workers = 4
	cfg.Crawler.PerHostParallelism = 4
	cfg.Crawler.Delay = 0
	cfg.Crawler.Jitter = 0
	cfg.Crawler.RequestTimeout = config.Duration(10 * time.Second)
	cfg.Crawler.ListAttempts = 2
	cfg.Crawler.UserAgent = "newsrank-integration/1.0"
	cfg.Queue.Lease = config.Duration(3 * time.Second)
	cfg.Queue.RetryBase = config.Duration(50 * time.Millisecond)
	cfg.Queue.RetryMax = config.Duration(200 * time.Millisecond)
	cfg.Queue.IdlePoll = config.Duration(50 * time.Millisecond)
	cfg.Queue.MaxAttempts = 5
	cfg.Board.TimeZone = "UTC"
	cfg.Jobs.TimeZone = "UTC"
	cfg.Jobs.LockTTL = config.Duration(5 * time.Second)
	cfg.Web.Listen = "127.0.0.1:0"
	return cfg
}

// writeConfig writes cfg as YAML for another process and returns the path.
func writeConfig(t testing.TB, cfg config.Config) string {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// syncBuffer collects logs and child-process output, shown when a test fails.
type syncBuffer = proctest.Log

// testLog returns a logger whose output is shown only when t fails (so no
// goroutine logs into a finished test).
func testLog(t testing.TB, level slog.Level) (*slog.Logger, *syncBuffer) {
	t.Helper()
	buf := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() && buf.String() != "" {
			t.Logf("newsrank log (tail):\n%s", buf.Tail(16<<10))
		}
	})
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: level})), buf
}

// demo is the bundled demo news site on an httptest server. Its article
// pages can be slowed down (to have a crawl in progress when a fault
// strikes) and are counted per User-Agent (to see which consumer process
// fetched them).
type demo struct {
	site     *demosite.Site
	srv      *httptest.Server
	URL      string
	articles map[string]bool // public and private article paths
	delay    atomic.Int64    // added before each article page, ns

	mu   sync.Mutex
	byUA map[string]int
}

// startDemo serves a demo site of n articles anchored at the current time.
func startDemo(t testing.TB, n int, articleDelay time.Duration) *demo {
	t.Helper()
	return startDemoWith(t, demosite.Options{Articles: n, Seed: 9}, articleDelay)
}

// startDemoWith serves the demo site o describes, anchored at the current
// time.
func startDemoWith(t testing.TB, o demosite.Options, articleDelay time.Duration) *demo {
	t.Helper()
	o.Now = time.Now().UTC().Truncate(time.Second)
	d := &demo{site: demosite.New(o), articles: map[string]bool{}, byUA: map[string]int{}}
	for _, a := range append(d.site.Articles(), d.site.PrivateArticles()...) {
		d.articles[a.Path] = true
	}
	d.delay.Store(int64(articleDelay))
	d.srv = httptest.NewServer(http.HandlerFunc(d.serve))
	t.Cleanup(d.srv.Close)
	d.URL = d.srv.URL
	return d
}

func (d *demo) serve(w http.ResponseWriter, r *http.Request) {
	if d.articles[r.URL.Path] {
		d.mu.Lock()
		d.byUA[r.UserAgent()]++
		d.mu.Unlock()
		if delay := time.Duration(d.delay.Load()); delay > 0 {
			tm := time.NewTimer(delay)
			select {
			case <-tm.C:
			case <-r.Context().Done():
				tm.Stop()
				return
			}
		}
	}
	d.site.ServeHTTP(w, r)
}

// servedTo returns how many article pages each User-Agent was served.
func (d *demo) servedTo() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]int, len(d.byUA))
	for k, v := range d.byUA {
		out[k] = v
	}
	return out
}

// sources is the crawler configuration that finds every article of the
// site once (one source per section, each its own way in).
func (d *demo) sources() []config.Source { return config.DemoSources(d.site.Sources(d.URL)) }

// truth splits the site's articles by what the store does with them
// under window: fresh ones are stored, old ones are too old (their URLs
// still end done), private ones are disallowed by robots.txt (dead). An
// article that left the window while the test ran (fresh when the site
// was made, old now) is borderline: either outcome is right.
func (d *demo) truth(window time.Duration) (fresh, old, borderline, private []demosite.ArticleInfo) {
	now := time.Now()
	for _, a := range d.site.Articles() {
		switch {
		case now.Sub(a.PostTime) <= window:
			fresh = append(fresh, a)
		case d.site.Now().Sub(a.PostTime) > window:
			old = append(old, a)
		default:
			borderline = append(borderline, a)
		}
	}
	return fresh, old, borderline, d.site.PrivateArticles()
}

// stack is newsrank's parts on one Redis deployment, in this process.
type stack struct {
	t     testing.TB
	cfg   config.Config
	rdb   *rdb.Client
	store *news.Store
	cr    *crawler.Crawler
	log   *slog.Logger
	logs  *syncBuffer
}

// newStack opens Redis as cfg says and builds the store and the crawler.
func newStack(t testing.TB, cfg config.Config) *stack {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	log, logs := testLog(t, slog.LevelWarn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := rdb.Open(ctx, cfg.Redis.Options(), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	store, err := news.New(c, c.Prefix, cfg.News.Options(), news.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	copts, err := cfg.Crawler.Options()
	if err != nil {
		t.Fatal(err)
	}
	cr, err := crawler.New(copts, cfg.Queue.Options(), c, c.Prefix, store, crawler.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	return &stack{t: t, cfg: cfg, rdb: c, store: store, cr: cr, log: log, logs: logs}
}

// storeOn returns a store like s.store on another client of the same
// Redis (one through a fault-injecting proxy).
func (s *stack) storeOn(c redis.UniversalClient) *news.Store {
	s.t.Helper()
	store, err := news.New(c, s.rdb.Prefix, s.cfg.News.Options(), news.WithLogger(s.log))
	if err != nil {
		s.t.Fatal(err)
	}
	return store
}

// queues returns the crawler's queues, one per source.
func (s *stack) queues() []*queue.Queue {
	var qs []*queue.Queue
	for _, name := range s.cr.Sources() {
		qs = append(qs, s.cr.Queue(name))
	}
	return qs
}

// totals sums the queues' stats.
func totals(ctx context.Context, qs []*queue.Queue) (queue.Stats, error) {
	var t queue.Stats
	for _, q := range qs {
		st, err := q.Stats(ctx)
		if err != nil {
			return t, err
		}
		t.Pending += st.Pending
		t.InFlight += st.InFlight
		t.Delayed += st.Delayed
		t.Done += st.Done
		t.Dead += st.Dead
	}
	return t, nil
}

// waitSettled waits until no queue has a URL pending, leased or waiting
// for a retry: every URL has ended done or dead.
func (s *stack) waitSettled(timeout time.Duration) queue.Stats {
	s.t.Helper()
	ctx := context.Background()
	var st queue.Stats
	var err error
	deadline := time.Now().Add(timeout)
	for {
		st, err = totals(ctx, s.queues())
		if err == nil && st.Pending+st.InFlight+st.Delayed == 0 {
			return st
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("queues not settled after %v: %+v (err %v)", timeout, st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// deadLetters returns every queue's dead letters by canonical URL.
func (s *stack) deadLetters(ctx context.Context) map[string]queue.DeadLetter {
	s.t.Helper()
	out := map[string]queue.DeadLetter{}
	for _, q := range s.queues() {
		dls, err := q.Dead(ctx, 10000)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, dl := range dls {
			out[dl.URL] = dl
		}
	}
	return out
}

// canonical is canonurl.Canonical that fails t on an error.
func canonical(t testing.TB, raw string) string {
	t.Helper()
	u, err := canonurl.Canonical(raw)
	if err != nil {
		t.Fatalf("canonical %q: %v", raw, err)
	}
	return u
}

// checkDemoCrawl checks the outcome of crawling the demo site to the end:
// every URL ended done or dead with a reason (the queues are settled, done
// counts the public articles, the dead letters are exactly the private
// articles, for robots.txt), every article in the window is stored with
// its title and post time, none older is, and the ranking is consistent.
// It returns the number of articles stored.
func (s *stack) checkDemoCrawl(d *demo) int {
	s.t.Helper()
	t := s.t
	ctx := context.Background()
	fresh, old, borderline, private := d.truth(s.cfg.News.Window.D())
	st, err := totals(ctx, s.queues())
	if err != nil {
		t.Fatal(err)
	}
	if st.Pending+st.InFlight+st.Delayed != 0 {
		t.Errorf("URLs not ended: %+v", st)
	}
	if want := int64(len(fresh) + len(old) + len(borderline)); st.Done != want {
		t.Errorf("%d URLs done, want %d (%d in the window, %d older, %d that left it during the test)", st.Done, want, len(fresh), len(old), len(borderline))
	}
	dead := s.deadLetters(ctx)
	want := map[string]bool{}
	for _, a := range private {
		want[canonical(t, d.URL+a.Path)] = true
	}
	for u, dl := range dead {
		switch {
		case dl.Reason == "":
			t.Errorf("dead letter %s has no reason", u)
		case !want[u]:
			t.Errorf("dead letter %s: %s (%s) after %d attempts; only the private articles should die", u, dl.Reason, dl.Error, dl.Attempts)
		case dl.Reason != fetch.ReasonRobots:
			t.Errorf("private article %s died for %q, want %q", u, dl.Reason, fetch.ReasonRobots)
		}
	}
	for u := range want {
		if _, ok := dead[u]; !ok {
			t.Errorf("private article %s is not in the dead letters", u)
		}
	}
	for _, a := range fresh {
		it, err := s.store.Get(ctx, news.ID(canonical(t, d.URL+a.Path)))
		if err != nil {
			t.Errorf("article %s (%s) not stored: %v", a.Path, a.Section, err)
			continue
		}
		if it.Title != a.Title || !it.PostTime.Equal(a.PostTime) {
			t.Errorf("article %s: %q at %v, want %q at %v", a.Path, it.Title, it.PostTime, a.Title, a.PostTime)
		}
	}
	for _, a := range old {
		if _, err := s.store.Get(ctx, news.ID(canonical(t, d.URL+a.Path))); !errors.Is(err, news.ErrNotFound) {
			t.Errorf("article %s is older than the window but Get says %v", a.Path, err)
		}
	}
	stored := len(fresh)
	for _, a := range borderline {
		if _, err := s.store.Get(ctx, news.ID(canonical(t, d.URL+a.Path))); err == nil {
			stored++
		}
	}
	n := checkRanking(t, s.store)
	if n != stored {
		t.Errorf("the ranking holds %d articles, want %d", n, stored)
	}
	return n
}

// checkRanking checks the ranking's invariants (news.Store.Check): time:,
// score: and votes: hold the same ids, and every id has its article hash.
// It returns how many articles are ranked.
func checkRanking(t testing.TB, store *news.Store) int {
	t.Helper()
	c, err := store.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		ids    []string
		an, bn string
	}{{c.TimeNotScore, "time:", "score:"}, {c.ScoreNotTime, "score:", "time:"}, {c.TimeNotVotes, "time:", "votes:"}, {c.VotesNotTime, "votes:", "time:"}} {
		if len(d.ids) > 0 {
			t.Errorf("ranking inconsistent: %d ids in %s are not in %s, e.g. %v", len(d.ids), d.an, d.bn, d.ids[:min(5, len(d.ids))])
		}
	}
	for _, id := range c.NoHash {
		t.Errorf("ranking inconsistent: %s is ranked but has no article hash", id)
	}
	return c.Articles
}

// scoresOf reads the store's score: (news.Store.Rankings).
func scoresOf(ctx context.Context, store *news.Store) (map[string]float64, error) {
	r, err := store.Rankings(ctx)
	return r.Score, err
}

// rankings reads the store's rankings (news.Store.Rankings).
func rankings(t testing.TB, store *news.Store) news.Rankings {
	t.Helper()
	r, err := store.Rankings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The consumer processes: the test binary run again with
// -test.run=^TestHelperConsumer$ and these variables set.
const (
	consumerConfigEnv = "NEWSRANK_IT_CONSUMER_CONFIG" // config file path
	consumerNameEnv   = "NEWSRANK_IT_CONSUMER_NAME"   // its name, added to the User-Agent
)

// readyKey is set by a consumer process once it consumes.
func readyKey(name string) string { return prefix + "test:ready:" + name } // STRING pid

// consumerUA is the User-Agent of the consumer process name.
func consumerUA(cfg config.Config, name string) string {
	return cfg.Crawler.UserAgent + " consumer/" + name
}

// TestHelperConsumer is the consumer process the cluster and fault tests
// start (and kill): it runs crawler.Consume on the configured sources
// until SIGTERM or SIGINT, as the daemon's consumers do. Run without
// NEWSRANK_IT_CONSUMER_CONFIG (a normal `go test`) it returns at once:
// it is not a test of its own.
func TestHelperConsumer(t *testing.T) {
	path := os.Getenv(consumerConfigEnv)
	if path == "" {
		return
	}
	name := os.Getenv(consumerNameEnv)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Crawler.UserAgent = consumerUA(cfg, name)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})).With("consumer", name)
	c, err := rdb.Open(ctx, cfg.Redis.Options(), log)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	store, err := news.New(c, c.Prefix, cfg.News.Options(), news.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	copts, err := cfg.Crawler.Options()
	if err != nil {
		t.Fatal(err)
	}
	cr, err := crawler.New(copts, cfg.Queue.Options(), c, c.Prefix, store, crawler.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, readyKey(name), os.Getpid(), time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	if err := cr.Consume(ctx); err != nil {
		t.Fatalf("consume: %v", err)
	}
}

// consumer is a running consumer process.
type consumer struct {
	name   string
	cmd    *exec.Cmd
	out    *syncBuffer
	exited chan error
}

// startConsumer starts a consumer process on the config file cfgPath and
// waits until it consumes.
func startConsumer(t testing.TB, c redis.UniversalClient, cfgPath, name string) *consumer {
	t.Helper()
	p := &consumer{name: name, out: &syncBuffer{}, exited: make(chan error, 1)}
	p.cmd = exec.Command(os.Args[0], "-test.run=^TestHelperConsumer$", "-test.timeout=10m")
	p.cmd.Env = append(os.Environ(), consumerConfigEnv+"="+cfgPath, consumerNameEnv+"="+name)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
		p.exited <- nil
		if t.Failed() {
			t.Logf("consumer %s output (tail):\n%s", name, p.out.Tail(8<<10))
		}
	})
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	for c.Exists(ctx, readyKey(name)).Val() == 0 {
		select {
		case err := <-p.exited:
			p.exited <- err
			t.Fatalf("consumer %s exited at start: %v\n%s", name, err, p.out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumer %s not consuming after 60s:\n%s", name, p.out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return p
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *consumer) kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	err := <-p.exited
	p.exited <- err
}

// terminate sends SIGTERM and expects a clean exit within a minute.
func (p *consumer) terminate(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		p.exited <- err
		if err != nil {
			t.Errorf("consumer %s exited with %v after SIGTERM, want status 0:\n%s", p.name, err, p.out.Tail(8<<10))
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("consumer %s still running 60s after SIGTERM", p.name)
	}
}

// logHas reports whether the log holds a line containing every part.
func logHas(log string, parts ...string) bool {
	for _, line := range strings.Split(log, "\n") {
		ok := true
		for _, p := range parts {
			if !strings.Contains(line, p) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
