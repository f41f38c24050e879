// Command ceiling measures what fetching and parsing alone cost on the
// pages a crawl of the demo site reads, for bench/crawl/run.sh: the
// ceilings newsrank's crawler is compared with.
//
//	ceiling -sources sources.yaml -concurrency 16 -mode fetch
//	ceiling -sources sources.yaml -concurrency 16 -mode parse
//
// It first walks every source of the configuration demoserve wrote
// (-sources-out: HTML sources, or the lists site's jsonp ones), untimed:
// each list page through its next links, or each list API page by its
// offset, collecting the article links robots.txt allows, as newsrank
// does. Then, timed, it gets every one of those pages (list pages and
// articles) with CONCURRENCY requests at once over net/http: -mode fetch
// reads each body and nothing else; -mode parse also parses each page with
// goquery and reads its <title> and first <h1>. It prints one line of
// JSON: pages, elapsed_s, cpu_s (its own user + system CPU during the
// timed part).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/temoto/robotstxt"
	"gopkg.in/yaml.v3"
)

// source is the part of a crawler source the walk needs.
type source struct {
	Kind         string   `yaml:"kind"`
	URLs         []string `yaml:"urls"`
	LinkSelector string   `yaml:"link_selector"`
	NextSelector string   `yaml:"next_selector"`
	MaxPages     int      `yaml:"max_pages"`
	JSON         struct {
		ItemsPath   string `yaml:"items_path"`
		URLTemplate string `yaml:"url_template"`
		Offset      struct {
			Start int `yaml:"start"`
			Step  int `yaml:"step"`
			Limit int `yaml:"limit"`
		} `yaml:"offset"`
	} `yaml:"json"`
}

type result struct {
	Mode     string  `json:"mode"`
	Pages    int     `json:"pages"`
	ElapsedS float64 `json:"elapsed_s"`
	CPUS     float64 `json:"cpu_s"`
	Titles   int     `json:"titles"`
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ceiling:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("ceiling", flag.ContinueOnError)
	srcPath := fs.String("sources", "", "the configuration demoserve -sources-out wrote (HTML sources)")
	conc := fs.Int("concurrency", 16, "requests at once")
	mode := fs.String("mode", "parse", "fetch (bodies read) or parse (and goquery, title and h1 read)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *mode != "fetch" && *mode != "parse" {
		return fmt.Errorf("-mode must be fetch or parse, got %q", *mode)
	}
	srcs, err := readSources(*srcPath)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 15 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: *conc, MaxConnsPerHost: *conc}}
	pages, err := discover(client, srcs)
	if err != nil {
		return err
	}
	cpu0, start := cpuTime(), time.Now()
	titles, err := getAll(context.Background(), client, pages, *conc, *mode == "parse")
	if err != nil {
		return err
	}
	res := result{Mode: *mode, Pages: len(pages), ElapsedS: time.Since(start).Seconds(), CPUS: cpuTime() - cpu0, Titles: titles}
	return json.NewEncoder(os.Stdout).Encode(res)
}

