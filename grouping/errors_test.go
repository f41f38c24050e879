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

var errorsFlag = flag.Bool("grouping.errors", false, "log each wrong join and each missed story of the tuning half, with the terms that carry the scores")

// TestErrors logs, for the tuning half grouped with DefaultParams, each
// article that joined another event's story and each that missed its
// event's story (the story holding most of its event's earlier reports
// in its language): the score, whether the story was a candidate (its
// rank), a veto, and the shared terms that carry the cosine (go test
// -run TestErrors -grouping.errors -v ./grouping/). A tuning aid: it
// asserts nothing.
func TestErrors(t *testing.T) {
	if !*errorsFlag {
		t.Skip("a tuning aid: run with -grouping.errors")
	}
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	dg := diagnose(set.Split(coverage.Tune), DefaultParams, func(s string) { t.Log(s) })
	t.Logf("wrong joins %d, missed stories %d (%d not among the candidates)", dg.wrong, dg.missed, dg.notCand)
	t.Logf("false pairs by events: %v", dg.fp)
	t.Logf("missed pairs by event: %v", dg.fn)
	var ls []string
	for k, x := range dg.look {
		ls = append(ls, fmt.Sprintf("%.3f %s", x, k))
	}
	slices.Sort(ls)
	t.Logf("best score of an article against a look-alike event's story:\n%s", strings.Join(ls, "\n"))
}

// diagnosis is what diagnose found.
type diagnosis struct {
	wrong, missed, notCand int
	// fp and fn count the pairs counted wrong, by the events they join
	// or split
	fp, fn map[string]int
	// look is the best score of an article of a look-alike pair's event
	// against a story of the other's ("a + b")
	look map[string]float64
}

// diagnose groups s with p in publication order and logs (with log, when
// not nil) each wrong join and each missed story.
func diagnose(s *coverage.Set, p Params, log func(string)) diagnosis {
	e := NewEngine(p, 7*24*time.Hour, NewMemFreq(7*24*time.Hour))
	as := s.Articles
	story := make(map[string]string) // article id → its story
	title := make(map[string]string) // article id → its title
	event := make(map[string]string) // article id → its event
	dg := diagnosis{fp: make(map[string]int), fn: make(map[string]int), look: make(map[string]float64)}
	partner := make(map[string]map[string]bool)
	for _, l := range s.LookAlikes {
		for _, x := range [][2]string{{l.A, l.B}, {l.B, l.A}} {
			if partner[x[0]] == nil {
				partner[x[0]] = make(map[string]bool)
			}
			partner[x[0]][x[1]] = true
		}
	}
	for _, i := range s.ByPublished() {
		a := as[i]
		id := fmt.Sprintf("%s:%d", a.File, a.Line)
		title[id], event[id] = a.Title, a.Event
		art := Article{ID: id, Time: a.Published.Unix(), Doc: termvec.NewDoc(a.Title, a.Summary, a.Lead, p.Weights)}
		terms := e.Terms(art)
		v, keys := terms.Vector, terms.Look
		// a copy: candidates' slice is e's, which Decide reuses
		cands := slices.Clone(e.candidates(id, keys, terms.lookW))
		// the story of most of the event's earlier reports in a's language
		count := make(map[string]int)
		for x, st := range story {
			if event[x] == a.Event && isCJKTitle(title[x]) == art.Doc.CJK {
				count[st]++
			}
		}
		right, n := "", 0
		for st, c := range count {
			if c > n || c == n && st < right {
				right, n = st, c
			}
		}
		for _, st := range e.stories {
			if partner[a.Event][event[st.Lead]] {
				k := min(a.Event, event[st.Lead]) + " + " + max(a.Event, event[st.Lead])
				sc := p.Score(art, v, st)
				if sc > dg.look[k] {
					dg.look[k] = sc
					if log != nil && sc >= 0.1 {
						var b strings.Builder
						fmt.Fprintf(&b, "LOOK-ALIKE %s against %s\n  a: %s\n  s: %s\n", a.Event, event[st.Lead], a.Title, title[st.Lead])
						explain(&b, p, art, v, st, cands)
						log(b.String())
					}
				}
			}
		}
		d := e.DecideTerms(art, terms)
		// the stories as the article met them, before it changes one
		joined, rightStory := snapshot(e.Story(d.Story)), snapshot(e.Story(right))
		e.Apply(art, d)
		story[id] = d.Story
		joinedOther := d.Joined(id) && event[d.Story] != a.Event
		if !joinedOther && (right == "" || d.Story == right) {
			continue
		}
		var b strings.Builder
		if joinedOther {
			dg.wrong++
			n := 0 // the story's members, the article's own among them
			for _, st := range story {
				if st == d.Story {
					n++
				}
			}
			fmt.Fprintf(&b, "WRONG %s joined %s (score %.3f, %d members with it)\n  a: %s\n  s: %s\n", a.Event, event[d.Story], d.Score, n, a.Title, title[d.Story])
			explain(&b, p, art, v, joined, cands)
		}
		if right != "" && d.Story != right {
			dg.missed++
			fmt.Fprintf(&b, "MISS %s (%d earlier) %s\n  a: %s\n  s: %s\n  keys: %v\n", a.Event, n, a.Lang, a.Title, title[right], keys)
			if !slices.ContainsFunc(cands[:min(len(cands), p.Candidates)], func(c candidate) bool { return c.lead == right }) {
				dg.notCand++
			}
			explain(&b, p, art, v, rightStory, cands)
		}
		if log != nil {
			log(b.String())
		}
	}
	for i, a := range as {
		for _, b := range as[i+1:] {
			if a.Lang != b.Lang {
				continue
			}
			x, y := fmt.Sprintf("%s:%d", a.File, a.Line), fmt.Sprintf("%s:%d", b.File, b.Line)
			switch same, grouped := a.Event == b.Event, story[x] == story[y]; {
			case same && !grouped:
				dg.fn[a.Event+" "+a.Lang]++
			case !same && grouped:
				dg.fp[min(a.Event, b.Event)+" + "+max(a.Event, b.Event)]++
			}
		}
	}
	return dg
}

