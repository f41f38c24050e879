package crawler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/crawler/dates"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// BenchmarkCrawlDemo crawls a 2,000-article demo site (its HTML list pages
// and every article, 8 at once, no politeness delays) into a real
// redis-server twice per iteration: with newsrank's crawler (reliable
// queue with leases and retries, robots.txt, per-host limits, extraction
// with fallbacks and charsets, the news store's ingest script), and with
// the seed-004 design done simply as the baseline (SADD/SPOP set queue,
// net/http + goquery with the same selectors, HSET + ZADD, no robots.txt,
// no charset decoding, nothing survives a crash). It reports both rates
// and their ratio: what the reliability and politeness cost.
//
// Scrapy, the baseline, is compared by bench/crawl/run.sh
// (target: newsrank >= 3x Scrapy's pages/s); here the target is that the
// reliable crawler keeps at least half the naive one's rate (ratio >= 0.5).
func BenchmarkCrawlDemo(b *testing.B) {
	const articles, workers = 2000, 8
	rdb, srv, srcs, opts := demoBench(b, articles, workers)
	b.Logf("target: newsrank >= 0.5x the naive seed-004 crawler's pages/s (and >= 3x Scrapy's in bench/crawl/run.sh)")
	var ourRate, naiveRate float64
	for range b.N {
		ctx := context.Background()
		rdb.FlushAll(ctx)
		store, err := news.New(rdb, "b:", news.DefaultOptions(), news.WithLogger(quietLog()))
		if err != nil {
			b.Fatal(err)
		}
		c, err := New(opts, queue.DefaultOptions(), rdb, "b:", store, WithLogger(quietLog()), WithQueueOptions(queue.WithLogger(quietLog())))
		if err != nil {
			b.Fatal(err)
		}
		pd, lib := dates.HTMLDateRuns(), dates.DateParserCalls()
		start := time.Now()
		rep, err := c.RunOnce(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		tot := rep.Totals()
		var listPages int
		for _, p := range rep.Produce.Sources {
			listPages += p.Pages
		}
		if tot.Fetched != articles {
			b.Fatalf("newsrank fetched %d of %d articles", tot.Fetched, articles)
		}
		ourRate = float64(listPages+int(tot.Fetched)) / time.Since(start).Seconds()
		// The costly date fallbacks must not run on the demo's pages.
		b.ReportMetric(float64(dates.HTMLDateRuns()-pd), "htmldate-calls")
		b.ReportMetric(float64(dates.DateParserCalls()-lib), "dateparser-calls")

		rdb.FlushAll(ctx)
		start = time.Now()
		pages := naiveCrawl(b, rdb, srv.URL, srcs, workers)
		naiveRate = float64(pages) / time.Since(start).Seconds()
	}
	b.ReportMetric(ourRate, "newsrank-pages/s")
	b.ReportMetric(naiveRate, "naive-pages/s")
	b.ReportMetric(ourRate/naiveRate, "ratio")
}

// naiveCrawl is the seed-004 crawler done simply: the producer SADDs the
// article URLs of every list page to waiting:, consumers SPOP them, fetch
// and parse the page, and HSET/ZADD the article. It returns the pages
// fetched.
func naiveCrawl(b *testing.B, rdb *redis.Client, origin string, srcs []demosite.Source, workers int) int {
	ctx := context.Background()
	client := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	get := func(u string) (*goquery.Document, error) {
		resp, err := client.Get(u)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			io.Copy(io.Discard, resp.Body)
			return nil, fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
		}
		return goquery.NewDocumentFromReader(resp.Body)
	}
	pages := 0
	titles := map[string]string{}
	for _, s := range srcs {
		titles[s.Name] = firstNonEmpty(s.Extract.Title, "title")
		for u := s.URLs[0]; u != ""; {
			doc, err := get(u)
			if err != nil {
				b.Fatal(err)
			}
			pages++
			var urls []any
			doc.Find(s.LinkSelector).Each(func(_ int, a *goquery.Selection) {
				// The demo site's links are absolute paths. The naive crawler
				// has no robots.txt: it skips the private pages by hand.
				if h, _ := a.Attr("href"); !strings.HasPrefix(h, "/private/") {
					urls = append(urls, s.Name+" "+origin+h)
				}
			})
			if len(urls) > 0 {
				rdb.SAdd(ctx, "naive:waiting:", urls...)
			}
			u = ""
			if next, _ := doc.Find(s.NextSelector).First().Attr("href"); next != "" {
				u = origin + next
			}
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				m, err := rdb.SPop(ctx, "naive:waiting:").Result()
				if err == redis.Nil {
					return
				}
				if err != nil {
					b.Error(err)
					return
				}
				name, u, _ := strings.Cut(m, " ")
				doc, err := get(u)
				if err != nil {
					b.Error(err)
					continue
				}
				sel, _ := SplitSelector(titles[name])
				title := strings.TrimSpace(doc.Find(sel).First().Text())
				id := news.ID(u)
				rdb.HSet(ctx, "naive:news:"+id, "title", title, "url", u)
				rdb.ZAdd(ctx, "naive:time:", redis.Z{Score: float64(time.Now().Unix()), Member: id})
				mu.Lock()
				pages++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return pages
}

// BenchmarkExtract measures Extract against the least any extractor
// does: parse the HTML with goquery and read <title>. Extract also decodes
// charsets and tries the selectors and every fallback. Pages are split by
// the path their post time takes:
//
//   - dated: the page carries its date where the cheap rules read it (a
//     selector, JSON-LD, <meta>, <time>), as article pages do. Target: at
//     least 0.3x the bare parse's pages/s.
//   - dateless: nothing there, so the page's text and go-htmldate are read
//     (the crawler takes this path only when the list item had no time
//     either). Reported, no target: ms/page and go-htmldate calls/page.
//
// Each runs on the testdata fixtures (small pages, served and configured
// as TestExtractFixtures reads them) and on every tenth page of
// htmldate's evaluation set (real pages from hundreds of sites, as a new
// source without selectors reads them).
func BenchmarkExtract(b *testing.B) {
	var fixtures, real []benchPage
	for _, f := range extractFixtures {
		body, err := os.ReadFile(filepath.Join("testdata", "extract", f.file))
		if err != nil {
			b.Fatal(err)
		}
		f.src.Name = "bench"
		rules, err := NewRules(f.src)
		if err != nil {
			b.Fatal(err)
		}
		fixtures = append(fixtures, benchPage{body, f.contentType, f.pageURL, rules, f.item})
	}
	rules, err := NewRules(Source{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	dir, pages := htmldateEvalSet(b)
	for i := 0; i < len(pages); i += 10 {
		if body := pages[i].read(dir); body != nil {
			real = append(real, benchPage{body, "", pages[i].url, rules, Fields{}})
		}
	}
	for _, set := range []struct {
		name  string
		pages []benchPage
	}{{"fixtures", fixtures}, {"real", real}} {
		dated, dateless := splitByDatePath(b, set.pages)
		b.Run(set.name+"/dated", func(b *testing.B) {
			b.Logf("%d pages; target: Extract >= 0.3x a bare goquery parse's pages/s", len(dated))
			ours, bare, calls := benchExtract(b, dated)
			b.ReportMetric(ours, "extract-pages/s")
			b.ReportMetric(bare, "goquery-pages/s")
			b.ReportMetric(ours/bare, "ratio")
			b.ReportMetric(calls, "htmldate-calls/page")
		})
		b.Run(set.name+"/dateless", func(b *testing.B) {
			b.Logf("%d pages; reported, no target", len(dateless))
			ours, bare, calls := benchExtract(b, dateless)
			b.ReportMetric(1000/ours, "extract-ms/page")
			b.ReportMetric(1000/bare, "goquery-ms/page")
			b.ReportMetric(calls, "htmldate-calls/page")
		})
	}
}

// benchPage is a page and how it is fetched and read.
type benchPage struct {
	body             []byte
	contentType, url string
	rules            *Rules
	item             Fields
}

func (p benchPage) extract(b *testing.B) {
	if _, err := Extract(p.body, p.contentType, p.url, p.rules, testNow, p.item); err != nil {
		b.Fatal(err)
	}
}

// splitByDatePath sorts pages by whether Extract reads go-htmldate on
// them.
func splitByDatePath(b *testing.B, pages []benchPage) (dated, dateless []benchPage) {
	for _, p := range pages {
		before := dates.HTMLDateRuns()
		p.extract(b)
		if dates.HTMLDateRuns() == before {
			dated = append(dated, p)
		} else {
			dateless = append(dateless, p)
		}
	}
	return dated, dateless
}

// benchExtract runs Extract and the bare parse over the pages b.N times
// and returns their pages/s and go-htmldate's calls per page.
func benchExtract(b *testing.B, pages []benchPage) (ours, bare, calls float64) {
	var tOurs, tBare time.Duration
	before := dates.HTMLDateRuns()
	for range b.N {
		start := time.Now()
		for _, p := range pages {
			p.extract(b)
		}
		tOurs += time.Since(start)
		start = time.Now()
		for _, p := range pages {
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(p.body)))
			if err != nil {
				b.Fatal(err)
			}
			_ = doc.Find("title").Text()
		}
		tBare += time.Since(start)
	}
	n := float64(b.N * len(pages))
	return n / tOurs.Seconds(), n / tBare.Seconds(), float64(dates.HTMLDateRuns()-before) / n
}

// demoBench starts a redis-server and a demo site of the given articles
// for a crawl benchmark, and returns the crawler options for its HTML
// sources with workers fetches at once (per host too) and no politeness
// delays.
func demoBench(b *testing.B, articles, workers int) (*redis.Client, *httptest.Server, []demosite.Source, Options) {
	b.Helper()
	rdb := redistest.Start(b).Client()
	site := demosite.New(demosite.Options{Articles: articles, Now: time.Now(), Seed: 1})
	srv := httptest.NewServer(site)
	b.Cleanup(srv.Close)
	srcs := site.HTMLSources(srv.URL)
	opts := DefaultOptions()
	opts.Workers, opts.PerHostParallelism = workers, workers
	opts.Delay, opts.Jitter = 0, 0
	opts.Sources = demoSources(srcs)
	return rdb, srv, srcs, opts
}
