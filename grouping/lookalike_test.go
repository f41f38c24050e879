package grouping

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/coverage"
	"github.com/newsrank/newsrank/termvec"
)

var lookAlikeJoins = flag.Bool("grouping.lookalikes", false, "log each join of a look-alike event's story on the tuning half, in several orders")

// TestLookAlikeJoins logs, for the tuning half grouped with DefaultParams
// in publication order, arrival orders up to 24 h late and reversed,
// each article that joined a story holding a report of a look-alike
// event of its own, with the evidence: the score, the facts, actors and
// objects, the shared terms of most weight (go test -run
// TestLookAlikeJoins -v ./grouping/ -args -grouping.lookalikes). A
// tuning aid: it asserts nothing.
func TestLookAlikeJoins(t *testing.T) {
	if !*lookAlikeJoins {
		t.Skip("a tuning aid: run with -grouping.lookalikes")
	}
	set := coverage.MustLoad()
	s := set.Split(coverage.Tune)
	partner := make(map[[2]string]string)
	for _, l := range s.LookAlikes {
		partner[[2]string{l.A, l.B}], partner[[2]string{l.B, l.A}] = l.Why, l.Why
	}
	rev := slices.Clone(s.ByPublished())
	slices.Reverse(rev)
	orders := [][]int{s.ByPublished()}
	names := []string{"publication"}
	for n := uint64(1); n <= 5; n++ {
		orders, names = append(orders, s.ArrivalOrder(24*time.Hour, n)), append(names, fmt.Sprintf("24h-%d", n))
	}
	orders, names = append(orders, rev), append(names, "reversed")
	p, window := DefaultParams, set.Window()
	for o, order := range orders {
		e := NewEngine(p, window, NewMemFreq(window))
		members := make(map[string][]int)
		story := make([]string, len(s.Articles))
		for _, i := range order {
			a := s.Articles[i]
			art := Article{ID: a.File + ":" + itoa(a.Line), Time: a.Published.Unix(), Doc: termvec.NewDoc(a.Title, a.Summary, a.Lead, p.Weights)}
			terms := e.Terms(art)
			cands := slices.Clone(e.candidates(art.ID, terms.Look, terms.lookW))
			d := e.DecideTerms(art, terms)
			if st := snapshot(e.Story(d.Story)); d.Joined(art.ID) {
				for _, j := range members[d.Story] {
					if why, ok := partner[[2]string{a.Event, s.Articles[j].Event}]; ok {
						var b strings.Builder
						fmt.Fprintf(&b, "%s: %s joined a story with %s (%s), score %.3f\n  a: %s\n  m: %s\n",
							names[o], a.Event, s.Articles[j].Event, why, d.Score, a.Title, s.Articles[j].Title)
						explain(&b, p, art, terms.Vector, st, cands)
						t.Log(b.String())
						break
					}
				}
			}
			e.Apply(art, d)
			story[i] = d.Story
			members[d.Story] = append(members[d.Story], i)
		}
		q, err := s.Measure(story)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s %v", names[o], q, q.Merged)
	}
}
