package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		floor, live, roots uint64
		want               int
	}{
		{36 * mib, 10 * mib, 1 * mib, 236}, // 10 + 11×2.36 ≈ 36
		{36 * mib, 4 * mib, 0, 800},        // a near-empty heap still grows to the floor
		{36 * mib, 2 * mib, 0, 900},        // where Go's least goal (4 MiB × GOGC/100) is the floor
		{36 * mib, 17 * mib, 1 * mib, 105}, // just below the point where 2×live takes over
		{36 * mib, 18 * mib, 1 * mib, 100}, // 18 + 19 ≥ 36: Go's default
		{36 * mib, 200 * mib, 1 * mib, 100},
		{36 * mib, 0, 0, 100}, // nothing measured yet
	} {
		if got := Percent(c.floor, c.live, c.roots); got != c.want {
			t.Errorf("Percent(%d, %d, %d) = %d, want %d", c.floor>>20, c.live>>20, c.roots>>20, got, c.want)
		}
	}
}

func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// waitGoal collects until the heap goal satisfies ok (the keeper adjusts
// GOGC after a collection, on the cleanup goroutine), or fails.
func waitGoal(t *testing.T, what string, ok func(goal uint64) bool) {
	t.Helper()
	for range 2000 {
		if ok(heapGoal()) {
			return
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("heap goal %d MiB: %s", heapGoal()>>20, what)
}

// TestKeep: on a small live heap the goal is the floor; with a live heap
// over half the floor it is twice the live heap; stop gives back the
// GOGC that was set before.
func TestKeep(t *testing.T) {
	const floor = 96 << 20
	before := debug.SetGCPercent(123)
	defer debug.SetGCPercent(before)

	stop := Keep(floor)
	waitGoal(t, "want the floor, 96 MiB, on a small live heap", func(g uint64) bool {
		return g >= floor*97/100 && g <= floor*103/100
	})

	live := make([]byte, 80<<20) // live: 2×80 MiB is above the floor
	for i := range live {
		live[i] = byte(i)
	}
	waitGoal(t, "want twice an 80 MiB live heap", func(g uint64) bool {
		return g >= 160<<20 && g <= 176<<20
	})
	runtime.KeepAlive(live)

	stop()
	if got := debug.SetGCPercent(123); got != 123 {
		t.Errorf("GOGC after stop = %d, want the 123 set before Keep", got)
	}
	stop() // a second stop changes nothing
	if got := debug.SetGCPercent(123); got != 123 {
		t.Errorf("GOGC after a second stop = %d, want 123", got)
	}
}
