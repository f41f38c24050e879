package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeConfig(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func problemLines(t *testing.T, err error) []string {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want an *Error", err)
	}
	out := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p.String()
	}
	return out
}

func TestLoadMergesFilesInOrder(t *testing.T) {
	a := writeConfig(t, "a.yaml", `
crawler:
  workers: 3
  delay: 2s
  sources:
    - {name: a, kind: rss, urls: ["http://example.com/a"]}
    - {name: b, kind: rss, urls: ["http://example.com/b"]}
board:
  weights:
    visit: 5
`)
	b := writeConfig(t, "b.yaml", `
crawler:
  workers: 5
  sources:
    - {name: c, kind: atom, urls: ["http://example.com/c"]}
board:
  weights:
    like: 7
`)
	cfg, err := Load(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Crawler.Workers != 5 || cfg.Crawler.Delay.D() != 2*time.Second {
		t.Errorf("workers %d delay %s: want b's workers and a's delay", cfg.Crawler.Workers, cfg.Crawler.Delay)
	}
	if len(cfg.Crawler.Sources) != 1 || cfg.Crawler.Sources[0].Name != "c" {
		t.Errorf("sources = %+v, want b's list only (a list replaces a list)", cfg.Crawler.Sources)
	}
	w := cfg.Board.Weights
	if w["visit"] != 5 || w["like"] != 7 || w["comment"] != 3 {
		t.Errorf("weights = %v, want a's visit, b's like and the default comment", w)
	}
}

func TestProblemsOfSeveralFilesNameTheirFile(t *testing.T) {
	a := writeConfig(t, "a.yaml", "crawler:\n  workers: 0\n  delay: 1s\nnews:\n  page_size: 500\n")
	b := writeConfig(t, "b.yaml", "crawler:\n  delay: -1s\n  wrokers: 2\n")
	_, err := LoadWith([]string{a, b}, []Override{{Flag: "-set news.max_page_size=50", Path: "news.max_page_size", Value: "50"}})
	got := strings.Join(problemLines(t, err), "\n")
	want := strings.Join([]string{
		a + ":2: crawler.workers: must be >= 1, got 0",
		a + ":5: news.page_size: must be <= news.max_page_size (50), got 500",
		b + ":2: crawler.delay: must be >= 0s, got -1s",
		b + ":3: crawler.wrokers: unknown key, did you mean workers?",
	}, "\n")
	if got != want {
		t.Errorf("problems:\n%s\nwant:\n%s", got, want)
	}
}

func TestLaterListForgetsTheLinesOfTheEarlier(t *testing.T) {
	a := writeConfig(t, "a.yaml", "crawler:\n  sources:\n    - {name: a, kind: rss, urls: [\"http://x/a\"]}\n    - {name: b, kind: rss, urls: [\"http://x/b\"]}\n")
	b := writeConfig(t, "b.yaml", "crawler:\n  sources:\n    - name: c\n      kind: html\n      urls: [\"http://x/c\"]\n")
	_, err := Load(a, b)
	got := problemLines(t, err)
	want := b + ":3: crawler.sources[0].link_selector: is required"
	if len(got) != 1 || got[0] != want {
		t.Errorf("problems %q, want [%q]", got, want)
	}
}

func TestOverridesSetEveryKindOfKey(t *testing.T) {
	file := writeConfig(t, "c.yaml", "crawler:\n  sources:\n    - {name: a, kind: rss, urls: [\"http://x/a\"]}\n")
	t.Setenv("NEWSRANK_TEST_HOST", "db.internal")
	var sets []Override
	for _, kv := range []string{
		"crawler.delay=0",
		"crawler.jitter=0s",
		"crawler.workers=16",
		"crawler.obey_robots=false",
		"crawler.max_body_size=1MiB",
		"news.vote_weight=100.5",
		"redis.url=redis://${NEWSRANK_TEST_HOST}:6380/2",
		"crawler.user_agent=Mozilla/5.0 (X11; Linux): test",
		"crawler.sources[0].max_pages=3",
		"crawler.sources[0].urls=[http://x/1, http://x/2]",
		"board.weights.visit=4",
		"web.tokens=[abcdefgh]",
		"log.format=json",
	} {
		o, err := ParseOverride(kv)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, o)
	}
	cfg, err := LoadWith([]string{file}, sets)
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Crawler
	switch {
	case c.Delay != 0 || c.Jitter != 0 || c.Workers != 16 || c.ObeyRobots || c.MaxBodySize != 1<<20:
		t.Errorf("crawler = %+v", c)
	case cfg.News.VoteWeight != 100.5:
		t.Errorf("vote_weight = %g", cfg.News.VoteWeight)
	case cfg.Redis.URL != "redis://db.internal:6380/2":
		t.Errorf("redis.url = %q, want ${ENV} expanded", cfg.Redis.URL)
	case c.UserAgent != "Mozilla/5.0 (X11; Linux): test":
		t.Errorf("user_agent = %q, want the value as is", c.UserAgent)
	case c.Sources[0].MaxPages != 3 || strings.Join(c.Sources[0].URLs, " ") != "http://x/1 http://x/2":
		t.Errorf("source = %+v", c.Sources[0])
	case cfg.Board.Weights["visit"] != 4 || cfg.Board.Weights["like"] != 2:
		t.Errorf("weights = %v", cfg.Board.Weights)
	case len(cfg.Web.Tokens) != 1 || cfg.Log.Format != "json":
		t.Errorf("tokens %v, log %+v", cfg.Web.Tokens, cfg.Log)
	}
}

