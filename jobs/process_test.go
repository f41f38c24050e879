package jobs

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
)

// The process tests re-execute the test binary as a helper process that
// runs one job against the Redis at JOBS_HELPER_ADDR.
const (
	helperEnv  = "JOBS_HELPER"
	helperAddr = "JOBS_HELPER_ADDR"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode, os.Getenv(helperAddr)))
	}
	os.Exit(m.Run())
}

// helper runs in the child process. "race": run job "race", which waits
// until a skipped run is in its history (so the two racers overlap);
// exit 0 when it ran, 3 when skipped. "hold": run job "hold" with a 4 s
// lock TTL, print "started" and block until killed.
func helper(mode, addr string) int {
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer c.Close()
	var job Job
	opts := Options{Logger: quietLog()}
	switch mode {
	case "race":
		job = Job{Name: "race", Run: func(ctx context.Context) (Counts, error) {
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				h, err := history(ctx, c, newKeys(prefix), "race", 10)
				if err != nil {
					return nil, err
				}
				for _, r := range h {
					if r.Status == StatusSkipped {
						return Counts{"ran": 1}, nil
					}
				}
				time.Sleep(10 * time.Millisecond)
			}
			return nil, errors.New("the other process never tried")
		}}
	case "hold":
		opts.LockTTL = holdTTL
		job = Job{Name: "hold", Run: func(ctx context.Context) (Counts, error) {
			fmt.Println("started")
			select {}
		}}
	default:
		fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
		return 2
	}
	m, err := NewManager(c, prefix, opts, job)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	run, err := m.Run(ctx, job.Name, TriggerManual)
	json.NewEncoder(os.Stdout).Encode(run)
	switch {
	case errors.Is(err, ErrLocked):
		return 3
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func helperCmd(t *testing.T, mode, addr string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperAddr+"="+addr)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestTwoProcessesRaceExactlyOneRuns(t *testing.T) {
	s := redistest.Start(t)
	a, b := helperCmd(t, "race", s.Addr()), helperCmd(t, "race", s.Addr())
	var outA, outB strings.Builder
	a.Stdout, b.Stdout = &outA, &outB
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	codes := []int{proctest.ExitCode(t, a.Wait()), proctest.ExitCode(t, b.Wait())}
	if !(codes[0] == 0 && codes[1] == 3 || codes[0] == 3 && codes[1] == 0) {
		t.Fatalf("exit codes %v, want one 0 (ran) and one 3 (skipped)\nA: %s\nB: %s", codes, outA.String(), outB.String())
	}
	m := newManager(t, s.Client(), Options{}, Job{Name: "race", Run: func(context.Context) (Counts, error) { return nil, nil }})
	h, err := m.History(context.Background(), "race", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Status != StatusOK || h[0].Counts["ran"] != 1 || h[1].Status != StatusSkipped {
		t.Fatalf("history: %+v", h)
	}
	if h[0].Holder == h[1].Holder {
		t.Fatalf("both runs claim holder %s: they were not two processes", h[0].Holder)
	}
}

// holdTTL is the lock TTL of the "hold" helper.
const holdTTL = 4 * time.Second

func TestKilledHolderLockExpires(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client()
	ctx := context.Background()
	cmd := helperCmd(t, "hold", s.Addr())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "started" {
		cmd.Process.Kill()
		t.Fatalf("helper: %q, %v", line, err)
	}
	// Alive, the holder keeps the lock past its TTL by renewing it (every
	// third of the TTL: a renewal may come more than 2 s late on a loaded
	// machine before the lock lapses).
	time.Sleep(holdTTL + holdTTL/2)
	m := newManager(t, c, Options{}, Job{Name: "hold", Run: func(context.Context) (Counts, error) { return Counts{"after": 1}, nil }})
	if _, err := m.Run(ctx, "hold", TriggerManual); !errors.Is(err, ErrLocked) {
		t.Fatalf("run while the holder lives: %v, want ErrLocked", err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed := time.Now()
	var run Run
	proctest.WaitFor(t, 30*time.Second, "the killed holder's lock to expire", func() bool {
		run, err = m.Run(ctx, "hold", TriggerManual)
		return err == nil
	})
	if run.Status != StatusOK || run.Counts["after"] != 1 {
		t.Fatalf("run after the kill: %+v", run)
	}
	t.Logf("lock free %s after SIGKILL (TTL %s)", time.Since(killed).Round(time.Millisecond), holdTTL)
}
