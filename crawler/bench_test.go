package crawler

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/crawler/dates"
	"github.com/newsrank/newsrank/crawler/extract"
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
// a naive set-queue crawler as the baseline (naiveCrawl: SADD/SPOP set
// queue, net/http + goquery with the same selectors, HSET + ZADD, no
// robots.txt, no charset decoding, nothing survives a crash). It reports
// both rates and their ratio: what the reliability and politeness cost.
//
// Scrapy is compared by bench/crawl/run.sh (target: newsrank >= 3x
// Scrapy's pages/s); here the target is that the reliable crawler keeps
// at least half the naive one's rate (ratio >= 0.5).
func BenchmarkCrawlDemo(b *testing.B) {
	const articles, workers = 2000, 8
	rdb, srv, srcs, opts := demoBench(b, articles, workers)
	b.Logf("target: newsrank >= 0.5x the naive set-queue crawler's pages/s (and >= 3x Scrapy's in bench/crawl/run.sh)")
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

// naiveCrawl is a set-queue crawler done simply, without leases,
// retries or politeness: the producer SADDs the article URLs of every
// list page to waiting:, consumers SPOP them, fetch and parse the page,
// and HSET/ZADD the article. It returns the pages fetched.
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
		titles[s.Name] = cmp.Or(s.Extract.Title, "title")
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
				sel, _ := extract.SplitSelector(titles[name])
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

// demoBench starts a redis-server and a demo site of the given articles
// for a crawl benchmark, and returns the crawler options for its HTML
// sources with workers fetches at once (per host too) and no politeness
// delays.
func demoBench(b *testing.B, articles, workers int) (*redis.Client, *httptest.Server, []demosite.Source, Options) {
	b.Helper()
	return demoBenchOf(b, demosite.New(demosite.Options{Articles: articles, Now: time.Now(), Seed: 1}), workers)
}

// demoBenchOf is demoBench on site.
func demoBenchOf(b *testing.B, site *demosite.Site, workers int) (*redis.Client, *httptest.Server, []demosite.Source, Options) {
	b.Helper()
	rdb := redistest.Start(b).Client()
	srv := httptest.NewServer(site)
	b.Cleanup(srv.Close)
	srcs := site.HTMLSources(srv.URL)
	opts := DefaultOptions()
	opts.Workers, opts.PerHostParallelism = workers, workers
	opts.Delay, opts.Jitter = 0, 0
	opts.Sources = demoSources(srcs)
	return rdb, srv, srcs, opts
}
