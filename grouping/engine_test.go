package grouping

import (
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/coverage"
	"github.com/newsrank/newsrank/termvec"
)

// TestTermsAndLookup: an article decided with its vector and keys given
// (Terms, then AddTerms) by a new Engine each time, which holds only
// the index lists and is given the stories it needs by Lookup from
// what the Engines before it left (as a store runs one), joins the
// story it joins in one Engine that holds everything.
func TestTermsAndLookup(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	s := set.Split(coverage.Tune)
	const window = 7 * 24 * time.Hour
	whole := NewEngine(DefaultParams, window, NewMemFreq(window))
	freq := NewMemFreq(window)
	stories := make(map[string]*Story)
	lists := make(map[string][]string)
	looked := 0
	for _, i := range s.ByPublished() {
		a := s.Articles[i]
		art := Article{ID: a.File + ":" + itoa(a.Line), Time: a.Published.Unix(),
			Doc: termvec.NewDoc(a.Title, a.Summary, a.Lead, DefaultParams.Weights)}
		want := whole.Add(art)

		e := NewEngine(DefaultParams, window, freq)
		e.Complete = false
		for k, l := range lists {
			e.SetList(k, l)
		}
		e.Lookup = func(lead string) (*Story, bool) {
			st, ok := stories[lead]
			if !ok {
				return nil, false
			}
			looked++
			cp := *st
			return &cp, true
		}
		got := e.AddTerms(art, e.Terms(art))
		if got.Story != want.Story || got.Score != want.Score {
			t.Fatalf("%s:%d: story %s (%.4f), one Engine %s (%.4f)", a.File, a.Line, got.Story, got.Score, want.Story, want.Score)
		}
		if m := e.Missing(); len(m) > 0 {
			t.Fatalf("%s:%d: stories missing %v", a.File, a.Line, m)
		}
		stories[got.Story] = e.Story(got.Story)
		for _, k := range got.Keys {
			lists[k] = e.List(k)
		}
	}
	if looked == 0 {
		t.Error("no story was looked up")
	}
}

// TestKeyFacts: an article is filed under, and looks its stories up by,
// its title's telling figure and its actor's first word or bigram, though
// they are not among its heaviest terms: a follow-up that shares little
// else with the first report (another angle, the short name) still
// finds its story. Without KeyFacts the keys are the heaviest terms only.
func TestKeyFacts(t *testing.T) {
	for _, tt := range []struct {
		title, lead string
		want        []string
	}{
		{"Lufthansa agrees to buy 41% of ITA Airways for €325 million",
			"Lufthansa said on Friday it would pay 325 million euros for a further 41% stake in ITA Airways, lifting its holding to 90%. " +
				"The deal, approved by Brussels last year, lets Lufthansa fold the Italian carrier's routes into its network.",
			[]string{"325000000", "lufthansa"}},
		{"长安汽车3月销量23.6万辆 同比增长8%",
			"4月1日晚间，长安汽车股份有限公司发布产销快报，3月汽车销量236,218辆，同比增长8.1%。其中新能源汽车销量9.8万辆，海外市场销量5.2万辆。",
			[]string{"236000", "长安"}},
	} {
		p := DefaultParams
		p.Keys, p.LookupKeys = 1, 0 // the heaviest term only
		e := NewEngine(p, 7*24*time.Hour, NewMemFreq(7*24*time.Hour))
		a := Article{ID: "a", Time: at(6, 9, 0), Doc: termvec.NewDoc(tt.title, "", tt.lead, p.Weights)}
		terms := e.Terms(a)
		for _, k := range tt.want {
			if !slices.Contains(terms.Keys, k) || !slices.Contains(terms.Look, k) {
				t.Errorf("%s: keys %q, looked up by %q; want %q among both", tt.title, terms.Keys, terms.Look, k)
			}
		}
		p.KeyFacts = false
		e = NewEngine(p, 7*24*time.Hour, NewMemFreq(7*24*time.Hour))
		if off := e.Terms(a); len(off.Keys) != 1 {
			t.Errorf("%s: without KeyFacts keys %q, want the heaviest term alone", tt.title, off.Keys)
		}
	}
}

// TestCentroidNorm: a story's centroid's length, kept, is the centroid's
// Norm for every centroid the story is given, and copies keep it.
func TestCentroidNorm(t *testing.T) {
	a := termvec.Vector{{Term: "a", W: 3}, {Term: "b", W: 4}}
	b := termvec.Vector{{Term: "a", W: 1}}
	s := &Story{Centroid: a}
	if got := s.CentroidNorm(); got != 5 {
		t.Fatalf("norm %v, want 5", got)
	}
	cp := *s
	s.Centroid = b
	if got := s.CentroidNorm(); got != 1 {
		t.Errorf("after a new centroid: norm %v, want 1", got)
	}
	s.Centroid = a[:1]
	if got := s.CentroidNorm(); got != 3 {
		t.Errorf("a shorter centroid at the same place: norm %v, want 3", got)
	}
	if got := cp.CentroidNorm(); got != 5 {
		t.Errorf("a copy: norm %v, want 5", got)
	}
	if got := (&Story{}).CentroidNorm(); got != 0 {
		t.Errorf("no centroid: norm %v", got)
	}
}
