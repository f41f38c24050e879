package news

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"
)

// TestUngroup runs ungroupFlow on a redis-server.
func TestUngroup(t *testing.T) {
	ungroupFlow(t, newEnv(t, func(o *Options) { o.RankBy = RankByStory; o.CommentWeight = 1 }))
}

// TestUngroupOnCluster runs ungroupFlow on a three-master Redis Cluster
// (the scan runs on the node of the {news} slot).
func TestUngroupOnCluster(t *testing.T) {
	ungroupFlow(t, newClusterEnv(t, func(o *Options) { o.RankBy = RankByStory; o.CommentWeight = 1 }))
}

// TestUngroupEmbedded runs ungroupFlow on the embedded Redis.
func TestUngroupEmbedded(t *testing.T) {
	ungroupFlow(t, newEmbeddedEnv(t, func(o *Options) { o.RankBy = RankByStory; o.CommentWeight = 1 }))
}

// ungroupFlow: a store ranking by story groups three copies of one event
// (a vote on one of them is kept on the lead; all three in a group, one
// with comments), beside an article alone; then a store ranking by
// article on the same keys ungroups them. Each article is ranked by
// itself with its own votes and the formula's score, the rankings pass
// Check, the group lists all three, nothing of the stories is left, the
// index's version has moved (an ingest planned against it before is
// refused), and a second Ungroup does nothing.
func ungroupFlow(t *testing.T, e *env) {
	t.Helper()
	post := t0.Add(-2 * time.Hour)
	const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	as := []Article{
		storyArticle("https://a.example.com/1", "Central bank raises interest rates to fight inflation", sum, "A", post),
		storyArticle("https://b.example.com/1", "To fight inflation, central bank raises interest rates", sum, "B", post.Add(time.Minute)),
		storyArticle("https://c.example.com/1", "Central bank raises rates to fight inflation", sum, "C", post.Add(2*time.Minute)),
		storyArticle("https://d.example.com/1", "Volcano erupts on remote island", "", "D", post),
	}
	as[2].Comments = 4
	for i := range 3 {
		as[i].Groups = []string{"economy"}
	}
	rs, err := e.s.IngestBatch(e.ctx, as)
	if err != nil {
		t.Fatal(err)
	}
	lead := rs[0].ID
	if rs[1].Story != lead || rs[2].Story != lead || rs[3].Story != "" {
		t.Fatalf("stories %q %q %q, want the first's twice and none", rs[1].Story, rs[2].Story, rs[3].Story)
	}
	if _, err := e.s.Vote(e.ctx, "u1", rs[1].ID, Up); err != nil {
		t.Fatal(err)
	}
	if n := e.c.ZCard(e.ctx, e.s.keys.Time()).Val(); n != 2 {
		t.Fatalf("ranking by story: %d ranked, want 2", n)
	}

	o := e.s.opts
	o.RankBy = RankByArticle
	flat, err := New(e.c, e.s.keys.base[:len(e.s.keys.base)-len(Tag)-1], o, WithClock(e.clock), WithLogger(e.s.log))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Ungroup(e.ctx); err == nil {
		t.Error("Ungroup on a store ranking by story: no error")
	}
	before := e.c.HGet(e.ctx, e.s.keys.StoryIndexVersion(), "n").Val()
	n, err := flat.Ungroup(e.ctx)
	if err != nil || n != 3 {
		t.Fatalf("Ungroup = %d, %v; want the story's 3 articles", n, err)
	}
	// own votes: the vote on the story is the lead's; comments × weight 1
	want := map[string]float64{lead: 1, rs[1].ID: 0, rs[2].ID: 4, rs[3].ID: 0}
	for id, v := range want {
		it, err := flat.Get(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if it.Story != "" || it.Votes != v {
			t.Errorf("%s: story %q, votes %v; want none and %v", id, it.Story, it.Votes, v)
		}
		score := e.c.ZScore(e.ctx, e.s.keys.Score(), id).Val()
		if w := flat.formula.Score(it.PostTime, v, e.clock.Now()); score != w {
			t.Errorf("%s: score %v, want %v", id, score, w)
		}
	}
	c, err := flat.Check(e.ctx)
	if err != nil || !c.OK() || c.Articles != 4 {
		t.Errorf("Check after Ungroup: %+v, %v; want 4 articles, every invariant", c, err)
	}
	g, err := flat.GroupList(e.ctx, "economy", ByTime, 1, 10)
	if err != nil || g.Total != 3 {
		t.Errorf("group economy lists %d, %v; want 3", g.Total, err)
	}
	keys, err := e.c.Exists(e.ctx, e.s.keys.Story(lead), e.s.keys.StoryIndex()).Result()
	if err != nil || keys != 0 {
		t.Errorf("%d of the story key and the index left, %v", keys, err)
	}
	if after := e.c.HGet(e.ctx, e.s.keys.StoryIndexVersion(), "n").Val(); after == before {
		t.Errorf("the index version is %s before and after Ungroup", after)
	}
	if n, err := flat.Ungroup(e.ctx); n != 0 || err != nil {
		t.Errorf("a second Ungroup = %d, %v; want nothing to do", n, err)
	}
	ids := slices.Sorted(maps.Keys(want))
	p, err := flat.List(e.ctx, ByTime, 1, 10)
	if err != nil || p.Total != 4 {
		t.Fatalf("listing by time: %d, %v; want 4", p.Total, err)
	}
	var listed []string
	for _, it := range p.Items {
		listed = append(listed, it.ID)
	}
	slices.Sort(listed)
	if !slices.Equal(listed, ids) {
		t.Errorf("listed %v, want %v", listed, ids)
	}
}

// TestUngroupMany: stories enough for several script calls (UngroupChunk
// each) are all ungrouped, and every article ends ranked once.
func TestUngroupMany(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	post := t0.Add(-time.Hour)
	const n = 2*UngroupChunk + 7
	var as []Article
	for i := range n {
		title := fmt.Sprintf("Event %d: regional council approves new ring road bus lanes after debate", i)
		summary := fmt.Sprintf("Councillors of district %d voted on Monday to add lanes by next spring.", i)
		for c := range 2 {
			as = append(as, storyArticle(fmt.Sprintf("https://o%d.example.com/%d", c, i), title, summary, "O", post))
		}
	}
	rs, err := e.s.IngestBatch(e.ctx, as)
	if err != nil {
		t.Fatal(err)
	}
	joined := 0
	for _, r := range rs {
		if r.Story != "" {
			joined++
		}
	}
	if joined != n {
		t.Fatalf("%d articles joined a story, want %d", joined, n)
	}
	o := e.s.opts
	o.RankBy = RankByArticle
	flat, err := New(e.c, "test:", o, WithClock(e.clock), WithLogger(e.s.log))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := flat.Ungroup(e.ctx); err != nil || got != 2*n {
		t.Fatalf("Ungroup = %d, %v; want %d", got, err, 2*n)
	}
	if c, err := flat.Check(e.ctx); err != nil || !c.OK() || c.Articles != 2*n {
		t.Errorf("Check: %+v, %v; want %d articles, every invariant", c, err, 2*n)
	}
}

// TestUngroupBeforeFirstWrite: a store ranking by article ungroups the
// stories left by rank_by: story before its first write, whichever it is
// (a crawl -once or a vote with the setting switched, no daemon start or
// rescore in between). Before, a refresh of a story's article put it in
// score: and votes: but not time:, and Check failed.
func TestUngroupBeforeFirstWrite(t *testing.T) {
	for name, write := range map[string]func(e *env, s *Store, member Article) error{
		"refresh": func(e *env, s *Store, m Article) error {
			_, err := s.Refresh(e.ctx, []Engagement{{URL: m.URL, Comments: 80}})
			return err
		},
		"vote": func(e *env, s *Store, m Article) error {
			_, err := s.Vote(e.ctx, "u1", ID(m.URL), Up)
			return err
		},
		"ingest": func(e *env, s *Store, m Article) error {
			m.Comments = 80
			_, err := s.Ingest(e.ctx, m)
			return err
		},
		"prune": func(e *env, s *Store, m Article) error {
			_, err := s.Prune(e.ctx, e.clock.Now(), PruneOptions{})
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, func(o *Options) { o.RankBy = RankByStory; o.CommentWeight = 1 })
			const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
			post := t0.Add(-2 * time.Hour)
			lead := storyArticle("https://a.example.com/1", "Central bank raises interest rates to fight inflation", sum, "A", post)
			member := storyArticle("https://b.example.com/1", "To fight inflation, central bank raises interest rates", sum, "B", post)
			if _, err := e.s.Ingest(e.ctx, lead); err != nil {
				t.Fatal(err)
			}
			if r, err := e.s.Ingest(e.ctx, member); err != nil || r.Story != ID(lead.URL) {
				t.Fatalf("member: %+v %v", r, err)
			}
			o := e.s.opts
			o.RankBy = RankByArticle
			flat, err := New(e.c, e.s.keys.base[:len(e.s.keys.base)-len(Tag)-1], o, WithClock(e.clock), WithLogger(e.s.log))
			if err != nil {
				t.Fatal(err)
			}
			if err := write(e, flat, member); err != nil {
				t.Fatal(err)
			}
			c, err := flat.Check(e.ctx)
			if err != nil || !c.OK() {
				t.Fatalf("Check after the first write = %+v %v", c, err)
			}
			if n := e.c.ZCard(e.ctx, e.s.keys.Time()).Val(); n != 2 {
				t.Errorf("%d articles ranked by time, want both", n)
			}
			if n := e.c.Exists(e.ctx, e.s.keys.Story(ID(lead.URL)), e.s.keys.StoryIndex()).Val(); n != 0 {
				t.Errorf("%d story keys left", n)
			}
		})
	}
}

