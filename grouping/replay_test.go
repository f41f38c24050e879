package grouping

import (
	"slices"
	"testing"

	"github.com/newsrank/newsrank/internal/coverage"
)

var replayOpts = RegroupOptions{Margin: 0.1, MergeMargin: 0.05, Window: testOpts.Window, Replay: true}

// TestReplayMendsALateBridge: two reports that share little each match
// the flash; read before it, they started two stories, and the flash
// joined one. In publication order the flash comes first and both join
// it: the replay joins the two stories, the one whose lead is the older
// leading on.
func TestReplayMendsALateBridge(t *testing.T) {
	p := testParams()
	flash := m("f", 1*hour, "quake:3 chile:2 magnitude:2 santiago:2 tsunami:2 coast:2")
	analysis := m("a", 2*hour, "quake:2 chile magnitude:3 santiago:3 buildings:3 engineers:3")
	local := m("l", 3*hour, "quake:2 chile tsunami:3 coast:3 fishermen:3 harbour:3")
	if sc := p.Score(analysis.article(), analysis.Vector, &Story{Lead: "l", Centroid: local.Vector, First: local.Time, Last: local.Time}); sc >= p.MinSimilarity {
		t.Fatalf("the two reports score %.3f against each other, want them apart", sc)
	}
	cs := []Cluster{cluster(analysis, flash), cluster(local)}
	plan := p.Regroup(cs, replayOpts)
	if got, want := kinds(plan), []string{"join a<-l"}; !slices.Equal(got, want) {
		t.Fatalf("steps %q, want %q", got, want)
	}
	if again := p.Regroup([]Cluster{cluster(analysis, flash, local)}, replayOpts); len(again.Steps) != 0 {
		t.Errorf("second run: %q", kinds(again))
	}
}

// TestReplayMovesALookAlikeOut: a report of the rate decision read
// before the rates story existed joined the quake story; in publication
// order the rates story comes first and the report joins it.
func TestReplayMovesALookAlikeOut(t *testing.T) {
	p := testParams()
	q1 := m("q1", 1*hour, "quake:3 chile:3 magnitude:2 tsunami:2")
	q2 := m("q2", 2*hour, "quake:3 chile:3 magnitude:2 coast:2")
	r1 := m("r1", 3*hour, "rate:3 chile:2 bank:3 inflation:2")
	x := m("x", 4*hour, "rate:3 chile:2 bank:3 inflation:2 quake")
	plan := p.Regroup([]Cluster{cluster(q1, q2, x), cluster(r1)}, replayOpts)
	if got, want := kinds(plan), []string{"move r1<-q1 x"}; !slices.Equal(got, want) {
		t.Fatalf("steps %q, want %q", got, want)
	}
	st := plan.Steps[0]
	if !slices.Equal(st.IntoMembers, []string{"r1"}) || !slices.Equal(st.FromMembers, []string{"q1", "q2", "x"}) || st.Score <= st.Own {
		t.Errorf("step %+v", st)
	}
	if again := p.Regroup([]Cluster{cluster(q1, q2), cluster(r1, x)}, replayOpts); len(again.Steps) != 0 {
		t.Errorf("second run: %q", kinds(again))
	}
}

// TestReplayNeverMovesALead: the rates report that leads a story of
// quake reports (read first, it started one, and they joined it through
// a word) stays the lead of its story; the quake reports move to the
// quake story. With no quake story, the oldest quake report leaves to
// lead one of its own (Split), and the other joins it.
func TestReplayNeverMovesALead(t *testing.T) {
	p := testParams()
	q0 := m("q0", 1*hour, "quake:3 chile:3 magnitude:2 tsunami:2")
	r := m("r", 2*hour, "rate:3 chile:2 bank:3 inflation:2")
	q1 := m("q1", 3*hour, "quake:3 chile:3 magnitude:2 coast:2")
	q2 := m("q2", 4*hour, "quake:3 chile:3 tsunami:2 coast:2")
	plan := p.Regroup([]Cluster{cluster(r, q1, q2), cluster(q0)}, replayOpts)
	if got, want := kinds(plan), []string{"move q0<-r q1", "move q0<-r q2"}; !slices.Equal(got, want) {
		t.Fatalf("steps %q, want %q", got, want)
	}
	plan = p.Regroup([]Cluster{cluster(r, q1, q2)}, replayOpts)
	if got, want := kinds(plan), []string{"split q1<-r q1", "move q1<-r q2"}; !slices.Equal(got, want) {
		t.Fatalf("steps %q, want %q", got, want)
	}
	if again := p.Regroup([]Cluster{cluster(r), cluster(q1, q2)}, replayOpts); len(again.Steps) != 0 {
		t.Errorf("second run: %q", kinds(again))
	}
}

// TestReplaySettles replays the tuning half of the coverage set grouped
// in reversed publication order and in a shuffle, applies the plan, and
// replays the result: the second run plans nothing, and no step moved a
// current lead.
func TestReplaySettles(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	s := set.Split(coverage.Tune)
	o := RegroupOptions{Margin: DefaultMargin, MergeMargin: DefaultMergeMargin, Window: s.Window(), Replay: true}
	for _, ord := range s.CrawlOrders(1) {
		if ord.Name != "reversed" && ord.Name != "shuffled-1" && ord.Name != "24h-1" {
			continue
		}
		story, cs := onlinePassIn(s, DefaultParams, ord.Order, s.Window())
		plan := DefaultParams.Regroup(cs, o)
		if len(plan.Steps) == 0 {
			t.Fatalf("%s: no step", ord.Name)
		}
		leads := make(map[string]bool)
		for _, c := range cs {
			leads[c.Lead()] = true
		}
		for _, st := range plan.Steps {
			if st.Kind == Move && leads[st.Article] {
				t.Errorf("%s: lead %s moved", ord.Name, st.Article)
			}
		}
		after := applyPlan(story, plan)
		again := DefaultParams.Regroup(reclusters(cs, after), o)
		t.Logf("%s: %d steps %v; second run %d", ord.Name, len(plan.Steps), countKinds(plan), len(again.Steps))
		for _, st := range again.Steps {
			t.Errorf("%s second run: %s into %s from %s (article %s)", ord.Name, st.Kind, st.Into, st.From, st.Article)
		}
	}
}

// TestReplayLeavesAClosedMember: the oldest quake report of the rates
// story was posted before the window (Closed): it is not replayed and
// stays; the newer one leaves to lead the quake story of its own, and a
// second run plans nothing.
func TestReplayLeavesAClosedMember(t *testing.T) {
	p := testParams()
	r := m("r", 2*hour, "rate:3 chile:2 bank:3 inflation:2")
	q1 := m("q1", 3*hour, "quake:3 chile:3 magnitude:2 coast:2")
	q2 := m("q2", 4*hour, "quake:3 chile:3 tsunami:2 coast:2")
	q1.Closed = true
	plan := p.Regroup([]Cluster{cluster(r, q1, q2)}, replayOpts)
	if got, want := kinds(plan), []string{"split q2<-r q2"}; !slices.Equal(got, want) {
		t.Fatalf("steps %q, want %q", got, want)
	}
	if again := p.Regroup([]Cluster{cluster(r, q1), cluster(q2)}, replayOpts); len(again.Steps) != 0 {
		t.Errorf("second run: %q", kinds(again))
	}
}
