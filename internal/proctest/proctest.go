// Package proctest runs the real newsrank binary in tests: it builds it
// (with -race when the test binary has it) and runs `newsrank daemon` as a
// child process that tests signal and inspect. It also holds the helpers
// tests share for what happens in another process or goroutine: WaitFor
// polls for a condition, ExitCode reads a process's exit status.
package proctest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Build builds cmd/newsrank into the test's temporary directory and
// returns the binary's path.
func Build(t testing.TB) string {
	t.Helper()
	return build(t, raceEnabled)
}

// BuildNoRace builds cmd/newsrank without the race detector, which
// multiplies a process's memory: for tests that measure it.
func BuildNoRace(t testing.TB) string {
	t.Helper()
	return build(t, false)
}

func build(t testing.TB, race bool) string {
	t.Helper()
	return goBuild(t, "newsrank", race, "github.com/newsrank/newsrank/cmd/newsrank")
}

func goBuild(t testing.TB, name string, race bool, pkg string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	path := filepath.Join(t.TempDir(), name)
	args := []string{"build", "-o", path}
	if race {
		args = append(args, "-race")
	}
	args = append(args, pkg)
	if out, err := exec.Command(goBin, args...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return path
}

// PeakRSS runs bin with args to its end and returns its output, its exit
// status and its peak resident set size in bytes, measured by the
// peakrss helper (see its doc for why the test cannot measure it).
func PeakRSS(t testing.TB, bin string, args ...string) (stdout, stderr []byte, code int, peak int64) {
	t.Helper()
	helper := goBuild(t, "peakrss", false, "github.com/newsrank/newsrank/internal/proctest/peakrss")
	out := filepath.Join(t.TempDir(), "peak")
	cmd := exec.Command(helper, append([]string{out, bin}, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("peakrss %s: %v\n%s", bin, err, e.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%s: no peak RSS measured (%v): exit status %d\n%s", bin, err, cmd.ProcessState.ExitCode(), e.String())
	}
	peak, err = strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		t.Fatalf("peakrss %s: %v", bin, err)
	}
	return o.Bytes(), e.Bytes(), cmd.ProcessState.ExitCode(), peak
}

// Log is a buffer safe for concurrent writers (a child's output, a
// logger), shown when a test fails.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Tail is the end of the log, at most n bytes.
func (l *Log) Tail(n int) string {
	s := l.String()
	if len(s) > n {
		s = "...\n" + s[len(s)-n:]
	}
	return s
}

// Daemon is a running `newsrank daemon` process.
type Daemon struct {
	Cmd *exec.Cmd
	// URL is what the daemon printed after "newsrank daemon: serving ".
	URL string
	// Log is the daemon's standard error.
	Log    *Log
	exited chan error
}

// StartDaemon runs `bin daemon -config cfgPath`, waits for its "serving"
// line and kills it at cleanup (showing its log when t failed).
func StartDaemon(t testing.TB, bin, cfgPath string) *Daemon {
	t.Helper()
	d := &Daemon{Cmd: exec.Command(bin, "daemon", "-config", cfgPath), Log: &Log{}, exited: make(chan error, 1)}
	d.Cmd.Stderr = d.Log
	out, err := d.Cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "newsrank daemon: serving "); ok {
				urls <- u
			}
		}
		io.Copy(io.Discard, out)
		d.exited <- d.Cmd.Wait()
	}()
	t.Cleanup(func() {
		d.Cmd.Process.Kill()
		if t.Failed() {
			t.Logf("daemon log (tail):\n%s", d.Log.Tail(16<<10))
		}
	})
	select {
	case d.URL = <-urls:
	case err := <-d.exited:
		t.Fatalf("daemon exited at start: %v\n%s", err, d.Log)
	case <-time.After(60 * time.Second):
		t.Fatalf("daemon did not start within 60s\n%s", d.Log)
	}
	return d
}

// Exited returns a non-nil error when the daemon has exited.
func (d *Daemon) Exited() error {
	select {
	case err := <-d.exited:
		d.exited <- err
		if err == nil {
			err = errors.New("exit status 0")
		}
		return err
	default:
		return nil
	}
}

// Stop sends sig and returns the exit status.
func (d *Daemon) Stop(t testing.TB, sig syscall.Signal) int {
	t.Helper()
	if err := d.Cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-d.exited:
		d.exited <- err
		return ExitCode(t, err)
	case <-time.After(60 * time.Second):
		t.Fatalf("daemon still running 60s after %v\n%s", sig, d.Log.Tail(16<<10))
	}
	return -1
}
