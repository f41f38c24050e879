package news

import (
	"strings"
	"testing"
	"time"
)

// TestPruneSweepsExpired runs sweepFlow on a redis-server.
func TestPruneSweepsExpired(t *testing.T) {
	sweepFlow(t, newEnv(t, func(o *Options) { o.RankBy = RankByStory }))
}

// TestPruneSweepsExpiredOnCluster runs sweepFlow on a three-master Redis
// Cluster.
func TestPruneSweepsExpiredOnCluster(t *testing.T) {
	sweepFlow(t, newClusterEnv(t, func(o *Options) { o.RankBy = RankByStory }))
}

// TestPruneSweepsExpiredEmbedded runs sweepFlow on the embedded Redis.
func TestPruneSweepsExpiredEmbedded(t *testing.T) {
	sweepFlow(t, newEmbeddedEnv(t, func(o *Options) { o.RankBy = RankByStory }))
}

// sweepFlow: a story of two articles in two groups, beside an article
// alone, whose hashes and story key expire before the prune comes (an
// article's hash expires a day after the window; the prune runs
// weekly). The prune leaves no index list, group entry or group of
// theirs behind; before, the index kept their lists forever and
// /api/groups counted a group with no live article.
func sweepFlow(t *testing.T, e *env) {
	t.Helper()
	const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	post := t0.Add(-week + time.Hour)
	as := []Article{
		storyArticle("https://a.example.com/1", "Central bank raises interest rates to fight inflation", sum, "A", post),
		storyArticle("https://b.example.com/1", "To fight inflation, central bank raises interest rates", sum, "B", post),
		storyArticle("https://c.example.com/1", "Volcano erupts on remote island", "Lava reached the sea overnight.", "C", post),
	}
	as[0].Groups, as[1].Groups, as[2].Groups = []string{"sec0"}, []string{"sec1"}, []string{"sec0"}
	rs, err := e.s.IngestBatch(e.ctx, as)
	if err != nil {
		t.Fatal(err)
	}
	if rs[1].Story != rs[0].ID {
		t.Fatalf("copy joined %q", rs[1].Story)
	}
	live := storyArticle("https://d.example.com/1", "Parliament passes the budget", "The vote was close.", "D", t0)
	live.Groups = []string{"sec1"}
	if _, err := e.s.Ingest(e.ctx, live); err != nil {
		t.Fatal(err)
	}
	// the old articles' hashes and the story key expire
	for _, r := range rs {
		e.c.Del(e.ctx, e.s.keys.Article(r.ID))
	}
	e.c.Del(e.ctx, e.s.keys.Story(rs[0].ID))
	e.clock.Advance(2 * time.Hour)
	res, err := e.s.Prune(e.ctx, e.clock.Now(), PruneOptions{})
	if err != nil || res.Removed != 2 || res.Kept != 1 {
		t.Fatalf("Prune = %+v %v, want the 2 ranked old articles removed, 1 kept", res, err)
	}
	if res.Swept == 0 {
		t.Errorf("Prune swept nothing")
	}
	for f, l := range e.c.HGetAll(e.ctx, e.s.keys.StoryIndex()).Val() {
		for _, r := range rs {
			if strings.Contains(l, r.ID) {
				t.Errorf("the index still lists %s under %s", r.ID, f)
			}
		}
	}
	if m := e.c.SMembers(e.ctx, e.s.keys.Group("sec1")).Val(); len(m) != 1 || m[0] != ID(live.URL) {
		t.Errorf("group sec1 = %v, want only the live article", m)
	}
	gs, err := e.s.Groups(e.ctx)
	if err != nil || len(gs) != 1 || gs[0].Name != "sec1" || gs[0].Size != 1 {
		t.Errorf("Groups = %+v %v, want sec1 of 1 (sec0's articles are all gone)", gs, err)
	}
}
