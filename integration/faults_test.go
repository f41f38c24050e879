package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// stored is how many articles time: ranks.
func (s *stack) stored() int64 {
	n, _ := s.store.Count(context.Background())
	return n
}

// TestFaultConsumersKilled kills every consumer process with SIGKILL in
// the middle of a crawl, while they hold leases, then starts new ones:
// the leases of the dead expire, their URLs are claimed again, and the
// crawl ends with every URL done or dead and every article stored.
func TestFaultConsumersKilled(t *testing.T) {
	rs := redistest.Start(t)
	d := startDemo(t, 120, 150*time.Millisecond)
	cfg := testConfig(rs.Options())
	cfg.Crawler.Workers = 2
	cfg.Queue.Lease = config.Duration(2 * time.Second)
	cfg.Crawler.Sources = d.sources()
	s := newStack(t, cfg)
	ctx := context.Background()
	path := writeConfig(t, cfg)

	var first []*consumer
	for i := range 3 {
		first = append(first, startConsumer(t, s.rdb, path, fmt.Sprintf("doomed-%d", i)))
	}
	if _, err := s.cr.Produce(ctx); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, 60*time.Second, "the crawl to be under way", func() bool {
		st, err := totals(ctx, s.queues())
		return err == nil && s.stored() >= 15 && st.InFlight >= 3
	})
	for _, p := range first {
		p.kill(t)
	}
	st, err := totals(ctx, s.queues())
	if err != nil {
		t.Fatal(err)
	}
	stored := s.stored()
	t.Logf("after SIGKILL of 3 consumers: %d articles stored, queues %+v", stored, st)
	if st.InFlight == 0 || st.Pending == 0 {
		t.Fatalf("nothing leased or pending when the consumers died: the test proves nothing (%+v)", st)
	}

	var second []*consumer
	for i := range 2 {
		second = append(second, startConsumer(t, s.rdb, path, fmt.Sprintf("survivor-%d", i)))
	}
	s.waitSettled(2 * time.Minute)
	for _, p := range second {
		p.terminate(t)
	}
	s.checkDemoCrawl(d)
}

// TestFaultRedisRestartMidCrawl kills Redis (appendonly, fsync always)
// twice while consumers crawl and starts it again in place: the consumers
// ride through, and the crawl ends with nothing lost.
func TestFaultRedisRestartMidCrawl(t *testing.T) {
	rs := redistest.Start(t, redistest.Options{AppendOnly: true})
	d := startDemo(t, 120, 60*time.Millisecond)
	cfg := testConfig(rs.Options())
	cfg.Crawler.Workers = 3
	cfg.Crawler.Sources = d.sources()
	s := newStack(t, cfg)
	fresh, _, _, _ := d.truth(cfg.News.Window.D())
	s.crawlThroughRestarts(rs, 15, int64(len(fresh))/2)
	s.checkDemoCrawl(d)
}

// crawlThroughRestarts produces the crawl of s's sources and consumes it
// while Redis rs is killed and started again in place each time s ranks
// at least one of the counts ats, and returns the queues' stats once
// every URL has ended.
func (s *stack) crawlThroughRestarts(rs *redistest.Server, ats ...int64) queue.Stats {
	t := s.t
	t.Helper()
	ctx := context.Background()
	if _, err := s.cr.Produce(ctx); err != nil {
		t.Fatal(err)
	}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	consumed := make(chan error, 1)
	go func() { consumed <- s.cr.Consume(cctx) }()
	for _, at := range ats {
		proctest.WaitFor(t, 60*time.Second, fmt.Sprintf("%d articles ranked", at), func() bool { return s.stored() >= at })
		rs.Restart()
		t.Logf("redis-server restarted with %d articles ranked", s.stored())
	}
	st := s.waitSettled(2 * time.Minute)
	stop()
	if err := <-consumed; err != nil {
		t.Fatalf("Consume: %v", err)
	}
	return st
}

