package crawler

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// firstIngest is a Store that records when its first article was stored.
type firstIngest struct {
	Store
	first atomic.Int64 // unix ns
}

func (f *firstIngest) Ingest(ctx context.Context, a news.Article) (news.IngestResult, error) {
	res, err := f.Store.Ingest(ctx, a)
	if err == nil {
		f.first.CompareAndSwap(0, time.Now().UnixNano())
	}
	return res, err
}

// IngestBatch keeps the store's batches (the crawler's ingest group
// uses them when the store has them, as *news.Store does).
func (f *firstIngest) IngestBatch(ctx context.Context, as []news.Article) ([]news.IngestResult, error) {
	res, err := f.Store.(batchStore).IngestBatch(ctx, as)
	if err == nil {
		f.first.CompareAndSwap(0, time.Now().UnixNano())
	}
	return res, err
}

// BenchmarkCrawlPipeline crawls a 3,000-article site (16 at once, no
// politeness delays) with RunOnce into a real redis-server and reports
// the time to the first stored article against the time the producer
// alone takes per list page (its slowest source's list pages read one
// after the other, measured in a produce-only run): the consumers start
// on a list page's articles while the producer reads the next pages, so
// the first article should be stored within two list pages' time
// (first-article-list-pages <= 2). It also reports, in ordering terms, how
// many list pages the site had been asked for when it got its first
// article request (list-requests-before-first-article: the sources' first
// pages, when the walks wait for the first article before their next
// pages, read ahead or not). Each iteration crawls the site five times
// (so that make bench's -benchtime 1x has a median); figures are medians
// of the crawls; -v logs each crawl's. It runs on the demo site's HTML
// lists (site=demo: 150 list pages, next links) and on a site of JSONP
// list APIs whose pages' URLs are known, which walks read ahead
// (site=lists: demosite.Lists, 3 sources of 50 pages).
func BenchmarkCrawlPipeline(b *testing.B) {
	const articles, workers = 3000, 16
	b.Run("site=demo", func(b *testing.B) {
		site := demosite.New(demosite.Options{Articles: articles, Now: time.Now(), Seed: 1})
		var paths []string
		for _, a := range site.Articles() {
			paths = append(paths, a.Path)
		}
		benchPipeline(b, site, paths, func(base string) []demosite.Source { return site.HTMLSources(base) }, articles, workers)
	})
	b.Run("site=lists", func(b *testing.B) {
		site := demosite.NewLists(demosite.ListsOptions{Now: time.Now(), Seed: 1})
		var paths []string
		for _, a := range site.Articles() {
			paths = append(paths, a.Path)
		}
		benchPipeline(b, site, paths, site.Sources, articles, workers)
	})
}

func benchPipeline(b *testing.B, site http.Handler, articlePaths []string, sources func(base string) []demosite.Source, articles, workers int) {
	r := redistest.Start(b)
	rdb := r.Client()
	// firstReq is when the site got its first article request (unix ns):
	// what comes before it is the list page, the push and the claim;
	// lists counts the list pages asked for, listsBefore those asked for
	// by then.
	var firstReq, lists, listsBefore atomic.Int64
	artPaths := map[string]bool{}
	for _, p := range articlePaths {
		artPaths[p] = true
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case artPaths[r.URL.Path]:
			if firstReq.CompareAndSwap(0, time.Now().UnixNano()) {
				listsBefore.Store(lists.Load())
			}
		case r.URL.Path != "/robots.txt":
			lists.Add(1)
		}
		site.ServeHTTP(w, r)
	}))
	defer srv.Close()
	opts := DefaultOptions()
	opts.Workers, opts.PerHostParallelism = workers, workers
	opts.Delay, opts.Jitter = 0, 0
	opts.Sources = demoSources(sources(srv.URL))
	ctx := context.Background()
	newCrawler := func(st Store) *Crawler {
		rdb.FlushAll(ctx)
		c, err := New(opts, queue.DefaultOptions(), rdb, "b:", st, WithLogger(quietLog()), WithQueueOptions(queue.WithLogger(quietLog())))
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	var first, request, total, perList []time.Duration
	var before []float64
	const crawls = 5 // per iteration
	for range b.N * crawls {
		store, err := news.New(rdb, "b:", news.DefaultOptions(), news.WithLogger(quietLog()))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		prep, err := newCrawler(store).Produce(ctx)
		if err != nil {
			b.Fatal(err)
		}
		most := 0
		for _, p := range prep.Sources {
			most = max(most, p.Pages)
		}
		perList = append(perList, time.Since(start)/time.Duration(max(most, 1)))

		st := &firstIngest{Store: store}
		c := newCrawler(st)
		firstReq.Store(0)
		lists.Store(0)
		start = time.Now()
		rep, err := c.RunOnce(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		total = append(total, time.Since(start))
		first = append(first, time.Unix(0, st.first.Load()).Sub(start))
		request = append(request, time.Unix(0, firstReq.Load()).Sub(start))
		before = append(before, float64(listsBefore.Load()))
		b.Logf("iteration %d: first article stored %v, first article request %v (after %d list pages asked for), one list page %v (%.2f list pages), total %v",
			len(first), first[len(first)-1].Round(10*time.Microsecond), request[len(request)-1].Round(10*time.Microsecond),
			listsBefore.Load(), perList[len(perList)-1].Round(10*time.Microsecond),
			float64(first[len(first)-1])/float64(perList[len(perList)-1]), total[len(total)-1].Round(time.Millisecond))
		if got := rep.Totals().Fetched; got != int64(articles) {
			b.Fatalf("fetched %d of %d articles", got, articles)
		}
	}
	f, l := median(first), median(perList)
	b.ReportMetric(float64(f.Microseconds())/1000, "first-article-ms")
	b.ReportMetric(float64(median(request).Microseconds())/1000, "first-request-ms")
	b.ReportMetric(float64(median(total).Microseconds())/1000, "total-ms")
	b.ReportMetric(float64(l.Microseconds())/1000, "list-page-ms")
	b.ReportMetric(float64(f)/float64(l), "first-article-list-pages")
	slices.Sort(before)
	b.ReportMetric(before[len(before)/2], "list-requests-before-first-article")
}

// median is the median of ds (the upper one of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
