package news

import (
	"slices"
	"testing"
	"time"
)

// TestRankByStoryOnCluster runs storyFlow on a three-master Redis
// Cluster. Every key a story script touches carries the {news} hash tag,
// so each lands on one node.
func TestRankByStoryOnCluster(t *testing.T) {
	storyFlow(t, newClusterEnv(t, func(o *Options) { o.RankBy = RankByStory; o.CommentWeight = 1 }))
}

// TestRankByStoryEmbedded runs storyFlow on the embedded Redis that
// `newsrank demo` uses by default (miniredis: gopher-lua, which has no
// struct library).
func TestRankByStoryEmbedded(t *testing.T) {
	storyFlow(t, newEmbeddedEnv(t, func(o *Options) { o.RankBy = RankByStory; o.CommentWeight = 1 }))
}

// storyFlow runs stories end to end on e: grouping at ingest (one batch
// and one by one), a user's one vote per story, the story's page, its
// rebuild and its prune.
func storyFlow(t *testing.T, e *env) {
	t.Helper()
	post := t0.Add(-2 * time.Hour)
	const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	rs, err := e.s.IngestBatch(e.ctx, []Article{
		storyArticle("https://a.example.com/1", "Central bank raises interest rates to fight inflation", sum, "A", post),
		storyArticle("https://b.example.com/1", "To fight inflation, central bank raises interest rates", sum, "B", post.Add(time.Minute)),
		storyArticle("https://c.example.com/1", "Local team wins football championship after extra time",
			"A late goal settled the final in front of a full stadium.", "C", post.Add(2*time.Minute)),
	})
	if err != nil {
		t.Fatal(err)
	}
	lead, copy1, other := rs[0], rs[1], rs[2]
	copy2 := e.ingest(t, storyArticle("https://d.example.com/1", "Central Bank Raises Interest Rates To Fight Inflation!", sum, "D", post.Add(time.Hour)))
	if copy1.Story != lead.ID || copy2.Story != lead.ID || other.Story != "" {
		t.Fatalf("stories: %q %q %q, want %s %s \"\"", copy1.Story, copy2.Story, other.Story, lead.ID, lead.ID)
	}

	// One vote per user per story, whichever article it is cast on.
	if _, err := e.s.Vote(e.ctx, "u1", copy1.ID, Up); err != nil {
		t.Fatal(err)
	}
	r, err := e.s.Vote(e.ctx, "u1", copy2.ID, Up)
	if err != nil || r.Story != lead.ID || r.Previous != Up || r.Up != 1 || r.Votes != 1 {
		t.Fatalf("second up of u1 in the story: %+v %v", r, err)
	}
	if r, err = e.s.Vote(e.ctx, "u2", lead.ID, Up); err != nil || r.Votes != 2 {
		t.Fatalf("u2 up on the lead: %+v %v", r, err)
	}

	check := func(when string) {
		t.Helper()
		p, err := e.s.List(e.ctx, ByScore, 1, 10)
		if err != nil || !slices.Equal(ids(p.Items), []string{lead.ID, other.ID}) {
			t.Fatalf("%s: page %v, %v; want the lead then the other article", when, ids(p.Items), err)
		}
		if it := p.Items[0]; it.StoryVotes != 2 || len(it.Also) != 2 {
			t.Errorf("%s: lead item %+v, want 2 story votes and 2 other articles", when, it)
		}
	}
	check("after the votes")
	e.clock.Advance(time.Hour)
	if _, err := e.s.Rebuild(e.ctx, RebuildOptions{}); err != nil {
		t.Fatal(err)
	}
	check("after the rebuild")

	// The prune removes the story with its lead, on whichever node.
	e.clock.Set(post.Add(e.s.Window() + 3*time.Minute))
	if res, err := e.s.Prune(e.ctx, e.clock.Now(), PruneOptions{}); err != nil || res.Removed != 2 {
		t.Fatalf("prune: %+v %v; want the lead and the other article removed", res, err)
	}
	for _, key := range []string{e.s.keys.Story(lead.ID), e.s.keys.Article(copy1.ID), e.s.keys.Article(copy2.ID), e.s.keys.Voted(lead.ID)} {
		if n := e.c.Exists(e.ctx, key).Val(); n != 0 {
			t.Errorf("%s left after the prune", key)
		}
	}
	if n, err := e.s.Count(e.ctx); err != nil || n != 0 {
		t.Errorf("after the prune %d articles ranked (%v), want none", n, err)
	}
}