// TestFaultRedisRestartMidRebuild restarts Redis (appendonly, fsync
// always) in the middle of a client-side rebuild (gravity), at the moment
// the rebuild sends its next command on the temporary ranking after an
// earlier one was applied (a proxy between the rescorer and Redis kills
// Redis there; the test starts it again while the rebuild retries). The
// rebuild either fails, leaving score: exactly as it was, or rides
// through and swaps in a correct ranking; either way the ranking is
// consistent and the next rebuild succeeds.
func TestFaultRedisRestartMidRebuild(t *testing.T) {
	rs := redistest.Start(t, redistest.Options{AppendOnly: true})
	cfg := testConfig(rs.Options())
	cfg.News.Formula = "gravity"
	s := newStack(t, cfg)
	ctx := context.Background()
	const n = 20000
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Now()
	for b := 0; b < n; b += 1000 {
		as := make([]news.Article, 1000)
		for i := range as {
			as[i] = news.Article{URL: fmt.Sprintf("https://news.example.com/a/%d.html", b+i), Title: fmt.Sprintf("Story %d", b+i),
				PostTime: now.Add(-time.Duration(rng.Int64N(int64(6 * 24 * time.Hour)))), Comments: rng.Int64N(500)}
		}
		if _, err := s.store.IngestBatch(ctx, as); err != nil {
			t.Fatal(err)
		}
	}
	before, err := scoresOf(ctx, s.store)
	if err != nil {
		t.Fatal(err)
	}

	killed := make(chan string, 1)
	var once sync.Once
	proxy := startProxy(t, rs.Addr(), func(args []string, _ bool) bool {
		tmp := ""
		for _, a := range args[1:] {
			if strings.Contains(a, ":score:rebuild:") {
				tmp = a
			}
		}
		if tmp == "" || s.rdb.Exists(ctx, tmp).Val() == 0 {
			return true
		}
		struck := false
		once.Do(func() {
			struck = true
			rs.Kill()
			killed <- args[0] + " " + tmp
		})
		return !struck
	})
	pcfg := cfg.Redis.Options()
	pcfg.URL = "redis://" + proxy.Addr() + "/0"
	pc, err := rdb.Open(ctx, pcfg, s.log)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	done := make(chan error, 1)
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		_, err := s.storeOn(pc).Rebuild(rctx, news.RebuildOptions{Batch: 100})
		done <- err
	}()
	var rebuildErr error
	select {
	case at := <-killed:
		t.Logf("redis-server killed mid-rebuild, before %s", at)
		rs.Start()
		rebuildErr = <-done
	case rebuildErr = <-done:
		// The rebuild may have failed before this goroutine saw the kill.
		select {
		case at := <-killed:
			t.Logf("redis-server killed mid-rebuild, before %s", at)
			rs.Start()
		default:
			t.Fatalf("the rebuild ended (%v) without a second command on its temporary ranking: nothing to strike at", rebuildErr)
		}
	}

	after, err := scoresOf(ctx, s.store)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != n {
		t.Fatalf("score: holds %d articles after the restart, want %d", len(after), n)
	}
	if rebuildErr != nil {
		t.Logf("the rebuild failed: %v", rebuildErr)
		for id, sc := range before {
			if after[id] != sc {
				t.Fatalf("the failed rebuild changed score: (%s: %g → %g)", id, sc, after[id])
			}
		}
	} else {
		t.Log("the rebuild rode through the restart")
	}
	checkRanking(t, s.store)

	res, err := s.store.Rebuild(ctx, news.RebuildOptions{Batch: 1000})
	if err != nil || res.Articles != n {
		t.Fatalf("rebuild after the restart: %+v, %v", res, err)
	}
	checkRanking(t, s.store)
	rk := rankings(t, s.store)
	scores, times, votes := rk.Score, rk.Time, rk.Votes
	f, now := s.store.Formula(), time.Now()
	for id, sc := range scores {
		want := f.Score(time.Unix(int64(times[id]), 0), votes[id], now)
		if math.Abs(sc-want) > 1e-3*math.Abs(want)+1e-12 {
			t.Fatalf("%s: score %g after the rebuild, want about %g", id, sc, want)
		}
	}
}

