package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/queue"
)

// crawlConfig writes a config with the given sources on a fresh
// redis-server, without politeness delays.
func crawlConfig(t *testing.T, srcs []config.Source) string {
	t.Helper()
	r := redistest.Start(t)
	doc := map[string]any{
		"redis":   map[string]any{"url": r.URL()},
		"log":     map[string]any{"level": "warn"},
		"crawler": map[string]any{"workers": 4, "delay": "0s", "jitter": "0s", "sources": srcs},
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "config.yaml", string(b))
}

func TestCrawlOnceDemoSite(t *testing.T) {
	site := demosite.New(demosite.Options{Articles: 60, Now: time.Now(), Seed: 2})
	srv := httptest.NewServer(site)
	defer srv.Close()
	cfg := crawlConfig(t, config.DemoSources(site.Sources(srv.URL)))

	code, out, errOut := runCLI(t, "crawl", "-once", "-config", cfg, "-progress", "none")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"source", "not modified", "unchanged", "guonei", "news", "total", "article pages/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}

	// Again, as JSON, for one source: nothing new to fetch, and the list
	// API's answer is the same as last time (the site sends no validators).
	code, out, errOut = runCLI(t, "crawl", "-once", "-config", cfg, "-progress", "none", "-json", "-source", "news")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Sources []struct{ Source string } `json:"sources"`
		Total   struct {
			New         int   `json:"urls_new"`
			Fetched     int64 `json:"fetched"`
			NotModified int   `json:"list_pages_not_modified"`
			Unchanged   int   `json:"list_pages_unchanged"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("-json output: %v\n%s", err, out)
	}
	if len(rep.Sources) != 1 || rep.Sources[0].Source != "news" || rep.Total.New != 0 || rep.Total.Fetched != 0 ||
		rep.Total.Unchanged < 1 || rep.Total.NotModified != 0 {
		t.Errorf("second run = %+v", rep)
	}
}

func TestCrawlExitStatus(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	srcs := []config.Source{{Name: "gone", Kind: "rss", URLs: []string{srv.URL + "/rss.xml"}}}
	cfg := crawlConfig(t, srcs)

	code, out, errOut := runCLI(t, "crawl", "-once", "-config", cfg, "-progress", "none")
	if code != exitFailed || !strings.Contains(errOut, "could not be read at all (no list page): gone") {
		t.Errorf("a source whose feed is gone: exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "source gone could not be read: ") {
		t.Errorf("summary does not name the failed source:\n%s", out)
	}

	code, _, errOut = runCLI(t, "crawl", "-once", "-config", cfg, "-source", "nope")
	if code != exitUsage || !strings.Contains(errOut, `-source "nope"`) {
		t.Errorf("unknown source: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "crawl", "-once", "-config", cfg, "-progress", "sometimes")
	if code != exitUsage {
		t.Errorf("bad -progress: exit %d, stderr %q", code, errOut)
	}
	empty := writeFile(t, "empty.yaml", fmt.Sprintf("redis:\n  url: %s\n", "embedded"))
	code, _, errOut = runCLI(t, "crawl", "-once", "-config", empty)
	if code != exitUsage || !strings.Contains(errOut, "crawler.sources is empty") {
		t.Errorf("no sources: exit %d, stderr %q", code, errOut)
	}
}

// TestCrawlOnceTakesTheCrawlLock: newsrank crawl -once is the "crawl" job:
// skipped (exit 3) while the daemon's scheduled crawl or a timer holds the
// lock, recorded in the job's history when it runs.
func TestCrawlOnceTakesTheCrawlLock(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client()
	ctx := context.Background()
	site, _ := slowSite(t, 3, 0)
	cfg := jobsConfig(t, s.URL(), fmt.Sprintf(`
crawler:
  delay: 0s
  jitter: 0s
  obey_robots: false
  sources:
    - name: quick
      kind: html
      urls: ["%s/list"]
      link_selector: "a.article"
      max_pages: 1
`, site.URL))
	lock := "jt:{jobs}:lock:crawl"
	c.Set(ctx, lock, `{"token":"x","holder":"daemon-host/1","since":"2024-01-01T00:00:00Z"}`, time.Minute)
	code, out, errs := runCLI(t, "crawl", "-once", "-progress", "none", "-config", cfg)
	if code != exitSkipped || !strings.Contains(errs, "skipped") {
		t.Fatalf("crawl -once while the crawl lock is held: exit %d, want 3\n%s\n%s", code, out, errs)
	}
	if n := newsCount(t, c, "jt:"); n != 0 {
		t.Fatal("a skipped crawl stored articles")
	}
	c.Del(ctx, lock)
	code, out, errs = runCLI(t, "crawl", "-once", "-progress", "none", "-config", cfg)
	if code != 0 {
		t.Fatalf("crawl -once: exit %d\n%s\n%s", code, out, errs)
	}
	if n := newsCount(t, c, "jt:"); n != 3 {
		t.Fatalf("crawl -once stored %d articles, want 3", n)
	}
	code, out, _ = runCLI(t, "jobs", "-config", cfg, "-history", "2")
	if code != 0 || !strings.Contains(out, "created=3") || !strings.Contains(out, "daemon-host/1") {
		t.Fatalf("jobs after the crawl:\n%s", out)
	}
	if !strings.Contains(out, "NEXT POLL") || !strings.Contains(out, "never polled: due now") {
		t.Fatalf("jobs shows no poll schedule of the source:\n%s", out)
	}
	// The schedule a poller wrote, as docs/architecture.md's key table names it.
	next := time.Now().Add(90 * time.Minute)
	c.HSet(ctx, "jt:{crawl:quick}:poll", "next", next.UnixMilli(), "interval", (90 * time.Minute).Milliseconds(),
		"last", time.Now().UnixMilli(), "new", 0, "reason", "nothing new: later")
	code, out, _ = runCLI(t, "jobs", "-config", cfg)
	if code != 0 || !strings.Contains(out, "nothing new: later") || !strings.Contains(out, next.Format("2006-01-02 15:04:05")) {
		t.Fatalf("jobs with a poll schedule:\n%s", out)
	}
}

// crawlJSONOut is the part of crawl -once -json the tests read.
type crawlJSONOut struct {
	Total struct {
		Found      int   `json:"urls_found"`
		Fetched    int64 `json:"fetched"`
		Stored     int64 `json:"stored"`
		Left       int64 `json:"left"`
		RetryLater int64 `json:"retry_later"`
	} `json:"total"`
	ElapsedS    float64  `json:"elapsed_s"`
	Failed      []string `json:"failed_sources"`
	Interrupted bool     `json:"interrupted"`
}

func parseCrawlJSON(t *testing.T, out string) crawlJSONOut {
	t.Helper()
	var v crawlJSONOut
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("crawl -json: %v\n%s", err, out)
	}
	return v
}

// TestCrawlRetryTimeoutIsNotAFailedSource: a re-run whose only URL is a
// retry that times out again exits 0 with the retry reported as waiting;
// -wait-retries waits for it and stores the article.
func TestCrawlRetryTimeoutIsNotAFailedSource(t *testing.T) {
	var hang atomic.Bool
	hang.Store(true)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /list", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a class="s" href="/a">A</a> <a class="s" href="/slow">Slow</a>`)
	})
	article := func(w http.ResponseWriter, title string) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>%s</title><meta property="article:published_time" content="%s"></head><body>x</body></html>`,
			title, time.Now().Add(-time.Hour).UTC().Format(time.RFC3339))
	}
	mux.HandleFunc("GET /a", func(w http.ResponseWriter, r *http.Request) { article(w, "A") })
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			<-r.Context().Done() // until the crawler gives up
			return
		}
		article(w, "Slow")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	r := redistest.Start(t)
	cfg := writeFile(t, "config.yaml", fmt.Sprintf(`
