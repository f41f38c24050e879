package crawler

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/minhash"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// TestDemoStories crawls the demo site publishing labelled stories
// (demosite.Options.Stories: each copy an article of a section in its
// language, among the site's ordinary articles) with news.rank_by: story,
// end to end: pages fetched, title and summary extracted, sketched and
// grouped at ingest. Pairwise over the copies of one language: precision
// (pairs grouped together that are one story) and recall (pairs of one
// story grouped together) at least 0.95 each, as on the labelled set fed
// to the store directly (news.TestStorySetQuality). A copy grouped with
// an ordinary article counts against precision; pairs of two ordinary
// articles are not labelled (the demo's stock texts make some alike) and
// not counted.
func TestDemoStories(t *testing.T) {
	e := newEnv(t)
	o := news.DefaultOptions()
	o.RankBy = news.RankByStory
	store, err := news.New(e.rdb, testPrefix, o, news.WithLogger(quietLog()))
	if err != nil {
		t.Fatal(err)
	}
	e.store = store
	now := time.Now().UTC().Truncate(time.Second)
	site := demosite.New(demosite.Options{Articles: 120, Stories: 40, Now: now, Seed: 5})
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	e.opts.Workers = 8
	e.opts.Sources = demoSources(site.Sources(srv.URL))
	c, err := New(e.opts, e.qopts, e.rdb, testPrefix, e.store, WithLogger(quietLog()),
		WithTransport(http.DefaultTransport.(*http.Transport).Clone()), WithQueueOptions(queue.WithLogger(quietLog())))
	if err != nil {
		t.Fatal(err)
	}
	if rep := e.runOnce(c); len(rep.FailedSources()) > 0 {
		t.Fatalf("failed sources: %+v", rep)
	}

	type stored struct {
		label, lang, found string // label: the labelled story ("" ordinary); found: its story's lead, or itself
		text, title        string
	}
	var as []stored
	copies := 0
	for _, a := range site.Articles() {
		if now.Sub(a.PostTime) > o.Window {
			continue
		}
		it, err := e.article(srv.URL + a.Path)
		if err != nil {
			t.Fatalf("%s: %v", a.Path, err)
		}
		found := it.Story
		if found == "" {
			found = it.ID
		}
		lang := "en"
		if isCJK(a.Title) {
			lang = "zh"
		}
		if a.Story != "" {
			copies++
			if it.Title != a.Title || it.Summary != a.Summary {
				t.Errorf("%s: stored %q / %q, want %q / %q", a.Path, it.Title, it.Summary, a.Title, a.Summary)
			}
		}
		as = append(as, stored{label: a.Story, lang: lang, found: found, text: a.Title + "\n" + a.Summary, title: a.Title})
	}
	if copies < 60 {
		t.Fatalf("%d story copies crawled, want the site's (about 100)", copies)
	}
	gs := make([]demosite.Grouped, len(as))
	for i, a := range as {
		gs[i] = demosite.Grouped{Label: a.label, Lang: a.lang, Group: a.found}
	}
	tp, fp, missed := demosite.PairCounts(gs)
	fn := len(missed)
	for _, m := range missed {
		a, b := as[m[0]], as[m[1]]
		sa, _ := minhash.Of(a.text)
		sb, _ := minhash.Of(b.text)
		ta, _ := minhash.Of(a.title)
		tb, _ := minhash.Of(b.title)
		t.Logf("MISS %.2f title %.2f\n  %s\n  %s", minhash.Overlap(sa, sb), minhash.Overlap(ta, tb), a.text, b.text)
	}
	precision := float64(tp) / float64(max(1, tp+fp))
	recall := float64(tp) / float64(max(1, tp+fn))
	t.Logf("%d copies of 40 stories among %d articles: precision %.3f recall %.3f (tp %d fp %d fn %d)", copies, len(as), precision, recall, tp, fp, fn)
	if tp == 0 || precision < 0.95 || recall < 0.95 {
		t.Errorf("precision %.3f recall %.3f, want >= 0.95 both", precision, recall)
	}
}
