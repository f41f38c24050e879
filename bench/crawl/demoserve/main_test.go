package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

func TestWriteSourcesRoundTrip(t *testing.T) {
	site := demosite.New(demosite.Options{Articles: 300, Now: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)})
	for name, sources := range map[string][]config.Source{
		"all":  config.DemoSources(site.Sources("http://127.0.0.1:8088")),
		"html": config.DemoSources(site.HTMLSources("http://127.0.0.1:8088")),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sources.yaml")
			if err := writeSources(path, "http://127.0.0.1:8088", sources); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(path)
			if err != nil {
				data, _ := os.ReadFile(path)
				t.Fatalf("Load: %v\n%s", err, data)
			}
			// The site is local: a crawl of it must not wait between
			// requests (the recipe in docs/crawling.md finishes in seconds).
			if c := cfg.Crawler; c.Delay != 0 || c.Jitter != 0 || c.PerHostParallelism < c.Workers {
				t.Errorf("crawler delay %s, jitter %s, per host %d: want no politeness wait on the local site", c.Delay, c.Jitter, c.PerHostParallelism)
			}
			got := cfg.Crawler.Sources
			for i := range sources {
				want := sources[i]
				// Empty collections are dropped from the file.
				if len(want.JSON.Fields) == 0 {
					want.JSON.Fields = got[i].JSON.Fields
				}
				if !reflect.DeepEqual(got[i], want) {
					t.Errorf("source %d after the round trip:\n got %+v\nwant %+v", i, got[i], want)
				}
			}
		})
	}
}

func TestBaseURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8088": "http://127.0.0.1:8088",
		"0.0.0.0:80":     "http://127.0.0.1:80",
		"[::]:9000":      "http://127.0.0.1:9000",
		"[::1]:9000":     "http://[::1]:9000",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := baseURL(a); got != want {
			t.Errorf("baseURL(%s) = %s, want %s", addr, got, want)
		}
	}
}

// TestReadmeRecipe runs the recipe for the demo site given in docs/crawling.md: demoserve
// writes sources.yaml, and the real newsrank binary crawls the site with it
// as it is, over a -set redis.url, storing every article.
func TestReadmeRecipe(t *testing.T) {
	const articles = 150
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "sources.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- run(ctx, []string{"-addr", "127.0.0.1:0", "-articles", "150", "-sources-out", cfgPath}, pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("demoserve: %v", err)
		}
	})
	base, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("demoserve printed no URL: %v", err)
	}
	go io.Copy(io.Discard, pr)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not the site's URL", base)
	}

	bin := proctest.Build(t)
	r := redistest.Start(t)
	cmd := exec.Command(bin, "crawl", "-once", "-json", "-progress", "none", "-config", cfgPath, "-set", "redis.url="+r.URL())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("newsrank crawl: %v\n%s", err, stderr.String())
	}
	var rep struct {
		Total struct {
			Stored int64            `json:"stored"`
			TooOld int64            `json:"too_old"`
			Failed map[string]int64 `json:"failed"`
		} `json:"total"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("summary: %v\n%s", err, out)
	}
	tot := rep.Total
	if tot.Stored+tot.TooOld != articles {
		t.Errorf("stored %d + too old %d, want the site's %d articles", tot.Stored, tot.TooOld, articles)
	}
	for reason := range tot.Failed {
		if reason != "robots" {
			t.Errorf("failures %v: want only the private pages robots.txt disallows", tot.Failed)
		}
	}
	store, err := news.New(r.Client(), config.DefaultConfig().Redis.KeyPrefix, news.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	n, err := store.Count(context.Background())
	if err != nil || n != tot.Stored {
		t.Errorf("time: holds %d articles (%v), want the %d stored", n, err, tot.Stored)
	}
}
