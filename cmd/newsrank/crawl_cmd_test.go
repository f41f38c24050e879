package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/redistest"
)

// crawlConfig writes a config with the given sources on a fresh
// redis-server, without politeness delays.
func crawlConfig(t *testing.T, srcs []config.Source) string {
	t.Helper()
	r := redistest.Start(t)
	doc := map[string]any{
		"redis":   map[string]any{"url": r.URL()},
		"log":     map[string]any{"level": "warn"},
		"crawler": map[string]any{"workers": 4, "delay": "0s", "jitter": "0s", "sources": srcs},
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "config.yaml", string(b))
}

func TestCrawlOnceDemoSite(t *testing.T) {
	site := demosite.New(demosite.Options{Articles: 60, Now: time.Now(), Seed: 2})
	srv := httptest.NewServer(site)
	defer srv.Close()
	cfg := crawlConfig(t, config.DemoSources(site.Sources(srv.URL)))

	code, out, errOut := runCLI(t, "crawl", "-once", "-config", cfg, "-progress", "none")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"source", "not modified", "unchanged", "guonei", "news", "total", "article pages/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}

	// Again, as JSON, for one source: nothing new to fetch, and the list
	// API's answer is the same as last time (the site sends no validators).
	code, out, errOut = runCLI(t, "crawl", "-once", "-config", cfg, "-progress", "none", "-json", "-source", "news")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Sources []struct{ Source string } `json:"sources"`
		Total   struct {
			New         int   `json:"urls_new"`
			Fetched     int64 `json:"fetched"`
			NotModified int   `json:"list_pages_not_modified"`
			Unchanged   int   `json:"list_pages_unchanged"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("-json output: %v\n%s", err, out)
	}
	if len(rep.Sources) != 1 || rep.Sources[0].Source != "news" || rep.Total.New != 0 || rep.Total.Fetched != 0 ||
		rep.Total.Unchanged < 1 || rep.Total.NotModified != 0 {
		t.Errorf("second run = %+v", rep)
	}
}

func TestCrawlExitStatus(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	srcs := []config.Source{{Name: "gone", Kind: "rss", URLs: []string{srv.URL + "/rss.xml"}}}
	cfg := crawlConfig(t, srcs)

	code, out, errOut := runCLI(t, "crawl", "-once", "-config", cfg, "-progress", "none")
	if code != exitFailed || !strings.Contains(errOut, "could not be read at all (no list page): gone") {
		t.Errorf("a source whose feed is gone: exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "source gone could not be read: ") {
		t.Errorf("summary does not name the failed source:\n%s", out)
	}

	code, _, errOut = runCLI(t, "crawl", "-once", "-config", cfg, "-source", "nope")
	if code != exitUsage || !strings.Contains(errOut, `-source "nope"`) {
		t.Errorf("unknown source: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "crawl", "-once", "-config", cfg, "-progress", "sometimes")
	if code != exitUsage {
		t.Errorf("bad -progress: exit %d, stderr %q", code, errOut)
	}
	empty := writeFile(t, "empty.yaml", fmt.Sprintf("redis:\n  url: %s\n", "embedded"))
	code, _, errOut = runCLI(t, "crawl", "-once", "-config", empty)
	if code != exitUsage || !strings.Contains(errOut, "crawler.sources is empty") {
		t.Errorf("no sources: exit %d, stderr %q", code, errOut)
	}
}
