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
		{Title: "Banco Central de Chile lifts benchmark rate half a point to 6.5% as inflation lingers",
			Summary: "The central bank of Chile increased its benchmark interest rate to 6.5% on Tuesday because inflation is stubborn.",
			Lead:    "Board members voted unanimously; services inflation has not eased, the bank said, in a hike economists expected."},
		{Title: "Chile rate hike: central bank takes benchmark to 6.5%, inflation in services sticky",
			Summary: "Chile's central bank raised its interest rate by half a point to 6.5%, as economists had expected.",
			Lead:    "The unanimous decision of the board follows months of stubborn services inflation, the central bank said on Tuesday."},
	}
	// misfit is a report of the rate hike that mentions the quake: it
	// shares terms with both stories
	misfit = Article{Title: "Chile's central bank raises rate to 6.5% a day after Valparaiso earthquake",
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
	apart, loose *Store
}

func newRegroupEnv(t *testing.T, mod func(*Options)) *regroupEnv {
	t.Helper()
	e := newEnv(t, func(o *Options) {
		o.RankBy, o.CommentWeight = RankByStory, 1
		if mod != nil {
			mod(o)
		}
	})
	with := func(min float64) *Store {
		o := e.s.opts
		o.StoryMinSimilarity = min
		s, err := New(e.c, "test:", o, WithClock(e.clock), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return &regroupEnv{env: e, apart: with(1.01), loose: with(0.001)}
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
	e := newRegroupEnv(t, nil)
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
	e := newRegroupEnv(t, nil)
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
	e := newRegroupEnv(t, nil)
	post := t0.Add(-6 * time.Hour)
	s1 := e.ingest(t, report(quake[0], 1, "Alpha", post))
	s2 := e.ingest(t, report(quake[1], 2, "Beta", post.Add(10*time.Minute)))
	// x, about the rate hike, joins the quake story (the loose store
	// takes any candidate): the rates story is not there yet
	x := e.ingestOn(t, e.loose, report(misfit, 3, "Gamma", post.Add(time.Hour)))
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
	e := newRegroupEnv(t, nil)
	post := t0.Add(-6 * time.Hour)
	s1 := e.ingest(t, report(quake[0], 1, "Alpha", post))
	x := e.ingestOn(t, e.loose, report(misfit, 2, "Beta", post.Add(time.Hour)))
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

// keep the context import used by later tests of this file
var _ = context.Background
