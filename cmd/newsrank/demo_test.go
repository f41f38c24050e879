package main

import (
	"bufio"
	"bytes"
	"encoding/json"
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
)

// demoHelperEnv makes the test binary run "newsrank <args>" instead of the
// tests (TestDemoHelperProcess), so the demo test can start the real
// command as a process and send it SIGINT.
const demoHelperEnv = "NEWSRANK_TEST_DEMO_ARGS"

// TestDemoHelperProcess is not a test: it is the newsrank process the demo
// test starts (it does nothing unless demoHelperEnv is set).
func TestDemoHelperProcess(t *testing.T) {
	args := os.Getenv(demoHelperEnv)
	if args == "" {
		return
	}
	ctx, stop := signalContext(os.Stderr)
	defer stop()
	os.Exit(run(ctx, &stdio{out: os.Stdout, err: os.Stderr}, strings.Fields(args)))
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

// TestDemoServesAndStopsOnSIGINT starts "newsrank demo" as a process, waits
// for a non-empty hot list over HTTP, then sends SIGINT and expects a clean
// exit.
func TestDemoServesAndStopsOnSIGINT(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestDemoHelperProcess$")
	cmd.Env = append(os.Environ(),
		demoHelperEnv+"=demo -listen 127.0.0.1:0 -articles 40 -users 4 -every 50ms -log-level warn",
		"NEWSRANK_CONFIG=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	var out lockedBuffer
	urlc := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`open (http://\S+)/`)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			out.Write([]byte(sc.Text() + "\n"))
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urlc <- m[1]:
				default:
				}
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })

	var base string
	select {
	case base = <-urlc:
	case err := <-exited:
		t.Fatalf("demo exited before serving: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("demo printed no URL within 60s\nstdout:\n%s\nstderr:\n%s", out.String(), stderr.String())
	}

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
			t.Fatalf("no article on %s/api/news within 90s (last error %v)\nstdout:\n%s\nstderr:\n%s", base, err, out.String(), stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	for !strings.Contains(out.String(), "first crawl:") {
		if time.Now().After(deadline) {
			t.Fatalf("the first crawl did not end within 90s\nstdout:\n%s\nstderr:\n%s", out.String(), stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if res, err := http.Get(base + "/api/news?page=1"); err == nil {
		json.NewDecoder(res.Body).Decode(&page)
		res.Body.Close()
	}
	// 40 articles, a few posted more than a week ago (too old) and none lost.
	if page.Total < 30 {
		t.Errorf("the first crawl stored %d articles of 40\nstdout:\n%s", page.Total, out.String())
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
			t.Fatalf("no simulated activity within 60s\nstderr:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The demo's Redis serves RESP on the address it printed, and the
	// other commands pointed at it see the demo's data and schedules.
	m := regexp.MustCompile(`reach it with -set redis\.url=(redis://127\.0\.0\.1:\d+)\n`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("the demo does not print how to reach its Redis:\n%s", out.String())
	}
	rc := redis.NewClient(&redis.Options{Addr: strings.TrimPrefix(m[1], "redis://")})
	defer rc.Close()
	if n := newsCount(t, rc, config.DefaultConfig().Redis.KeyPrefix); n < 30 {
		t.Fatalf("the demo's Redis at %s ranks %d articles", m[1], n)
	}
	demoRedis := writeFile(t, "demo-redis.yaml", "redis:\n  url: "+m[1]+"\n")
	var code int
	var jobsOut, jobsErr string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		// The scheduler starts (and announces itself) after the first crawl.
		code, jobsOut, jobsErr = runCLI(t, "jobs", "-config", demoRedis)
		if strings.Contains(jobsOut, "Schedules as run by") || time.Now().After(deadline) {
			break
		}
	}
	if code != exitOK || !strings.Contains(jobsOut, "Schedules as run by") ||
		!regexp.MustCompile(`crawl +@every 15m`).MatchString(jobsOut) || !regexp.MustCompile(`rescore +@every 1m`).MatchString(jobsOut) {
		t.Errorf("newsrank jobs on the demo's Redis: exit %d\n%s\n%s", code, jobsOut, jobsErr)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("demo exit after SIGINT: %v\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("demo did not stop within 30s of SIGINT\nstderr:\n%s", stderr.String())
	}
	if !strings.Contains(out.String(), "first crawl:") || !strings.Contains(out.String(), "stopping") {
		t.Errorf("demo output:\n%s", out.String())
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Errorf("the web server still answers after the demo stopped")
	}
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