func TestParseOverride(t *testing.T) {
	for _, bad := range []string{"crawler.delay", "=3", "  =x"} {
		if _, err := ParseOverride(bad); err == nil {
			t.Errorf("ParseOverride(%q) accepted", bad)
		}
	}
	o, err := ParseOverride("redis.url=redis://u:p@h:1/0?a=b")
	if err != nil || o.Path != "redis.url" || o.Value != "redis://u:p@h:1/0?a=b" {
		t.Errorf("ParseOverride: %+v, %v", o, err)
	}
	for _, kv := range []string{"redis.password=S3cret", "web.cookie_secret=S3cret", "redis.pasword=S3cret", "web.tokens=[S3cret]"} {
		o, err := ParseOverride(kv)
		if err != nil || strings.Contains(o.Flag, "S3cret") {
			t.Errorf("ParseOverride(%q).Flag = %q: shows the secret", kv, o.Flag)
		}
	}
	for _, p := range []string{"a..b", "a[", "a[x]", "[0]", "a.", "a[0]b"} {
		if _, err := splitPath(p); err == nil {
			t.Errorf("splitPath(%q) accepted", p)
		}
	}
}

func TestLoadReportsEveryUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want not-exist", err)
	}
	got := problemLines(t, err)
	if len(got) != 2 || !strings.HasSuffix(got[1], "b.yaml: cannot read the file: no such file or directory") {
		t.Errorf("problems %q", got)
	}
}

func TestProblemsNeverShowUserinfo(t *testing.T) {
	_, err := parse(strings.NewReader(`
redis:
  url: "redis://alice:S3cret@127.0.0.1:notaport/0"
  db: "redis://alice:S3cret@h/0"
  password: [S3cret]
crawler:
  sources:
    - name: s
      kind: rss
      urls: ["ftp://alice:S3cret@example.com/feed", "http://alice:Zq9/xK7@%zz/"]
      allowed_domains: ["alice:S3cret@example.com"]
`), noEnv)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, s := range []string{"alice", "S3cret", "Zq9", "xK7"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("%q shown in:\n%s", s, err)
		}
	}
}

func TestRedactedScrubsEveryURL(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Crawler.Sources = []Source{{Name: "s", Kind: "rss", URLs: []string{"https://alice:S3cret@example.com/feed"},
		JSON: JSONList{Fields: map[string]string{"url": "x"}}}}
	out, err := cfg.Redacted().YAML()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "S3cret") || strings.Contains(string(out), "alice") {
		t.Errorf("rendered config shows the userinfo:\n%s", out)
	}
	if cfg.Crawler.Sources[0].URLs[0] != "https://alice:S3cret@example.com/feed" {
		t.Errorf("Redacted changed the original")
	}
}

