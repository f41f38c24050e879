package grouping

import (
	"math"
	"testing"
	"time"

	"github.com/newsrank/newsrank/termvec"
)

// at is a time of the coverage's month: day d of March 2026 at hh:mm UTC
// (1 March 2026 is a Sunday).
func at(d, hh, mm int) int64 { return time.Date(2026, 3, d, hh, mm, 0, 0, time.UTC).Unix() }

func article(id string, t int64, title, summary, lead string) Article {
	return Article{ID: id, Time: t, Doc: termvec.NewDoc(title, summary, lead, DefaultParams.Weights)}
}

// storyOf starts a story with article a in an Engine of p and returns
// the Engine and the story.
func storyOf(t *testing.T, p Params, a Article) (*Engine, *Story) {
	t.Helper()
	e := NewEngine(p, 7*24*time.Hour, NewMemFreq(7*24*time.Hour))
	if d := e.Add(a); d.Joined(a.ID) {
		t.Fatalf("the first article joined %s", d.Story)
	}
	return e, e.Story(a.ID)
}

// score is p.Score of article a against story s in e.
func score(e *Engine, p Params, a Article, s *Story) float64 {
	e.DF.At(a.Time)
	return p.Score(a, p.vector(a.Doc, e.DF), s)
}

func TestDayBegins(t *testing.T) {
	const slack = int64(DaySlack / time.Second)
	for _, tt := range []struct {
		name  string
		text  string
		post  int64
		begin int64 // 0: none
	}{
		{"a weekday: its last day up to the post's", "The race was run on Sunday.", at(8, 6, 35), at(8, 0, 0) - slack},
		{"a weekday named the day after is last week's", "Qualifying on Saturday, the race on Sunday.", at(7, 20, 0), at(1, 0, 0) - slack},
		{"a date", "MELBOURNE, March 8 (Reuters) - Norris won.", at(8, 6, 35), at(8, 0, 0) - slack},
		{"a date in Chinese", "新华社3月5日电 火箭发射成功。", at(5, 13, 0), at(5, 0, 0) - slack},
		{"the earliest of several", "After Monday's fall, stocks rose on Tuesday, March 3.", at(3, 21, 0), at(2, 0, 0) - slack},
		{"a day to come is no event's day", "The vote will be held on March 20.", at(5, 10, 0), 0},
		{"no day", "Stocks rose.", at(5, 10, 0), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := termvec.NewDoc("Title", "", tt.text, DefaultParams.Weights)
			b, ok := DayBegins(d, tt.post)
			if tt.begin == 0 {
				if ok {
					t.Errorf("begins at %s, want no day", time.Unix(b, 0).UTC())
				}
				return
			}
			if !ok || b != tt.begin {
				t.Errorf("begins at %s (%t), want %s", time.Unix(b, 0).UTC(), ok, time.Unix(tt.begin, 0).UTC())
			}
		})
	}
}

// TestDayVeto: a report whose stated days all begin after the story's
// first report was posted tells of a later event; one that states the
// story's day, or the day its lead's title names, does not.
func TestDayVeto(t *testing.T) {
	p := DefaultParams
	const poleLead = "George Russell claimed pole position for the Grand Prix at Albert Park, edging Lando Norris by 0.091 seconds."
	e, s := storyOf(t, p, article("pole", at(7, 6, 20), "Russell beats Norris to pole in Melbourne", "", poleLead))
	race := article("race", at(8, 6, 35), "Norris wins in Melbourne as Russell settles for second",
		"", "Lando Norris won the Grand Prix at Albert Park on Sunday, beating George Russell from pole.")
	if sc := score(e, p, race, s); sc != -1 {
		t.Errorf("the race on Sunday scores %.3f against Saturday's qualifying, want the veto (-1)", sc)
	}
	copy := article("copy", at(7, 9, 0), "Pole for Russell at Albert Park",
		"", "George Russell took pole at Albert Park on Saturday, with Lando Norris second in Melbourne.")
	if sc := score(e, p, copy, s); sc <= 0 {
		t.Errorf("a copy naming Saturday scores %.3f, want a score", sc)
	}
	noDay := article("noday", at(8, 6, 35), "Norris wins in Melbourne as Russell settles for second", "",
		"Lando Norris won the Grand Prix at Albert Park, beating George Russell from pole.")
	if sc := score(e, p, noDay, s); sc <= 0 {
		t.Errorf("a report naming no day scores %.3f, want a score (time alone decides)", sc)
	}
	p.DayVeto = false
	if sc := score(e, p, race, s); sc <= 0 {
		t.Errorf("without the day veto the race scores %.3f, want a score", sc)
	}
	// the story's lead names the day in its title: a report of that day
	// is the story's even if posted after
	p.DayVeto = true
	e, s = storyOf(t, p, article("stocks", at(1, 6, 0), "Stocks close at record high on Monday", "",
		"Banks and technology shares led the gains."))
	late := article("late", at(2, 11, 0), "Stocks end Monday at a record high", "", "Banks and technology shares led the gains.")
	if sc := score(e, p, late, s); sc <= 0 {
		t.Errorf("a copy naming the lead's Monday scores %.3f, want a score", sc)
	}
}

