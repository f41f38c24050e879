package main

import (
	"os"

	"github.com/newsrank/newsrank/internal/gcfloor"
)

// crawlHeapFloor is the heap a crawl process lets grow before it
// collects garbage, whatever was live (see package gcfloor); above it,
// twice the live heap (Go's default). A crawl's live heap is small
// (about 10 MB: the queue lives in Redis) while every page allocates its
// whole parse tree, so with Go's default (GOGC=100) the collector runs
// every time the heap grows by its small live size, dozens of times a
// second; a floor of 36 MiB makes it run about as often as GOGC=250 did
// on the demo crawl, for a peak RSS that stays the same however long the
// crawl (GOGC=250 let it follow the largest live heap of the run: 70 MB
// for 3,000 articles, 85 MB for 100,000).
//
// No soft memory limit goes with it: a limit set near the demo's heap
// would make the collector run far more often than the default on a
// site whose pages are large (16 parse trees of 300 KB pages in flight
// are tens of MB live); with the floor such a site gets Go's default.
const crawlHeapFloor = 36 << 20

// tuneCrawlGC applies the crawl's garbage-collection policy, unless the
// environment sets its own (GOGC, or GOMEMLIMIT, which then governs) or
// Redis is embedded (its data then lives in this process's heap, which
// is not small).
func tuneCrawlGC(embedded bool) {
	if embedded || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	gcfloor.Keep(crawlHeapFloor)
}
