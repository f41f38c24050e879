package grouping

import (
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
