package news

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// fixture is one article of the formula tests: its age at the test's now,
// its crawled comments and the down-votes it gets.
type fixture struct {
	age      time.Duration
	comments int64
	downs    int
}

var fixtures = []fixture{
	{age: 1 * time.Hour, comments: 0},
	{age: 2 * time.Hour, comments: 3},
	{age: 5 * time.Hour, comments: 40},
	{age: 20 * time.Hour, comments: 300},
	{age: 30 * time.Minute, comments: 1},
	{age: 3 * 24 * time.Hour, comments: 2000},
	{age: 6 * 24 * time.Hour, comments: 9000},
	{age: 10 * time.Hour, comments: 0, downs: 4}, // negative votes
	{age: 45 * time.Minute, comments: 0, downs: 1},
	{age: 90 * time.Minute, comments: 12},
}

// expected computes each formula from its definition, independently of
// formula.go and the scripts.
func expected(formula string, post, now int64, votes float64) float64 {
	switch formula {
	case "linear":
		return float64(post) + 432*votes
	case "hot":
		order := math.Log10(math.Max(math.Abs(votes), 1))
		sign := 0.0
		if votes > 0 {
			sign = 1
		} else if votes < 0 {
			sign = -1
		}
		return sign*order + float64(post)/45000
	case "gravity":
		hours := float64(now-post) / 3600
		return votes / math.Pow(hours+2, 1.8)
	}
	panic(formula)
}

func TestFormulas(t *testing.T) {
	orders := map[string][]string{}
	for _, name := range []string{"linear", "hot", "gravity"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, func(c *Options) { c.Formula = name })
			if got := e.s.Formula().Name(); got != name {
				t.Fatalf("formula %q, want %q", got, name)
			}
			now := t0
			want := map[string]float64{}
			var all []Article
			for i, f := range fixtures {
				a := article(i, now.Add(-f.age), f.comments)
				a.CrawlTime = now
				a.Groups = []string{"all"}
				all = append(all, a)
			}
			rs, err := e.s.IngestBatch(e.ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range fixtures {
				id := rs[i].ID
				for d := range f.downs {
					if _, err := e.s.Vote(e.ctx, fmt.Sprintf("critic%d", d), id, Down); err != nil {
						t.Fatal(err)
					}
				}
				votes := float64(f.comments) - float64(f.downs)
				want[id] = expected(name, all[i].PostTime.Unix(), now.Unix(), votes)
				got := e.zscore(t, e.s.keys.Score(), id)
				if !near(got, want[id]) {
					t.Errorf("article %d (age %s, votes %v): score %.17g, want %.17g", i, f.age, votes, got, want[id])
				}
				if g := e.s.Formula().Score(all[i].PostTime, votes, now); !near(g, want[id]) {
					t.Errorf("article %d: Formula.Score %.17g, want %.17g", i, g, want[id])
				}
			}
			wantOrder := make([]string, 0, len(want))
			for id := range want {
				wantOrder = append(wantOrder, id)
			}
			slices.SortFunc(wantOrder, func(a, b string) int {
				if want[a] > want[b] {
					return -1
				}
				return 1
			})
			p, err := e.s.List(e.ctx, ByScore, 1, 25)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(p.Items); !slices.Equal(got, wantOrder) {
				t.Fatalf("order %v, want %v", got, wantOrder)
			}
			// The group's ranking (ZINTERSTORE WEIGHTS 0 1) keeps scores
			// exactly, negative ones included.
			g, err := e.s.GroupList(e.ctx, "all", ByScore, 1, 25)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(g.Items); !slices.Equal(got, wantOrder) {
				t.Fatalf("group order %v, want %v", got, wantOrder)
			}
			orders[name] = wantOrder
		})
	}
	// The fixtures are chosen so the formulas disagree: otherwise the test
	// could not tell them apart.
	if slices.Equal(orders["linear"], orders["hot"]) || slices.Equal(orders["linear"], orders["gravity"]) || slices.Equal(orders["hot"], orders["gravity"]) {
		t.Errorf("two formulas gave the same order: %v", orders)
	}
}

// TestLinearRebuildOnServer: the rebuild the package documents for the
// rescore job (ZINTERSTORE time: votes: WEIGHTS 1 w) reproduces score:.
func TestLinearRebuildOnServer(t *testing.T) {
	e := newEnv(t, func(c *Options) { c.VoteWeight = 100; c.CommentWeight = 0.5 })
	k := e.s.keys
	var list []string
	for i, f := range fixtures {
		a := article(i, t0.Add(-f.age), f.comments)
		a.CrawlTime = t0
		r := e.ingest(t, a)
		list = append(list, r.ID)
		for d := range f.downs {
			if _, err := e.s.Vote(e.ctx, fmt.Sprint("u", d), r.ID, Down); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := e.s.Vote(e.ctx, "u", list[0], Up); err != nil {
		t.Fatal(err)
	}
	tmp := "test:{news}:rebuilt"
	if err := e.c.Do(e.ctx, "ZINTERSTORE", tmp, 2, k.Time(), k.Votes(), "WEIGHTS", 1, 100).Err(); err != nil {
		t.Fatal(err)
	}
	for i, id := range list {
		got, want := e.zscore(t, tmp, id), e.zscore(t, k.Score(), id)
		if got != want {
			t.Errorf("article %d: rebuilt %v, incremental %v", i, got, want)
		}
		it := e.get(t, id)
		if want := float64(it.Up-it.Down) + 0.5*float64(it.Comments); it.Votes != want {
			t.Errorf("article %d: votes %v, want up − down + comments × 0.5 = %v", i, it.Votes, want)
		}
	}
}

func TestGravityDecays(t *testing.T) {
	f := Gravity{Gravity: 1.8}
	post := t0
	if !f.Decays() || (Linear{}).Decays() || (Hot{}).Decays() {
		t.Fatal("only gravity decays")
	}
	s1 := f.Score(post, 10, post.Add(time.Hour))
	s2 := f.Score(post, 10, post.Add(10*time.Hour))
	if !(s2 < s1) {
		t.Fatalf("gravity score did not fall with age: %v then %v", s1, s2)
	}
	if got := f.Score(post, 10, post.Add(-time.Hour)); !near(got, 10/math.Pow(2, 1.8)) {
		t.Fatalf("future post: %v, want age 0", got)
	}
}

func TestFormulaFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string
	}{
		{"linear", "linear"},
		{"", "linear"},
		{"hot", "hot"},
		{"gravity", "gravity"},
		{"magic", `news.formula: must be one of linear, hot, gravity, got "magic"`},
	} {
		o := DefaultOptions()
		o.Formula = tc.name
		f, err := FormulaFor(o)
		switch {
		case err != nil && err.Error() != tc.want:
			t.Errorf("FormulaFor: %v, want %s", err, tc.want)
		case err == nil && f.Name() != tc.want:
			t.Errorf("FormulaFor: %s, want %s", f.Name(), tc.want)
		}
	}
}