redis: {url: %q}
log: {level: warn}
queue: {retry_base: 300ms}
crawler:
  delay: 0s
  jitter: 0s
  obey_robots: false
  request_timeout: 300ms
  sources: [{name: site, kind: html, urls: [%q], link_selector: a.s}]
`, r.URL(), srv.URL+"/list"))
	q := queue.New(r.Client(), config.DefaultConfig().Redis.KeyPrefix, "site", queue.DefaultOptions())

	code, out, errOut := runCLI(t, "crawl", "-once", "-json", "-config", cfg, "-progress", "none")
	rep := parseCrawlJSON(t, out)
	if code != exitOK || rep.Total.Stored != 1 || rep.Total.RetryLater != 1 {
		t.Fatalf("first run: exit %d, %+v\n%s", code, rep, errOut)
	}

	// Re-run once the retry is due: it is the only URL, and it times out.
	proctest.WaitFor(t, 30*time.Second, "the retry to be due", func() bool {
		due, ok, err := q.NextRetry(context.Background())
		return err == nil && ok && time.Now().After(due)
	})
	code, out, errOut = runCLI(t, "crawl", "-once", "-json", "-config", cfg, "-progress", "none")
	rep = parseCrawlJSON(t, out)
	if code != exitOK || len(rep.Failed) != 0 {
		t.Fatalf("a re-run whose only URL is a retry that timed out: exit %d, failed sources %v; want 0 and none\n%s", code, rep.Failed, errOut)
	}
	if rep.Total.Fetched != 0 || rep.Total.RetryLater != 1 {
		t.Errorf("re-run: %+v, want the retry waiting again", rep)
	}
	code, out, _ = runCLI(t, "crawl", "-once", "-config", cfg, "-progress", "none")
	if code != exitOK || !strings.Contains(out, "retry later: 1 URL wait") {
		t.Errorf("summary does not say a retry waits: exit %d\n%s", code, out)
	}

	// The site is back: -wait-retries waits for the retry and stores it.
	hang.Store(false)
	code, out, errOut = runCLI(t, "crawl", "-once", "-wait-retries", "-wait", "1m", "-json", "-config", cfg, "-progress", "none")
	rep = parseCrawlJSON(t, out)
	if code != exitOK || rep.Total.Stored != 1 || rep.Total.RetryLater != 0 || rep.Total.Left != 0 {
		t.Fatalf("-wait-retries: exit %d, %+v; want the retry stored\n%s", code, rep, errOut)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"crawl", "-once", "-wait", "1m"}, "-wait is the bound of -wait-retries"},
		{[]string{"crawl", "-wait-retries"}, "-wait-retries is for -once"},
		{[]string{"crawl", "-once", "-wait-retries", "-wait", "0s"}, "-wait must be positive"},
	} {
		code, _, errOut := runCLI(t, append(tc.args, "-config", cfg)...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// crawlProcess runs the real binary's crawl -once -json with cfg.
type crawlProcess struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr *proctest.Log
	lines  chan string // stderr, line by line
	exited chan error
}

func startCrawl(t *testing.T, bin, cfg string) *crawlProcess {
	t.Helper()
	p := &crawlProcess{cmd: exec.Command(bin, "crawl", "-once", "-json", "-config", cfg), stderr: &proctest.Log{},
		lines: make(chan string, 1000), exited: make(chan error, 1)}
	p.cmd.Env = append(p.cmd.Environ(), "NEWSRANK_CONFIG=")
	p.cmd.Stdout = &p.stdout
	pipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			p.stderr.Write([]byte(sc.Text() + "\n"))
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		p.exited <- p.cmd.Wait()
	}()
	t.Cleanup(func() { p.cmd.Process.Kill() })
	return p
}

// waitLine waits for a stderr line containing s.
func (p *crawlProcess) waitLine(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case l := <-p.lines:
			if strings.Contains(l, s) {
				return
			}
		case <-deadline:
			t.Fatalf("no %q on stderr within 60s:\n%s", s, p.stderr)
		}
	}
}

// stop signals the process and returns its exit status.
func (p *crawlProcess) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		return proctest.ExitCode(t, err)
	case <-time.After(60 * time.Second):
		t.Fatalf("no exit within 60s of %s\n%s", sig, p.stderr)
		return -1
	}
}

// TestInterruptedCrawlOnRedis: Ctrl-C (SIGINT) after the first article is
// stored: exit 130, "interrupted", the true summary so far, and the URLs
// left stay queued in Redis, as many as it says.
func TestInterruptedCrawlOnRedis(t *testing.T) {
	bin := proctest.Build(t)
	s := redistest.Start(t)
	c := s.Client()
	ctx := context.Background()
	const n = 40
	site, _ := slowSite(t, n, 0)
	cfg := jobsConfig(t, s.URL(), fmt.Sprintf(`
