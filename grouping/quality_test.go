package grouping

import (
	"flag"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/coverage"
	"github.com/newsrank/newsrank/termvec"
)

var verbose = flag.Bool("grouping.misses", false, "log the missed and wrong pairs of the tuning half")

// group runs an Engine with p over s's articles in publication order
// and returns each article's story.
func group(s *coverage.Set, p Params) []string {
	return groupIn(s, p, s.ByPublished(), 7*24*time.Hour)
}

// groupIn is group with the articles coming in order (indexes of
// s.Articles) and the Engine's window.
func groupIn(s *coverage.Set, p Params, order []int, window time.Duration) []string {
	e := NewEngine(p, window, NewMemFreq(window))
	story := make([]string, len(s.Articles))
	for _, i := range order {
		a := s.Articles[i]
		id := a.File + ":" + itoa(a.Line)
		d := e.Add(Article{ID: id, Time: a.Published.Unix(), Doc: termvec.NewDoc(a.Title, a.Summary, a.Lead, p.Weights)})
		story[i] = d.Story
	}
	return story
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func measure(t testing.TB, s *coverage.Set, p Params) coverage.Quality {
	t.Helper()
	q, err := s.Measure(group(s, p))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestQualityInMemory measures DefaultParams on both halves of the set,
// in memory.
func TestQualityInMemory(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, split := range []string{coverage.Tune, coverage.HeldOut} {
		s := set.Split(split)
		q := measure(t, s, DefaultParams)
		t.Logf("%s: %s", split, q)
		if *verbose && split == coverage.Tune {
			logMisses(t, s, group(s, DefaultParams))
		}
	}
}

func logMisses(t *testing.T, s *coverage.Set, story []string) {
	as := s.Articles
	for i := range as {
		for j := i + 1; j < len(as); j++ {
			if as[i].Lang != as[j].Lang {
				continue
			}
			same, grouped := as[i].Event == as[j].Event, story[i] == story[j]
			if same != grouped {
				kind := "MISS"
				if grouped {
					kind = "WRONG"
				}
				t.Logf("%s %s/%s\n   %s\n   %s", kind, as[i].Event, as[j].Event, as[i].Title, as[j].Title)
			}
		}
	}
}
