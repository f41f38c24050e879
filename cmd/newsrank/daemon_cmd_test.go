package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/queue"
)

// slowSite serves a list page linking n articles; each article page takes
// delay to answer.
func slowSite(t *testing.T, n int, delay time.Duration) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var served atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /list", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><head><title>List</title></head><body><ul>")
		for i := range n {
			fmt.Fprintf(w, `<li><a class="article" href="/a/%d.html">Story %d</a></li>`, i, i)
		}
		fmt.Fprint(w, "</ul></body></html>")
	})
	mux.HandleFunc("GET /a/{name}", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		post := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		fmt.Fprintf(w, `<html><head><title>Story %s</title><meta property="article:published_time" content="%s"></head>
<body><h1>Story %s</h1><p>Body of the story.</p></body></html>`, r.PathValue("name"), post, r.PathValue("name"))
		served.Add(1)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &served
}

// TestDaemonSIGTERMMidCrawlLosesNoURL runs the daemon against a slow site,
// stops it with SIGTERM while pages are being fetched, checks that it
// exits 0 with every URL either stored or back in the queue, then starts
// it again and sees every article stored.
func TestDaemonSIGTERMMidCrawlLosesNoURL(t *testing.T) {
	const n = 30
	bin := proctest.Build(t)
	s := redistest.Start(t)
	c := s.Client()
	ctx := context.Background()
	site, served := slowSite(t, n, 300*time.Millisecond)
	cfg := jobsConfig(t, s.URL(), fmt.Sprintf(`
crawler:
  workers: 3
  per_host_parallelism: 3
  delay: 0s
  jitter: 0s
  obey_robots: false
  sources:
    - name: slow
      kind: html
      urls: ["%s/list"]
      link_selector: "a.article"
      max_pages: 1
jobs:
  time_zone: UTC
  lock_ttl: 5s
  shutdown_timeout: 30s
web:
  listen: 127.0.0.1:0
`, site.URL))
	q := queue.New(c, "jt:", "slow", queue.DefaultOptions())
	stored := func() int64 { return newsCount(t, c, "jt:") }

	// The last crawl ran a day ago: the schedule (every 6 hours) fired
	// since, so the daemon catches it up at start.
	seedLastRun(t, c, "jt:", jobs.Crawl, time.Now().Add(-24*time.Hour))
	d := proctest.StartDaemon(t, bin, cfg)
	// The URLs are queued (by the catch-up crawl or the source's first
	// poll, whichever comes first), and the HTTP server lists the jobs:
	// the missed crawl was caught up at start (its run is recorded once
	// it ends, so it is waited for).
	proctest.WaitFor(t, 30*time.Second, "the URLs to be queued", func() bool {
		st, err := q.Stats(ctx)
		return err == nil && st.Pending+st.InFlight+st.Done == n
	})
	var body strings.Builder
	proctest.WaitFor(t, 30*time.Second, "GET /api/jobs to show the catch-up run", func() bool {
		resp, err := http.Get(d.URL + "/api/jobs")
		if err != nil {
			t.Fatal(err)
		}
		body.Reset()
		io.Copy(&body, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == 200 && strings.Contains(body.String(), `"catch-up"`)
	})
	proctest.WaitFor(t, 60*time.Second, "a few articles stored", func() bool { return stored() >= 4 })
	if code := d.Stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("daemon exit status %d after SIGTERM, want 0\n%s", code, d.Log)
	}
	st, err := q.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := stored()
	t.Logf("after SIGTERM: %d stored, queue %+v, %d pages served", got, st, served.Load())
	if got == n {
		t.Fatalf("the crawl finished before SIGTERM: the test proves nothing (make the site slower)")
	}
	if st.InFlight != 0 || st.Dead != 0 {
		t.Fatalf("after a clean stop: %d URLs still leased, %d dead; want 0 and 0\n%s", st.InFlight, st.Dead, d.Log)
	}
	if st.Done != got || st.Pending+st.Delayed+st.Done != n {
		t.Fatalf("URLs: %+v with %d articles stored; want done == stored and pending+delayed+done == %d", st, got, n)
	}
	if !strings.Contains(d.Log.String(), "shutting down") {
		t.Errorf("no shutdown message in the log:\n%s", d.Log)
	}

	// Started again, the daemon finishes the queue: nothing was lost.
	d = proctest.StartDaemon(t, bin, cfg)
	proctest.WaitFor(t, 60*time.Second, "every article stored", func() bool { return stored() == n })
	if code := d.Stop(t, syscall.SIGINT); code != 0 {
		t.Fatalf("daemon exit status %d after SIGINT, want 0\n%s", code, d.Log)
	}
	st, _ = q.Stats(ctx)
	if st.Done != n || st.Pending+st.InFlight+st.Delayed+st.Dead != 0 {
		t.Fatalf("queue at the end: %+v", st)
	}
	// The lock of every job is free after the stops.
	for _, job := range []string{"crawl", "prune", "rescore", "archive"} {
		if n, _ := c.Exists(ctx, "jt:{jobs}:lock:"+job).Result(); n != 0 {
			t.Errorf("lock of %s left behind", job)
		}
	}
	var runs []map[string]any
	raw, _ := c.LRange(ctx, "jt:{jobs}:runs:crawl", 0, -1).Result()
	for _, r := range raw {
		var m map[string]any
		json.Unmarshal([]byte(r), &m)
		runs = append(runs, m)
	}
	caughtUp := slices.ContainsFunc(runs, func(r map[string]any) bool { return r["trigger"] == "catch-up" && r["status"] == "ok" })
	if !caughtUp {
		t.Errorf("crawl history: %v", runs)
	}
}

// TestDaemonUngroupsAtStart: a daemon started with news.rank_by: article
// on stories stored with rank_by: story ranks both of the story's
// articles before it serves.
func TestDaemonUngroupsAtStart(t *testing.T) {
	bin := proctest.Build(t)
	s := redistest.Start(t)
	c := s.Client()
	seedStory(t, c)
	cfg := jobsConfig(t, s.URL(), "web:\n  listen: 127.0.0.1:0\njobs:\n  time_zone: UTC\n")
	d := proctest.StartDaemon(t, bin, cfg)
	if n := newsCount(t, c, "jt:"); n != 2 {
		t.Errorf("daemon serving: %d articles ranked, want 2\n%s", n, d.Log)
	}
	if code := d.Stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("daemon exit status %d after SIGTERM, want 0\n%s", code, d.Log)
	}
}

func TestDaemonBadListenExits1(t *testing.T) {
	s := redistest.Start(t)
	cfg := jobsConfig(t, s.URL(), "web:\n  listen: 256.0.0.1:1\n")
	code, _, errs := runCLI(t, "daemon", "-config", cfg)
	if code != exitFailed || !strings.Contains(errs, "web.listen") {
		t.Fatalf("exit %d, want 1: %s", code, errs)
	}
}

// seedLastRun records a run of job that started at start, as if an
// earlier daemon had run it.
func seedLastRun(t *testing.T, c redis.UniversalClient, prefix, job string, start time.Time) {
	t.Helper()
	b, err := json.Marshal(jobs.Run{Job: job, Trigger: jobs.TriggerSchedule, Holder: "earlier/1", Start: start,
		End: start.Add(time.Second), Status: jobs.StatusOK})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Set(ctx, prefix+jobs.Tag+":last:"+job, b, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.LPush(ctx, prefix+jobs.Tag+":runs:"+job, b).Err(); err != nil {
		t.Fatal(err)
	}
}
