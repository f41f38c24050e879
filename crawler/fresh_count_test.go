package crawler

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/demosite"
)

// listCount is what the demo site served for one source's lists, and
// what its WebSub hub pushed of them.
type listCount struct {
	requests, notModified, bytes int64
	// pushes are the feeds the hub pushed to the daemon; their bodies
	// are in bytes too (feed bytes the daemon receives).
	pushes int64
}

// countingSite serves the demo site and counts, per source, the list
// pages it serves (everything but article pages, robots.txt, images and
// static files): requests, 304 answers and body bytes. Requests whose
// User-Agent is skipUA (a hub fetching the feed it distributes: not the
// daemon's bytes) are served and not counted.
type countingSite struct {
	h        http.Handler
	articles map[string]bool
	skipUA   string
	mu       sync.Mutex
	per      map[string]*listCount
}

func (cs *countingSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if cs.articles[p] || p == "/robots.txt" || strings.HasPrefix(p, "/img/") || strings.HasPrefix(p, "/static/") ||
		(cs.skipUA != "" && r.UserAgent() == cs.skipUA) {
		cs.h.ServeHTTP(w, r)
		return
	}
	cw := &countingWriter{ResponseWriter: w}
	cs.h.ServeHTTP(cw, r)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	n := cs.source(listSource(p))
	n.requests++
	n.bytes += cw.n
	if cw.status == http.StatusNotModified {
		n.notModified++
	}
}

// source is the count of source; cs.mu is held.
func (cs *countingSite) source(name string) *listCount {
	if cs.per == nil {
		cs.per = map[string]*listCount{}
	}
	n := cs.per[name]
	if n == nil {
		n = &listCount{}
		cs.per[name] = n
	}
	return n
}

// pushed counts a push of size bytes to source's callback.
func (cs *countingSite) pushed(source string, size int64) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	n := cs.source(source)
	n.pushes++
	n.bytes += size
}

// listSource is the demo source a list path belongs to: its first
// segment (the section), or the channel of the list API.
func listSource(p string) string {
	seg := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if seg[0] == "api" && len(seg) > 2 {
		return seg[2]
	}
	return seg[0]
}

// counts returns the counts per source and their total, and starts
// counting afresh.
func (cs *countingSite) counts() (map[string]listCount, listCount) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	out, total := map[string]listCount{}, listCount{}
	for s, n := range cs.per {
		out[s] = *n
		total.requests += n.requests
		total.notModified += n.notModified
		total.bytes += n.bytes
		total.pushes += n.pushes
	}
	return out, total
}

func (cs *countingSite) reset() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.per = nil
}

type countingWriter struct {
	http.ResponseWriter
	n      int64
	status int
}

func (w *countingWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

// sourceResult is one source's share of a way's figures.
type sourceResult struct {
	listCount
	published, stored int
	delays            []time.Duration
}

// median is the median of the source's delays (never stored: slower
// than all).
func (sr sourceResult) median() time.Duration {
	if len(sr.delays) == 0 {
		return 0
	}
	d := slices.Clone(sr.delays)
	slices.Sort(d)
	return d[len(d)/2]
}

// printSources prints, per source (and kind), the list requests, 304s,
// bytes, new articles and their median delay of each of ways (pushes too,
// where a hub pushed), and the last way's bytes against the first's (to
// stdout: a benchmark's log is cut at 10 lines).
func printSources(kinds map[string]string, res map[string]freshResult, ways ...string) {
	var names []string
	for s := range kinds {
		names = append(names, s)
	}
	slices.Sort(names)
	base, last := ways[0], ways[len(ways)-1]
	fmt.Printf("per source: list requests (304s), list KiB, new articles stored/published, their median delay; %s's list bytes against %s's\n",
		last, base)
	for _, s := range names {
		line := fmt.Sprintf("%-8s %-7s", s, kinds[s])
		for _, way := range ways {
			x := res[way].sources[s]
			line += fmt.Sprintf(" | %-9s %5d (%4d) %6.0f KiB %3d/%3d %7s", way, x.requests, x.notModified, float64(x.bytes)/1024,
				x.stored, x.published, x.median().Round(time.Second))
			if x.pushes > 0 {
				line += fmt.Sprintf(" +%d pushes", x.pushes)
			}
		}
		a, f := res[last].sources[s], res[base].sources[s]
		if f.bytes > 0 {
			line += fmt.Sprintf(" | %5.1f%% of its bytes, %4.1f%% of all %s's", 100*float64(a.bytes)/float64(f.bytes),
				100*float64(a.bytes)/float64(res[base].bytes), base)
		}
		fmt.Println(line)
	}
}

// TestFreshSpanIgnoresTheWallClock: BenchmarkFreshness simulates the same
// two days whenever it runs (so a seed gives the same figures), and
// refuses days that are not a day ahead of the wall clock.
func TestFreshSpanIgnoresTheWallClock(t *testing.T) {
	s1, e1, err1 := freshSpan(time.Date(2026, time.November, 25, 9, 17, 0, 0, time.UTC))
	s2, e2, err2 := freshSpan(time.Date(2031, time.March, 2, 23, 59, 0, 0, time.FixedZone("x", 8*3600)))
	if err1 != nil || err2 != nil || !s1.Equal(s2) || !e1.Equal(e2) || e1.Sub(s1) != 48*time.Hour {
		t.Errorf("spans %v..%v (%v) and %v..%v (%v): want the same two days", s1, e1, err1, s2, e2, err2)
	}
	if _, _, err := freshSpan(s1.Add(-23 * time.Hour)); err == nil {
		t.Error("a span less than a day ahead of now was accepted")
	}
}

// TestHubSourcesAreAThird: BenchmarkFreshness's push=third has the demo
// site's feed sources announce its hub, which must be a third of all its
// sources; a site whose feeds are not is refused.
func TestHubSourcesAreAThird(t *testing.T) {
	site := demosite.New(demosite.Options{Articles: 30, Now: time.Date(2099, time.June, 1, 0, 0, 0, 0, time.UTC)})
	got, err := hubSources(site.Sources(""))
	if err != nil || len(got) != 2 || !got["world"] || !got["sports"] {
		t.Errorf("hubSources = %v, %v; want world and sports, 2 of the 6 sources", got, err)
	}
	srcs := []demosite.Source{{Name: "a", Kind: "rss"}, {Name: "b", Kind: "html"}, {Name: "c", Kind: "html"},
		{Name: "d", Kind: "html"}, {Name: "e", Kind: "html"}, {Name: "f", Kind: "html"}}
	if got, err := hubSources(srcs); err == nil {
		t.Errorf("hubSources of 1 feed in 6 sources = %v, want an error", got)
	}
}
