package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/coverage"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

// storyWindow is the window of the story crawls: the span of the
// coverage set the demo site publishes (its first report to its last;
// its slices were written for weeks apart) and two days more, so that
// every report of it is stored and measured.
var storyWindow = coverage.MustLoad().Window()

// storyOptions is the demo site of the story crawls: 120 ordinary
// articles and every report of the labelled coverage set.
var storyOptions = demosite.Options{Articles: 120, Stories: demosite.AllStories, Seed: 5}

// TestStoriesAcrossProcesses: three consumer processes crawl, on the
// three-master cluster, a demo site that publishes the labelled coverage
// set (demosite.Options.Stories) with news.rank_by: story, each planning
// its batches' stories against the index's version while the others
// write it (news/story_plan.go), so that two reports ingested at once
// cannot start two stories. The stories are whole (every article of a
// story names its lead, the story lists it, only leads are ranked, a
// story's articles are all in it once) and the grouping is as good as
// one process's (checkStories).
func TestStoriesAcrossProcesses(t *testing.T) {
	cl := redistest.StartCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := startDemoWith(t, storyOptions, 0)
	cfg := testConfig(cl.Options())
	cfg.News.RankBy = news.RankByStory
	cfg.News.Window = config.Duration(storyWindow)
	cfg.Crawler.Workers = 3
	cfg.Crawler.Sources = d.sources()
	s := newStack(t, cfg)
	cfgPath := writeConfig(t, cfg)
	var procs []*consumer
	for i := range 3 {
		procs = append(procs, startConsumer(t, s.rdb, cfgPath, fmt.Sprintf("s%d", i)))
	}
	rep, err := s.cr.Produce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if failed := rep.Failed(); len(failed) > 0 {
		t.Fatalf("sources failed: %v: %+v", failed, rep)
	}
	s.waitSettled(2 * time.Minute)
	for _, p := range procs {
		p.terminate(t)
	}
	served := d.servedTo()
	for _, p := range procs {
		if served[consumerUA(cfg, p.name)] == 0 {
			t.Errorf("consumer process %s fetched no article page (pages served per agent: %v)", p.name, served)
		}
	}

	checkStories(t, s, d, "3 processes")
}

// checkStories checks the stories of a crawl of d's coverage reports
// ranking by story: every article in the window is stored, the stories
// are whole (every article of a story names its lead and the story lists
// it, only leads are ranked, a story's articles are all in it once, the
// rankings pass Check), and the grouping is as good as one process's on
// the same site (crawler.TestDemoStories, whose floors these are):
// pairwise over the reports of one language, a report grouped with an
// ordinary article counting against precision, precision at least 0.65
// and recall at least 0.65 (the crawl's order moves the figures a little:
// crawler.TestDemoStories says more).
func checkStories(t *testing.T, s *stack, d *demo, what string) {
	t.Helper()
	ctx := context.Background()
	fresh, _, _, _ := d.truth(s.cfg.News.Window.D())
	story := map[string]string{}     // path → its story's lead
	members := map[string][]string{} // lead → the articles naming it
	for _, a := range fresh {
		id := news.ID(canonical(t, d.URL+a.Path))
		if _, err := s.store.Get(ctx, id); err != nil {
			t.Errorf("article %s not stored: %v", a.Path, err)
			continue
		}
		lead, ms, err := s.store.StoryOf(ctx, id)
		if err != nil {
			t.Fatalf("%s: %v", a.Path, err)
		}
		if !slices.ContainsFunc(ms, func(m news.Member) bool { return m.ID == id }) {
			t.Errorf("%s (%s) names story %s, which does not list it: %v", a.Path, id, lead, ms)
		}
		ranked := s.rdb.ZScore(ctx, prefix+news.Tag+":time:", id).Err() == nil
		if ranked != (lead == id) {
			t.Errorf("%s: ranked %t, its story's lead %s", a.Path, ranked, lead)
		}
		members[lead] = append(members[lead], id)
		story[a.Path] = lead
	}
	for lead, ids := range members {
		_, ms, err := s.store.StoryOf(ctx, lead)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != len(ids) {
			t.Errorf("story %s lists %d articles, %d name it", lead, len(ms), len(ids))
		}
	}
	q, err := d.site.MeasureStories(story)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d articles in %d stories; %s", what, len(story), len(members), q)
	checkRanking(t, s.store)
	if q.Reports != q.Published || q.Published == 0 {
		t.Fatalf("%d of %d reports stored", q.Reports, q.Published)
	}
	if q.Precision < 0.65 || q.Recall < 0.65 {
		t.Errorf("precision %.3f recall %.3f, want at least 0.65 and 0.65", q.Precision, q.Recall)
	}
}

// TestFaultRedisRestartMidStoryCrawl: Redis (appendonly, fsync always)
// is killed twice and started again in place while a crawl ranking by
// story runs: the crawl ends with nothing lost, and the stories are
// whole and as good as without the restarts (checkStories).
func TestFaultRedisRestartMidStoryCrawl(t *testing.T) {
	rs := redistest.Start(t, redistest.Options{AppendOnly: true})
	d := startDemoWith(t, storyOptions, 30*time.Millisecond)
	cfg := testConfig(rs.Options())
	cfg.News.RankBy = news.RankByStory
	cfg.News.Window = config.Duration(storyWindow)
	cfg.Crawler.Workers = 3
	cfg.Crawler.Sources = d.sources()
	s := newStack(t, cfg)
	ctx := context.Background()
	st := s.crawlThroughRestarts(rs, 10, 40)
	if st.Pending+st.InFlight+st.Delayed != 0 || len(s.deadLetters(ctx)) != len(d.site.PrivateArticles()) {
		t.Errorf("URLs not ended, or dead beyond the private articles: %+v, %d dead", st, len(s.deadLetters(ctx)))
	}
	checkStories(t, s, d, "2 Redis restarts")
}
