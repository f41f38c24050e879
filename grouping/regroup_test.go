package grouping

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/termvec"
)

// testParams are fixed here, so that these tests do not move with the
// tuning of DefaultParams.
func testParams() Params {
	p := DefaultParams
	p.MinSimilarity, p.CrossMinSimilarity = 0.3, 0.5
	p.Stale, p.HalfLife = 36*time.Hour, 24*time.Hour
	p.FigureVeto, p.WeekdayVeto = true, true
	return p
}

var testOpts = RegroupOptions{Margin: 0.1, MergeMargin: 0.05, Window: 7 * 24 * time.Hour}

// vec builds a unit vector from "term:weight" fields (weight 1 when
// left out).
func vec(spec string) termvec.Vector {
	var v termvec.Vector
	for _, f := range strings.Fields(spec) {
		term, w, ok := strings.Cut(f, ":")
		x := 1.0
		if ok {
			var err error
			if x, err = strconv.ParseFloat(w, 64); err != nil {
				panic(err)
			}
		}
		v = append(v, termvec.Entry{Term: term, W: x})
	}
	slices.SortFunc(v, func(a, b termvec.Entry) int { return cmp.Compare(a.Term, b.Term) })
	n := v.Norm()
	for i := range v {
		v[i].W /= n
	}
	return v
}

const hour = int64(3600)

func m(id string, t int64, spec string) Member {
	return Member{ID: id, Time: t, Vector: vec(spec)}
}

func cluster(ms ...Member) Cluster { return Cluster{Members: ms} }

// kinds sums a plan up as "kind into<-from" (and the article of a move).
func kinds(p Plan) []string {
	var out []string
	for _, st := range p.Steps {
		s := st.Kind.String() + " " + st.Into + "<-" + st.From
		if st.Kind == Move || st.Kind == Split {
			s += " " + st.Article
		}
		out = append(out, s)
	}
	return out
}

func TestRegroupMergesASplitStory(t *testing.T) {
	p := testParams()
	cs := []Cluster{
		cluster(m("b1", 3*hour, "quake:3 chile:2 tsunami:2 magnitude"), m("b2", 4*hour, "quake:3 chile:2 tsunami coast")),
		cluster(m("a1", 1*hour, "quake:3 chile:2 magnitude:2 santiago"), m("a2", 2*hour, "quake:2 chile:2 magnitude santiago")),
		cluster(m("c1", 2*hour, "election:3 vote:2 parliament")),
	}
	plan := p.Regroup(cs, testOpts)
	if got, want := kinds(plan), []string{"merge a1<-b1"}; !slices.Equal(got, want) {
		t.Fatalf("steps %q, want %q", got, want)
	}
	st := plan.Steps[0]
	if !slices.Equal(st.IntoMembers, []string{"a1", "a2"}) || !slices.Equal(st.FromMembers, []string{"b1", "b2"}) {
		t.Errorf("members before the merge: into %v from %v", st.IntoMembers, st.FromMembers)
	}
	if st.IntoLast != 4*hour {
		t.Errorf("latest member after the merge at %d, want %d", st.IntoLast, 4*hour)
	}
	all, _ := sum([]Member{cs[1].Members[0], cs[1].Members[1], cs[0].Members[0], cs[0].Members[1]})
	want := top(all, p.MaxCentroid)
	if !slices.Equal(st.IntoCentroid, want) {
		t.Errorf("centroid after the merge %v, want the sum of the four members %v", st.IntoCentroid, want)
	}
	if plan.Stories != 3 || plan.Articles != 5 {
		t.Errorf("examined %d stories, %d articles; want 3, 5", plan.Stories, plan.Articles)
	}
}

func TestRegroupJoinsAnArticleAlone(t *testing.T) {
	p := testParams()
	// alone and newer: it joins the story
	plan := p.Regroup([]Cluster{
		cluster(m("s1", 1*hour, "strike:3 rail:2 union:2"), m("s2", 2*hour, "strike:3 rail:2 union")),
		cluster(m("x", 3*hour, "strike:3 rail:2 union:2 pay")),
	}, testOpts)
	if got, want := kinds(plan), []string{"join s1<-x"}; !slices.Equal(got, want) {
		t.Errorf("newer article alone: steps %q, want %q", got, want)
	}
	// alone and older: the story joins it, and it leads the story
	plan = p.Regroup([]Cluster{
		cluster(m("s1", 2*hour, "strike:3 rail:2 union:2"), m("s2", 3*hour, "strike:3 rail:2 union")),
		cluster(m("x", 1*hour, "strike:3 rail:2 union:2 pay")),
	}, testOpts)
	if got, want := kinds(plan), []string{"join x<-s1"}; !slices.Equal(got, want) {
		t.Errorf("older article alone: steps %q, want %q", got, want)
	}
}

