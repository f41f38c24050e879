package news_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/coverage"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

// regroupEvery is how often the regroup job runs in the measurement:
// every 6 hours (its default schedule runs it hourly; fewer runs keep
// the benchmark short).
const regroupEvery = 6 * time.Hour

// groupAndRegroup ingests the articles of s into a fresh store ranking
// by story on c, in publication order with the store's clock at each
// article's publication (as groupCoverage does), and runs Store.Regroup
// with its default options whenever the clock passes a multiple of
// regroupEvery, and once more after the last article. It returns each
// article's story at the end and the runs' results.
func groupAndRegroup(tb testing.TB, c *redistest.Server, prefix string, s *coverage.Set) ([]string, []news.RegroupResult) {
	tb.Helper()
	ctx := context.Background()
	o := news.DefaultOptions()
	o.RankBy = news.RankByStory
	clk := clock.NewFake(s.Articles[0].Published)
	st, err := news.New(c.Client(), prefix, o, news.WithClock(clk), news.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		tb.Fatal(err)
	}
	var runs []news.RegroupResult
	regroup := func(at time.Time) {
		clk.Set(at)
		r, err := st.Regroup(ctx, news.DefaultRegroupOptions())
		if err != nil {
			tb.Fatalf("regroup at %v: %v", at, err)
		}
		runs = append(runs, r)
	}
	ids := make([]string, len(s.Articles))
	order := s.ByPublished()
	next := s.Articles[order[0]].Published.Truncate(regroupEvery).Add(regroupEvery)
	for _, i := range order {
		a := s.Articles[i]
		for !a.Published.Before(next) {
			regroup(next)
			next = next.Add(regroupEvery)
		}
		clk.Set(a.Published)
		r, err := st.Ingest(ctx, news.Article{
			URL:   fmt.Sprintf("https://coverage.example.com/%s/%s/%d", a.Event, a.Lang, i),
			Title: a.Title, Summary: a.Summary, Lead: a.Lead, Source: a.Outlet,
			PostTime: a.Published, CrawlTime: a.Published,
		})
		if err != nil {
			tb.Fatalf("%s:%d: %v", a.File, a.Line, err)
		}
		ids[i] = r.ID
	}
	regroup(next)
	story := make([]string, len(ids))
	for i, id := range ids {
		lead, _, err := st.StoryOf(ctx, id)
		if err != nil {
			tb.Fatal(err)
		}
		story[i] = lead
	}
	return story, runs
}

// BenchmarkStoryRegroup measures the pair F1 of each half of the
// labelled coverage set (internal/coverage) grouped in a real store by
// the ingest alone (f1-online: TestStoryQuality's figure) and by the
// ingest with the regroup job run every 6 hours over the last 48 hours
// (f1-regroup), with the steps the runs took: go test -run '^$' -bench BenchmarkStoryRegroup ./news/
func BenchmarkStoryRegroup(b *testing.B) {
	c := redistest.Start(b)
	set, err := coverage.Load()
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		for _, split := range []string{coverage.HeldOut, coverage.Tune} {
			s := set.Split(split)
			c.Client().FlushAll(context.Background())
			before, err := s.Measure(groupCoverage(b, c, "online-"+split+":", s))
			if err != nil {
				b.Fatal(err)
			}
			story, runs := groupAndRegroup(b, c, "regroup-"+split+":", s)
			after, err := s.Measure(story)
			if err != nil {
				b.Fatal(err)
			}
			var merged, joined, moved, retried int
			for _, r := range runs {
				merged, joined, moved, retried = merged+r.Merged, joined+r.Joined, moved+r.Moved, retried+r.Retried
			}
			b.Logf("%-7s online:  %s", split, before)
			b.Logf("%-7s regroup: %s (%d runs: %d merged, %d joined, %d moved)", split, after, len(runs), merged, joined, moved)
			b.ReportMetric(before.F1, "f1-online-"+split)
			b.ReportMetric(after.F1, "f1-regroup-"+split)
			b.ReportMetric(float64(merged+joined), "merges-"+split)
			b.ReportMetric(float64(moved), "moves-"+split)
			if retried > 0 {
				b.Errorf("%d steps refused with nothing else writing", retried)
			}
		}
	}
}

// BenchmarkRegroupRun measures a dry run of Store.Regroup (the read of
// the span and the plan; the writes are one script per step) over the
// demo site's labelled stories, 2,000 of them (about 5,000 articles)
// posted in the last hour, ingested ranking by story: what one run of
// the job costs on a busy span.
func BenchmarkRegroupRun(b *testing.B) {
	c := redistest.Start(b).Client()
	ctx := context.Background()
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	o := news.DefaultOptions()
	o.RankBy = news.RankByStory
	st, err := news.New(c, "bench:", o, news.WithClock(clock.NewFake(now)), news.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		b.Fatal(err)
	}
	set := demosite.StorySet(1, 2000, now)
	as := make([]news.Article, len(set))
	for i, a := range set {
		as[i] = news.Article{URL: a.URL, Title: a.Title, Summary: a.Summary, Source: a.Source, PostTime: a.PostTime, CrawlTime: a.PostTime}
	}
	for lo := 0; lo < len(as); lo += 500 {
		if _, err := st.IngestBatch(ctx, as[lo:min(len(as), lo+500)]); err != nil {
			b.Fatal(err)
		}
	}
	ro := news.DefaultRegroupOptions()
	ro.DryRun = true
	b.ResetTimer()
	var r news.RegroupResult
	for range b.N {
		if r, err = st.Regroup(ctx, ro); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(r.Stories), "stories")
	b.ReportMetric(float64(r.Articles), "articles")
	b.ReportMetric(float64(len(r.Steps)), "steps")
}
