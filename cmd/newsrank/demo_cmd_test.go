package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/proctest"
)

// demoHelperEnv makes the test binary run "newsrank <args>" instead of the
// tests (TestDemoHelperProcess), so the demo tests can start the real
// command as a process and send it SIGINT. It holds the arguments as a
// JSON array.
const demoHelperEnv = "NEWSRANK_TEST_DEMO_ARGS"

// TestDemoHelperProcess is not a test: it is the newsrank process the demo
// tests start (it does nothing unless demoHelperEnv is set).
func TestDemoHelperProcess(t *testing.T) {
	env := os.Getenv(demoHelperEnv)
	if env == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(env), &args); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", demoHelperEnv, err)
		os.Exit(exitUsage)
	}
	ctx, stop := signalContext(os.Stderr)
	defer stop()
	os.Exit(run(ctx, &stdio{out: os.Stdout, err: os.Stderr}, args))
}

// lockedBuffer collects a process's stderr for messages.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// demoProcess is "newsrank demo" running as a child process.
type demoProcess struct {
	cmd         *exec.Cmd
	out, stderr lockedBuffer
	exited      chan error
	// base is the URL of its web server, as it printed it.
	base string
}

// startDemo starts "newsrank demo args..." with no $NEWSRANK_CONFIG and
// waits for it to print the URL of its web server.
func startDemo(t *testing.T, args ...string) *demoProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(append([]string{"demo"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	d := &demoProcess{cmd: exec.Command(exe, "-test.run=^TestDemoHelperProcess$"), exited: make(chan error, 1)}
	d.cmd.Env = append(os.Environ(), demoHelperEnv+"="+string(js), "NEWSRANK_CONFIG=")
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d.cmd.Stderr = &d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urlc := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`open (http://\S+)/`)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			d.out.Write([]byte(sc.Text() + "\n"))
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urlc <- m[1]:
				default:
				}
			}
		}
		d.exited <- d.cmd.Wait()
	}()
	t.Cleanup(func() { d.cmd.Process.Kill() })

	select {
	case d.base = <-urlc:
	case err := <-d.exited:
		t.Fatalf("demo exited before serving: %v\n%s", err, d)
	case <-time.After(60 * time.Second):
		t.Fatalf("demo printed no URL within 60s\n%s", d)
	}
	return d
}

// String is what the demo printed, for messages.
func (d *demoProcess) String() string {
	return "stdout:\n" + d.out.String() + "\nstderr:\n" + d.stderr.String()
}

// waitFirstCrawl waits for the demo to say how its first crawl went.
func (d *demoProcess) waitFirstCrawl(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); !strings.Contains(d.out.String(), "first crawl:"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the first crawl did not end within 90s\n%s", d)
		}
	}
}

// redisConfig writes a configuration file pointing at the demo's Redis,
// at the address the demo printed, for other commands.
func (d *demoProcess) redisConfig(t *testing.T) (path, url string) {
	t.Helper()
	m := regexp.MustCompile(`reach it with -set redis\.url=(redis://127\.0\.0\.1:\d+)\n`).FindStringSubmatch(d.out.String())
	if m == nil {
		t.Fatalf("the demo does not print how to reach its Redis:\n%s", d)
	}
	return writeFile(t, "demo-redis.yaml", "redis:\n  url: "+m[1]+"\n"), m[1]
}

// wantSchedules runs "newsrank jobs" on the demo's Redis until it shows
// the schedules the demo's scheduler announced (it starts after the first
// crawl), and expects there the schedule of each job in want.
func (d *demoProcess) wantSchedules(t *testing.T, want map[string]string) {
	t.Helper()
	cfg, _ := d.redisConfig(t)
	var code int
	var out, errOut string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		code, out, errOut = runCLI(t, "jobs", "-config", cfg)
		if strings.Contains(out, "Schedules as run by") || time.Now().After(deadline) {
			break
		}
	}
	if code != exitOK || !strings.Contains(out, "Schedules as run by") {
		t.Fatalf("newsrank jobs on the demo's Redis shows no running schedule: exit %d\n%s\n%s", code, out, errOut)
	}
	for job, spec := range want {
		if !regexp.MustCompile(`(?m)^` + job + ` +` + regexp.QuoteMeta(spec) + ` `).MatchString(out) {
			t.Errorf("newsrank jobs on the demo's Redis: %s is not scheduled %q:\n%s", job, spec, out)
		}
	}
}

// stop sends SIGINT and expects a clean exit, and the web server gone.
func (d *demoProcess) stop(t *testing.T) {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-d.exited:
		if err != nil {
			t.Fatalf("demo exit after SIGINT: %v\n%s", err, d)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("demo did not stop within 30s of SIGINT\n%s", d)
	}
	if !strings.Contains(d.out.String(), "newsrank demo: stopped") {
		t.Errorf("the demo does not say it stopped:\n%s", d)
	}
	if _, err := http.Get(d.base + "/healthz"); err == nil {
		t.Errorf("the web server still answers after the demo stopped")
	}
}

