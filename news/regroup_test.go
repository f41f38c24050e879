package news

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/termvec"
)

// The reports of the test events: each event's articles share their
// facts in other words.
var (
	quake = []Article{
		{Title: "Magnitude 7.1 earthquake strikes off Chile's coast, tsunami warning issued",
			Summary: "A strong earthquake struck off the coast of central Chile on Tuesday, and authorities issued a tsunami warning for coastal towns.",
			Lead:    "The magnitude 7.1 quake hit at a depth of 30 kilometres near Valparaiso, the geological survey said. Residents of coastal towns were told to move to higher ground."},
		{Title: "Chile quake of magnitude 7.1 shakes Valparaiso, coast told to move to higher ground",
			Summary: "Central Chile was shaken by a magnitude 7.1 earthquake on Tuesday; a tsunami warning was issued for the coast.",
			Lead:    "The earthquake struck near Valparaiso at a depth of 30 kilometres, according to the geological survey, and coastal residents were told to seek higher ground."},
		{Title: "Tsunami warning after 7.1 earthquake hits central Chile near Valparaiso",
			Summary: "Authorities in Chile warned of a tsunami after a magnitude 7.1 earthquake struck offshore on Tuesday.",
			Lead:    "The quake, 30 kilometres deep, was centred off Valparaiso, the survey said; people in coastal towns moved to higher ground as sirens sounded."},
		{Title: "Earthquake of 7.1 off Valparaiso: Chile issues tsunami warning for its coast",
			Summary: "A magnitude 7.1 earthquake off central Chile on Tuesday prompted a tsunami warning along the coast.",
			Lead:    "Sirens sounded in coastal towns near Valparaiso after the quake, which struck 30 kilometres deep; residents headed for higher ground."},
		{Title: "Chile: tsunami alert lifted hours after magnitude 7.1 quake near Valparaiso",
			Summary: "The tsunami warning issued after Tuesday's magnitude 7.1 earthquake off central Chile was lifted.",
			Lead:    "Coastal residents near Valparaiso returned home after the quake; the survey measured it 30 kilometres deep."},
	}
	rates = []Article{
		{Title: "Chile's central bank raises interest rate to 6.5% to curb inflation",
			Summary: "Chile's central bank raised its benchmark interest rate by half a point to 6.5% on Tuesday, citing stubborn inflation.",
			Lead:    "The board voted unanimously for the increase, saying inflation in services had not eased. Economists had expected the hike."},
	}
	// misfit is a report of the rate hike that mentions the quake: it
	// shares terms with both stories
	misfit = Article{Title: "Chile's central bank raises its rate a day after Valparaiso earthquake",
		Summary: "Chile's central bank raised its benchmark interest rate by half a point to 6.5%, unmoved by the earthquake near Valparaiso.",
		Lead:    "The board voted unanimously for the hike; services inflation has not eased, it said, and the quake's damage is still being counted."}
	football = []Article{
		{Title: "Colo-Colo win Chilean league title after late goal in Santiago final",
			Summary: "A goal in stoppage time gave Colo-Colo the league title in front of a full stadium in Santiago.",
			Lead:    "The striker headed in a corner in the 93rd minute; fans invaded the pitch at the final whistle."},
	}
)

// report returns an article of an event at url n, posted at post.
func report(a Article, n int, source string, post time.Time) Article {
	a.URL = fmt.Sprintf("https://%s.example.com/news/%d", strings.ToLower(source), n)
	a.Source, a.PostTime, a.CrawlTime = source, post, post
	return a
}

// regroupEnv is a store ranking by story (env.s) and, on the same keys,
// a store that groups nothing (apart: its threshold is out of reach) and
// one that groups everything it compares (loose), to make the stories
// an ingest splits and mis-files.
type regroupEnv struct {
	*env
	act          *board.Activity
	apart, loose *Store
	// capped: the index lists may have reached their cap (perkey) and
	// lost a story since (a prune, a merge or a move took one out), so
	// that a list shorter than the cap may lack a story it dropped when
	// full: the audit does not ask for every story under every term
	capped bool
}

