package proctest

import (
	"errors"
	"os/exec"
	"testing"
	"time"
)

// WaitFor polls cond every 20 ms until it holds, failing t when timeout
// passes first; what names the awaited condition in the failure.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ExitCode is the exit status of a process that exec's Run or Wait
// returned err for: 0 for nil, the status of an *exec.ExitError. Any other
// error (the process did not run) fails t.
func ExitCode(t testing.TB, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	t.Fatalf("run: %v", err)
	return -1
}