crawler:
  workers: 2
  per_host_parallelism: 2
  delay: 150ms
  jitter: 0s
  obey_robots: false
  sources: [{name: slow, kind: html, urls: [%q], link_selector: a.article, max_pages: 1}]
`, site.URL+"/list"))
	p := startCrawl(t, bin, cfg)
	proctest.WaitFor(t, 60*time.Second, "the first article stored", func() bool {
		return newsCount(t, c, "jt:") > 0
	})
	code := p.stop(t, syscall.SIGINT)
	if code != 130 {
		t.Fatalf("exit %d after SIGINT, want 130\n%s", code, p.stderr)
	}
	rep := parseCrawlJSON(t, p.stdout.String())
	if !rep.Interrupted || rep.Total.Found != n || rep.Total.Stored == 0 || rep.Total.Left == 0 || rep.ElapsedS <= 0 {
		t.Fatalf("summary after the interrupt: %+v", rep)
	}
	st, err := queue.New(c, "jt:", "slow", queue.DefaultOptions()).Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pending+st.InFlight != rep.Total.Left || st.Done != rep.Total.Fetched {
		t.Errorf("queue %+v, summary says %d left and %d fetched", st, rep.Total.Left, rep.Total.Fetched)
	}
	msg := fmt.Sprintf("newsrank crawl: interrupted; the %d URLs left stay queued in Redis", rep.Total.Left)
	if errs := p.stderr.String(); !strings.Contains(errs, msg) || strings.Contains(errs, "level=ERROR") {
		t.Errorf("stderr lacks %q or has an error:\n%s", msg, errs)
	}
	if h, _ := c.LIndex(ctx, "jt:{jobs}:runs:crawl", 0).Result(); !strings.Contains(h, `"status":"interrupted"`) {
		t.Errorf("crawl history: %s", h)
	}
}

// TestInterruptedCrawlOnEmbeddedRedis: SIGTERM while one source's list is
// still being read, on the embedded Redis: exit 143, the summary of what
// was done (not zeros), and the truth: the URLs left are lost. The
// consumers fetch the quick source's articles meanwhile (RunOnce
// pipelines), so some may be stored before the signal.
func TestInterruptedCrawlOnEmbeddedRedis(t *testing.T) {
	bin := proctest.Build(t)
	site, _ := slowSite(t, 20, 0)
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	cfg := writeFile(t, "config.yaml", fmt.Sprintf(`
log: {level: info}
crawler:
  delay: 100ms
  jitter: 0s
  obey_robots: false
  request_timeout: 1m
  sources:
    - {name: quick, kind: html, urls: [%q], link_selector: a.article, max_pages: 1}
    - {name: stuck, kind: rss, urls: [%q]}
