package main

import (
	"os"
	"runtime/debug"
)

// Garbage collection of a crawl process. A crawl's live heap is small and
// flat (about 10 MB whatever the number of articles: the queue lives in
// Redis) while every page allocates its whole parse tree, so with Go's
// default (GOGC=100) the collector runs every ~10 MB of allocation, dozens
// of times a second, and marking takes a fifth of the crawl's CPU. A
// crawl lets the heap grow to 5× its live size instead (a cycle every
// ~40 MB), under a soft memory limit that keeps the peak bounded if the
// live heap ever grows (the collector then runs earlier, as by default).
const (
	crawlGCPercent   = 400
	crawlMemoryLimit = 48 << 20 // bytes of Go memory (heap, stacks, runtime)
)

// tuneCrawlGC applies the crawl's garbage-collection policy, unless the
// environment sets its own (GOGC, GOMEMLIMIT) or Redis is embedded (its
// data then lives in this process's heap, which is not small).
func tuneCrawlGC(embedded bool) {
	if embedded {
		return
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(crawlGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(crawlMemoryLimit)
	}
}
