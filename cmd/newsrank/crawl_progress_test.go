package main

import (
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/fetch"
)

// TestProgressLine checks the terminal progress line and the ETA.
func TestProgressLine(t *testing.T) {
	limit := &fetch.HostLimit{Host: "demo.local", Setting: "crawler.delay", Value: "500ms", Waiting: 3}
	lists := progressLine(crawler.Progress{Listing: true, ListPages: 12, Found: 302, New: 300, SourcesDone: 4, Sources: 6,
		Elapsed: 8 * time.Second, Limit: limit}, 0)
	if want := "reading lists: 12 list pages read, 302 URLs found (300 new), 4 of 6 sources done  8s  limited by crawler.delay 500ms on demo.local"; lists != want {
		t.Errorf("lists phase:\n got %q\nwant %q", lists, want)
	}
	var w rateWindow
	var line string
	// Lists first, then 10 s at 1 page/s and 10 s at 4 pages/s.
	w.add(crawler.Progress{Listing: true, Elapsed: 10 * time.Second})
	fetched := int64(0)
	for s := 11; s <= 30; s++ {
		if s <= 20 {
			fetched++
		} else {
			fetched += 4
		}
		pr := crawler.Progress{Fetched: fetched, Stored: fetched, Left: 1000 - fetched, Elapsed: time.Duration(s) * time.Second,
			Rate: float64(fetched) / float64(s-10)}
		line = progressLine(pr, w.add(pr))
	}
	// The rate of the last 10 s (4 pages/s), not since the start (2.5).
	if want := "fetched 50  stored 50  failed 0  left 950  4.0 pages/s  ETA 3m58s  30s"; line != want {
		t.Errorf("articles phase:\n got %q\nwant %q", line, want)
	}
	for d, want := range map[time.Duration]string{42 * time.Second: "42s", 185 * time.Second: "3m05s", 7800 * time.Second: "2h10m"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", d, got, want)
		}
	}
	if _, ok := eta(10, 0); ok {
		t.Error("an ETA without a rate")
	}
}
