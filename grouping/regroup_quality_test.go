package grouping

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/coverage"
	"github.com/newsrank/newsrank/termvec"
)

// regroupWindow is the window the coverage measurements group in.
const regroupWindow = 7 * 24 * time.Hour

// onlinePass runs an Engine with p over s's articles in publication
// order, as the store ingests them, and returns each article's story
// and the clusters the stories make (members as Regroup reads them).
func onlinePass(s *coverage.Set, p Params) ([]string, []Cluster) {
	return onlinePassIn(s, p, s.ByPublished(), regroupWindow)
}

// onlinePassIn is onlinePass with the articles coming in order (indexes
// of s.Articles) and the Engine's window.
func onlinePassIn(s *coverage.Set, p Params, order []int, window time.Duration) ([]string, []Cluster) {
	e := NewEngine(p, window, NewMemFreq(window))
	story := make([]string, len(s.Articles))
	members := make(map[string][]Member)
	var leads []string
	for _, i := range order {
		a := s.Articles[i]
		id := fmt.Sprintf("a%04d", i)
		doc := termvec.NewDoc(a.Title, a.Summary, a.Lead, p.Weights)
		d := e.Add(Article{ID: id, Time: a.Published.Unix(), Doc: doc})
		story[i] = d.Story
		if _, ok := members[d.Story]; !ok {
			leads = append(leads, d.Story)
		}
		m := Member{ID: id, Time: a.Published.Unix(),
			Vector: d.Vector, Facts: doc.Facts, CJK: doc.CJK, Actor: doc.Actor, Object: doc.Object, TitleNames: doc.TitleNames, Counts: doc.Counts}
		if !d.Joined(id) {
			m.Day = e.Story(id).Day // as the store keeps it (td)
		}
		members[d.Story] = append(members[d.Story], m)
	}
	cs := make([]Cluster, 0, len(leads))
	for _, l := range leads {
		cs = append(cs, Cluster{Members: members[l]})
	}
	return story, cs
}

// applyPlan applies plan's steps to story (article index → its story's
// lead), as the store would: a merge or join moves every article of
// From to Into, a move one article.
func applyPlan(story []string, plan Plan) []string {
	out := append([]string(nil), story...)
	index := func(id string) int {
		var i int
		fmt.Sscanf(id, "a%04d", &i)
		return i
	}
	for _, st := range plan.Steps {
		switch st.Kind {
		case Merge, Join:
			for i := range out {
				if out[i] == st.From {
					out[i] = st.Into
				}
			}
		case Move, Split:
			out[index(st.Article)] = st.Into
		}
	}
	return out
}

// regroupQuality measures split of the set after the online pass alone
// and after the online pass and one Regroup with o.
func regroupQuality(tb testing.TB, s *coverage.Set, p Params, o RegroupOptions) (before, after coverage.Quality, plan Plan) {
	tb.Helper()
	story, cs := onlinePass(s, p)
	plan = p.Regroup(cs, o)
	var err error
	if before, err = s.Measure(story); err != nil {
		tb.Fatal(err)
	}
	if after, err = s.Measure(applyPlan(story, plan)); err != nil {
		tb.Fatal(err)
	}
	return before, after, plan
}

func countKinds(plan Plan) map[StepKind]int {
	n := make(map[StepKind]int)
	for _, st := range plan.Steps {
		n[st.Kind]++
	}
	return n
}

