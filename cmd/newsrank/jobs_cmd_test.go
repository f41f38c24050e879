package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

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
// the README's key table names it: the tests that write states the store
// would refuse to (articles older than the window, ids without an
// article) write the documented names out.
func newsKey(prefix, suffix string) string { return prefix + news.Tag + ":" + suffix }

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

// TestTwoPruneProcessesRace starts two `newsrank prune` processes at once
// on a prune long enough to overlap: the lock lets one through, the other
// exits with status 3.
func TestTwoPruneProcessesRace(t *testing.T) {
	bin := proctest.Build(t)
	s := redistest.Start(t)
	c := s.Client()
	ctx := context.Background()
	cfg := jobsConfig(t, s.URL(), "news:\n  window: 1h\n")
	// Enough expired articles that a prune takes a while (batches of 100).
	old := float64(time.Now().Add(-48 * time.Hour).Unix())
	for start := 0; start < 200_000; start += 5000 {
		var zs []redis.Z
		for i := start; i < start+5000; i++ {
			zs = append(zs, redis.Z{Score: old, Member: fmt.Sprintf("%016x", i)})
		}
		c.ZAdd(ctx, newsKey("jt:", "time:"), zs...)
	}
	var wg sync.WaitGroup
	codes := make([]int, 2)
	outs := make([]string, 2)
	for i := range 2 {
		wg.Go(func() {
			cmd := exec.Command(bin, "prune", "-config", cfg)
			b, err := cmd.CombinedOutput()
			outs[i] = string(b)
			codes[i] = proctest.ExitCode(t, err)
		})
	}
	wg.Wait()
	if !(codes[0] == 0 && codes[1] == 3 || codes[0] == 3 && codes[1] == 0) {
		t.Fatalf("exit codes %v, want one 0 and one 3\n%s\n%s", codes, outs[0], outs[1])
	}
	if n := newsCount(t, c, "jt:"); n != 0 {
		t.Fatalf("%d articles left", n)
	}
}

// TestCrawlOnceTakesTheCrawlLock: newsrank crawl -once is the "crawl" job:
// skipped (exit 3) while the daemon's scheduled crawl or a timer holds the
// lock, recorded in the job's history when it runs.
func TestCrawlOnceTakesTheCrawlLock(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client()
	ctx := context.Background()
	site, _ := slowSite(t, 3, 0)
	cfg := jobsConfig(t, s.URL(), fmt.Sprintf(`
crawler:
  delay: 0s
  jitter: 0s
  obey_robots: false
  sources:
    - name: quick
      kind: html
      urls: ["%s/list"]
      link_selector: "a.article"
      max_pages: 1
`, site.URL))
	lock := "jt:{jobs}:lock:crawl"
	c.Set(ctx, lock, `{"token":"x","holder":"daemon-host/1","since":"2024-01-01T00:00:00Z"}`, time.Minute)
	code, out, errs := runCLI(t, "crawl", "-once", "-progress", "none", "-config", cfg)
	if code != exitSkipped || !strings.Contains(errs, "skipped") {
		t.Fatalf("crawl -once while the crawl lock is held: exit %d, want 3\n%s\n%s", code, out, errs)
	}
	if n := newsCount(t, c, "jt:"); n != 0 {
		t.Fatal("a skipped crawl stored articles")
	}
	c.Del(ctx, lock)
	code, out, errs = runCLI(t, "crawl", "-once", "-progress", "none", "-config", cfg)
	if code != 0 {
		t.Fatalf("crawl -once: exit %d\n%s\n%s", code, out, errs)
	}
	if n := newsCount(t, c, "jt:"); n != 3 {
		t.Fatalf("crawl -once stored %d articles, want 3", n)
	}
	code, out, _ = runCLI(t, "jobs", "-config", cfg, "-history", "2")
	if code != 0 || !strings.Contains(out, "created=3") || !strings.Contains(out, "daemon-host/1") {
		t.Fatalf("jobs after the crawl:\n%s", out)
	}
	if !strings.Contains(out, "NEXT POLL") || !strings.Contains(out, "never polled: due now") {
		t.Fatalf("jobs shows no poll schedule of the source:\n%s", out)
	}
	// The schedule a poller wrote, as the README's key table names it.
	next := time.Now().Add(90 * time.Minute)
	c.HSet(ctx, "jt:{crawl:quick}:poll", "next", next.UnixMilli(), "interval", (90 * time.Minute).Milliseconds(),
		"last", time.Now().UnixMilli(), "new", 0, "reason", "nothing new: later")
	code, out, _ = runCLI(t, "jobs", "-config", cfg)
	if code != 0 || !strings.Contains(out, "nothing new: later") || !strings.Contains(out, next.Format("2006-01-02 15:04:05")) {
		t.Fatalf("jobs with a poll schedule:\n%s", out)
	}
}

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

// TestRescoreUngroups: stories stored with news.rank_by: story, then
// `newsrank rescore` with rank_by: article (the default): the story's
// two articles are ranked by themselves again, and the command says so.
func TestRescoreUngroups(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client()
	seedStory(t, c)
	cfg := jobsConfig(t, srv.URL(), "")
	code, out, errs := runCLI(t, "rescore", "-config", cfg)
	if code != 0 || !strings.Contains(out, "rebuilt score: for 2 articles") || !strings.Contains(out, "2 articles of stories") {
		t.Fatalf("rescore: %d\n%s\n%s", code, out, errs)
	}
	if n := newsCount(t, c, "jt:"); n != 2 {
		t.Errorf("after rescore with rank_by article: %d ranked, want 2", n)
	}
}
