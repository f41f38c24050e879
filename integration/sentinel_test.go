package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

// The Sentinel tests run the newsrank daemon on redis.sentinel (a master,
// a replica and three redis-sentinel processes), crawl the demo site,
// vote through the HTTP API and rescore with `newsrank rescore` while the
// master fails over, and check that nothing acknowledged is lost: every
// URL ends done or dead as it should, every article is stored, each
// user's last acknowledged vote on each article is counted exactly once,
// and the daemon serves again once the sentinels name the new master.

// sentinelRig is the daemon and the test's own view on a Sentinel
// deployment.
type sentinelRig struct {
	t       *testing.T
	sn      *redistest.Sentinels
	d       *demo
	cfg     config.Config
	cfgPath string
	s       *stack
	bin     string
	dm      *proctest.Daemon
	http    *http.Client
}

const sentinelToken = "sentinel-writer-token"

func startSentinelRig(t *testing.T, o redistest.SentinelOptions) *sentinelRig {
	t.Helper()
	bin := proctest.Build(t)
	sn := redistest.StartSentinels(t, o)
	d := startDemo(t, 120, 120*time.Millisecond)
	cfg := testConfig(sn.Options())
	cfg.Redis.KeyPrefix = prefix
	cfg.Redis.DialTimeout = config.Duration(2 * time.Second)
	cfg.Log.Level = "info"
	cfg.Crawler.Workers = 2
	cfg.Crawler.Sources = d.sources()
	cfg.Web.Tokens = []string{sentinelToken}
	cfg.Jobs.ShutdownTimeout = config.Duration(30 * time.Second)
	r := &sentinelRig{t: t, sn: sn, d: d, cfg: cfg, s: newStack(t, cfg), bin: bin, http: &http.Client{Timeout: 10 * time.Second}}
	r.cfgPath = writeConfig(t, cfg)
	// The daemon polls every source at start (none was ever polled): the
	// crawl begins at once.
	r.dm = proctest.StartDaemon(t, bin, r.cfgPath)
	proctest.WaitFor(t, 60*time.Second, "the daemon to crawl a few articles", func() bool { return r.s.stored() >= 15 })
	return r
}

