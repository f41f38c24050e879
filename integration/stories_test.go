package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

// TestStoriesAcrossProcesses: three consumer processes crawl, on the
// three-master cluster, a demo site that publishes labelled stories
// (demosite.Options.Stories) with news.rank_by: story, each planning its
// batches' stories against the index's version while the others write
// it (news/story_plan.go). The grouping is as good as one process's
// (crawler.TestDemoStories: precision and recall at least 0.95 over the
// pairs of copies), and the stories are whole: every article of a story
// names its lead, the story lists it, only leads are ranked, and a
// story's articles are all in it once.
func TestStoriesAcrossProcesses(t *testing.T) {
	cl := redistest.StartCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := startDemoWith(t, demosite.Options{Articles: 120, Stories: 40, Seed: 5}, 0)
	cfg := testConfig(cl.Options())
	cfg.News.RankBy = news.RankByStory
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

// checkStories checks the stories of a crawl of d's labelled stories
// ranking by story: every article in the window is stored, the stories
// are whole (every article of a story names its
// lead and the story lists it, only leads are ranked, a story's articles
// are all in it once, the rankings pass Check), and the grouping is as
// good as one process's on the same site (crawler.TestDemoStories):
// precision and recall at least 0.95 over the pairs of copies.
func checkStories(t *testing.T, s *stack, d *demo, what string) {
	t.Helper()
	ctx := context.Background()
	fresh, _, _, _ := d.truth(s.cfg.News.Window.D())
	type stored struct{ label, lang, lead string }
	var as []stored
	members := map[string][]string{} // lead → the articles naming it
	copies := 0
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
		lang := "en"
		if isCJK(a.Title) {
			lang = "zh"
		}
		if a.Story != "" {
			copies++
		}
		as = append(as, stored{label: a.Story, lang: lang, lead: lead})
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
	if copies < 60 {
		t.Fatalf("%d story copies crawled, want the site's (about 100)", copies)
	}
	gs := make([]demosite.Grouped, len(as))
	for i, a := range as {
		gs[i] = demosite.Grouped{Label: a.label, Lang: a.lang, Group: a.lead}
	}
	tp, fp, missed := demosite.PairCounts(gs)
	fn := len(missed)
	precision := float64(tp) / float64(max(1, tp+fp))
	recall := float64(tp) / float64(max(1, tp+fn))
	t.Logf("%d copies of 40 stories among %d articles, %s: precision %.3f recall %.3f (tp %d fp %d fn %d); %d stories",
		copies, len(as), what, precision, recall, tp, fp, fn, len(members))
	checkRanking(t, s.store)
	if tp == 0 || precision < 0.95 || recall < 0.95 {
		t.Errorf("precision %.3f recall %.3f, want >= 0.95 both", precision, recall)
	}
}

// isCJK reports whether s has a CJK ideograph.
func isCJK(s string) bool {
	return slices.ContainsFunc([]rune(s), func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff })
}

// TestFaultRedisRestartMidStoryCrawl: Redis (appendonly, fsync always)
// is killed twice and started again in place while a crawl ranking by
// story runs: the crawl ends with nothing lost, and the stories are
// whole and as good as without the restarts (checkStories).
func TestFaultRedisRestartMidStoryCrawl(t *testing.T) {
	rs := redistest.Start(t, redistest.Options{AppendOnly: true})
	d := startDemoWith(t, demosite.Options{Articles: 120, Stories: 40, Seed: 5}, 30*time.Millisecond)
	cfg := testConfig(rs.Options())
	cfg.News.RankBy = news.RankByStory
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