// TestFaultRedisUnreachableDaemon runs the newsrank binary's daemon
// against a redis-server and the demo site, shuts Redis down for 10
// seconds in the middle of the crawl and starts it again. The daemon keeps
// running, logs the failures, answers /readyz 503 during the outage and
// 200 after, finishes the crawl with nothing lost, and exits 0 on SIGTERM.
// It takes about 30 seconds (the outage is 10 of them).
func TestFaultRedisUnreachableDaemon(t *testing.T) {
	bin := proctest.Build(t)
	rs := redistest.Start(t, redistest.Options{AppendOnly: true})
	d := startDemo(t, 120, 100*time.Millisecond)
	cfg := testConfig(rs.Options())
	cfg.Log.Level = "info"
	cfg.Crawler.Workers = 2
	cfg.Crawler.Sources = d.sources()
	cfg.Jobs.ShutdownTimeout = config.Duration(30 * time.Second)
	s := newStack(t, cfg) // this process's view, for checks
	// The last crawl ran a day ago: the daemon catches up the run missed since.
	last, err := json.Marshal(jobs.Run{Job: jobs.Crawl, Trigger: jobs.TriggerSchedule, Holder: "earlier/1",
		Start: time.Now().Add(-24 * time.Hour), End: time.Now().Add(-24 * time.Hour), Status: jobs.StatusOK})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.rdb.Set(context.Background(), prefix+jobs.Tag+":last:crawl", last, 0).Err(); err != nil {
		t.Fatal(err)
	}

	dm := proctest.StartDaemon(t, bin, writeConfig(t, cfg))
	status := func(path string) int {
		c := http.Client{Timeout: 10 * time.Second}
		resp, err := c.Get(dm.URL + path)
		if err != nil {
			t.Fatalf("GET %s: %v (the daemon should answer whatever Redis does)\n%s", path, err, dm.Log.Tail(8<<10))
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	proctest.WaitFor(t, 60*time.Second, "the daemon to crawl a few articles", func() bool { return s.stored() >= 10 })
	if code := status("/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz = %d before the outage, want 200", code)
	}

	fresh, _, _, _ := d.truth(cfg.News.Window.D())
	n := s.stored()
	if n >= int64(len(fresh)) {
		t.Fatalf("the crawl ended before the outage (%d articles stored): the test proves nothing", n)
	}
	rs.Stop()
	outage := time.Now()
	t.Logf("redis-server stopped with about %d of %d articles stored", n, len(fresh))
	proctest.WaitFor(t, 15*time.Second, "/readyz to report the outage", func() bool { return status("/readyz") == http.StatusServiceUnavailable })
	for time.Since(outage) < 10*time.Second {
		if err := dm.Exited(); err != nil {
			t.Fatalf("the daemon exited during the outage: %v\n%s", err, dm.Log.Tail(8<<10))
		}
		if code := status("/readyz"); code != http.StatusServiceUnavailable {
			t.Fatalf("/readyz = %d with Redis down, want 503", code)
		}
		if code := status("/healthz"); code != http.StatusOK {
			t.Fatalf("/healthz = %d with Redis down, want 200 (the process is up)", code)
		}
		time.Sleep(time.Second)
	}
	rs.Start()
	t.Logf("redis-server started again after %v", time.Since(outage).Round(time.Second))
	proctest.WaitFor(t, 30*time.Second, "/readyz to report ready again", func() bool { return status("/readyz") == http.StatusOK })

	s.waitSettled(2 * time.Minute)
	s.checkDemoCrawl(d)
	if err := dm.Exited(); err != nil {
		t.Fatalf("the daemon exited: %v", err)
	}
	// The crawl the daemon caught up at start (it was missed) queued the
	// URLs; it is in the job history.
	if runs := jobRuns(t, s, "crawl"); len(runs) == 0 || runs[len(runs)-1]["status"] != "ok" || runs[len(runs)-1]["trigger"] != "catch-up" {
		t.Errorf("crawl job history: %v; want the catch-up run, ok", runs)
	}
	if log := dm.Log.String(); !logHas(log, "connection refused") {
		t.Errorf("the daemon's log does not mention the refused connections to Redis:\n%s", dm.Log.Tail(8<<10))
	}
	if code := dm.Stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("daemon exit status %d after SIGTERM, want 0\n%s", code, dm.Log.Tail(8<<10))
	}
}

// jobRuns reads a job's history as the daemon recorded it.
func jobRuns(t *testing.T, s *stack, job string) []map[string]any {
	t.Helper()
	raw, err := s.rdb.LRange(context.Background(), prefix+"{jobs}:runs:"+job, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, r := range raw {
		var m map[string]any
		if err := json.Unmarshal([]byte(r), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}
