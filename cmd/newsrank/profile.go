package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts what crawl -cpuprofile, -memprofile and -trace ask
// for (an empty path: not that one): a Go CPU profile written to cpuPath,
// an execution trace (go tool trace: which goroutine waits on what, and
// when) to tracePath, and the allocations profile (every allocation since
// the start, sampled: go tool pprof -sample_index=alloc_space) written to
// memPath when the returned function is called, which also stops the CPU
// profile and the trace.
func startProfiles(cpuPath, memPath, tracePath string) (func(), error) {
	stopCPU := func() {}
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err != nil {
			return nil, fmt.Errorf("-cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("-cpuprofile: %w", err)
		}
		stopCPU = func() {
			pprof.StopCPUProfile()
			f.Close()
		}
	}
	stopTrace := func() {}
	if tracePath != "" {
		f, err := os.Create(tracePath)
		if err == nil {
			if err = trace.Start(f); err != nil {
				f.Close()
			}
		}
		if err != nil {
			stopCPU()
			return nil, fmt.Errorf("-trace: %w", err)
		}
		stopTrace = func() {
			trace.Stop()
			f.Close()
		}
	}
	var mem *os.File
	if memPath != "" {
		var err error
		if mem, err = os.Create(memPath); err != nil {
			stopCPU()
			stopTrace()
			return nil, fmt.Errorf("-memprofile: %w", err)
		}
	}
	return func() {
		stopCPU()
		stopTrace()
		if mem == nil {
			return
		}
		runtime.GC() // the profile's figures are as of the last GC
		if err := pprof.Lookup("allocs").WriteTo(mem, 0); err != nil {
			fmt.Fprintln(os.Stderr, "newsrank: -memprofile:", err)
		}
		mem.Close()
	}, nil
}
