// Command demoserve serves the demo news site (package demosite) on an
// address, for the crawl benchmark and for trying crawlers by hand.
//
//	go run ./bench/crawl/demoserve -addr 127.0.0.1:8088 -articles 2000 \
//	    -sources-out /tmp/sources.yaml -truth-out /tmp/truth.json
//	newsrank crawl -once -config /tmp/sources.yaml
//
// It prints the site's base URL on the first line of stdout once it is
// listening (useful with -addr 127.0.0.1:0), and stops on SIGINT or SIGTERM.
// -sources-out writes a whole newsrank configuration to crawl the site at
// that URL: its crawler sources (-sources all: each section's own way in;
// html: every section's HTML list pages, like the Scrapy spider) and no
// politeness delay (the site is local), every other key at its default.
// -truth-out writes the ground truth (every public article) as JSON.
//
// -site lists serves another site instead: one shaped like NetEase's JSONP
// list APIs (demosite.Lists), -channels channels of offset-paginated list
// pages of 20 items, -articles articles in all, and a small page per
// article; -sources-out then writes its jsonp sources (-sources is not
// used).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/demosite"
	"gopkg.in/yaml.v3"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "demoserve:", err)
		os.Exit(1)
	}
}

// run serves the site until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demoserve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8088", "listen address (port 0 picks a free port)")
	articles := fs.Int("articles", 2000, "number of articles on the site")
	seed := fs.Int64("seed", 1, "content seed")
	nowFlag := fs.String("now", "", "anchor of the post times, RFC 3339 (default: the current time)")
	delay := fs.Duration("delay", 0, "delay added to every response")
	sourcesOut := fs.String("sources-out", "", "write a newsrank configuration that crawls the site (its sources, no politeness delay) to this file")
	sourcesKind := fs.String("sources", "all", "which sources -sources-out writes: all or html")
	truthOut := fs.String("truth-out", "", "write the ground truth (public articles, JSON) to this file")
	siteKind := fs.String("site", "demo", "which site: demo (the demo news site) or lists (JSONP list APIs, small articles)")
	channels := fs.Int("channels", 3, "-site lists: the channels (list APIs)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *siteKind != "demo" && *siteKind != "lists" {
		return fmt.Errorf("-site must be demo or lists, got %q", *siteKind)
	}
	if *channels < 1 {
		return fmt.Errorf("-channels must be >= 1, got %d", *channels)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *sourcesKind != "all" && *sourcesKind != "html" {
		return fmt.Errorf("-sources must be all or html, got %q", *sourcesKind)
	}
	if *articles < 1 {
		return fmt.Errorf("-articles must be >= 1, got %d", *articles)
	}
	var now time.Time
	if *nowFlag != "" {
		var err error
		if now, err = time.Parse(time.RFC3339, *nowFlag); err != nil {
			return fmt.Errorf("-now: %w", err)
		}
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	base := baseURL(ln.Addr().(*net.TCPAddr))
	var handler http.Handler
	if *siteKind == "lists" {
		if now.IsZero() {
			now = time.Now().Truncate(time.Second)
		}
		pages := max(1, *articles / *channels / 20)
		lists := demosite.NewLists(demosite.ListsOptions{Channels: *channels, Pages: pages, Now: now, Seed: *seed})
		handler, err = lists, writeListsFiles(lists, base, *sourcesOut, *truthOut)
		*articles = *channels * pages * 20
	} else {
		site := demosite.New(demosite.Options{Articles: *articles, Now: now, Seed: *seed, Delay: *delay})
		handler, err = site, writeFiles(site, base, *sourcesOut, *sourcesKind, *truthOut)
		now = site.Now()
	}
	if err != nil {
		ln.Close()
		return err
	}

	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintln(stdout, base)
	fmt.Fprintf(stderr, "demoserve: %s site, %d articles on %s (now %s, seed %d)\n",
		*siteKind, *articles, base, now.Format(time.RFC3339), *seed)
	return serveUntil(ctx, srv, errc)
}

// serveUntil waits for srv, serving with its result on errc, to fail or
// for ctx to end, then shuts it down within 5 seconds.
func serveUntil(ctx context.Context, srv *http.Server, errc <-chan error) error {
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// writeFiles writes the -sources-out configuration (sources of kind all
// or html) and the -truth-out ground truth, each when its path is set.
func writeFiles(site *demosite.Site, base, sourcesOut, kind, truthOut string) error {
	if sourcesOut != "" {
		sources := site.Sources(base)
		if kind == "html" {
			sources = site.HTMLSources(base)
		}
		if err := writeSources(sourcesOut, base, config.DemoSources(sources)); err != nil {
			return err
		}
	}
	if truthOut != "" {
		data, err := json.MarshalIndent(site.Articles(), "", "  ")
		if err == nil {
			err = os.WriteFile(truthOut, data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("write ground truth: %w", err)
		}
	}
	return nil
}

// writeListsFiles is writeFiles for the lists site: its jsonp sources.
func writeListsFiles(site *demosite.Lists, base, sourcesOut, truthOut string) error {
	if sourcesOut != "" {
		if err := writeSources(sourcesOut, base, config.DemoSources(site.Sources(base))); err != nil {
			return err
		}
	}
	if truthOut != "" {
		data, err := json.MarshalIndent(site.Articles(), "", "  ")
		if err == nil {
			err = os.WriteFile(truthOut, data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("write ground truth: %w", err)
		}
	}
	return nil
}

// baseURL is the URL crawlers should use: an unspecified listen host
// (":8088", "0.0.0.0:8088") becomes 127.0.0.1.
func baseURL(a *net.TCPAddr) string {
	host := a.IP.String()
	if a.IP == nil || a.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(a.Port))
}

// siteConfig is what -sources-out writes: the crawler settings for a
// local site made to be crawled, and its sources. Keys left out keep their
// defaults.
type siteConfig struct {
	Crawler struct {
		PerHostParallelism int             `yaml:"per_host_parallelism"`
		Delay              config.Duration `yaml:"delay"`
		Jitter             config.Duration `yaml:"jitter"`
		Sources            []config.Source `yaml:"sources"`
	} `yaml:"crawler"`
}

const configHeader = `# A newsrank configuration to crawl the demo news site served at %[1]s
# by bench/crawl/demoserve. Every key not set here keeps its default
# (config.yaml), redis.url too: the embedded, in-memory Redis.
#
#   newsrank crawl -once -config %[2]s
#   newsrank crawl -once -config %[2]s -set redis.url=redis://127.0.0.1:6379/0
#   newsrank daemon -config config.yaml,%[2]s    (your file first, this one over it)
#
# The site is local and made to be crawled: no delay between requests.
`

// writeSources writes a whole newsrank configuration that crawls the
// site at base with these sources, after checking that newsrank loads it
// as it is.
func writeSources(path, base string, sources []config.Source) error {
	var sc siteConfig
	sc.Crawler.PerHostParallelism = 8
	sc.Crawler.Sources = sources
	var doc yaml.Node
	if err := doc.Encode(sc); err != nil {
		return fmt.Errorf("marshal sources: %w", err)
	}
	dropEmpty(&doc)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, configHeader, base, filepath.Base(path))
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("marshal sources: %w", err)
	}
	if _, err := config.ParseConfig(bytes.NewReader(buf.Bytes())); err != nil {
		return fmt.Errorf("the demo site's configuration does not load: %w", err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write sources: %w", err)
	}
	return nil
}

// dropEmpty removes mapping keys whose values are empty strings, zeros or
// empty collections (the config defaults), so the fragment reads like a
// hand-written config.yaml. It reports whether n itself is empty.
func dropEmpty(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			dropEmpty(c)
		}
		return false
	case yaml.MappingNode:
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !dropEmpty(n.Content[i+1]) {
				kept = append(kept, n.Content[i], n.Content[i+1])
			}
		}
		n.Content = kept
		return len(kept) == 0
	case yaml.SequenceNode:
		for _, c := range n.Content {
			dropEmpty(c)
		}
		return len(n.Content) == 0
	case yaml.ScalarNode:
		return n.Value == "" || (n.Tag == "!!int" && n.Value == "0")
	}
	return false
}