func TestRegroupMovesAMisfiledArticle(t *testing.T) {
	p := testParams()
	cs := []Cluster{
		// x, about the markets, was filed with a football story
		cluster(m("s1", 1*hour, "football:3 cup:2 goal:2 final"), m("x", 4*hour, "stocks:3 market:2 fall:2 final:0.5")),
		cluster(m("t1", 2*hour, "stocks:3 market:2 fall:2 dow"), m("t2", 3*hour, "stocks:3 market:2 fall dow")),
	}
	plan := p.Regroup(cs, testOpts)
	if got, want := kinds(plan), []string{"move t1<-s1 x"}; !slices.Equal(got, want) {
		t.Fatalf("steps %q, want %q", got, want)
	}
	st := plan.Steps[0]
	if st.Score < st.Own+testOpts.Margin {
		t.Errorf("moved with score %.3f against its own story's %.3f", st.Score, st.Own)
	}
	if st.FromCentroid != nil || st.FromLast != 1*hour {
		t.Errorf("the lead left alone: centroid %v, last %d; want none and its own time", st.FromCentroid, st.FromLast)
	}
	if !slices.Equal(st.IntoMembers, []string{"t1", "t2"}) || !slices.Equal(st.FromMembers, []string{"s1", "x"}) {
		t.Errorf("members before the move: into %v from %v", st.IntoMembers, st.FromMembers)
	}
}

func TestRegroupMarginKeepsAnArticle(t *testing.T) {
	p := testParams()
	s := []Member{m("s1", 1*hour, "budget:3 tax:2 deficit:2"), m("s2", 2*hour, "budget:3 tax:2 minister")}
	x := m("x", 4*hour, "budget:3 tax:1.5 spending:2 deficit:1")
	tt := []Member{m("t1", 2*hour, "budget:3 tax:1 spending:3"), m("t2", 3*hour, "budget:2 spending:3 cuts")}
	cs := []Cluster{cluster(append(s, x)...), cluster(tt...)}
	// x fits the other story a little better, less than the margin
	rest, _ := sum(s)
	own := p.Score(x.article(), x.Vector, &Story{Lead: "s1", Centroid: rest, First: hour, Last: 2 * hour})
	cen, _ := sum(tt)
	other := p.Score(x.article(), x.Vector, &Story{Lead: "t1", Centroid: cen, First: 2 * hour, Last: 3 * hour})
	if !(other > own && other < own+testOpts.Margin) {
		t.Fatalf("the case does not hold: own %.3f, other %.3f", own, other)
	}
	if plan := p.Regroup(cs, RegroupOptions{Margin: testOpts.Margin, MergeMargin: 1, Window: testOpts.Window}); len(plan.Steps) != 0 {
		t.Errorf("steps %q, want none", kinds(plan))
	}
	// with no margin it moves
	if plan := p.Regroup(cs, RegroupOptions{Margin: 0.001, MergeMargin: 1, Window: testOpts.Window}); !slices.Equal(kinds(plan), []string{"move t1<-s1 x"}) {
		t.Errorf("without the margin: steps %q, want the move", kinds(plan))
	}
}

func TestRegroupLeavesApart(t *testing.T) {
	p := testParams()
	day := 24 * hour
	for _, c := range []struct {
		name string
		cs   []Cluster
		o    RegroupOptions
	}{
		{"unrelated", []Cluster{
			cluster(m("a", hour, "quake:3 chile:2")), cluster(m("b", hour, "election:3 vote:2")),
		}, testOpts},
		{"leads further apart than the window", []Cluster{
			cluster(m("a", hour, "quake:3 chile:2 tsunami")), cluster(m("b", hour+8*day, "quake:3 chile:2 tsunami")),
		}, testOpts},
		{"below the threshold and the merge margin", []Cluster{
			cluster(m("a", hour, "quake:2 chile:2 tsunami:1 santiago:1 magnitude:1")),
			cluster(m("b", 2*hour, "quake:1 peru:2 lima:2 landslide:2")),
		}, testOpts},
		{"figures of the titles disagree", []Cluster{
			cluster(Member{ID: "a", Time: hour, Vector: vec("rates:3 cut:2 fed:2"), Facts: []string{"25%"}}),
			cluster(Member{ID: "b", Time: 2 * hour, Vector: vec("rates:3 cut:2 fed:2"), Facts: []string{"50%"}}),
		}, testOpts},
		{"titles of other actors", []Cluster{
			cluster(Member{ID: "a", Time: hour, Vector: vec("dollar:3 general:2 forecast:3 shopper:3 sale:3"), Actor: "dollar_general"}),
			cluster(Member{ID: "b", Time: 2 * hour, Vector: vec("dollar:3 tree:2 forecast:3 shopper:3 sale:3"), Actor: "dollar_tree"}),
		}, testOpts},
		{"titles of one actor's other objects", []Cluster{
			cluster(Member{ID: "a", Time: hour, Vector: vec("samsung:3 galaxy:2 ring:2 unveil:3 price:3"), Actor: "samsung", Object: "galaxy_ring"}),
			cluster(Member{ID: "b", Time: 2 * hour, Vector: vec("samsung:3 galaxy:2 bud:2 unveil:3 price:3"), Actor: "samsung", Object: "galaxy_bud"}),
		}, testOpts},
	} {
		t.Run(c.name, func(t *testing.T) {
			if plan := p.Regroup(c.cs, c.o); len(plan.Steps) != 0 {
				t.Errorf("steps %q, want none", kinds(plan))
			}
		})
	}
}