// TestDemoServesAndStopsOnSIGINT starts "newsrank demo" as a process, waits
// for a non-empty hot list over HTTP, then sends SIGINT and expects a clean
// exit.
func TestDemoServesAndStopsOnSIGINT(t *testing.T) {
	d := startDemo(t, "-listen", "127.0.0.1:0", "-articles", "40", "-users", "4", "-every", "50ms", "-log-level", "warn")
	base := d.base

	// The hot list fills once the first crawl has stored articles.
	var page struct {
		Total int
		Items []struct{ ID, Title string }
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		res, err := http.Get(base + "/api/news?page=1")
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == 200 && json.Unmarshal(b, &page) == nil && len(page.Items) > 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no article on %s/api/news within 90s (last error %v)\n%s", base, err, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
	d.waitFirstCrawl(t)
	if res, err := http.Get(base + "/api/news?page=1"); err == nil {
		json.NewDecoder(res.Body).Decode(&page)
		res.Body.Close()
	}
	// 40 articles, a few posted more than a week ago (too old) and none lost.
	if page.Total < 30 {
		t.Errorf("the first crawl stored %d articles of 40\n%s", page.Total, d)
	}
	res, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	home, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(home), "This week") {
		t.Fatalf("home page = %d", res.StatusCode)
	}
	// The simulated users make the activity board move.
	deadline = time.Now().Add(60 * time.Second)
	for {
		var b struct{ Entries []struct{ User string } }
		if res, err := http.Get(base + "/api/boards/activity"); err == nil {
			json.NewDecoder(res.Body).Decode(&b)
			res.Body.Close()
		}
		if len(b.Entries) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no simulated activity within 60s\n%s", d)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The demo's Redis serves RESP on the address it printed, and the
	// other commands pointed at it see the demo's data and its own
	// schedules, set by none of its flags.
	_, url := d.redisConfig(t)
	rc := redis.NewClient(&redis.Options{Addr: strings.TrimPrefix(url, "redis://")})
	defer rc.Close()
	if n := newsCount(t, rc, config.DefaultConfig().Redis.KeyPrefix); n < 30 {
		t.Fatalf("the demo's Redis at %s ranks %d articles", url, n)
	}
	d.wantSchedules(t, map[string]string{"crawl": "@every 15m", "prune": "@every 1h", "rescore": "@every 1m"})
	d.stop(t)
}

// TestDemoRunsTheDaemonsParts: the demo runs what the daemon runs, the
// source poller included (the operations page shows each of the demo
// site's sections polled), and a schedule given with -set or in a -config
// file replaces the demo's own, which still holds for the jobs given
// neither way.
func TestDemoRunsTheDaemonsParts(t *testing.T) {
	file := writeFile(t, "prune.yaml", "jobs:\n  prune:\n    schedule: \"@every 2h\"\n")
	d := startDemo(t, "-listen", "127.0.0.1:0", "-articles", "12", "-users", "0", "-log-level", "warn",
		"-config", file, "-set", "jobs.rescore.schedule=@every 10s")
	d.waitFirstCrawl(t)

	row := regexp.MustCompile(`(?s)<tr id="poll-([^"]+)">.*?<td data-label="last poll">(.*?)</td>`)
	var page string
	proctest.WaitFor(t, 60*time.Second, "/ops to show every source polled", func() bool {
		res, err := http.Get(d.base + "/ops")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		page = string(b)
		rows := row.FindAllStringSubmatch(page, -1)
		if res.StatusCode != 200 || len(rows) == 0 {
			t.Fatalf("/ops: status %d, %d source poll rows\n%s", res.StatusCode, len(rows), page)
		}
		for _, r := range rows {
			if strings.Contains(r[2], "never") {
				return false
			}
		}
		return true
	})

	d.wantSchedules(t, map[string]string{"crawl": "@every 15m", "prune": "@every 2h", "rescore": "@every 10s"})
	d.stop(t)
}

func TestDemoFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "-articles", "0"}, "-articles must be between 1 and 5000"},
		{[]string{"demo", "-users", "-1"}, "-users must be between 0 and 100"},
		{[]string{"demo", "-every", "1ms"}, "-every must be at least 10ms"},
		{[]string{"demo", "-listen", "8080"}, `-listen must be host:port, got "8080"`},
		{[]string{"demo", "extra"}, `unexpected argument "extra"`},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestDemoPushesThroughItsHub: the demo site announces a WebSub hub and
// publishes new articles through it while the demo runs; the demo
// subscribes its feeds (the operations page shows them active) and ranks
// each pushed article without waiting for a poll.
func TestDemoPushesThroughItsHub(t *testing.T) {
	d := startDemo(t, "-listen", "127.0.0.1:0", "-articles", "12", "-users", "0", "-publish-every", "2s", "-log-level", "warn")
	d.waitFirstCrawl(t)
	proctest.WaitFor(t, 60*time.Second, "a pushed article ranked", func() bool {
		return strings.Contains(d.out.String(), "(pushed, not polled)")
	})
	res, err := http.Get(d.base + "/ops")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, source := range []string{"world", "sports"} {
		row := regexp.MustCompile(`(?s)<tr id="websub-` + source + `">.*?</tr>`).FindString(string(b))
		if !strings.Contains(row, `data-label="state">active`) || !strings.Contains(row, "/hub") {
			t.Errorf("/ops shows %s's subscription as %q, want active at the demo site's hub\n%s", source, row, d)
		}
	}
	d.stop(t)
}