// BenchmarkStoryRegroup measures the pair F1 of the labelled coverage
// set's held-out half after the online pass alone and after the online
// pass and one Regroup as the regroup job plans it (DefaultParams, the
// default margins, Replay), and reports both as metrics (f1-online,
// f1-regroup) with the steps taken; the time is that of one Regroup over
// the half's stories.
func BenchmarkStoryRegroup(b *testing.B) {
	set, err := coverage.Load()
	if err != nil {
		b.Fatal(err)
	}
	o := RegroupOptions{Margin: DefaultMargin, MergeMargin: DefaultMergeMargin, Window: regroupWindow, Replay: true}
	for _, split := range []string{coverage.HeldOut, coverage.Tune} {
		b.Run(split, func(b *testing.B) {
			s := set.Split(split)
			before, after, plan := regroupQuality(b, s, DefaultParams, o)
			_, cs := onlinePass(s, DefaultParams)
			b.ResetTimer()
			for range b.N {
				DefaultParams.Regroup(cs, o)
			}
			b.StopTimer()
			k := countKinds(plan)
			b.ReportMetric(before.F1, "f1-online")
			b.ReportMetric(after.F1, "f1-regroup")
			b.ReportMetric(float64(k[Merge]), "merges")
			b.ReportMetric(float64(k[Join]), "joins")
			b.ReportMetric(float64(k[Move]), "moves")
			b.ReportMetric(float64(k[Split]), "splits")
			b.Logf("%s online:  %s", split, before)
			b.Logf("%s regroup: %s", split, after)
		})
	}
}

var regroupSweep = flag.Bool("grouping.regroup-sweep", false, "sweep Regroup's margins on the tuning half and log the figures")

// TestRegroupSweep logs the pair F1 of the tuning half after one Regroup
// for margins around the defaults (go test -run TestRegroupSweep
// -grouping.regroup-sweep -v): how DefaultMargin and DefaultMergeMargin
// were chosen.
func TestRegroupSweep(t *testing.T) {
	if !*regroupSweep {
		t.Skip("a tuning aid: run with -grouping.regroup-sweep")
	}
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	tune := set.Split(coverage.Tune)
	for _, mm := range []float64{0, 0.04, 0.08, 0.1, 0.15, 0.2, 0.26, 0.3} {
		for _, m := range []float64{0, 0.02, 0.05, 0.1, 0.2} {
			o := RegroupOptions{Margin: m, MergeMargin: mm, Window: regroupWindow}
			before, after, plan := regroupQuality(t, tune, DefaultParams, o)
			k := countKinds(plan)
			t.Logf("merge margin %.2f margin %.2f: F1 %.3f -> %.3f (P %.3f R %.3f) merges %d joins %d moves %d",
				mm, m, before.F1, after.F1, after.Precision, after.Recall, k[Merge], k[Join], k[Move])
		}
	}
}

// reclusters returns the clusters story makes of the members of cs (an
// article's story: the lead's id), the lead first: what a store reads
// after it applied a plan.
func reclusters(cs []Cluster, story []string) []Cluster {
	byID := make(map[string]Member)
	for _, c := range cs {
		for _, m := range c.Members {
			byID[m.ID] = m
		}
	}
	members := make(map[string][]Member)
	var leads []string
	for i, lead := range story {
		id := fmt.Sprintf("a%04d", i)
		if _, ok := members[lead]; !ok {
			leads = append(leads, lead)
			members[lead] = []Member{byID[lead]}
		}
		if id != lead {
			members[lead] = append(members[lead], byID[id])
		}
	}
	out := make([]Cluster, 0, len(leads))
	for _, l := range leads {
		out = append(out, Cluster{Members: members[l]})
	}
	return out
}

// TestRegroupSettles runs Regroup on the whole coverage set after the
// online pass, applies its plan, and runs it again: the second run finds
// nothing to do (no article moves back, no merge was left for later).
func TestRegroupSettles(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	o := RegroupOptions{Margin: DefaultMargin, MergeMargin: DefaultMergeMargin, Window: regroupWindow}
	// a threshold at which the online pass splits stories and files
	// articles wrongly, whatever DefaultParams are tuned to
	p := DefaultParams
	p.MinSimilarity = 0.12
	story, cs := onlinePass(set, p)
	plan := p.Regroup(cs, o)
	k := countKinds(plan)
	if len(plan.Steps) == 0 {
		t.Fatal("first run: no step; want some to settle")
	}
	after := applyPlan(story, plan)
	again := p.Regroup(reclusters(cs, after), o)
	t.Logf("first run: %d steps %v; second run: %d steps", len(plan.Steps), k, len(again.Steps))
	for _, st := range again.Steps {
		t.Errorf("second run: %s into %s from %s (article %s) at %.3f", st.Kind, st.Into, st.From, st.Article, st.Score)
	}
}
