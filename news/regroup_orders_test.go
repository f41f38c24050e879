package news_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/coverage"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

// groupInOrder ingests s's articles into a fresh store ranking by story
// (the window: the set's span and two days) in order, the store's clock
// at the latest post time so far (an article read late is stored late),
// then runs Store.Regroup over the window; it returns each article's
// story before and after the regroup, and the run.
func groupInOrder(tb testing.TB, c *redistest.Server, prefix string, s *coverage.Set, order []int) (before, after []string, run news.RegroupResult) {
	tb.Helper()
	ctx := context.Background()
	o := news.DefaultOptions()
	o.RankBy = news.RankByStory
	o.Window = s.Window()
	clk := clock.NewFake(s.Articles[order[0]].Published)
	st, err := news.New(c.Client(), prefix, o, news.WithClock(clk), news.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		tb.Fatal(err)
	}
	ids := make([]string, len(s.Articles))
	before = make([]string, len(s.Articles))
	now := s.Articles[order[0]].Published
	for _, i := range order {
		a := s.Articles[i]
		if a.Published.After(now) {
			now = a.Published
		}
		clk.Set(now)
		r, err := st.Ingest(ctx, news.Article{
			URL:   fmt.Sprintf("https://coverage.example.com/%s/%s/%d", a.Event, a.Lang, i),
			Title: a.Title, Summary: a.Summary, Lead: a.Lead, Source: a.Outlet,
			PostTime: a.Published, CrawlTime: now,
		})
		if err != nil {
			tb.Fatalf("%s:%d: %v", a.File, a.Line, err)
		}
		ids[i] = r.ID
		if before[i] = r.Story; before[i] == "" {
			before[i] = r.ID
		}
	}
	// a story's lead is who came first: read the stories at the end
	for i, id := range ids {
		if before[i], _, err = st.StoryOf(ctx, id); err != nil {
			tb.Fatal(err)
		}
	}
	ro := news.DefaultRegroupOptions()
	ro.Span = o.Window
	start := time.Now()
	if run, err = st.Regroup(ctx, ro); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("regroup of %d stories, %d articles: %v", run.Stories, run.Articles, time.Since(start).Round(time.Millisecond))
	after = make([]string, len(ids))
	for i, id := range ids {
		if after[i], _, err = st.StoryOf(ctx, id); err != nil {
			tb.Fatal(err)
		}
	}
	return before, after, run
}

var regroupOrders = flag.Bool("news.regroup-orders", false, "log the tuning half's figures in crawl orders before and after Store.Regroup")

// TestRegroupOrders logs, for the tuning half of the coverage set
// ingested into a real store in each of its CrawlOrders, the pair F1 and
// look-alikes merged before and after one Store.Regroup over the window
// (go test -run TestRegroupOrders -v ./news/ -args -news.regroup-orders):
// the job's figures in the store.
func TestRegroupOrders(t *testing.T) {
	if !*regroupOrders {
		t.Skip("a tuning aid: run with -news.regroup-orders")
	}
	c := redistest.Start(t)
	s := coverage.MustLoad().Split(coverage.Tune)
	for _, o := range s.CrawlOrders(3) {
		c.Client().FlushAll(context.Background())
		before, after, run := groupInOrder(t, c, "orders:", s, o.Order)
		qb, err := s.Measure(before)
		if err != nil {
			t.Fatal(err)
		}
		qa, err := s.Measure(after)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-12s ingest %.3f / %d | regroup %.3f / %d (%d merged, %d joined, %d moved, %d split, %d skipped)",
			o.Name, qb.F1, qb.LookAlikesMerged, qa.F1, qa.LookAlikesMerged, run.Merged, run.Joined, run.Moved, run.Split, run.Skipped)
	}
}

// TestRegroupReplaySettles ingests the tuning half of the coverage set
// into a real store newest first (a site's back pages), runs the regroup
// job, and runs it again: the second run finds nothing to do.
func TestRegroupReplaySettles(t *testing.T) {
	c := redistest.Start(t)
	s := coverage.MustLoad().Split(coverage.Tune)
	order := s.ByPublished()
	slices.Reverse(order)
	before, after, run := groupInOrder(t, c, "settle:", s, order)
	if run.Merged+run.Joined+run.Moved == 0 || slices.Equal(before, after) {
		t.Fatalf("first run: %+v, want steps", run)
	}
	qb, _ := s.Measure(before)
	qa, _ := s.Measure(after)
	if qa.F1 <= qb.F1 {
		t.Errorf("F1 %.3f after the regroup, %.3f before: want higher", qa.F1, qb.F1)
	}
	o := news.DefaultOptions()
	o.RankBy, o.Window = news.RankByStory, s.Window()
	last := s.Articles[s.ByPublished()[len(s.Articles)-1]].Published
	st, err := news.New(c.Client(), "settle:", o, news.WithClock(clock.NewFake(last)), news.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	ro := news.DefaultRegroupOptions()
	ro.Span = o.Window
	again, err := st.Regroup(context.Background(), ro)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Steps) != 0 {
		t.Errorf("second run: %d steps: %+v", len(again.Steps), again.Steps)
	}
}
