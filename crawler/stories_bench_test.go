package crawler

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// BenchmarkCrawlStories is issue 15's "ingest throughput stays >= 0.8 of
// today's" seen from a user's side: the articles a crawl stores per
// second. It crawls a 3,000-article demo site (150 HTML list pages, 16 at
// once, no politeness delays) into a real redis-server with RunOnce, once
// with news.rank_by: article (today's ingest) and once with story, in
// turn (three pairs an iteration, which goes first alternating), and
// reports the median of the pairs' ratios of stories-on to stories-off
// articles per second (target >= 0.8). BenchmarkIngestStories
// in news measures the ingest call alone, where the story work weighs far
// more.
func BenchmarkCrawlStories(b *testing.B) {
	const articles, workers = 3000, 16
	rdb, _, _, opts := demoBench(b, articles, workers)
	ctx := context.Background()
	crawl := func(rankBy string) time.Duration {
		rdb.FlushAll(ctx)
		no := news.DefaultOptions()
		no.RankBy = rankBy
		store, err := news.New(rdb, "b:", no, news.WithLogger(quietLog()))
		if err != nil {
			b.Fatal(err)
		}
		c, err := New(opts, queue.DefaultOptions(), rdb, "b:", store, WithLogger(quietLog()), WithQueueOptions(queue.WithLogger(quietLog())))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		rep, err := c.RunOnce(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if got := rep.Totals().Fetched; got != articles {
			b.Fatalf("rank_by %s: fetched %d of %d articles", rankBy, got, articles)
		}
		return time.Since(start)
	}
	const pairs = 3 // per iteration, so that make bench's -benchtime 1x has a median
	var ratios, offRates, onRates []float64
	for i := range b.N * pairs {
		var off, on time.Duration
		if i%2 == 0 { // alternate which goes first
			off, on = crawl(news.RankByArticle), crawl(news.RankByStory)
		} else {
			on, off = crawl(news.RankByStory), crawl(news.RankByArticle)
		}
		ratios = append(ratios, off.Seconds()/on.Seconds())
		offRates = append(offRates, articles/off.Seconds())
		onRates = append(onRates, articles/on.Seconds())
	}
	b.ReportMetric(medianFloat(offRates), "off-articles/s")
	b.ReportMetric(medianFloat(onRates), "on-articles/s")
	b.ReportMetric(medianFloat(ratios), "ratio")
}

// medianFloat is the median of xs (the upper one of an even count).
func medianFloat(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