func TestRegroupMergesBestFirstAndAsAWhole(t *testing.T) {
	p := testParams()
	// b matches a and c, a and c do not match: b goes with the better
	// one, and the merged story does not take the other.
	cs := []Cluster{
		cluster(m("a", 1*hour, "ship:3 canal:3 suez:2 blocked:2")),
		cluster(m("b", 2*hour, "ship:3 canal:3 suez:2 panama:2")),
		cluster(m("c", 3*hour, "panama:3 drought:2 canal:1 ship:1")),
	}
	plan := p.Regroup(cs, testOpts)
	if got, want := kinds(plan), []string{"join a<-b"}; !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q", got, want)
	}
}

func TestRegroupIsDeterministic(t *testing.T) {
	p := testParams()
	cs := []Cluster{
		cluster(m("a1", 1*hour, "quake:3 chile:2 magnitude:2 santiago"), m("a2", 2*hour, "quake:2 chile:2 magnitude santiago")),
		cluster(m("b1", 3*hour, "quake:3 chile:2 tsunami:2 magnitude"), m("b2", 4*hour, "quake:3 chile:2 tsunami coast")),
		cluster(m("s1", 1*hour, "football:3 cup:2 goal:2 final"), m("x", 4*hour, "stocks:3 market:2 fall:2 final:0.5")),
		cluster(m("t1", 2*hour, "stocks:3 market:2 fall:2 dow"), m("t2", 3*hour, "stocks:3 market:2 fall dow")),
		cluster(m("y", 5*hour, "stocks:3 market:2 fall:2 dow:2")),
	}
	want := p.Regroup(cs, testOpts)
	if len(want.Steps) != 3 {
		t.Fatalf("steps %q, want a merge, a move and a join", kinds(want))
	}
	rev := slices.Clone(cs)
	slices.Reverse(rev)
	for i := range rev {
		ms := slices.Clone(rev[i].Members)
		slices.Reverse(ms[1:])
		rev[i] = Cluster{Members: ms}
	}
	got := p.Regroup(rev, testOpts)
	if !slices.Equal(kinds(got), kinds(want)) {
		t.Errorf("reversed input: steps %q, want %q", kinds(got), kinds(want))
	}
	for i := range got.Steps {
		if math.Abs(got.Steps[i].Score-want.Steps[i].Score) != 0 {
			t.Errorf("step %d: score %v, want %v", i, got.Steps[i].Score, want.Steps[i].Score)
		}
	}
}

// TestRegroupEarlierDay: the regroup job weighs the day a story's lead
// tells of as the ingest does: an article posted before that day began
// is of an earlier event (Monday's operation, alone, and Tuesday's, led
// by a report whose text states Tuesday) and stays apart.
func TestRegroupEarlierDay(t *testing.T) {
	p := testParams()
	tue := at(10, 1, 40)
	tueDay := at(10, 0, 0) - int64(DaySlack/time.Second)
	lead := m("tue", tue, "pboc:3 repo:3 drain:2 liquidity")
	lead.Day = tueDay
	cs := []Cluster{
		cluster(lead, m("tue2", tue+hour, "pboc:3 repo:3 drain:2 liquidity")),
		cluster(m("mon", at(9, 1, 30), "pboc:3 repo:3 drain:2 liquidity")),
	}
	if got := kinds(p.Regroup(cs, testOpts)); len(got) != 0 {
		t.Errorf("steps %q, want none", got)
	}
	cs[0].Members[0].Day = 0
	if got := kinds(p.Regroup(cs, testOpts)); len(got) == 0 {
		t.Error("without the day Tuesday's lead tells of, Monday's article stays apart too: the test shows nothing")
	}
}
