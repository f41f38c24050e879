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
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/queue"
)

// runCLITerminal runs the command line with a standard error that says it
// is a terminal, and returns the exit status, stdout and the stderr bytes.
func runCLITerminal(t *testing.T, args ...string) (int, string, []byte) {
	t.Helper()
	var out, errb bytes.Buffer
	con := newConsole(&errb, true, nil)
	code := run(context.Background(), &stdio{out: &out, err: con}, args)
	return code, out.String(), errb.Bytes()
}

// TestCrawlOnTerminalKeepsLogsOffTheProgressLine crawls the demo site with
// a politeness delay and info logs on a (fake) terminal: the progress line
// is drawn, and no log record ever lands on its row.
func TestCrawlOnTerminalKeepsLogsOffTheProgressLine(t *testing.T) {
	site := demosite.New(demosite.Options{Articles: 40, Now: time.Now(), Seed: 3})
	srv := httptest.NewServer(site)
	defer srv.Close()
	r := redistest.Start(t)
	b, err := yaml.Marshal(map[string]any{
		"redis":   map[string]any{"url": r.URL()},
		"log":     map[string]any{"level": "debug"},
		"crawler": map[string]any{"workers": 4, "per_host_parallelism": 2, "delay": "30ms", "jitter": "0s", "sources": config.DemoSources(site.Sources(srv.URL))},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeFile(t, "config.yaml", string(b))

	code, out, stderr := runCLITerminal(t, "crawl", "-once", "-config", cfg)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%q", code, out, stderr)
	}
	if !bytes.Contains(stderr, []byte(clearLine+"fetched ")) {
		t.Fatalf("no progress line drawn:\n%q", stderr)
	}
	rows := screen(t, stderr)
	if rows[len(rows)-1] != "" {
		t.Errorf("the progress line was left on the screen: %q", rows[len(rows)-1])
	}
	records := 0
	for _, row := range rows[:len(rows)-1] {
		if !strings.HasPrefix(row, "time=") || strings.Count(row, "level=") != 1 ||
			strings.Contains(row, "pages/s") || strings.Contains(row, "reading lists") {
			t.Fatalf("row %q is not one whole log record\nscreen:\n%s", row, strings.Join(rows, "\n"))
		}
		records++
	}
	if records < 10 {
		t.Errorf("only %d log records at debug level", records)
	}
	// robots.txt-disallowed URLs are counted, and said at debug level only.
	for _, row := range rows {
		if (strings.Contains(row, "reason=robots") || strings.Contains(row, "robots.txt")) && !strings.Contains(row, "level=DEBUG") {
			t.Errorf("robots.txt-disallowed URL logged above debug: %s", row)
		}
	}
	if !strings.Contains(out, "disallowed by robots.txt, not fetched") {
		t.Errorf("summary lacks the robots count:\n%s", out)
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

// TestProgressLine checks the terminal progress line and the ETA.
func TestProgressLine(t *testing.T) {
	limit := &fetch.HostLimit{Host: "demo.local", Setting: "crawler.delay", Value: "500ms", Waiting: 3}
	lists := progressLine(crawler.Progress{Listing: true, ListPages: 12, Found: 302, New: 300, SourcesDone: 4, Sources: 6,
		Elapsed: 8 * time.Second, Limit: limit}, 0)
	if want := "reading lists: 12 list pages read, 302 URLs found (300 new), 4 of 6 sources done  8s  limited by crawler.delay 500ms on demo.local"; lists != want {
		t.Errorf("lists phase:\n got %q\nwant %q", lists, want)
	}
	var w rateWindow
	var line string
	// Lists first, then 10 s at 1 page/s and 10 s at 4 pages/s.
	w.add(crawler.Progress{Listing: true, Elapsed: 10 * time.Second})
	fetched := int64(0)
	for s := 11; s <= 30; s++ {
		if s <= 20 {
			fetched++
		} else {
			fetched += 4
		}
		pr := crawler.Progress{Fetched: fetched, Stored: fetched, Left: 1000 - fetched, Elapsed: time.Duration(s) * time.Second,
			Rate: float64(fetched) / float64(s-10)}
		line = progressLine(pr, w.add(pr))
	}
	// The rate of the last 10 s (4 pages/s), not since the start (2.5).
	if want := "fetched 50  stored 50  failed 0  left 950  4.0 pages/s  ETA 3m58s  30s"; line != want {
		t.Errorf("articles phase:\n got %q\nwant %q", line, want)
	}
	for d, want := range map[time.Duration]string{42 * time.Second: "42s", 185 * time.Second: "3m05s", 7800 * time.Second: "2h10m"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", d, got, want)
		}
	}
	if _, ok := eta(10, 0); ok {
		t.Error("an ETA without a rate")
	}
}

func TestPruneListNeedsDryRun(t *testing.T) {
	code, _, errOut := runCLI(t, "prune", "-list", "5")
	if code != exitUsage || !strings.Contains(errOut, "-list only goes with -dry-run") {
		t.Fatalf("prune -list 5: exit %d, stderr %q; want 2 and why", code, errOut)
	}
}

// TestEmbeddedRedisNoticeComesFirst: every command that works on Redis,
// run without -config, says first that it sees a new, empty in-memory
// Redis and how to reach the demo's.
func TestEmbeddedRedisNoticeComesFirst(t *testing.T) {
	t.Setenv("NEWSRANK_CONFIG", "")
	for _, args := range [][]string{{"jobs"}, {"prune", "-dry-run"}, {"prune"}, {"rescore"}, {"queue", "stats", "-source", "news"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, errOut := runCLI(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			first, _, _ := strings.Cut(errOut, "\n")
			want := "newsrank " + args[0] + ": redis.url is embedded: this is a new, empty in-memory Redis"
			if !strings.HasPrefix(first, want) || !strings.Contains(first, "-set redis.url=redis://127.0.0.1:PORT") {
				t.Errorf("first line of stderr:\n%q\nwant it to start with %q and say -set redis.url=redis://127.0.0.1:PORT", first, want)
			}
		})
	}
	// A real Redis gets no such line.
	cfg := jobsConfig(t, redistest.Start(t).URL(), "")
	if _, _, errOut := runCLI(t, "jobs", "-config", cfg); strings.Contains(errOut, "embedded") {
		t.Errorf("on a real Redis: %q", errOut)
	}
}

// TestLogsReadLikeProse: no err=<nil> on success, counts as created=3,
// not map[…].
func TestLogsReadLikeProse(t *testing.T) {
	site, _ := slowSite(t, 3, 0)
	cfg := jobsConfig(t, redistest.Start(t).URL(), fmt.Sprintf(`
crawler:
  delay: 0s
  obey_robots: false
  sources: [{name: quick, kind: html, urls: [%q], link_selector: a.article, max_pages: 1}]
`, site.URL+"/list"))
	cfg = strings.Replace(readFile(t, cfg), "level: warn", "level: info", 1)
	code, _, errOut := runCLI(t, "crawl", "-once", "-progress", "none", "-config", writeFile(t, "info.yaml", cfg))
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, bad := range []string{"<nil>", "map["} {
		if strings.Contains(errOut, bad) {
			t.Errorf("log has %q:\n%s", bad, errOut)
		}
	}
	if !regexp.MustCompile(`msg="job done" .*took=[0-9.]+(ms|s|m[0-9.]+s).* created=3 `).MatchString(errOut) {
		t.Errorf("job done line does not read created=3:\n%s", errOut)
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