func readSources(path string) ([]source, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Crawler struct {
			Sources []source `yaml:"sources"`
		} `yaml:"crawler"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(cfg.Crawler.Sources) == 0 {
		return nil, fmt.Errorf("%s: no crawler.sources", path)
	}
	return cfg.Crawler.Sources, nil
}

// discover walks every source's list pages and returns them and the
// article pages robots.txt allows, each once.
func discover(client *http.Client, srcs []source) ([]string, error) {
	seen := map[string]bool{}
	var pages []string
	robots := map[string]*robotstxt.RobotsData{}
	for _, s := range srcs {
		if len(s.URLs) == 0 {
			continue
		}
		if s.Kind == "jsonp" {
			found, err := discoverAPI(client, s, seen, robots)
			if err != nil {
				return nil, err
			}
			pages = append(pages, found...)
			continue
		}
		for u, n := s.URLs[0], 0; u != "" && (s.MaxPages <= 0 || n < s.MaxPages); n++ {
			doc, base, err := getDoc(client, u)
			if err != nil {
				return nil, err
			}
			pages = append(pages, u)
			doc.Find(s.LinkSelector).Each(func(_ int, a *goquery.Selection) {
				h, _ := a.Attr("href")
				ref, err := base.Parse(h)
				if err != nil || seen[ref.String()] {
					return
				}
				seen[ref.String()] = true
				if allowed(client, robots, ref) {
					pages = append(pages, ref.String())
				}
			})
			u = ""
			if h, ok := doc.Find(s.NextSelector).First().Attr("href"); ok && h != "" {
				if ref, err := base.Parse(h); err == nil {
					u = ref.String()
				}
			}
		}
	}
	return pages, nil
}

// discoverAPI reads a jsonp source's list API pages, {offset} from start
// by step below limit (at most max_pages), and returns them and the
// article pages their items lead to (url_template's {field}s filled from
// each item), robots.txt allowing.
func discoverAPI(client *http.Client, s source, seen map[string]bool, robots map[string]*robotstxt.RobotsData) ([]string, error) {
	o := s.JSON.Offset
	var pages []string
	for off, n := o.Start, 0; off < o.Limit && (s.MaxPages <= 0 || n < s.MaxPages) && o.Step > 0; off, n = off+o.Step, n+1 {
		u := strings.ReplaceAll(s.URLs[0], "{offset}", strconv.Itoa(off))
		resp, err := client.Get(u)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: HTTP %d %v", u, resp.StatusCode, err)
		}
		// artiList({...}): the JSON between the first ( and the last ).
		i, j := bytes.IndexByte(body, '('), bytes.LastIndexByte(body, ')')
		if i < 0 || j < i {
			return nil, fmt.Errorf("%s: not JSONP", u)
		}
		var doc map[string][]map[string]any
		if err := json.Unmarshal(body[i+1:j], &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", u, err)
		}
		pages = append(pages, u)
		for _, it := range doc[s.JSON.ItemsPath] {
			a := s.JSON.URLTemplate
			for k, v := range it {
				if str, ok := v.(string); ok {
					a = strings.ReplaceAll(a, "{"+k+"}", str)
				}
			}
			ref, err := url.Parse(a)
			if err != nil || seen[a] {
				continue
			}
			seen[a] = true
			if allowed(client, robots, ref) {
				pages = append(pages, a)
			}
		}
	}
	return pages, nil
}

// allowed applies the host's robots.txt (for any agent), fetched once.
func allowed(client *http.Client, cache map[string]*robotstxt.RobotsData, u *url.URL) bool {
	r, ok := cache[u.Host]
	if !ok {
		resp, err := client.Get(u.Scheme + "://" + u.Host + "/robots.txt")
		if err == nil {
			r, _ = robotstxt.FromResponse(resp)
			resp.Body.Close()
		}
		cache[u.Host] = r
	}
	return r == nil || r.TestAgent(u.RequestURI(), "newsrank")
}

func getDoc(client *http.Client, u string) (*goquery.Document, *url.URL, error) {
	resp, err := client.Get(u)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	return doc, resp.Request.URL, err
}

// getAll gets every page, conc at once; parse also parses each page and
// reads its title and first h1. It returns the pages with a title.
func getAll(ctx context.Context, client *http.Client, pages []string, conc int, parse bool) (int, error) {
	work := make(chan string)
	var (
		mu     sync.Mutex
		titles int
		errs   []error
		wg     sync.WaitGroup
	)
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range work {
				ok, err := get(ctx, client, u, parse)
				mu.Lock()
				if ok {
					titles++
				}
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		}()
	}
	for _, u := range pages {
		work <- u
	}
	close(work)
	wg.Wait()
	return titles, errors.Join(errs...)
}

func get(ctx context.Context, client *http.Client, u string, parse bool) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
	}
	if !parse {
		_, err := io.Copy(io.Discard, resp.Body)
		return false, err
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		return false, err
	}
	title := doc.Find("title").First().Text()
	h1 := doc.Find("h1").First().Text()
	return title != "" || h1 != "", nil
}

// cpuTime is the process's user + system CPU seconds so far.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