`, site.URL+"/list", hang.URL+"/rss.xml"))
	p := startCrawl(t, bin, cfg)
	p.waitLine(t, "msg=produced source=quick")
	code := p.stop(t, syscall.SIGTERM)
	if code != 143 {
		t.Fatalf("exit %d after SIGTERM, want 143\n%s", code, p.stderr)
	}
	rep := parseCrawlJSON(t, p.stdout.String())
	if !rep.Interrupted || rep.Total.Found != 20 || rep.Total.Left == 0 || rep.Total.Left+rep.Total.Fetched != 20 ||
		rep.ElapsedS <= 0 || len(rep.Failed) != 0 {
		t.Fatalf("summary after the interrupt: %+v\n%s", rep, p.stdout.String())
	}
	errs := p.stderr.String()
	first, _, _ := strings.Cut(errs, "\n")
	if !strings.HasPrefix(first, "newsrank crawl: redis.url is embedded: this is a new, empty in-memory Redis") {
		t.Errorf("first line %q is not the embedded Redis notice", first)
	}
	for _, want := range []string{"interrupted; this crawl used the embedded in-memory Redis", "the " + plural(rep.Total.Left, "URL") + " left are lost",
		"the list pages of stuck were not all read"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "level=ERROR") || strings.Contains(errs, "stay queued") {
		t.Errorf("stderr:\n%s", errs)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
