package news

import (
	"slices"
	"testing"
	"time"
)

// storyRankEnv ingests a story of three (lead, copy1, copy2; comments 3, 5
// and 0) and one other article (comments 1), all in group "g".
func storyRankEnv(t *testing.T) (e *env, lead, copy1, copy2, other IngestResult, leadPost time.Time) {
	t.Helper()
	e = newEnv(t, func(o *Options) { o.RankBy = RankByStory; o.CommentWeight = 1 })
	leadPost = t0.Add(-2 * time.Hour)
	const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	mk := func(url, title, src string, post time.Time, comments int64) Article {
		a := storyArticle(url, title, sum, src, post)
		a.Comments, a.Groups = comments, []string{"g"}
		return a
	}
	lead = e.ingest(t, mk("https://a.example.com/1", "Central bank raises interest rates to fight inflation", "A", leadPost, 3))
	copy1 = e.ingest(t, mk("https://b.example.com/1", "To fight inflation, central bank raises interest rates", "B", leadPost.Add(time.Hour), 5))
	copy2 = e.ingest(t, mk("https://d.example.com/1", "Central Bank Raises Interest Rates To Fight Inflation!", "D", leadPost.Add(90*time.Minute), 0))
	o := storyArticle("https://c.example.com/1", "Local team wins football championship after extra time",
		"A late goal settled the final in front of a full stadium.", "C", t0.Add(-time.Hour))
	o.Comments, o.Groups = 1, []string{"g"}
	other = e.ingest(t, o)
	if copy1.Story != lead.ID || copy2.Story != lead.ID || other.Story != "" {
		t.Fatalf("stories: %q %q %q, want %s %s \"\"", copy1.Story, copy2.Story, other.Story, lead.ID, lead.ID)
	}
	return e, lead, copy1, copy2, other, leadPost
}

// checkStoryRanking checks that exactly lead and other are ranked, lead
// with story votes v scored by the formula at its own post time.
func checkStoryRanking(t *testing.T, e *env, lead, other string, leadPost time.Time, v float64) {
	t.Helper()
	k := e.s.keys
	for _, key := range []string{k.Time(), k.Votes(), k.Score()} {
		got, err := e.c.ZRange(e.ctx, key, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		want := []string{lead, other}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s holds %v, want %v", key, got, want)
		}
	}
	if got := e.zscore(t, k.Votes(), lead); got != v {
		t.Errorf("story votes %v, want %v", got, v)
	}
	if got, want := e.zscore(t, k.Score(), lead), e.s.formula.Score(leadPost, v, e.clock.Now()); got != want {
		t.Errorf("story score %v, want the formula of %v votes at the lead's time: %v", got, v, want)
	}
}