// status GETs path on the daemon and returns the status code and body.
func (r *sentinelRig) status(path string) (int, string) {
	r.t.Helper()
	resp, err := r.http.Get(r.dm.URL + path)
	if err != nil {
		r.t.Fatalf("GET %s: %v (the daemon should answer whatever Redis does)", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// voters vote through the daemon's API until stopped: each user walks the
// target articles casting up, down or none in turn, and sends each vote
// again until it is acknowledged (200), as a client would after a 503. A
// 4xx answer is an error of the test. They record each user's last
// acknowledged vote per article.
type voters struct {
	r       *sentinelRig
	targets []string
	stop    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
	acked   atomic.Int64
	retried atomic.Int64

	mu    sync.Mutex
	final map[string]map[string]news.Dir // id → user → last acknowledged vote
	codes map[int]int                    // non-200 answers by status (0: no answer)
}

func (r *sentinelRig) startVoters(users int) *voters {
	r.t.Helper()
	p, err := r.s.store.List(context.Background(), news.ByTime, 1, 12)
	if err != nil || len(p.Items) < 12 {
		r.t.Fatalf("list the first articles to vote on: %d, %v", len(p.Items), err)
	}
	v := &voters{r: r, stop: make(chan struct{}), final: map[string]map[string]news.Dir{}, codes: map[int]int{}}
	for _, it := range p.Items {
		v.targets = append(v.targets, it.ID)
		v.final[it.ID] = map[string]news.Dir{}
	}
	for u := range users {
		v.wg.Add(1)
		go v.vote(fmt.Sprintf("sentinel-user-%02d", u), u)
	}
	r.t.Cleanup(v.halt) // a test that fails early leaves no voter behind
	return v
}

// halt stops the voters and waits for them.
func (v *voters) halt() {
	v.once.Do(func() { close(v.stop) })
	v.wg.Wait()
}

func (v *voters) vote(user string, u int) {
	defer v.wg.Done()
	dirs := []news.Dir{news.Up, news.Down, news.None}
	for i := 0; ; i++ {
		id := v.targets[(u+i)%len(v.targets)]
		dir := dirs[(u+i/len(v.targets))%len(dirs)]
		body := fmt.Sprintf(`{"user":%q,"dir":%q}`, user, dir.String())
		for {
			select {
			case <-v.stop:
				return
			default:
			}
			code, msg := v.post(id, body)
			if code == http.StatusOK {
				v.mu.Lock()
				v.final[id][user] = dir
				v.mu.Unlock()
				v.acked.Add(1)
				break
			}
			if code >= 400 && code < 500 {
				v.r.t.Errorf("vote %s on %s: %d %s", body, id, code, msg)
				return
			}
			v.mu.Lock()
			v.codes[code]++
			v.mu.Unlock()
			v.retried.Add(1)
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func (v *voters) post(id, body string) (int, string) {
	req, err := http.NewRequest("POST", v.r.dm.URL+"/api/news/"+id+"/vote", strings.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+sentinelToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := v.r.http.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitAcked waits until n more votes are acknowledged.
func (v *voters) waitAcked(n int64, what string) {
	v.r.t.Helper()
	want := v.acked.Load() + n
	proctest.WaitFor(v.r.t, 60*time.Second, what, func() bool { return v.acked.Load() >= want })
}

// end stops the voters and checks every target's counts: up and down are
// the numbers of users whose last acknowledged vote was up or down, the
// votes add the crawled comments, and the score is the formula's.
func (v *voters) end() {
	t := v.r.t
	t.Helper()
	v.halt()
	ctx := context.Background()
	f := v.r.s.store.Formula()
	for _, id := range v.targets {
		var up, down int64
		for _, d := range v.final[id] {
			switch d {
			case news.Up:
				up++
			case news.Down:
				down++
			}
		}
		it, err := v.r.s.store.Get(ctx, id)
		if err != nil {
			t.Fatalf("article %s voted on: %v", id, err)
		}
		votes := float64(up-down) + float64(it.Comments)*v.r.cfg.News.CommentWeight
		if it.Up != up || it.Down != down || it.Votes != votes {
			t.Errorf("%s: up %d down %d votes %g, want %d %d %g (a vote lost or counted twice)", id, it.Up, it.Down, it.Votes, up, down, votes)
		}
		if sc := f.Score(it.PostTime, votes, time.Now()); it.Score != sc {
			t.Errorf("%s: score %g, want %g", id, it.Score, sc)
		}
	}
	t.Logf("votes: %d acknowledged on %d articles, %d sent again after a failed answer (by status, 0 = no answer: %v)",
		v.acked.Load(), len(v.targets), v.retried.Load(), v.codes)
}

// rescorer runs `newsrank rescore` again and again until stopped, and
// counts the exit statuses.
type rescorer struct {
	once  sync.Once
	stop  chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	codes map[int]int
}

func (r *sentinelRig) startRescorer() *rescorer {
	rs := &rescorer{stop: make(chan struct{}), done: make(chan struct{}), codes: map[int]int{}}
	go func() {
		defer close(rs.done)
		for {
			select {
			case <-rs.stop:
				return
			default:
			}
			code := r.rescore()
			rs.mu.Lock()
			rs.codes[code]++
			rs.mu.Unlock()
			time.Sleep(100 * time.Millisecond)
		}
	}()
	r.t.Cleanup(rs.halt)
	return rs
}

func (rs *rescorer) halt() {
	rs.once.Do(func() { close(rs.stop) })
	<-rs.done
}

// rescore runs `newsrank rescore` and returns its exit status.
func (r *sentinelRig) rescore() int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, r.bin, "rescore", "-config", r.cfgPath).CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ee.ExitCode() != 1 && ee.ExitCode() != 3 {
			r.t.Errorf("newsrank rescore: exit status %d, want 0, 1 (Redis failed) or 3 (skipped)\n%s", ee.ExitCode(), out)
		}
		return ee.ExitCode()
	default:
		r.t.Errorf("newsrank rescore: %v\n%s", err, out)
		return -1
	}
}

func (rs *rescorer) end(t *testing.T) {
	rs.halt()
	t.Logf("newsrank rescore runs during the test, by exit status: %v", rs.codes)
}

// finish checks what must hold after a failover: the daemon serves, the
// crawl ends with nothing lost, a rescore succeeds and leaves the ranking
// consistent, votes are exact, and SIGTERM stops the daemon cleanly.
func (r *sentinelRig) finish(v *voters, rs *rescorer) {
	t := r.t
	t.Helper()
	r.s.waitSettled(2 * time.Minute)
	v.waitAcked(20, "votes acknowledged after the crawl")
	rs.end(t)
	v.end()
	if code := r.rescore(); code != 0 {
		t.Fatalf("newsrank rescore after the failover: exit status %d, want 0", code)
	}
	r.s.checkDemoCrawl(r.d)
	v.checkScoresAfterRescore()
	if err := r.dm.Exited(); err != nil {
		t.Fatalf("the daemon exited: %v", err)
	}
	r.logSummary()
	if code := r.dm.Stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("daemon exit status %d after SIGTERM, want 0", code)
	}
}

// checkScoresAfterRescore checks that the rescore left each target's score
// as the formula gives it from its votes.
func (v *voters) checkScoresAfterRescore() {
	t := v.r.t
	t.Helper()
	f := v.r.s.store.Formula()
	for _, id := range v.targets {
		it, err := v.r.s.store.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if sc := f.Score(it.PostTime, it.Votes, time.Now()); it.Score != sc {
			t.Errorf("%s after the rescore: score %g, want %g", id, it.Score, sc)
		}
	}
}

// logSummary logs the daemon's distinct warning and error messages (ids,
// addresses and request paths masked), what an operator reads in its log
// during a failover.
func (r *sentinelRig) logSummary() {
	seen := map[string]int{}
	var order []string
	for _, line := range strings.Split(r.dm.Log.String(), "\n") {
		if !strings.Contains(line, "level=WARN") && !strings.Contains(line, "level=ERROR") {
			continue
		}
		msg := line
		if i := strings.Index(line, "msg="); i >= 0 {
			msg = line[i:]
		}
		msg = hexID.ReplaceAllString(addrRE.ReplaceAllString(pathRE.ReplaceAllString(msg, ""), "ADDR"), "ID")
		if len(msg) > 160 {
			msg = msg[:160] + "..."
		}
		if seen[msg] == 0 {
			order = append(order, msg)
		}
		seen[msg]++
	}
	var b strings.Builder
	for _, m := range order[:min(len(order), 20)] {
		fmt.Fprintf(&b, "\n  %4d× %s", seen[m], m)
	}
	r.t.Logf("daemon warnings and errors (%d distinct):%s", len(order), b.String())
}

var (
	hexID  = regexp.MustCompile(`[0-9a-f]{16}`)
	addrRE = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
	pathRE = regexp.MustCompile(`path=\S+ `)
)

// metric returns the value line of a metric without labels from /metrics.
func (r *sentinelRig) metric(name string) string {
	r.t.Helper()
	code, body := r.status("/metrics")
	if code != http.StatusOK {
		r.t.Fatalf("GET /metrics: %d", code)
	}
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return v
		}
	}
	return ""
}

// TestSentinelPlannedFailover switches the master with SENTINEL FAILOVER
// in the middle of a crawl, votes and rescores, the way a planned switch
// loses nothing: writes paused on the master (CLIENT PAUSE WRITE), the
// replica caught up, SENTINEL FAILOVER, the old master made a replica of
// the new one, writes resumed. The daemon's clients follow the sentinels
// to the new master (the writes held by the pause are sent again there).
func TestSentinelPlannedFailover(t *testing.T) {
	r := startSentinelRig(t, redistest.SentinelOptions{DownAfter: time.Second, FailoverTimeout: 3 * time.Second})
	ctx := context.Background()
	v := r.startVoters(6)
	rs := r.startRescorer()
	v.waitAcked(30, "votes acknowledged before the failover")
	fresh, _, _, _ := r.d.truth(r.cfg.News.Window.D())
	if n := r.s.stored(); n >= int64(len(fresh)) {
		t.Fatalf("the crawl ended before the failover (%d articles stored): the test proves nothing", n)
	}

	oldAddr, err := r.sn.MasterAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := r.sn.Node(oldAddr)
	oc := old.Client()
	start := time.Now()
	if err := oc.Do(ctx, "CLIENT", "PAUSE", "30000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	r.sn.WaitSynced(old, 30*time.Second)
	synced := time.Since(start)
	stored, acked := r.s.stored(), v.acked.Load()
	// While the master is paused the sentinels may find it down (their
	// PUBLISH waits too) and fail it over by themselves: either way it
	// fails over.
	if err := r.sn.Failover(ctx); err != nil && !strings.Contains(err.Error(), "INPROG") {
		t.Fatal(err)
	}
	nm := r.sn.WaitMaster(oldAddr, 60*time.Second)
	switched := time.Since(start)
	if err := oc.Do(ctx, "REPLICAOF", "127.0.0.1", strings.TrimPrefix(nm.Addr(), "127.0.0.1:")).Err(); err != nil {
		t.Fatal(err)
	}
	if err := oc.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("failover at %d articles stored, %d votes acknowledged: replica in sync after %v, sentinels agreed on %s after %v",
		stored, acked, synced.Round(time.Millisecond), nm.Addr(), switched.Round(time.Millisecond))

	proctest.WaitFor(t, 60*time.Second, "/readyz to answer 200 after the switch", func() bool { c, _ := r.status("/readyz"); return c == http.StatusOK })
	ready := time.Since(start)
	v.waitAcked(1, "a vote acknowledged after the switch")
	t.Logf("the daemon answered /readyz 200 %v after the pause began, and acknowledged a vote after %v",
		ready.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	r.finish(v, rs)
}

// TestSentinelMasterKilled kills the master with SIGKILL in the middle of
// a crawl, votes and rescores. The replica starts unpromotable
// (replica-priority 0), so the sentinels find the master down and cannot
// fail over: no master is known, /readyz answers 503 and /metrics says
// newsrank_redis_up 0. Then the replica is made promotable, the sentinels
// promote it, and the daemon serves again with nothing acknowledged lost
// (the master sends each write to its replica before it answers).
func TestSentinelMasterKilled(t *testing.T) {
	r := startSentinelRig(t, redistest.SentinelOptions{DownAfter: time.Second, FailoverTimeout: 2 * time.Second, NoPromotion: true})
	ctx := context.Background()
	v := r.startVoters(6)
	rs := r.startRescorer()
	v.waitAcked(30, "votes acknowledged before the kill")
	fresh, _, _, _ := r.d.truth(r.cfg.News.Window.D())
	if n := r.s.stored(); n >= int64(len(fresh)) {
		t.Fatalf("the crawl ended before the kill (%d articles stored): the test proves nothing", n)
	}
	if code, _ := r.status("/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz = %d before the kill, want 200", code)
	}

	oldAddr, err := r.sn.MasterAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	stored, acked := r.s.stored(), v.acked.Load()
	r.sn.Node(oldAddr).Kill()
	proctest.WaitFor(t, 60*time.Second, "every sentinel to flag the master objectively down", func() bool {
		for _, f := range r.sn.MasterFlags(ctx) {
			if !strings.Contains(f, "o_down") {
				return false
			}
		}
		return true
	})
	down := time.Since(start)
	// No replica can be promoted: the master is down and no other is known.
	proctest.WaitFor(t, 30*time.Second, "/readyz to answer 503", func() bool { c, _ := r.status("/readyz"); return c == http.StatusServiceUnavailable })
	for range 3 {
		if code, body := r.status("/readyz"); code != http.StatusServiceUnavailable {
			t.Fatalf("/readyz = %d with no master, want 503: %s", code, body)
		}
		if up := r.metric("newsrank_redis_up"); up != "0" {
			t.Fatalf("newsrank_redis_up = %q with no master, want 0", up)
		}
		if code, _ := r.status("/healthz"); code != http.StatusOK {
			t.Fatalf("/healthz = %d with no master, want 200 (the process is up)", code)
		}
		time.Sleep(200 * time.Millisecond)
	}
	_, body := r.status("/readyz")
	var rz struct{ Error string }
	json.Unmarshal([]byte(body), &rz)
	t.Logf("master killed at %d articles stored, %d votes acknowledged; all sentinels flagged it o_down after %v; /readyz: 503 %q",
		stored, acked, down.Round(time.Millisecond), rz.Error)

	allowed := time.Now()
	if err := r.sn.AllowPromotion(ctx); err != nil {
		t.Fatal(err)
	}
	nm := r.sn.WaitMaster(oldAddr, 60*time.Second)
	switched := time.Since(allowed)
	proctest.WaitFor(t, 60*time.Second, "/readyz to answer 200 after the switch", func() bool { c, _ := r.status("/readyz"); return c == http.StatusOK })
	ready := time.Since(allowed)
	v.waitAcked(1, "a vote acknowledged after the switch")
	t.Logf("replica made promotable: sentinels agreed on %s after %v; /readyz 200 after %v; a vote acknowledged after %v (%v since the kill)",
		nm.Addr(), switched.Round(time.Millisecond), ready.Round(time.Millisecond), time.Since(allowed).Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	if up := r.metric("newsrank_redis_up"); up != "1" {
		t.Errorf("newsrank_redis_up = %q after the switch, want 1", up)
	}
	r.finish(v, rs)
}
