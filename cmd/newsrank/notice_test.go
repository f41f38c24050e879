package main

import (
	"strings"
	"testing"

	"github.com/newsrank/newsrank/internal/redistest"
)

// TestEmbeddedRedisNoticeComesFirst: every command that works on Redis,
// run without -config, says first that it sees a new, empty in-memory
// Redis and how to reach the demo's.
func TestEmbeddedRedisNoticeComesFirst(t *testing.T) {
	t.Setenv("NEWSRANK_CONFIG", "")
	for _, args := range [][]string{{"jobs"}, {"prune", "-dry-run"}, {"prune"}, {"rescore"}, {"queue", "stats", "-source", "news"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, errOut := runCLI(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			first, _, _ := strings.Cut(errOut, "\n")
			want := "newsrank " + args[0] + ": redis.url is embedded: this is a new, empty in-memory Redis"
			if !strings.HasPrefix(first, want) || !strings.Contains(first, "-set redis.url=redis://127.0.0.1:PORT") {
				t.Errorf("first line of stderr:\n%q\nwant it to start with %q and say -set redis.url=redis://127.0.0.1:PORT", first, want)
			}
		})
	}
	// A real Redis gets no such line.
	cfg := jobsConfig(t, redistest.Start(t).URL(), "")
	if _, _, errOut := runCLI(t, "jobs", "-config", cfg); strings.Contains(errOut, "embedded") {
		t.Errorf("on a real Redis: %q", errOut)
	}
}
