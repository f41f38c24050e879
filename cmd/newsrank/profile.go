package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts what crawl -cpuprofile and -memprofile ask for
// (an empty path: not that one): a Go CPU profile written to cpuPath, and
// the allocations profile (every allocation since the start, sampled:
// go tool pprof -sample_index=alloc_space) written to memPath when the
// returned function is called, which also stops the CPU profile.
func startProfiles(cpuPath, memPath string) (func(), error) {
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
	var mem *os.File
	if memPath != "" {
		var err error
		if mem, err = os.Create(memPath); err != nil {
			stopCPU()
			return nil, fmt.Errorf("-memprofile: %w", err)
		}
	}
	return func() {
		stopCPU()
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
