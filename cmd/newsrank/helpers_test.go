package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/news"
)

// runCLI runs the command line in-process and returns the exit status and
// what it printed.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), &stdio{out: &out, err: &errb}, args)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// jobsConfig writes a config file pointing at the Redis at redisURL with
// key prefix "jt:" plus extra YAML, and returns its path.
func jobsConfig(t *testing.T, redisURL, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	body := fmt.Sprintf("redis:\n  url: %s\n  key_prefix: \"jt:\"\nlog:\n  level: warn\n%s", redisURL, extra)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// seedArticles ingests one article per entry of hours, posted that many
// hours before now.
func seedArticles(t *testing.T, c redis.UniversalClient, now time.Time, hours ...int) {
	t.Helper()
	s, err := news.New(c, "jt:", news.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hours {
		post := now.Add(-time.Duration(h) * time.Hour)
		if _, err := s.Ingest(context.Background(), news.Article{URL: fmt.Sprintf("https://example.com/%d", h), Title: fmt.Sprintf("Story %d", h), PostTime: post}); err != nil {
			t.Fatal(err)
		}
	}
}

// newsCount is how many articles the news store under prefix ranks.
func newsCount(t testing.TB, c redis.UniversalClient, prefix string) int64 {
	t.Helper()
	s, err := news.New(c, prefix, news.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	n, _ := s.Count(context.Background())
	return n
}

// newsKey is the news store's Redis key with this suffix under prefix, as
// docs/architecture.md's key table names it: the tests that write states the store
// would refuse to (articles older than the window, ids without an
// article) write the documented names out.
func newsKey(prefix, suffix string) string { return prefix + news.Tag + ":" + suffix }

// seedStory stores two copies of one event under prefix "jt:" with
// news.rank_by: story: one story, its lead alone ranked.
func seedStory(t *testing.T, c redis.UniversalClient) {
	t.Helper()
	o := news.DefaultOptions()
	o.RankBy = news.RankByStory
	s, err := news.New(c, "jt:", o)
	if err != nil {
		t.Fatal(err)
	}
	post := time.Now().Add(-time.Hour)
	const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	for i, title := range []string{"Central bank raises interest rates to fight inflation", "To fight inflation, central bank raises interest rates"} {
		r, err := s.Ingest(context.Background(), news.Article{URL: fmt.Sprintf("https://o%d.example.com/1", i), Title: title, Summary: sum, PostTime: post})
		if err != nil || i == 1 && r.Story == "" {
			t.Fatalf("ingest %d: %+v, %v", i, r, err)
		}
	}
	if n := newsCount(t, c, "jt:"); n != 1 {
		t.Fatalf("ranking by story: %d ranked, want 1", n)
	}
}
