package redistest

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServerDiesWithTheTest: a test process killed with SIGKILL (no
// cleanup runs) takes its redis-server with it. The test runs itself
// again as a child that starts a server, prints its pid and waits to be
// killed.
func TestServerDiesWithTheTest(t *testing.T) {
	if os.Getenv("REDISTEST_CHILD") == "1" {
		s := Start(t)
		s.mu.Lock()
		pid := s.cmd.Process.Pid
		s.mu.Unlock()
		os.Stdout.WriteString("pid " + strconv.Itoa(pid) + "\n")
		time.Sleep(time.Hour)
		return
	}
	child := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithTheTest$")
	child.Env = append(os.Environ(), "REDISTEST_CHILD=1")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "pid ") {
		t.Fatalf("child printed %q, %v", line, err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "pid ")))
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("redis-server %d is not running: %v", pid, err)
	}
	child.Process.Kill()
	child.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for syscall.Kill(pid, 0) == nil && !zombie(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("redis-server %d still runs 20 s after its test process was killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// zombie reports a process that has exited but not been reaped (its
// parent was killed; init reaps it soon).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}