// TestUngroupAfterARace: a story that formed while an Ungroup ran (a
// process still ranking by story), after its scan passed, kept its
// story: key and its unranked articles when that Ungroup deleted the
// index at its end; the next Ungroup looked for the index only, found
// none, and left them so for good. The stories mark, set when a story
// forms, makes it run again.
func TestUngroupAfterARace(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory; o.CommentWeight = 1 })
	const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	post := t0.Add(-2 * time.Hour)
	lead := storyArticle("https://a.example.com/1", "Central bank raises interest rates to fight inflation", sum, "A", post)
	member := storyArticle("https://b.example.com/1", "To fight inflation, central bank raises interest rates", sum, "B", post)
	for _, a := range []Article{lead, member} {
		if _, err := e.s.Ingest(e.ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	// the racing Ungroup's end: it deletes the index it did not scan for
	if err := e.c.Del(e.ctx, e.s.keys.StoryIndex()).Err(); err != nil {
		t.Fatal(err)
	}
	o := e.s.opts
	o.RankBy = RankByArticle
	flat, err := New(e.c, e.s.keys.base[:len(e.s.keys.base)-len(Tag)-1], o, WithClock(e.clock), WithLogger(e.s.log))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := flat.Ungroup(e.ctx); err != nil || n != 2 {
		t.Fatalf("Ungroup = %d %v, want the story's 2 articles ranked", n, err)
	}
	if c, err := flat.Check(e.ctx); err != nil || !c.OK() || c.Articles != 2 {
		t.Fatalf("Check = %+v %v", c, err)
	}
	if n := e.c.Exists(e.ctx, e.s.keys.Stories()).Val(); n != 0 {
		t.Error("the stories mark is left after an Ungroup with no story forming")
	}
	if n, err := flat.Ungroup(e.ctx); err != nil || n != 0 {
		t.Fatalf("a second Ungroup = %d %v, want nothing to do", n, err)
	}
}