// snapshot returns a copy of s (nil for nil).
func snapshot(s *Story) *Story {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

func isCJKTitle(title string) bool {
	return termvec.NewDoc(title, "", "", termvec.DefaultWeights).CJK
}

// explain writes how article a (vector v) scores against story st: its
// rank among the candidates, the score, a veto, the facts, and the
// shared terms of most weight in the cosine.
func explain(b *strings.Builder, p Params, a Article, v termvec.Vector, st *Story, cands []candidate) {
	if st == nil {
		fmt.Fprintf(b, "  (story gone)\n")
		return
	}
	rank := slices.IndexFunc(cands, func(c candidate) bool { return c.lead == st.Lead })
	sc := p.Score(a, v, st)
	cos := termvec.Cosine(v, st.Centroid)
	fmt.Fprintf(b, "  rank %d of %d, score %.3f, cosine %.3f, %.1f h after its latest; facts %v / %v\n", rank, len(cands), sc, cos,
		float64(a.Time-st.Last)/3600, a.Doc.Facts, st.Facts)
	fmt.Fprintf(b, "  actor %q / %q, object %q / %q", a.Doc.Actor, st.Actor, a.Doc.Object, st.Object)
	if sc < 0 {
		fmt.Fprintf(b, ", vetoed by %v", vetoes(p, a, v, st))
	}
	b.WriteByte('\n')
	type share struct {
		t string
		w float64
	}
	var sh []share
	n := st.Centroid.Norm()
	termvec.Shared(v, st.Centroid, func(t string, wa, wb float64) { sh = append(sh, share{t, wa * wb / n}) })
	slices.SortFunc(sh, func(x, y share) int {
		if x.w > y.w {
			return -1
		}
		if x.w < y.w {
			return 1
		}
		return strings.Compare(x.t, y.t)
	})
	fmt.Fprintf(b, "  shared:")
	for _, x := range sh[:min(len(sh), 12)] {
		fmt.Fprintf(b, " %s %.3f", x.t, x.w)
	}
	b.WriteByte('\n')
}

// vetoes names the vetoes of p that each, turned off alone, lift the
// veto of article a (vector v) against story st.
func vetoes(p Params, a Article, v termvec.Vector, st *Story) []string {
	var out []string
	for _, x := range []struct {
		name string
		off  func(*Params)
	}{
		{"weekday", func(q *Params) { q.WeekdayVeto = false }},
		{"day", func(q *Params) { q.DayVeto = false }},
		{"title day", func(q *Params) { q.TitleDayVeto = false }},
		{"name", func(q *Params) { q.NameVeto = false }},
		{"actor", func(q *Params) { q.ActorVeto = false }},
		{"object", func(q *Params) { q.ObjectVeto = false }},
		{"figure", func(q *Params) { q.FigureVeto = false }},
	} {
		q := p
		x.off(&q)
		if q.Score(a, v, st) >= 0 {
			out = append(out, x.name)
		}
	}
	return out
}
