package crawler

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/corpus"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// BenchmarkCrawlStories measures what grouping articles into stories
// costs the ingest, seen from a user's side: the articles a crawl stores
// per second. It crawls a demo site of 3,000 ordinary articles and the
// 393 reports of the labelled coverage set (demosite.AllStories; about
// 170 HTML list pages, 16 at once, no politeness delays) into a real
// redis-server with RunOnce, once with news.rank_by: article (the ingest
// without stories) and once with story, in turn (five pairs an
// iteration, which goes first alternating), and reports the median of
// the pairs' ratios of stories-on to stories-off articles per second
// (target >= 0.8: stories keep at least 0.8 of the throughput).
// BenchmarkIngestStories in news measures the ingest call alone, where
// the story work weighs far more; BenchmarkCrawlStoriesRealPages crawls
// real news pages.
func BenchmarkCrawlStories(b *testing.B) {
	const articles, workers = 3000, 16
	site := demosite.New(demosite.Options{Articles: articles, Stories: demosite.AllStories, Now: time.Now(), Seed: 1})
	rdb, _, _, opts := demoBenchOf(b, site, workers)
	storyPairs(b, rdb, opts, len(site.Articles()))
}

// storyPairs crawls opts' sources into rdb with rank_by article and story
// in turn, five pairs an iteration, checks that each crawl fetched want
// articles, and reports the medians.
func storyPairs(b *testing.B, rdb *redis.Client, opts Options, want int) {
	ctx := context.Background()
	stories := 0 // story keys after a crawl with rank_by story
	crawl := func(rankBy string) time.Duration {
		rdb.FlushAll(ctx)
		no := news.DefaultOptions()
		no.RankBy = rankBy
		no.Window = storyWindow // the coverage set's span and more: all its reports are stored
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
		took := time.Since(start)
		if got := rep.Totals().Fetched; got != int64(want) {
			b.Fatalf("rank_by %s: fetched %d of %d articles", rankBy, got, want)
		}
		if rankBy == news.RankByStory {
			keys, err := rdb.Keys(ctx, "b:{news}:story:*").Result()
			if err != nil {
				b.Fatal(err)
			}
			stories = len(keys)
		}
		return took
	}
	const pairs = 5 // per iteration, so that make bench's -benchtime 1x has a median (of five: the demo crawl's ratio moves by ±0.04 from pair to pair)
	var ratios, offRates, onRates []float64
	for i := range b.N * pairs {
		var off, on time.Duration
		if i%2 == 0 { // alternate which goes first
			off, on = crawl(news.RankByArticle), crawl(news.RankByStory)
		} else {
			on, off = crawl(news.RankByStory), crawl(news.RankByArticle)
		}
		ratios = append(ratios, off.Seconds()/on.Seconds())
		offRates = append(offRates, float64(want)/off.Seconds())
		onRates = append(onRates, float64(want)/on.Seconds())
	}
	b.ReportMetric(medianFloat(offRates), "off-articles/s")
	b.ReportMetric(medianFloat(onRates), "on-articles/s")
	b.ReportMetric(medianFloat(ratios), "ratio")
	b.ReportMetric(float64(stories), "stories")
}

// BenchmarkCrawlStoriesRealPages is BenchmarkCrawlStories on real news
// pages: every third page of go-htmldate's evaluation set (about 340
// pages of hundreds of sites, 150 KB on average, where the demo's are
// 4 KB), each served at two URLs, so that half the articles join a story
// (more than real news has: the story work weighs more, not less). The
// list is an RSS feed carrying each article's title and summary (the
// page's og:title or <title>, its description) and a post time within the
// window, as a news feed does; the pages are fetched and read as any
// article. Reported, the same target.
func BenchmarkCrawlStoriesRealPages(b *testing.B) {
	dir, eval := corpus.HTMLDatePages(b)
	type page struct {
		body           []byte
		title, summary string
	}
	var pages []page
	for i := 0; i < len(eval); i += 3 {
		body := eval[i].Read(dir)
		if body == nil {
			continue
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
		if err != nil {
			continue
		}
		meta := func(sel string) string { return strings.TrimSpace(doc.Find(sel).First().AttrOr("content", "")) }
		title := meta(`meta[property="og:title"]`)
		if title == "" {
			title = strings.TrimSpace(doc.Find("title").First().Text())
		}
		summary := meta(`meta[property="og:description"]`)
		if summary == "" {
			summary = meta(`meta[name="description"]`)
		}
		if title != "" && utf8.ValidString(title+summary) && len(body) < 4<<20 {
			pages = append(pages, page{body, title, summary})
		}
	}
	n := 2 * len(pages)
	now := time.Now()
	var feed bytes.Buffer
	feed.WriteString(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Real pages</title><link>http://127.0.0.1/</link>`)
	for i := range n {
		p := pages[i%len(pages)]
		fmt.Fprintf(&feed, "<item><title>%s</title><link>/a/%d</link><pubDate>%s</pubDate><description>%s</description></item>",
			html.EscapeString(p.title), i, now.Add(-time.Duration(i)*time.Minute).Format(time.RFC1123Z), html.EscapeString(p.summary))
	}
	feed.WriteString(`</channel></rss>`)
	mux := http.NewServeMux()
	mux.HandleFunc("/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		w.Write(feed.Bytes())
	})
	mux.HandleFunc("/a/{i}", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		if err != nil || i < 0 || i >= n {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write(pages[i%len(pages)].body)
	})
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	opts := DefaultOptions()
	opts.Workers, opts.PerHostParallelism = 16, 16
	opts.Delay, opts.Jitter = 0, 0
	opts.Sources = []Source{{Name: "real", Kind: "rss", URLs: []string{srv.URL + "/feed.xml"}}}
	b.Logf("%d real pages, %d articles", len(pages), n)
	storyPairs(b, redistest.Start(b).Client(), opts, n)
}

// medianFloat is the median of xs (the upper one of an even count).
func medianFloat(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