// TestNameVeto: two reports of one kind on other companies share the
// template's words, not the names of their titles; a copy that names
// another actor in its title but the story's elsewhere is no other event.
func TestNameVeto(t *testing.T) {
	p := DefaultParams
	const tmpl = " forecast second-quarter revenue above Wall Street expectations on Thursday, as demand for artificial intelligence chips from cloud companies stayed strong."
	e, s := storyOf(t, p, article("broadcom", at(5, 21, 0), "Broadcom forecasts revenue above estimates",
		"", "Chipmaker Broadcom on Thursday"+tmpl+" Shares of Broadcom rose."))
	other := article("marvell", at(5, 21, 30), "Marvell forecasts revenue above estimates",
		"", "Chipmaker Marvell on Thursday"+tmpl+" Shares of Marvell rose.")
	if sc := score(e, p, other, s); sc != -1 {
		t.Errorf("the other company's results score %.3f, want the veto (-1)", sc)
	}
	peer := article("peer", at(5, 22, 0), "Hock Tan bets on custom chips",
		"", "Chief executive Hock Tan said Broadcom"+tmpl)
	if sc := score(e, p, peer, s); sc <= 0 {
		t.Errorf("a copy naming its chief in the title scores %.3f, want a score", sc)
	}
	p.NameVeto = false
	if sc := score(e, p, other, s); sc <= 0 {
		t.Errorf("without the name veto the other company's results score %.3f, want a score", sc)
	}
}

// TestFigureRescue: titles whose figures differ are other events unless
// the reports share other figures (the stats of one match).
func TestFigureRescue(t *testing.T) {
	p := DefaultParams
	const lead = "India made 196 for 5 and bowled Australia out for 172 to win by 24 runs in Ahmedabad."
	e, s := storyOf(t, p, article("espn", at(8, 17, 45), "Suryakumar's 61 and Bumrah's 3 for 21 seal the title for India", "", lead))
	copy := article("reuters", at(8, 17, 58), "India beat Australia to retain T20 World Cup", "",
		"India beat Australia by 24 runs in the final, making 196 for 5 and bowling Australia out for 172.")
	if sc := score(e, p, copy, s); sc <= 0 {
		t.Errorf("a copy sharing the match's figures scores %.3f, want a score", sc)
	}
	p.FigureRescue = 0
	if sc := score(e, p, copy, s); sc != -1 {
		t.Errorf("without the rescue the copy scores %.3f, want the veto (-1)", sc)
	}
}

// TestSpan: past Span after the story's first report, the score halves
// every SpanHalfLife.
func TestSpan(t *testing.T) {
	p := DefaultParams
	p.Stale, p.HalfLife = 0, 0
	const text = "The central bank raised its main interest rate by half a point, citing inflation."
	e, s := storyOf(t, p, article("lead", at(2, 0, 0), "Central bank raises rates", "", text))
	in := score(e, p, article("a", at(2, 0, 0)+int64(p.Span/time.Second), "Central bank raises rates", "", text), s)
	late := score(e, p, article("b", at(2, 0, 0)+int64((p.Span+p.SpanHalfLife)/time.Second), "Central bank raises rates", "", text), s)
	if in <= 0 || math.Abs(late/in-0.5) > 1e-9 {
		t.Errorf("scores %.4f at the span, %.4f a half-life later: want half", in, late)
	}
}

// TestLookupKeys: an article looks its stories up by LookupKeys terms
// and files its story under Keys.
func TestLookupKeys(t *testing.T) {
	p := DefaultParams
	e := NewEngine(p, 7*24*time.Hour, NewMemFreq(7*24*time.Hour))
	e.Complete = false
	a := article("a", at(5, 10, 0), "Quantix raises $1.2bn in funding led by Northwind as Contoso and Fabrikam join",
		"The Oslo start-up, valued at $9bn, will hire 400 engineers in Bergen, Trondheim and Stavanger.",
		"Quantix said on Thursday it raised $1.2 billion from Northwind Capital, Contoso Ventures and Fabrikam.")
	d := e.Decide(a)
	if len(d.Keys) != p.Keys || len(e.MissingKeys()) != p.LookupKeys {
		t.Errorf("%d keys filed, %d looked up; want %d and %d", len(d.Keys), len(e.MissingKeys()), p.Keys, p.LookupKeys)
	}
}
