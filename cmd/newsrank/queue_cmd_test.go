package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
