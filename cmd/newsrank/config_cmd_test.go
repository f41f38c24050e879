package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// threeMistakes is a file of three mistakes: every one must be reported
// in one run.
const threeMistakes = "crawler:\n  workers: \"eight\"\n  delai: 1s\n  request_timeout: 15 seconds\n"

func TestConfigProblemsOnePerLineForEveryCommand(t *testing.T) {
	bad := writeFile(t, "bad.yaml", threeMistakes)
	lines := []string{
		bad + `:2: crawler.workers: must be an integer, got "eight"`,
		bad + `:3: crawler.delai: unknown key, did you mean delay?`,
		bad + `:4: crawler.request_timeout: must be a duration like 15s, 5m, 168h or 7d, got "15 seconds"`,
	}
	for _, args := range [][]string{
		{"config", "check"}, {"daemon"}, {"crawl", "-once"}, {"crawl"}, {"demo"}, {"rescore"}, {"prune"}, {"jobs"}, {"queue", "stats"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, append(args, "-config", bad)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			want := "newsrank " + args[0] + ": invalid configuration (3 problems):\n" + strings.Join(lines, "\n") + "\n"
			if errOut != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want)
			}
			if out != "" {
				t.Errorf("stdout: %q", out)
			}
		})
	}
}

func TestSetOverridesTheFiles(t *testing.T) {
	base := writeFile(t, "base.yaml", "crawler:\n  workers: 3\n  delay: 2s\nweb:\n  listen: 127.0.0.1:9000\n")
	site := writeFile(t, "site.yaml", "crawler:\n  delay: 1s\n  sources:\n    - {name: a, kind: rss, urls: [\"http://example.com/feed\"]}\n")
	code, out, errOut := runCLI(t, "config", "check", "-config", base+","+site, "-set", "crawler.delay=0", "-set", "crawler.sources[0].max_pages=7")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"# effective configuration from " + base + ", " + site + ", -set crawler.delay=0, -set crawler.sources[0].max_pages=7: valid\n",
		"workers: 3\n", "delay: 0s\n", "listen: 127.0.0.1:9000\n", "max_pages: 7\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The same with the flag repeated.
	code, out2, errOut := runCLI(t, "config", "check", "-config", base, "-config", site, "-set", "crawler.delay=0", "-set", "crawler.sources[0].max_pages=7")
	if code != exitOK || out2 != out {
		t.Errorf("repeated -config: exit %d, %s\n%s", code, errOut, out2)
	}
}

func TestSetProblems(t *testing.T) {
	cfg := writeFile(t, "c.yaml", "news:\n  max_page_size: 50\n")
	code, _, errOut := runCLI(t, "crawl", "-once", "-config", cfg, "-set", "crawler.delai=0", "-set", "news.page_size=80", "-set", "crawler.workers=many")
	want := "newsrank crawl: invalid configuration (3 problems):\n" +
		"-set crawler.delai=0: unknown key, did you mean crawler.delay?\n" +
		"-set news.page_size=80: must be <= news.max_page_size (50), got 80\n" +
		"-set crawler.workers=many: must be an integer, got \"many\"\n"
	if code != exitUsage || errOut != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, errOut, want)
	}
	code, _, errOut = runCLI(t, "config", "check", "-set", "crawler.workers")
	if code != exitUsage || !strings.Contains(errOut, `invalid value "crawler.workers" for flag -set: want key=value`) {
		t.Errorf("-set without '=': exit %d, stderr:\n%s", code, errOut)
	}
}

func TestConfigFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	os.WriteFile(a, []byte("crawler:\n  workers: 3\n"), 0o644)
	os.WriteFile(b, []byte("crawler:\n  workers: 4\n"), 0o644)
	t.Setenv("NEWSRANK_CONFIG", a+","+b)
	code, out, errOut := runCLI(t, "config", "check")
	if code != exitOK || !strings.Contains(out, "workers: 4\n") {
		t.Errorf("$NEWSRANK_CONFIG list: exit %d %s\n%s", code, errOut, out)
	}
	// -config replaces $NEWSRANK_CONFIG; -config "" means the defaults.
	code, out, _ = runCLI(t, "config", "check", "-config", a)
	if code != exitOK || !strings.Contains(out, "workers: 3\n") {
		t.Errorf("-config over $NEWSRANK_CONFIG: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "config", "check", "-config", "")
	if code != exitOK || !strings.Contains(out, "from the built-in defaults: valid") || !strings.Contains(out, "workers: 8\n") {
		t.Errorf("-config \"\": exit %d\n%s", code, out)
	}
}

func TestConfigCheck(t *testing.T) {
	t.Setenv("NEWSRANK_TEST_TOKEN", "very-secret-token")
	good := writeFile(t, "good.yaml", "crawler:\n  workers: 3\nweb:\n  tokens: [\"${NEWSRANK_TEST_TOKEN}\"]\n")
	code, out, errOut := runCLI(t, "config", "check", "-config", good)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "workers: 3") {
		t.Errorf("effective config lacks workers: 3:\n%s", out)
	}
	if strings.Contains(out, "very-secret-token") || !strings.Contains(out, "******") {
		t.Errorf("token not masked:\n%s", out)
	}

	bad := writeFile(t, "bad.yaml", "crawler:\n  workers: 0\n")
	code, _, errOut = runCLI(t, "config", "check", "-config", bad)
	if code != exitUsage || !strings.Contains(errOut, "crawler.workers: must be >= 1, got 0") {
		t.Fatalf("bad config: exit %d, stderr:\n%s", code, errOut)
	}

	code, _, errOut = runCLI(t, "config", "check", "-config", filepath.Join(t.TempDir(), "missing.yaml"))
	if code != exitUsage || !strings.Contains(errOut, "missing.yaml") {
		t.Fatalf("missing config: exit %d, stderr:\n%s", code, errOut)
	}
}
