// Package gcfloor keeps the garbage collector's heap goal at a floor.
//
// Go's collector (GOGC) lets the heap grow to a multiple of what was live
// at the last collection before it collects again. For a process whose
// live heap is small but which allocates fast (a crawl: every page's
// parse tree is garbage moments later), a multiple of a small, jittery
// live heap makes a heap goal that follows the jitter: the peak RSS of a
// long run is set by its most crowded moment. A floor instead gives a
// goal that does not depend on the run's length: the heap may grow to
// the floor whatever was live, and, once twice the live heap is above
// the floor, to twice the live heap (Go's default, GOGC=100), so a
// process whose live heap is large never collects more often than Go's
// default would make it.
//
// It works by setting GOGC after every collection from what that
// collection found live (runtime/metrics), unlike a soft memory limit
// (GOMEMLIMIT), which makes the collector run ever more often as the live
// heap nears it.
package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// samples are what the goal is computed from: the heap marked live by
// the last collection, and the roots that GOGC also counts (goroutine
// stacks and globals).
var sampleNames = []string{
	"/gc/heap/live:bytes",
	"/gc/scan/stack:bytes",
	"/gc/scan/globals:bytes",
}

// heapMinimum is Go's least heap goal at GOGC=100 (the runtime's
// defaultHeapMinimum); at another GOGC it scales with it.
const heapMinimum = 4 << 20

// Percent is the GOGC that makes the heap goal max(floor, 2×live) for
// a live heap of live bytes and roots bytes of stacks and globals: Go's
// goal is live + (live+roots)×GOGC/100, and at least heapMinimum ×
// GOGC/100, so GOGC is at most what makes that minimum the floor (on a
// near-empty heap the minimum, not the live heap, sets the goal).
func Percent(floor, live, roots uint64) int {
	base := live + roots
	if base == 0 || floor <= live+base {
		return 100
	}
	return int(min((floor-live)*100/base, floor*100/heapMinimum))
}

// Keep sets GOGC after every collection so that the heap goal is at
// least floor bytes (see the package doc), starting at once, until the
// returned stop is called; stop restores the GOGC that was in force.
func Keep(floor uint64) (stop func()) {
	k := &keeper{floor: floor, samples: make([]metrics.Sample, len(sampleNames))}
	for i, n := range sampleNames {
		k.samples[i].Name = n
	}
	k.old = debug.SetGCPercent(100)
	k.adjust()
	k.arm()
	return k.stop
}

type keeper struct {
	floor   uint64
	old     int
	samples []metrics.Sample

	mu      sync.Mutex
	stopped bool
}

// sentinel is an object that becomes garbage at once: its cleanup runs
// after the collection that found it so, which re-arms a new one.
type sentinel struct{ _ [64]byte }

func (k *keeper) arm() {
	runtime.AddCleanup(&sentinel{}, func(k *keeper) {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.stopped {
			return
		}
		k.adjustLocked()
		k.arm()
	}, k)
}

func (k *keeper) adjust() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.adjustLocked()
}

func (k *keeper) adjustLocked() {
	metrics.Read(k.samples)
	var v [3]uint64
	for i, s := range k.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	debug.SetGCPercent(Percent(k.floor, v[0], v[1]+v[2]))
}

func (k *keeper) stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.stopped {
		k.stopped = true
		debug.SetGCPercent(k.old)
	}
}
