package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/queue"
)

func TestQueueCommand(t *testing.T) {
	ctx := context.Background()
	s := redistest.Start(t)
	cfgPath := writeFile(t, "config.yaml", fmt.Sprintf(`
redis:
  url: %s
  key_prefix: "cli:"
crawler:
  sources:
    - name: world
      kind: rss
      urls: ["https://news.example.com/world.rss"]
    - name: tech
      kind: rss
      urls: ["https://news.example.com/tech.rss"]
`, s.URL()))
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Client()
	world := queue.New(c, "cli:", "world", cfg.Queue.Options())
	tech := queue.New(c, "cli:", "tech", cfg.Queue.Options())
	world.Push(ctx, "https://news.example.com/w1", "https://news.example.com/w2", "https://news.example.com/w3")
	tech.Push(ctx, "https://news.example.com/t1", "https://news.example.com/t2")
	got, _ := world.TryClaim(ctx, 3, time.Minute)
	world.Ack(ctx, got[0])
	world.Fail(ctx, got[1], queue.Failure{Reason: "http_404", Err: errors.New("HTTP 404\tNot Found")})
	dead := got[1]

	code, out, errOut := runCLI(t, "queue", "stats", "-config", cfgPath)
	if code != exitOK {
		t.Fatalf("stats exit %d: %s", code, errOut)
	}
	wantRows := [][]string{
		{"SOURCE", "PENDING", "IN", "FLIGHT", "DELAYED", "DONE", "DEAD"},
		{"world", "0", "1", "0", "1", "1"},
		{"tech", "2", "0", "0", "0", "0"},
		{"total", "2", "1", "0", "1", "1"},
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(wantRows) {
		t.Fatalf("stats printed:\n%s", out)
	}
	for i, want := range wantRows {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("stats line %d = %q, want %q", i, got, want)
		}
	}

	code, out, errOut = runCLI(t, "queue", "dead", "-config", cfgPath)
	if code != exitOK {
		t.Fatalf("dead exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, dead) || !strings.Contains(out, "http_404") || !strings.Contains(out, "HTTP 404 Not Found") ||
		!strings.Contains(out, time.Now().Format("2006-01-02")) {
		t.Errorf("dead printed:\n%s", out)
	}

	code, out, errOut = runCLI(t, "queue", "requeue-dead", "-config", cfgPath, "-source", "world")
	if code != exitOK || !strings.Contains(out, "world: 1 dead letters requeued") {
		t.Fatalf("requeue-dead exit %d:\n%s%s", code, out, errOut)
	}
	if st, _ := world.Stats(ctx); st.Dead != 0 || st.Pending != 1 {
		t.Errorf("after requeue-dead: %+v", st)
	}

	// purge refuses without -yes, then purges only the source named.
	code, _, errOut = runCLI(t, "queue", "purge", "-config", cfgPath, "-source", "world")
	if code != exitUsage || !strings.Contains(errOut, "-yes") {
		t.Errorf("purge without -yes: exit %d, %s", code, errOut)
	}
	if st, _ := world.Stats(ctx); st.Pending != 1 {
		t.Fatalf("purge without -yes changed the queue: %+v", st)
	}
	code, out, errOut = runCLI(t, "queue", "purge", "-yes", "-config", cfgPath, "-source", "world")
	if code != exitOK || !strings.Contains(out, "world: queue purged") {
		t.Fatalf("purge exit %d:\n%s%s", code, out, errOut)
	}
	if st, _ := world.Stats(ctx); st != (queue.Stats{}) {
		t.Errorf("world after purge: %+v", st)
	}
	if st, _ := tech.Stats(ctx); st.Pending != 2 {
		t.Errorf("purging world touched tech: %+v", st)
	}

	// A source not configured works, with a note (a queue left behind).
	code, _, errOut = runCLI(t, "queue", "stats", "-config", cfgPath, "-source", "old")
	if code != exitOK || !strings.Contains(errOut, `source "old" is not in crawler.sources`) {
		t.Errorf("stats -source old: exit %d, %s", code, errOut)
	}
}

func TestQueueCommandUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"queue"}, "missing subcommand"},
		{[]string{"queue", "list"}, `unknown subcommand "list"`},
		{[]string{"queue", "stats", "extra"}, `unexpected argument "extra"`},
		{[]string{"queue", "purge"}, "add -yes to confirm"},
		{[]string{"queue", "dead", "-limit", "0"}, "-limit must be >= 1"},
		{[]string{"queue", "stats", "-source", "a{b}"}, "bad queue name"},
		{[]string{"queue", "requeue-dead", "https://x.example.com/a"}, "needs -source"},
		{[]string{"queue", "stats"}, "no sources in crawler.sources"},
	}
	for _, tc := range cases {
		code, _, errOut := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, exitUsage, tc.want)
		}
	}
}

// TestPurgeThenCrawlReadsTheListsAgain: after `queue purge` (which drops
// the done memory) a crawl must find the listed URLs again. The list
// answers 304 to a conditional request; were its validators kept
// across the purge, the second crawl would push nothing.
func TestPurgeThenCrawlReadsTheListsAgain(t *testing.T) {
	var full, notModified atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /list", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full.Add(1)
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a class="s" href="/a">A</a> <a class="s" href="/b">B</a>`)
	})
	for _, p := range []string{"a", "b"} {
		mux.HandleFunc("GET /"+p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><head><title>%s</title><meta property="article:published_time" content="%s"></head><body>x</body></html>`,
				strings.ToUpper(p), time.Now().Add(-time.Hour).UTC().Format(time.RFC3339))
		})
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	r := redistest.Start(t)
	cfg := writeFile(t, "config.yaml", fmt.Sprintf(`
redis: {url: %q}
log: {level: warn}
crawler:
  delay: 0s
  jitter: 0s
  obey_robots: false
  sources: [{name: site, kind: html, urls: [%q], link_selector: a.s}]
`, r.URL(), srv.URL+"/list"))
	crawl := func(what string) crawlJSONOut {
		t.Helper()
		code, out, errOut := runCLI(t, "crawl", "-once", "-json", "-config", cfg, "-progress", "none")
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s", what, code, errOut)
		}
		return parseCrawlJSON(t, out)
	}

	if rep := crawl("first crawl"); rep.Total.Stored != 2 {
		t.Fatalf("first crawl stored %d, want 2: %+v", rep.Total.Stored, rep)
	}
	if rep := crawl("second crawl"); rep.Total.Fetched != 0 || notModified.Load() != 1 {
		t.Fatalf("second crawl: %+v, %d 304s; want nothing fetched and the list answered 304", rep, notModified.Load())
	}
	code, out, errOut := runCLI(t, "queue", "purge", "-yes", "-config", cfg, "-source", "site")
	if code != exitOK || !strings.Contains(out, "site: queue purged") {
		t.Fatalf("purge: exit %d\n%s%s", code, out, errOut)
	}
	before := full.Load()
	rep := crawl("crawl after the purge")
	if full.Load() != before+1 || rep.Total.Found != 2 || rep.Total.Fetched != 2 {
		t.Errorf("crawl after the purge: %+v, the list read in full %d more times; want it read in full and both URLs found and fetched again",
			rep, full.Load()-before)
	}
}
