package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

func TestPruneRescoreAndJobsCommands(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client()
	ctx := context.Background()
	cfg := jobsConfig(t, s.URL(), "news:\n  window: 2h\n")
	seedArticles(t, c, time.Now(), 0, 1) // inside a 2 h window
	// Two articles 3 and 4 hours old (written directly: ingest refuses
	// articles older than the window).
	for i, id := range []string{news.ID("https://example.com/100"), news.ID("https://example.com/101")} {
		old := float64(time.Now().Add(-time.Duration(3+i) * time.Hour).Unix())
		c.ZAdd(ctx, newsKey("jt:", "time:"), redis.Z{Score: old, Member: id})
		c.ZAdd(ctx, newsKey("jt:", "votes:"), redis.Z{Score: 0, Member: id})
		c.ZAdd(ctx, newsKey("jt:", "score:"), redis.Z{Score: old, Member: id})
		c.HSet(ctx, newsKey("jt:", "news:"+id), "title", fmt.Sprintf("Old %d", i), "url", fmt.Sprintf("https://example.com/%d", 100+i))
	}

	code, out, errs := runCLI(t, "prune", "-config", cfg, "-dry-run")
	if code != 0 || !strings.Contains(out, "2 of 4 articles") || !strings.Contains(out, "Old 1") {
		t.Fatalf("prune -dry-run: %d\n%s\n%s", code, out, errs)
	}
	if n := newsCount(t, c, "jt:"); n != 4 {
		t.Fatalf("dry run removed articles: %d left", n)
	}

	// Another run holds the prune lock: exit status 3, nothing removed.
	lock := "jt:{jobs}:lock:prune"
	c.Set(ctx, lock, `{"token":"x","holder":"other-host/99","since":"2024-01-01T00:00:00Z"}`, time.Minute)
	code, out, errs = runCLI(t, "prune", "-config", cfg)
	if code != exitSkipped || !strings.Contains(errs, "skipped") || !strings.Contains(errs, "other-host/99") {
		t.Fatalf("prune while locked: exit %d, want 3\n%s\n%s", code, out, errs)
	}
	if n := newsCount(t, c, "jt:"); n != 4 {
		t.Fatal("a skipped prune removed articles")
	}
	c.Del(ctx, lock)

	code, out, errs = runCLI(t, "prune", "-config", cfg)
	if code != 0 || !strings.Contains(out, "removed 2 articles") {
		t.Fatalf("prune: %d\n%s\n%s", code, out, errs)
	}
	if n := newsCount(t, c, "jt:"); n != 2 {
		t.Fatalf("after prune %d articles, want 2", n)
	}

	// An id that is no article in score:, and an article that lost its
	// votes: entry: the rebuild drops the one, repairs the other from its
	// hash, and says so.
	c.ZAdd(ctx, newsKey("jt:", "score:"), redis.Z{Score: 1, Member: "garbage"})
	c.ZRem(ctx, newsKey("jt:", "votes:"), news.ID("https://example.com/0"))
	code, out, errs = runCLI(t, "rescore", "-config", cfg)
	if code != 0 || !strings.Contains(out, "rebuilt score: for 2 articles with linear") ||
		!strings.Contains(out, "1 vote counts restored, 1 ids without an article dropped") {
		t.Fatalf("rescore: %d\n%s\n%s", code, out, errs)
	}
	if n, _ := c.ZCard(ctx, newsKey("jt:", "score:")).Result(); n != 2 {
		t.Fatalf("score: has %d members after rescore, want 2", n)
	}

	code, out, errs = runCLI(t, "jobs", "-config", cfg, "-history", "5")
	if code != 0 {
		t.Fatalf("jobs: %d\n%s", code, errs)
	}
	for _, want := range []string{"prune", "rescore", "crawl", "archive", "never", "removed=2", "articles=2", "skipped", "manual"} {
		if !strings.Contains(out, want) {
			t.Errorf("jobs output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "jobs", "-config", cfg, "-json")
	if code != 0 || !strings.Contains(out, `"name": "prune"`) || !strings.Contains(out, `"status": "ok"`) {
		t.Fatalf("jobs -json: %d\n%s", code, out)
	}

	if code, _, _ := runCLI(t, "prune", "-config", cfg, "extra"); code != exitUsage {
		t.Errorf("prune with an argument: exit %d, want 2", code)
	}
	bad := jobsConfig(t, s.URL(), "jobs:\n  prune:\n    schedule: \"61 * * * *\"\n")
	if code, _, errs := runCLI(t, "rescore", "-config", bad); code != exitUsage || !strings.Contains(errs, "jobs.prune.schedule") {
		t.Errorf("bad schedule: exit %d, want 2: %s", code, errs)
	}
}