// storyOptions is how the regroup tests' stores rank: by story, a
// comment worth a vote.
func storyOptions(o *Options) { o.RankBy, o.CommentWeight = RankByStory, 1 }

func newRegroupEnv(t *testing.T) *regroupEnv {
	t.Helper()
	return regroupEnvOn(t, newEnv(t, storyOptions), "test:")
}

// regroupEnvOn adds to e (a store ranking by story under prefix) the
// stores apart and loose and activity boards.
func regroupEnvOn(t *testing.T, e *env, prefix string) *regroupEnv {
	t.Helper()
	with := func(min float64) *Store {
		o := e.s.opts
		o.StoryMinSimilarity = min
		s, err := New(e.c, prefix, o, WithClock(e.clock), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cfg := board.DefaultOptions()
	cfg.Location = time.UTC
	act, err := board.NewActivity(e.c, prefix, cfg, board.WithClock(e.clock))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(e.c, prefix, e.s.opts, WithClock(e.clock), WithLogger(slog.New(slog.NewTextHandler(t.Output(), nil))), WithActivity(act))
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	return &regroupEnv{env: e, act: act, apart: with(1.01), loose: with(0.001)}
}

func (e *regroupEnv) ingestOn(t *testing.T, s *Store, a Article) IngestResult {
	t.Helper()
	r, err := s.Ingest(e.ctx, a)
	if err != nil {
		t.Fatalf("ingest %s: %v", a.URL, err)
	}
	return r
}

// split ingests the quake story split in two: a1, a2 (one story) and
// b1, b2 (another: b1 kept apart, b2 its copy), and the football report
// alone; posted from 6 hours before now.
func (e *regroupEnv) split(t *testing.T) (a1, a2, b1, b2, other IngestResult) {
	t.Helper()
	post := t0.Add(-6 * time.Hour)
	a1 = e.ingest(t, report(quake[0], 1, "Alpha", post))
	a2 = e.ingest(t, report(quake[1], 2, "Beta", post.Add(30*time.Minute)))
	b1 = e.ingestOn(t, e.apart, report(quake[2], 3, "Gamma", post.Add(time.Hour)))
	b2 = e.ingest(t, report(quake[2], 4, "Delta", post.Add(90*time.Minute)))
	other = e.ingest(t, report(football[0], 5, "Epsilon", post.Add(2*time.Hour)))
	if a2.Story != a1.ID || b1.Story != "" || b2.Story != b1.ID || other.Story != "" {
		t.Fatalf("stories after the ingest: a2 %q (want %s), b1 %q (want none), b2 %q (want %s), other %q (want none)",
			a2.Story, a1.ID, b1.Story, b2.Story, b1.ID, other.Story)
	}
	return a1, a2, b1, b2, other
}

func (e *regroupEnv) regroup(t *testing.T, o RegroupOptions) RegroupResult {
	t.Helper()
	res, err := e.s.Regroup(e.ctx, o)
	if err != nil {
		t.Fatalf("regroup: %v", err)
	}
	return res
}

// members returns the members of story lead, sorted.
func (e *env) members(t *testing.T, lead string) []string {
	t.Helper()
	m, err := e.c.HKeys(e.ctx, e.s.keys.Story(lead)).Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(m)
	return m
}

// ranked returns the ids of key (time:, votes:, score:), sorted.
func (e *env) ranked(t *testing.T, key string) []string {
	t.Helper()
	ids, err := e.c.ZRange(e.ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

func sorted(ids ...string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// checkStory checks that story lead has exactly members, that each of
// them names it, that only lead of them is ranked, with the sum of the
// members' own votes scored at its post time, and that the story's key
// and hashes expire at the latest member's post time + window + grace.
func (e *env) checkStory(t *testing.T, lead string, members ...string) {
	t.Helper()
	want := sorted(append(members, lead)...)
	if got := e.members(t, lead); !slices.Equal(got, want) {
		t.Errorf("story %s has %v, want %v", lead, got, want)
	}
	k := e.s.keys
	sum, last := 0.0, int64(0)
	for _, id := range want {
		h := e.c.HMGet(e.ctx, k.Article(id), "story", "votes", "time").Val()
		if h[0] != lead {
			t.Errorf("article %s has story %v, want %s", id, h[0], lead)
		}
		var v float64
		var pt int64
		fmt.Sscan(h[1].(string), &v)
		fmt.Sscan(h[2].(string), &pt)
		sum, last = sum+v, max(last, pt)
		if id != lead {
			for _, key := range []string{k.Time(), k.Votes(), k.Score()} {
				if e.c.ZScore(e.ctx, key, id).Err() != redis.Nil {
					t.Errorf("member %s is in %s", id, key)
				}
			}
		}
	}
	lh := e.c.HMGet(e.ctx, k.Article(lead), "svotes", "time").Val()
	var sv float64
	var lt int64
	fmt.Sscan(lh[0].(string), &sv)
	fmt.Sscan(lh[1].(string), &lt)
	if sv != sum {
		t.Errorf("story %s svotes %v, want the sum of its members' votes %v", lead, sv, sum)
	}
	if got := e.zscore(t, k.Votes(), lead); got != sum {
		t.Errorf("votes: of %s = %v, want %v", lead, got, sum)
	}
	if got, want := e.zscore(t, k.Score(), lead), e.s.formula.Score(time.Unix(lt, 0), sum, e.clock.Now()); got != want {
		t.Errorf("score: of %s = %v, want %v", lead, got, want)
	}
	wantTTL := time.Unix(last, 0).Add(e.s.opts.Window + Grace).Sub(e.clock.Now())
	for _, key := range append([]string{k.Story(lead)}, func() []string {
		var ks []string
		for _, id := range want {
			ks = append(ks, k.Article(id))
		}
		return ks
	}()...) {
		ttl := e.c.TTL(e.ctx, key).Val()
		if d := ttl - wantTTL; d < -5*time.Second || d > 5*time.Second {
			t.Errorf("TTL of %s = %v, want %v", key, ttl, wantTTL)
		}
	}
}

func TestRegroupMergesSplitStory(t *testing.T) {
	e := newRegroupEnv(t)
	a1, a2, b1, b2, other := e.split(t)
	k := e.s.keys
	ver := e.c.HGet(e.ctx, k.StoryIndexVersion(), "n").Val()
	res := e.regroup(t, DefaultRegroupOptions())
	if res.Merged != 1 || res.Joined != 0 || res.Moved != 0 || len(res.Steps) != 1 {
		t.Fatalf("regroup: %+v, want one merge", res)
	}
	st := res.Steps[0]
	if st.Kind != "merge" || st.Into.ID != a1.ID || st.From.ID != b1.ID || st.Into.Size != 2 || st.From.Size != 2 {
		t.Errorf("step %+v, want %s (2) <- %s (2)", st, a1.ID, b1.ID)
	}
	if !slices.Equal(st.Into.Sources, []string{"Alpha", "Beta"}) || !slices.Equal(st.From.Sources, []string{"Gamma", "Delta"}) ||
		st.Into.Title != quake[0].Title {
		t.Errorf("step reports %+v and %+v", st.Into, st.From)
	}
	if res.Stories != 3 || res.Articles != 5 {
		t.Errorf("examined %d stories, %d articles; want 3, 5", res.Stories, res.Articles)
	}
	e.checkStory(t, a1.ID, a2.ID, b1.ID, b2.ID)
	if got, want := e.ranked(t, k.Time()), sorted(a1.ID, other.ID); !slices.Equal(got, want) {
		t.Errorf("time: holds %v, want %v", got, want)
	}
	if n := e.c.Exists(e.ctx, k.Story(b1.ID), k.Voted(b1.ID)).Val(); n != 0 {
		t.Errorf("the absorbed story's keys remain: %d", n)
	}
	if h := e.c.HMGet(e.ctx, k.Article(b1.ID), "svotes", "cv", "slast").Val(); h[0] != nil || h[1] != nil || h[2] != nil {
		t.Errorf("the absorbed lead keeps %v", h)
	}
	// the lead keeps the merged centroid; the index lists it in place of
	// the absorbed lead; the version moved, so planned ingests plan again
	cv, err := termvec.Parse(e.c.HGet(e.ctx, k.Article(a1.ID), "cv").Val())
	if err != nil || len(cv) == 0 {
		t.Errorf("centroid %v, %v", cv, err)
	}
	idx := e.c.HGetAll(e.ctx, k.StoryIndex()).Val()
	for term, l := range idx {
		if strings.Contains(l, b1.ID) {
			t.Errorf("index term %q still lists the absorbed lead: %s", term, l)
		}
	}
	if v := e.c.HGet(e.ctx, k.StoryIndexVersion(), "n").Val(); v == ver {
		t.Errorf("index version %s did not move", v)
	}
	// a copy ingested now joins the merged story
	c := e.ingest(t, report(quake[3], 6, "Zeta", t0.Add(-time.Hour)))
	if c.Story != a1.ID {
		t.Errorf("a new copy joined %q, want %s", c.Story, a1.ID)
	}
	// a second run has nothing to do
	if again := e.regroup(t, DefaultRegroupOptions()); len(again.Steps) != 0 {
		t.Errorf("second run: %+v", again.Steps)
	}
}

func TestRegroupJoinsArticleAlone(t *testing.T) {
	e := newRegroupEnv(t)
	post := t0.Add(-6 * time.Hour)
	// the lone copy is the older: the story joins it, and it leads
	x := e.ingestOn(t, e.apart, report(quake[4], 1, "Alpha", post))
	s1 := e.ingestOn(t, e.apart, report(quake[0], 2, "Beta", post.Add(time.Hour)))
	s2 := e.ingest(t, report(quake[0], 3, "Gamma", post.Add(2*time.Hour)))
	if s2.Story != s1.ID {
		t.Fatalf("s2 joined %q, want %s", s2.Story, s1.ID)
	}
	res := e.regroup(t, DefaultRegroupOptions())
	if res.Joined != 1 || len(res.Steps) != 1 || res.Steps[0].Into.ID != x.ID || res.Steps[0].From.ID != s1.ID {
		t.Fatalf("regroup: %+v, want %s joined by %s", res.Steps, x.ID, s1.ID)
	}
	e.checkStory(t, x.ID, s1.ID, s2.ID)
}

func TestRegroupMovesMisfiledArticle(t *testing.T) {
	e := newRegroupEnv(t)
	post := t0.Add(-6 * time.Hour)
	s1 := e.ingest(t, report(quake[0], 1, "Alpha", post))
	s2 := e.ingest(t, report(quake[1], 2, "Beta", post.Add(10*time.Minute)))
	// x, about the rate hike, joins the quake story (the loose store
	// takes any candidate): the rates story is not there yet, though
	// posted before x (a crawl read x first)
	x := e.ingestOn(t, e.loose, report(misfit, 3, "Gamma", post.Add(4*time.Hour)))
	t1 := e.ingestOn(t, e.apart, report(rates[0], 4, "Delta", post.Add(2*time.Hour)))
	t2 := e.ingest(t, report(rates[0], 5, "Epsilon", post.Add(3*time.Hour)))
	if s2.Story != s1.ID || x.Story != s1.ID || t1.Story != "" || t2.Story != t1.ID {
		t.Fatalf("stories after the ingest: s2 %q x %q (want %s), t1 %q (want none), t2 %q (want %s)",
			s2.Story, x.Story, s1.ID, t1.Story, t2.Story, t1.ID)
	}
	res := e.regroup(t, DefaultRegroupOptions())
	if res.Moved != 1 || len(res.Steps) != 1 {
		t.Fatalf("regroup: %+v, want one move", res.Steps)
	}
	st := res.Steps[0]
	if st.Kind != "move" || st.Article == nil || st.Article.ID != x.ID || st.From.ID != s1.ID || st.Into.ID != t1.ID ||
		st.Score < st.Own+grouping.DefaultMargin {
		t.Errorf("step %+v (article %+v), want %s from %s to %s by the margin", st, st.Article, x.ID, s1.ID, t1.ID)
	}
	e.checkStory(t, s1.ID, s2.ID)
	e.checkStory(t, t1.ID, t2.ID, x.ID)
	if again := e.regroup(t, DefaultRegroupOptions()); len(again.Steps) != 0 {
		t.Errorf("second run: %+v", again.Steps)
	}
}

// TestRegroupMoveDissolves: an article moved out of a story of two
// leaves its lead alone, ranked by its own votes, with no story.
func TestRegroupMoveDissolves(t *testing.T) {
	e := newRegroupEnv(t)
	post := t0.Add(-6 * time.Hour)
	s1 := e.ingest(t, report(quake[0], 1, "Alpha", post))
	x := e.ingestOn(t, e.loose, report(misfit, 2, "Beta", post.Add(4*time.Hour)))
	t1 := e.ingestOn(t, e.apart, report(rates[0], 3, "Gamma", post.Add(2*time.Hour)))
	t2 := e.ingest(t, report(rates[0], 4, "Delta", post.Add(3*time.Hour)))
	if x.Story != s1.ID || t2.Story != t1.ID {
		t.Fatalf("stories after the ingest: x %q (want %s), t2 %q (want %s)", x.Story, s1.ID, t2.Story, t1.ID)
	}
	if _, err := e.s.Vote(e.ctx, "u1", s1.ID, Up); err != nil {
		t.Fatal(err)
	}
	res := e.regroup(t, DefaultRegroupOptions())
	if res.Moved != 1 {
		t.Fatalf("regroup: %+v, want one move", res.Steps)
	}
	k := e.s.keys
	if n := e.c.Exists(e.ctx, k.Story(s1.ID)).Val(); n != 0 {
		t.Error("the story left alone keeps its key")
	}
	h := e.c.HMGet(e.ctx, k.Article(s1.ID), "story", "svotes", "cv", "slast", "votes", "time").Val()
	if h[0] != nil || h[1] != nil || h[2] != nil || h[3] != nil {
		t.Errorf("the lead left alone keeps story fields %v", h[:4])
	}
	var own float64
	var pt int64
	fmt.Sscan(h[4].(string), &own)
	fmt.Sscan(h[5].(string), &pt)
	if got := e.zscore(t, k.Votes(), s1.ID); got != own || own != 1 {
		t.Errorf("votes: of the lead alone = %v, its own votes %v, want 1", got, own)
	}
	if got, want := e.zscore(t, k.Score(), s1.ID), e.s.formula.Score(time.Unix(pt, 0), own, e.clock.Now()); got != want {
		t.Errorf("score: of the lead alone = %v, want %v", got, want)
	}
	if ttl, want := e.c.TTL(e.ctx, k.Article(s1.ID)).Val(), time.Unix(pt, 0).Add(e.s.opts.Window+Grace).Sub(e.clock.Now()); ttl-want > 5*time.Second || want-ttl > 5*time.Second {
		t.Errorf("TTL of the lead alone = %v, want %v", ttl, want)
	}
	e.checkStory(t, t1.ID, t2.ID, x.ID)
}

func (e *regroupEnv) vote(t *testing.T, user, id string, d Dir) VoteResult {
	t.Helper()
	r, err := e.s.Vote(e.ctx, user, id, d)
	if err != nil {
		t.Fatalf("vote %s by %s on %s: %v", d, user, id, err)
	}
	return r
}

// points returns user's points on today's activity board.
func (e *regroupEnv) points(t *testing.T, user string) int64 {
	t.Helper()
	en, _, err := e.act.Rank(e.ctx, user, board.Day, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return en.Score
}

// TestRegroupKeepsVotesExact merges two stories both voted on: a user
// who voted on both keeps exactly one vote, the one on the story that
// takes the other (up/up, up/down, down/up), the others' votes move, and
// the story's votes are the two stories' minus the doubles.
func TestRegroupKeepsVotesExact(t *testing.T) {
	e := newRegroupEnv(t)
	post := t0.Add(-6 * time.Hour)
	withComments := func(a Article, n int64) Article { a.Comments = n; return a }
	a1 := e.ingest(t, withComments(report(quake[0], 1, "Alpha", post), 3))
	a2 := e.ingest(t, report(quake[1], 2, "Beta", post.Add(30*time.Minute)))
	b1 := e.ingestOn(t, e.apart, withComments(report(quake[2], 3, "Gamma", post.Add(time.Hour)), 2))
	b2 := e.ingest(t, withComments(report(quake[2], 4, "Delta", post.Add(90*time.Minute)), 5))
	if a2.Story != a1.ID || b1.Story != "" || b2.Story != b1.ID {
		t.Fatalf("stories after the ingest: a2 %q b1 %q b2 %q", a2.Story, b1.Story, b2.Story)
	}
	votes := []struct {
		user string
		on   string
		dir  Dir
	}{
		{"u1", a2.ID, Up}, {"u1", b1.ID, Up}, // up/up
		{"u2", a1.ID, Up}, {"u2", b2.ID, Down}, // up/down
		{"u3", a1.ID, Down}, {"u3", b1.ID, Up}, // down/up
		{"u4", b2.ID, Up}, {"u5", b1.ID, Down}, // on the absorbed story only
		{"u6", a1.ID, Up}, // on the other only
	}
	for _, v := range votes {
		e.vote(t, v.user, v.on, v.dir)
	}
	k := e.s.keys
	// A: up u1 u2 u6, down u3, 3 comments: 5; B: up u1 u3 u4, down u2
	// u5, 2 + 5 comments: 8
	if a, b := e.zscore(t, k.Votes(), a1.ID), e.zscore(t, k.Votes(), b1.ID); a != 5 || b != 8 {
		t.Fatalf("story votes before %v and %v, want 5 and 8", a, b)
	}
	pointsBefore := map[string]int64{}
	for _, u := range []string{"u1", "u2", "u3", "u4", "u5", "u6"} {
		pointsBefore[u] = e.points(t, u)
	}
	res := e.regroup(t, DefaultRegroupOptions())
	if res.Merged != 1 || len(res.Steps) != 1 {
		t.Fatalf("regroup: %+v, want one merge", res)
	}
	// the doubles' votes on B (u1 +1, u2 -1, u3 +1) go: 5 + 8 - 1
	st := res.Steps[0]
	if st.Doubles != 3 || st.Votes != 12 || st.Into.Votes != 5 || st.From.Votes != 8 {
		t.Errorf("step: doubles %d, votes %v (from %v + %v), want 3, 12 (5 + 8)", st.Doubles, st.Votes, st.Into.Votes, st.From.Votes)
	}
	e.checkStory(t, a1.ID, a2.ID, b1.ID, b2.ID)
	if got := e.zscore(t, k.Votes(), a1.ID); got != 12 {
		t.Errorf("story votes %v, want 12", got)
	}
	voted := e.c.HGetAll(e.ctx, k.Voted(a1.ID)).Val()
	want := map[string]string{"u1": "1", "u2": "1", "u3": "-1", "u4": "1", "u5": "-1", "u6": "1"}
	if fmt.Sprint(voted) != fmt.Sprint(want) {
		t.Errorf("voted: of the story %v, want %v", voted, want)
	}
	h := e.c.HMGet(e.ctx, k.Article(a1.ID), "up", "down").Val()
	if h[0] != "4" || h[1] != "2" {
		t.Errorf("story up/down %v/%v, want 4/2", h[0], h[1])
	}
	h = e.c.HMGet(e.ctx, k.Article(b1.ID), "up", "down", "votes").Val()
	if h[0] != "0" || h[1] != "0" || h[2] != "2" {
		t.Errorf("absorbed lead up/down/votes %v, want 0/0/2 (its comments)", h)
	}
	if ttl, want := e.c.TTL(e.ctx, k.Voted(a1.ID)).Val(), post.Add(e.s.opts.Window+Grace).Sub(e.clock.Now()); ttl-want > 5*time.Second || want-ttl > 5*time.Second {
		t.Errorf("TTL of voted: %v, want %v", ttl, want)
	}
	// like points: one like per user per story, on the story kept
	wantPoints := map[string]int64{"u1": pointsBefore["u1"] - 2, "u2": pointsBefore["u2"], "u3": pointsBefore["u3"] - 2,
		"u4": pointsBefore["u4"], "u5": pointsBefore["u5"], "u6": pointsBefore["u6"]}
	for u, p := range wantPoints {
		if got := e.points(t, u); got != p {
			t.Errorf("%s has %d points, want %d (before the merge %d)", u, got, p, pointsBefore[u])
		}
	}
	if res.Unreported != 0 {
		t.Errorf("%d like reports failed", res.Unreported)
	}
	// a user votes again through an article of the absorbed story: the
	// vote they kept is the one switched
	r := e.vote(t, "u4", b2.ID, Down)
	if r.Story != a1.ID || r.Previous != Up || r.Up != 3 || r.Down != 3 || r.Votes != 10 {
		t.Errorf("vote after the merge: %+v, want story %s, previous up, 3/3, votes 10", r, a1.ID)
	}
	r = e.vote(t, "u2", b1.ID, Down)
	if r.Previous != Up || r.Up != 2 || r.Down != 4 || r.Votes != 8 {
		t.Errorf("u2 switching: %+v, want previous up, 2/4, votes 8", r)
	}
	if u3 := e.points(t, "u4"); u3 != wantPoints["u4"]-2 {
		t.Errorf("u4 has %d points after cancelling their like, want %d", u3, wantPoints["u4"]-2)
	}
}

// keep the context import used by later tests of this file
var _ = context.Background

// TestRegroupSplitsAStoryOut: two quake reports read after a later
// report of a port strike joined its story (the loose store takes any
// candidate);
// in publication order they are a story of their own. The regroup takes
// the older out to lead its own story (split) and moves the other to it;
// the strike report keeps its id, rank and votes, and a second run plans
// nothing.
func TestRegroupSplitsAStoryOut(t *testing.T) {
	e := newRegroupEnv(t)
	// the strike report, read first, posted three days after the quake:
	// the two score far below the threshold (the span's decay), and the
	// quake reports join it only by the loose store
	strike := Article{Title: "Dock workers walk out over pay at San Antonio port in Chile",
		Summary: "Workers at Chile's biggest port walked out demanding higher pay.",
		Lead:    "The port authority said ships were diverted while talks went on."}
	r := e.ingest(t, report(strike, 1, "Alpha", t0.Add(-6*time.Hour)))
	q1 := e.ingestOn(t, e.loose, report(quake[0], 2, "Beta", t0.Add(-80*time.Hour)))
	q2 := e.ingestOn(t, e.loose, report(quake[1], 3, "Gamma", t0.Add(-79*time.Hour)))
	if q1.Story != r.ID || q2.Story != r.ID {
		t.Fatalf("stories after the ingest: q1 %q q2 %q, want %s", q1.Story, q2.Story, r.ID)
	}
	e.vote(t, "u1", r.ID, Up)
	e.vote(t, "u2", r.ID, Up)
	res := e.regroup(t, DefaultRegroupOptions())
	if res.Split != 1 || res.Moved != 1 || len(res.Steps) != 2 || res.Steps[0].Kind != "split" || res.Steps[0].Article.ID != q1.ID {
		t.Fatalf("regroup: %+v, want q1 split out and q2 moved to it", res.Steps)
	}
	e.checkStory(t, q1.ID, q2.ID)
	k := e.s.keys
	if h := e.c.HMGet(e.ctx, k.Article(r.ID), "story", "svotes").Val(); h[0] != nil || h[1] != nil {
		t.Errorf("the strike report alone keeps story %v svotes %v", h[0], h[1])
	}
	if got := e.zscore(t, k.Votes(), r.ID); got != 2 {
		t.Errorf("the strike report's votes %v, want its 2", got)
	}
	for _, id := range []string{r.ID, q1.ID} {
		if e.c.ZScore(e.ctx, k.Time(), id).Err() != nil {
			t.Errorf("%s not ranked", id)
		}
	}
	if e.c.ZScore(e.ctx, k.Time(), q2.ID).Err() != redis.Nil {
		t.Errorf("the member %s is ranked", q2.ID)
	}
	if again := e.regroup(t, DefaultRegroupOptions()); len(again.Steps) != 0 {
		t.Errorf("second run: %+v", again.Steps)
	}
}