func TestAliasesCannotLoopOrExplode(t *testing.T) {
	var doubling strings.Builder
	doubling.WriteString("x: [&x0 {workers: 1}")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&doubling, ", &x%d {<<: [*x%d, *x%d]}", i, i-1, i-1)
	}
	doubling.WriteString("]\ncrawler:\n  <<: *x40\n")
	for name, tc := range map[string]struct{ in, want string }{
		"self merge":     {"crawler: &a\n  <<: *a\n  workers: 2\n", "line 2: crawler: the alias *a refers to a value that contains it"},
		"merge doubling": {doubling.String(), "crawler: the YAML aliases expand to more than 100000 values"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parse(strings.NewReader(tc.in), noEnv)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestTwoKeyRulesBlameTheKeyChanged(t *testing.T) {
	// A file copied from config.yaml sets every key; the one changed is
	// at fault.
	shipped, err := os.ReadFile("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to, want string }{
		{"  max_page_size: 100\n", "  max_page_size: 10\n", "news.max_page_size: must be >= news.page_size (25), got 10"},
		{"  page_size: 25\n", "  page_size: 500\n", "news.page_size: must be <= news.max_page_size (100), got 500"},
		{"  retry_max: 1h\n", "  retry_max: 1s\n", "queue.retry_max: must be >= queue.retry_base (10s), got 1s"},
		{"  cluster:\n    addrs: []\n", "  cluster:\n    addrs: [\"127.0.0.1:7000\"]\n",
			`redis.cluster: set only one of redis.url, redis.sentinel and redis.cluster, got url and cluster (redis.url is "embedded" by default: set it to "")`},
	} {
		if !strings.Contains(string(shipped), tc.from) {
			t.Fatalf("config.yaml lacks %q", tc.from)
		}
		in := strings.Replace(string(shipped), tc.from, tc.to, 1)
		_, err := parse(strings.NewReader(in), noEnv)
		got := problemLines(t, err)
		if len(got) != 1 || !strings.HasSuffix(got[0], ": "+tc.want) {
			t.Errorf("%s: problems %q, want %q", strings.TrimSpace(tc.to), got, tc.want)
		}
	}
}

// TestLoadOverKeepsWhatTheUserSet: a command's own defaults (LoadOver)
// hold where the files and -set give nothing, and yield to them where they
// give a value.
func TestLoadOverKeepsWhatTheUserSet(t *testing.T) {
	defaults := func() Config {
		c := DefaultConfig()
		c.Jobs.Crawl.Schedule = "@every 15m"
		c.Jobs.Rescore.Schedule = "@every 1m"
		c.Jobs.Prune.Schedule = "@every 1h"
		return c
	}
	file := writeConfig(t, "jobs.yaml", "jobs:\n  prune:\n    schedule: \"0 3 * * *\"\n    enabled: false\n")
	cfg, err := LoadOver(defaults, []string{file},
		[]Override{{Flag: "-set jobs.rescore.schedule=@every 10s", Path: "jobs.rescore.schedule", Value: "@every 10s"}})
	if err != nil {
		t.Fatal(err)
	}
	j := cfg.Jobs
	if j.Crawl.Schedule != "@every 15m" || j.Rescore.Schedule != "@every 10s" || j.Prune.Schedule != "0 3 * * *" || j.Prune.Enabled {
		t.Errorf("crawl %q, rescore %q, prune %q enabled %t; want the command's crawl, -set's rescore and the file's prune, disabled",
			j.Crawl.Schedule, j.Rescore.Schedule, j.Prune.Schedule, j.Prune.Enabled)
	}
	if def := DefaultConfig().Jobs.Archive; j.Archive != def {
		t.Errorf("archive = %+v, want the built-in default %+v", j.Archive, def)
	}

	// A file that repeats a command's default has not changed that key:
	// a rule comparing two keys blames the other one, which the user
	// changed.
	same := writeConfig(t, "news.yaml", "news:\n  page_size: 30\n")
	_, err = LoadOver(func() Config { c := defaults(); c.News.PageSize = 30; return c }, []string{same},
		[]Override{{Flag: "-set news.max_page_size=20", Path: "news.max_page_size", Value: "20"}})
	got := strings.Join(problemLines(t, err), "\n")
	if want := "-set news.max_page_size=20: must be >= news.page_size (30), got 20"; got != want {
		t.Errorf("problems:\n%s\nwant:\n%s", got, want)
	}
}

// FuzzParseConfig feeds arbitrary YAML to the loader: it must never panic,
// and whatever it accepts must be valid and survive a render/parse round
// trip unchanged.
func FuzzParseConfig(f *testing.F) {
	if shipped, err := os.ReadFile("../config.yaml"); err == nil {
		f.Add(string(shipped))
	}
	f.Add("crawler:\n  workers: 0\n")
	f.Add("queue:\n  lease: 7d\n  done_retention: 90s\n")
	f.Add("redis:\n  url: redis://u:p@h:1/2\n")
	f.Add("web:\n  tokens: [\"${X:-abcdefgh}\"]\n")
	f.Add("crawler:\n  sources:\n    - {name: a, kind: jsonp, urls: [\"http://x/{offset}\"], json: {url_template: \"http://x/{id}\", offset: {step: 10, limit: 100}}}\n")
	f.Fuzz(func(t *testing.T, in string) {
		timer := time.AfterFunc(30*time.Second, func() { panic(fmt.Sprintf("SLOW INPUT %q", in)) })
		defer timer.Stop()
		cfg, err := parse(strings.NewReader(in), noEnv)
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("accepted config fails Validate: %v", err)
		}
		out, err := cfg.YAML()
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		again, err := parse(strings.NewReader(string(out)), noEnv)
		if err != nil {
			t.Fatalf("rendered config does not parse back: %v\n%s", err, out)
		}
		out2, _ := again.YAML()
		if string(out) != string(out2) {
			t.Fatalf("round trip changed the config:\n%s\n---\n%s", out, out2)
		}
	})
}

func TestShippedConfigLoadsAndValidates(t *testing.T) {
	cfg, err := Load("../config.yaml")
	if err != nil {
		t.Fatalf("shipped config.yaml: %v", err)
	}
	if cfg.Redis.URL != Embedded {
		t.Errorf("shipped config redis.url = %q, want %q (the zero-setup default)", cfg.Redis.URL, Embedded)
	}
	// The shipped file documents the defaults: it must not silently differ.
	got, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	want, err := DefaultConfig().YAML()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("config.yaml does not show the defaults of DefaultConfig():\n--- config.yaml\n%s\n--- DefaultConfig\n%s", got, want)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("does-not-exist.yaml")
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want not-exist", err)
	}
}