func TestRankByStory(t *testing.T) {
	e, lead, copy1, copy2, other, leadPost := storyRankEnv(t)
	checkStoryRanking(t, e, lead.ID, other.ID, leadPost, 8)

	// One user's votes on two articles of the story count once.
	r, err := e.s.Vote(e.ctx, "u1", copy1.ID, Up)
	if err != nil || r.Story != lead.ID || r.Votes != 9 || r.Up != 1 || r.Previous != None {
		t.Fatalf("vote on copy1: %+v %v", r, err)
	}
	r, err = e.s.Vote(e.ctx, "u1", copy2.ID, Up)
	if err != nil || r.Votes != 9 || r.Previous != Up || r.Up != 1 {
		t.Fatalf("second up of u1 in the story: %+v %v", r, err)
	}
	if r, err = e.s.Vote(e.ctx, "u1", lead.ID, Down); err != nil || r.Votes != 7 || r.Previous != Up || r.Down != 1 || r.Up != 0 {
		t.Fatalf("u1 switches to down on the lead: %+v %v", r, err)
	}
	if r, err = e.s.Vote(e.ctx, "u2", copy2.ID, Up); err != nil || r.Votes != 8 {
		t.Fatalf("u2 up: %+v %v", r, err)
	}
	checkStoryRanking(t, e, lead.ID, other.ID, leadPost, 8)
	if got := e.zscore(t, e.s.keys.Score(), lead.ID); r.Score != got {
		t.Errorf("vote reports score %v, ranking holds %v", r.Score, got)
	}
	if v, err := e.s.VotesOf(e.ctx, "u1", lead.ID); err != nil || v[lead.ID] != Down {
		t.Errorf("VotesOf u1 = %v %v", v, err)
	}

	// A re-crawl of a member moves its change to the story and does not rank it.
	a := storyArticle("https://b.example.com/1", "To fight inflation, central bank raises interest rates", "", "B", leadPost.Add(time.Hour))
	a.Comments = 10
	if up := e.ingest(t, a); up.Status != Updated || up.Votes != 13 {
		t.Errorf("re-crawl of copy1: %+v", up)
	}
	if _, err := e.s.Refresh(e.ctx, []Engagement{{URL: "https://d.example.com/1", Comments: 2}}); err != nil {
		t.Fatal(err)
	}
	checkStoryRanking(t, e, lead.ID, other.ID, leadPost, 15)

	// Listings: exact pages of leads, by score and in the group.
	p, err := e.s.List(e.ctx, ByScore, 1, 1)
	if err != nil || p.Total != 2 || p.Pages != 2 || len(p.Items) != 1 {
		t.Fatalf("page 1 of 2: %+v %v", p, err)
	}
	p2, err := e.s.List(e.ctx, ByTime, 1, 10)
	if err != nil || !slices.Equal(ids(p2.Items), []string{other.ID, lead.ID}) {
		t.Fatalf("by time: %v %v", ids(p2.Items), err)
	}
	if it := p2.Items[1]; it.StoryVotes != 15 || it.Up != 1 || it.Down != 1 || len(it.Also) != 2 {
		t.Errorf("lead item: %+v", it)
	}
	g, err := e.s.GroupList(e.ctx, "g", ByScore, 1, 10)
	if err != nil || g.Total != 2 {
		t.Fatalf("group: %+v %v", g, err)
	}

	// The rebuild scores leads from their story votes.
	e.clock.Advance(time.Hour)
	if _, err := e.s.Rebuild(e.ctx, RebuildOptions{}); err != nil {
		t.Fatal(err)
	}
	checkStoryRanking(t, e, lead.ID, other.ID, leadPost, 15)

	// A closed story takes no votes; the prune removes it with its lead.
	e.clock.Set(leadPost.Add(e.s.Window() + time.Minute))
	if _, err := e.s.Vote(e.ctx, "u3", copy2.ID, Up); err == nil {
		t.Error("vote on a member of a closed story accepted")
	}
	res, err := e.s.Prune(e.ctx, e.clock.Now(), PruneOptions{})
	if err != nil || res.Removed != 1 {
		t.Fatalf("prune: %+v %v", res, err)
	}
	for _, key := range []string{e.s.keys.Story(lead.ID), e.s.keys.Article(copy1.ID), e.s.keys.Article(copy2.ID), e.s.keys.Voted(lead.ID)} {
		if n := e.c.Exists(e.ctx, key).Val(); n != 0 {
			t.Errorf("%s left after the prune", key)
		}
	}
	if m := e.c.SMembers(e.ctx, e.s.keys.Group("g")).Val(); !slices.Equal(m, []string{other.ID}) {
		t.Errorf("group g holds %v after the prune", m)
	}
}

// A copy of a closed story (its lead older than the window) starts a new one.
func TestRankByStoryClosedLead(t *testing.T) {
	e, lead, _, _, _, leadPost := storyRankEnv(t)
	e.clock.Set(leadPost.Add(e.s.Window() + time.Minute))
	late := e.ingest(t, storyArticle("https://e.example.com/1", "Central bank raises interest rates to fight inflation",
		"The central bank raised its main interest rate by half a point on Tuesday, citing inflation.", "E", e.clock.Now()))
	if late.Story == lead.ID {
		t.Errorf("a copy joined the closed story %s", lead.ID)
	}
	if n := e.c.ZScore(e.ctx, e.s.keys.Time(), late.ID).Val(); n == 0 {
		t.Error("the copy of a closed story is not ranked")
	}
}

// Copies ingested in one batch form one story, ranked once with their
// votes summed.
func TestRankByStoryOneBatch(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory; o.CommentWeight = 1 })
	post := t0.Add(-time.Hour)
	const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	as := []Article{
		storyArticle("https://a.example.com/1", "Central bank raises interest rates to fight inflation", sum, "A", post),
		storyArticle("https://b.example.com/1", "To fight inflation, central bank raises interest rates", sum, "B", post.Add(time.Minute)),
		storyArticle("https://d.example.com/1", "Central Bank Raises Interest Rates To Fight Inflation!", sum, "D", post.Add(2*time.Minute)),
	}
	for i := range as {
		as[i].Comments = int64(i + 2)
	}
	rs, err := e.s.IngestBatch(e.ctx, as)
	if err != nil {
		t.Fatal(err)
	}
	if rs[1].Story != rs[0].ID || rs[2].Story != rs[0].ID {
		t.Fatalf("stories %q %q, want %s", rs[1].Story, rs[2].Story, rs[0].ID)
	}
	if n := e.c.ZCard(e.ctx, e.s.keys.Score()).Val(); n != 1 {
		t.Errorf("score: holds %d, want the lead only", n)
	}
	if got, want := e.zscore(t, e.s.keys.Score(), rs[0].ID), e.s.formula.Score(post, 9, t0); got != want {
		t.Errorf("story score %v, want %v (9 votes at the lead's time)", got, want)
	}
}
