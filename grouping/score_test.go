package grouping

import (
	"fmt"
	"math"
	"slices"
	"strings"
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

// TestTitleDayVeto: a report of an operation repeated the next day
// writes the day before too ("after Monday's injection"), so not all of
// its days come after the story's first report; the day its title
// states does. A next day's report whose title states the story's day
// stays a copy.
func TestTitleDayVeto(t *testing.T) {
	for _, tt := range []struct {
		name               string
		lead, next, copied Article
	}{
		{
			name: "English",
			lead: article("mon", at(9, 1, 30), "PBOC injects cash via 7-day reverse repos", "",
				"The People's Bank of China injected a net 52.5 billion yuan into the banking system through 7-day reverse repurchase agreements at 1.40%, according to Reuters calculations."),
			next: article("tue", at(10, 1, 40), "PBOC drains cash via 7-day reverse repos on Tuesday", "",
				"After Monday's injection, the People's Bank of China drained a net 40.5 billion yuan from the banking system through 7-day reverse repurchase agreements at 1.40%, as more repos matured."),
			copied: article("late", at(10, 2, 0), "PBOC's Monday injection via 7-day reverse repos eases month-end strain", "",
				"The People's Bank of China injected a net 52.5 billion yuan on Monday through 7-day reverse repurchase agreements at 1.40%, traders said on Tuesday."),
		},
		{
			name: "Chinese",
			lead: article("mon", at(9, 1, 30), "央行开展1800亿元7天期逆回购操作", "",
				"中国人民银行公告称，为维护银行体系流动性合理充裕，以固定利率、数量招标方式开展了1800亿元7天期逆回购操作，操作利率1.40%，当日实现净投放600亿元。"),
			next: article("tue", at(10, 1, 40), "周二央行7天期逆回购净回笼350亿元", "",
				"继周一净投放后，中国人民银行以固定利率、数量招标方式开展了1000亿元7天期逆回购操作，操作利率1.40%，因当日有1350亿元逆回购到期，实现净回笼350亿元。"),
			copied: article("late", at(10, 2, 0), "周一央行7天期逆回购净投放600亿元 资金面平稳", "",
				"中国人民银行周一以固定利率、数量招标方式开展了1800亿元7天期逆回购操作，操作利率1.40%，实现净投放600亿元，周二资金面保持平稳。"),
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := DefaultParams
			e, s := storyOf(t, p, tt.lead)
			if sc := score(e, p, tt.next, s); sc != -1 {
				t.Errorf("the next day's operation scores %.3f against the day before's, want the veto (-1)", sc)
			}
			if sc := score(e, p, tt.copied, s); sc < p.MinSimilarity {
				t.Errorf("a next day's copy whose title states the story's day scores %.3f, want %.2f at least", sc, p.MinSimilarity)
			}
			// the regroup job's article keeps its title's facts, not its terms
			bare := Article{ID: "bare", Time: tt.next.Time, Doc: termvec.Doc{Facts: tt.next.Doc.Facts, CJK: tt.next.Doc.CJK}}
			v := p.vector(tt.next.Doc, e.DF)
			if sc := p.Score(bare, v, s); sc != -1 {
				t.Errorf("the next day's operation, by its title's facts alone, scores %.3f, want the veto (-1)", sc)
			}
			tuesday := *s
			tuesday.Facts = append(slices.Clone(s.Facts), tt.next.Doc.Facts...)
			slices.Sort(tuesday.Facts)
			if sc := p.Score(bare, v, &tuesday); sc == -1 {
				t.Error("a story whose lead's title states the report's day vetoes it, want a score")
			}
			p.TitleDayVeto = false
			if sc := score(e, p, tt.next, s); sc < p.MinSimilarity {
				t.Errorf("without the title day veto the next day's operation scores %.3f, want %.2f at least (what the veto parts)", sc, p.MinSimilarity)
			}
		})
	}
}

// TestEarlierDayVeto: a crawl may bring the later event first. The day
// vetoes then apply the other way round: a story led by Sunday's race
// (or Tuesday's operation) does not take Saturday's qualifying (or
// Monday's operation), which was posted before the day its lead tells
// of began; a copy of the race posted after the race does join, and so
// does one posted before its lead's day that states that day.
func TestEarlierDayVeto(t *testing.T) {
	p := DefaultParams
	race := article("race", at(8, 6, 35), "Norris wins in Melbourne on Sunday as Russell settles for second",
		"", "Lando Norris won the Grand Prix at Albert Park on Sunday, beating George Russell, who started from pole.")
	e, s := storyOf(t, p, race)
	if s.Day == 0 || s.Day > race.Time || s.Day != TellsOf(race.Doc, race.Time) {
		t.Fatalf("the race's story tells of day %d, want Sunday's begin (TellsOf: %d), before its post time %d", s.Day, TellsOf(race.Doc, race.Time), race.Time)
	}
	pole := article("pole", at(7, 6, 20), "Russell beats Norris to pole in Melbourne", "",
		"George Russell claimed pole position for the Grand Prix at Albert Park, edging Lando Norris by 0.091 seconds.")
	if sc := score(e, p, pole, s); sc != -1 {
		t.Errorf("Saturday's qualifying scores %.3f against Sunday's race, want the veto (-1)", sc)
	}
	copy := article("copy", at(8, 9, 0), "Norris takes the Melbourne win from Russell", "",
		"Lando Norris won the Grand Prix at Albert Park, with George Russell second after starting from pole.")
	if sc := score(e, p, copy, s); sc <= 0 {
		t.Errorf("a copy posted after the race scores %.3f, want a score", sc)
	}
	p.EarlierDayVeto = false
	if sc := score(e, p, pole, s); sc == -1 {
		t.Error("without the veto the qualifying is still vetoed: the test shows nothing")
	}
	// Tuesday's operation first, then Monday's, then a copy of Tuesday's
	// posted early on Tuesday in Asia, still Monday in UTC
	p = DefaultParams
	e, s = storyOf(t, p, article("tue", at(10, 1, 40), "PBOC drains cash via 7-day reverse repos on Tuesday", "",
		"After Monday's injection, the People's Bank of China drained a net 40.5 billion yuan from the banking system through 7-day reverse repurchase agreements at 1.40%, as more repos matured."))
	mon := article("mon", at(9, 1, 30), "PBOC injects cash via 7-day reverse repos", "",
		"The People's Bank of China injected a net 52.5 billion yuan into the banking system through 7-day reverse repurchase agreements at 1.40%, according to Reuters calculations.")
	if sc := score(e, p, mon, s); sc != -1 {
		t.Errorf("Monday's operation scores %.3f against Tuesday's, want the veto (-1)", sc)
	}
	early := article("early", at(9, 23, 50), "PBOC drains a net 40.5 billion yuan on Tuesday", "",
		"The People's Bank of China drained a net 40.5 billion yuan on Tuesday through 7-day reverse repurchase agreements at 1.40%.")
	if sc := score(e, p, early, s); sc < p.MinSimilarity {
		t.Errorf("a copy stating Tuesday, posted late on Monday in UTC, scores %.3f, want %.2f at least", sc, p.MinSimilarity)
	}
}

// TestYearsOut: a title's year, or range of model years, tells when,
// not what: a recall's copy that puts the model years in its title is
// still a copy of the report that gives the count of vehicles, while
// the same maker's other recall, of another count, stays apart.
func TestYearsOut(t *testing.T) {
	p := DefaultParams
	e, s := storyOf(t, p, article("count", at(3, 14, 0), "Ford recalls 1.2 million Explorer SUVs over rear axle bolts", "",
		"Ford Motor is recalling about 1.2 million Explorer SUVs in the United States because a rear axle bolt can fracture, "+
			"the National Highway Traffic Safety Administration said. Dealers will replace the bolts for free."))
	years := article("years", at(3, 18, 0), "2020–2022 Ford Explorer recalled because rear axle bolt can snap", "",
		"Owners of Ford Explorer SUVs from the 2020 through 2022 model years are being told their rear axle bolt can snap, "+
			"according to a recall notice from the National Highway Traffic Safety Administration. Dealers will replace it.")
	if sc := score(e, p, years, s); sc < p.MinSimilarity {
		t.Errorf("the copy with model years in its title scores %.3f, want %.2f at least", sc, p.MinSimilarity)
	}
	other := article("other", at(3, 19, 0), "Ford recalls 300,000 Bronco SUVs over rear axle bolts", "",
		"Ford Motor is recalling about 300,000 Bronco SUVs in the United States because a rear axle bolt can fracture, "+
			"the National Highway Traffic Safety Administration said. Dealers will replace the bolts for free.")
	if sc := score(e, p, other, s); sc != -1 {
		t.Errorf("the other recall scores %.3f, want the veto (-1)", sc)
	}
	p.YearsOut = false
	if sc := score(e, p, years, s); sc != -1 {
		t.Errorf("with years as figures the copy scores %.3f, want the veto (-1): the test shows nothing", sc)
	}
	for f, want := range map[string]bool{"2026": true, "2023.2025": true, "2025.26": false, "46": false, "1.2": false, "1899": false} {
		if IsYears(f) != want {
			t.Errorf("IsYears(%q) = %v, want %v", f, !want, want)
		}
	}
}

// TestNameVeto: two reports of one kind on other companies share the
// template's words, not the names of their titles, even when one names
// the other in passing; a copy that names another actor in its title
// and the story's twice is no other event.
func TestNameVeto(t *testing.T) {
	p := DefaultParams
	const tmpl = " forecast second-quarter revenue above Wall Street expectations on Thursday, as demand for artificial intelligence chips from cloud companies stayed strong."
	e := NewEngine(p, 7*24*time.Hour, NewMemFreq(7*24*time.Hour))
	// a day of other companies' results: the template's words are common
	for i := range 30 {
		e.Add(article(fmt.Sprint("bg", i), at(4, 10, i), fmt.Sprintf("Company%c forecasts revenue above estimates", 'a'+i),
			"", fmt.Sprintf("Company%c on Wednesday", 'a'+i)+strings.ReplaceAll(tmpl, "Thursday", "Wednesday")+" Shares rose."))
	}
	s := e.Story(e.Add(article("broadcom", at(5, 21, 0), "Broadcom forecasts revenue above estimates",
		"", "Chipmaker Broadcom on Thursday"+tmpl+" Shares of Broadcom rose.")).Story)
	if s.Lead != "broadcom" {
		t.Fatalf("Broadcom's results joined %s", s.Lead)
	}
	other := article("marvell", at(5, 21, 30), "Marvell forecasts revenue above estimates",
		"", "Chipmaker Marvell on Thursday"+tmpl+" Shares of Marvell rose.")
	if sc := score(e, p, other, s); sc != -1 {
		t.Errorf("the other company's results score %.3f, want the veto (-1)", sc)
	}
	// the second report of the other company's results, which names the
	// story's once, in passing
	e.Add(article("marvell1", at(5, 21, 30), "Marvell sees custom chip sales doubling",
		"", "Marvell chief executive Matt Murphy said on Thursday that custom chips for Amazon, Microsoft and Meta would double, "+
			"with Teralynx switches and Structera chips from Santa Clara, and finance chief Willem Meintjes agreed."))
	rival := article("rival", at(5, 21, 40), "Marvell forecasts revenue above estimates",
		"Marvell chief executive Matt Murphy said custom chips for Amazon and Microsoft would double.",
		"Chipmaker Marvell on Thursday"+tmpl+" Matt Murphy said Marvell's custom chips for Amazon and Microsoft "+
			"would double. Marvell's Teralynx switches and Structera chips, designed in Santa Clara, ship to Amazon, "+
			"Microsoft and Meta, Murphy said, and finance chief Willem Meintjes said Teralynx and Structera orders doubled. "+
			"Shares of Marvell rose, after rival Broadcom's results an hour earlier.")
	if sc := score(e, p, rival, s); sc != -1 {
		t.Errorf("the other company's results naming the story's in passing score %.3f, want the veto (-1)", sc)
	}
	peer := article("peer", at(5, 22, 0), "Hock Tan bets on custom chips",
		"", "Chief executive Hock Tan said Broadcom"+tmpl+" Broadcom shares rose.")
	if sc := score(e, p, peer, s); sc <= 0 {
		t.Errorf("a copy naming its chief in the title scores %.3f, want a score", sc)
	}
	p.NameVeto, p.ActorVeto = false, false
	if sc := score(e, p, other, s); sc <= 0 {
		t.Errorf("without the name and actor vetoes the other company's results score %.3f, want a score", sc)
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
// and its telling figures, and files its story under Keys.
func TestLookupKeys(t *testing.T) {
	a := article("a", at(5, 10, 0), "Quantix raises $1.2bn in funding led by Northwind as Contoso and Fabrikam join",
		"The Oslo start-up, valued at $9bn, will hire 400 engineers in Bergen, Trondheim and Stavanger.",
		"Quantix said on Thursday it raised $1.2 billion from Northwind Capital, Contoso Ventures and Fabrikam.")
	for _, figures := range []bool{false, true} {
		p := DefaultParams
		p.LookupFigures = figures
		p.KeyFacts = false          // TestKeyFacts
		p.Keys, p.LookupKeys = 3, 4 // the names weigh most: the figures are not among them
		e := NewEngine(p, 7*24*time.Hour, NewMemFreq(7*24*time.Hour))
		e.Complete = false
		d := e.Decide(a)
		looked := e.MissingKeys()
		if len(d.Keys) != p.Keys {
			t.Errorf("figures %t: %d keys filed, want %d", figures, len(d.Keys), p.Keys)
		}
		want := Keys(d.Vector, p.LookupKeys)
		if figures {
			// "1.2bn" and "$9bn" in figures, "400" engineers
			for _, f := range []string{"1200000000", "9000000000", "400"} {
				if !slices.Contains(want, f) {
					want = append(want, f)
				}
			}
		}
		slices.Sort(want)
		if !slices.Equal(looked, want) {
			t.Errorf("figures %t: looked up %v, want %v", figures, looked, want)
		}
	}
}

// TestCrossLanguage: a Chinese and an English report of one event that
// share its telling figures group; a Chinese report of another event
// that shares only the day's date and small counts does not.
func TestCrossLanguage(t *testing.T) {
	p := DefaultParams
	e, s := storyOf(t, p, article("en", at(4, 8, 35), "Tesla's China-made EV sales fall 11.6% in February",
		"Sales from the Shanghai factory dropped for a second month, the China Passenger Car Association said.",
		"Tesla sold 27,140 China-made electric vehicles in February, down 11.6% from a year earlier, data from the CPCA showed on March 4."))
	zh := article("zh", at(4, 9, 12), "乘联会：特斯拉中国2月批发销量27140辆，同比下滑11.6%", "",
		"3月4日，乘联会发布数据显示，特斯拉中国2月批发销量为27140辆，同比下降11.6%，环比下降约39%。")
	if sc := score(e, p, zh, s); sc < p.CrossMinSimilarity {
		t.Errorf("the Chinese copy scores %.3f, want at least %.2f", sc, p.CrossMinSimilarity)
	}
	other := article("other", at(4, 9, 30), "3月4日：2月新能源汽车销量同比下降4%", "",
		"3月4日，数据显示，2月全国新能源乘用车销量同比下降4%，环比下降2成，12家车企销量下滑。")
	if sc := score(e, p, other, s); sc >= p.CrossMinSimilarity {
		t.Errorf("another event's Chinese report scores %.3f, want under %.2f", sc, p.CrossMinSimilarity)
	}
	// one telling figure and a name shared are enough: a copy that
	// rounds the other figures ("下滑近12%")
	e, s = storyOf(t, p, article("en2", at(6, 3, 0), "Nvidia's H20 orders from China reach 1.3 million chips",
		"Chinese cloud companies have ordered the chips for delivery this year.",
		"Nvidia has received orders for about 1.3 million H20 chips from Chinese cloud providers including Alibaba and Tencent, "+
			"people familiar with the matter said, worth roughly $16 billion at current prices."))
	zh2 := article("zh2", at(6, 5, 0), "英伟达H20在华订单约130万颗 阿里腾讯为主要买家", "",
		"据知情人士透露，英伟达已收到中国云服务商约130万颗H20芯片订单，阿里巴巴、腾讯为主要买家，按现价计算价值逾千亿元人民币。")
	if sc := score(e, p, zh2, s); sc < p.CrossMinSimilarity {
		t.Errorf("the Chinese copy sharing one telling figure scores %.3f, want at least %.2f", sc, p.CrossMinSimilarity)
	}
	for _, tt := range []struct {
		term string
		want bool
	}{{"27140", true}, {"11.6", true}, {"1500000000000", true}, {"50bp", true}, {"2026", false}, {"16", false}, {"@d3-4", false}, {"percent", false}} {
		if got := Telling(tt.term); got != tt.want {
			t.Errorf("Telling(%q) = %t, want %t", tt.term, got, tt.want)
		}
	}
}

// checkVeto stories lead, and checks that a report of another event
// (other) is vetoed, that a copy in other words (copies) is not and
// scores at least MinSimilarity, and that without the veto (off) the
// other report would join; describe says what the veto compared.
func checkVeto(t *testing.T, lead, other, copies [3]string, off func(*Params), describe func(Article, *Story) string) {
	t.Helper()
	p := DefaultParams
	e, s := storyOf(t, p, article("lead", at(5, 12, 0), lead[0], lead[1], lead[2]))
	o := article("other", at(5, 12, 30), other[0], other[1], other[2])
	cp := article("copy", at(5, 13, 0), copies[0], copies[1], copies[2])
	if sc := score(e, p, o, s); sc != -1 {
		t.Errorf("the other event's report scores %.3f, want the veto (-1); %s", sc, describe(o, s))
	}
	if sc := score(e, p, cp, s); sc < p.MinSimilarity {
		t.Errorf("a copy scores %.3f, want at least %.2f; %s", sc, p.MinSimilarity, describe(cp, s))
	}
	off(&p)
	if sc := score(e, p, o, s); sc < p.MinSimilarity {
		t.Errorf("without the veto the other event's report scores %.3f, want at least %.2f (the template is shared)", sc, p.MinSimilarity)
	}
}

// TestActorVeto: reports of one kind whose titles put other actors first
// are other events, though the actors share a word ("Dollar General",
// "Dollar Tree") or, in Chinese, have no capitals to tell them by; a copy
// in other words, whose title puts the story's actor first or that
// writes it, is not.
func TestActorVeto(t *testing.T) {
	for _, tt := range []struct {
		name                string
		lead, other, copies [3]string
	}{
		{
			name: "two discount chains",
			lead: [3]string{"Dollar General lifts annual forecast as shoppers trade down",
				"The discount retailer's quarterly sales beat estimates.",
				"Dollar General raised its annual sales forecast on Thursday after quarterly same-store sales rose 2.4%, " +
					"as higher-income shoppers hunted for bargains. Dollar General shares jumped 8% in premarket trading."},
			other: [3]string{"Dollar Tree lifts annual forecast as shoppers trade down",
				"The discount retailer's quarterly sales beat estimates.",
				"Dollar Tree raised its annual sales forecast on Thursday after quarterly same-store sales rose 3.1%, " +
					"as higher-income shoppers hunted for bargains. Dollar Tree shares jumped 6% in premarket trading."},
			copies: [3]string{"Bargain hunters lift Dollar General's outlook",
				"",
				"Shares of Dollar General jumped on Thursday after the discount chain raised its annual sales forecast, " +
					"saying wealthier shoppers trading down had lifted same-store sales 2.4% in the quarter."},
		},
		{
			name: "two battery makers' results",
			lead: [3]string{"宁德时代去年净利润同比增长15%", "宁德时代周一晚间发布年报，全年营业收入与净利润均创新高。",
				"宁德时代3月9日晚间披露年报，全年实现净利润同比增长15%。报告期内，宁德时代动力电池销量继续位居全球第一，" +
					"储能电池出货同比大增。宁德时代表示，将继续加大海外产能建设。"},
			other: [3]string{"亿纬锂能去年净利润同比增长15%", "亿纬锂能周一晚间发布年报，全年营业收入与净利润均创新高。",
				"亿纬锂能3月9日晚间披露年报，全年实现净利润同比增长15%。报告期内，亿纬锂能动力电池销量继续增长，" +
					"储能电池出货同比大增。亿纬锂能表示，将继续加大海外产能建设。"},
			copies: [3]string{"动力电池龙头交出年度成绩单：宁德时代全年净利增长15%", "",
				"3月9日晚间，宁德时代公布年报，全年净利润同比增长15%，动力电池装机量保持全球第一。" +
					"宁德时代称，储能业务增长明显，海外工厂建设将提速。"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkVeto(t, tt.lead, tt.other, tt.copies, func(p *Params) { p.ActorVeto = false },
				func(a Article, s *Story) string { return fmt.Sprintf("actors %q, %q", a.Doc.Actor, s.Actor) })
		})
	}
}

// TestWords: the name veto's names are the one-word names, in any Latin
// script, not the names of several words nor CJK bigrams.
func TestWords(t *testing.T) {
	got := words([]string{"dollar", "dollar_general", "general", "škoda", "宁德", "émile"})
	if want := []string{"dollar", "general", "škoda", "émile"}; !slices.Equal(got, want) {
		t.Errorf("words %q, want %q", got, want)
	}
}

// TestKindVeto: one company's results and its finance chief's exit the
// next day share its name and background, but their titles tell other
// kinds of event; a copy of the results whose title tells results, or
// none, still joins. Kinds do not count as figures for the figure veto.
func TestKindVeto(t *testing.T) {
	lead := [3]string{"Northwind annual sales fall 6%, sees growth returning next year",
		"The Seattle software maker blamed weaker licence renewals.",
		"Northwind, the Seattle software maker, said annual sales fell 6% as licence renewals slowed, " +
			"and forecast a return to growth next year. Northwind shares fell 3% in early trading."}
	other := [3]string{"Northwind finance chief to step down as the Seattle software maker restructures",
		"The Seattle software maker said its chief financial officer will leave in June.",
		"Northwind, the Seattle software maker, said its chief financial officer will leave in June as it restructures " +
			"after annual sales fell. Northwind shares fell 3% in early trading."}
	copies := [3]string{"Northwind results disappoint as renewals slow",
		"",
		"Seattle-based Northwind said annual sales fell 6% on slower licence renewals, and the software maker " +
			"expects growth to return next year."}
	checkVeto(t, lead, other, copies, func(p *Params) { p.KindVeto = false },
		func(a Article, s *Story) string { return fmt.Sprintf("facts %v, %v", a.Doc.Facts, s.Facts) })
	if !agree([]string{"#exit", "5"}, []string{"#exit", "5"}, true, false, false) ||
		!agree([]string{"#exit"}, []string{"#results", "5"}, true, false, false) {
		t.Error("a kind counts as a figure for the figure veto")
	}
	// a title that cites the other event has its kind too
	if otherKinds([]string{"#exit", "#results"}, []string{"#results", "8"}) || !otherKinds([]string{"#exit"}, []string{"#results"}) ||
		otherKinds([]string{"#exit"}, []string{"#~later"}) {
		t.Error("kinds: a shared kind vetoes, other kinds do not, or the later fact counts as a kind")
	}
}

// TestAfterVeto: a report that writes its event came a day after
// another does not join the story of that other event, begun the day
// before; the same report joins a story begun within half a day, and a
// copy of the first event still joins it (the veto is off by default:
// Params.AfterVeto).
func TestAfterVeto(t *testing.T) {
	lead := [3]string{"Hungary's central bank holds base rate at 6.25% as inflation stays sticky",
		"The National Bank of Hungary kept its base rate unchanged for a fourth meeting.",
		"The National Bank of Hungary held its base rate at 6.25% on Tuesday, citing sticky services inflation " +
			"and a weak forint. Romania's central bank meets on Wednesday."}
	other := [3]string{"Romania's central bank holds key rate at 6.25%",
		"The National Bank of Romania left its key rate unchanged, a day after Hungary's central bank also held at 6.25%.",
		"The National Bank of Romania held its key rate at 6.25%, citing sticky inflation and the budget deficit. " +
			"Hungary's central bank held its base rate at 6.25% on Tuesday."}
	copies := [3]string{"Hungary keeps base rate at 6.25%, flags sticky services inflation",
		"", "Hungary's central bank held its base rate at 6.25% for a fourth meeting, pointing to sticky services inflation " +
			"and the weak forint."}
	p := DefaultParams
	p.AfterVeto = true
	e, s := storyOf(t, p, article("lead", at(3, 13, 0), lead[0], lead[1], lead[2]))
	o := article("other", at(4, 13, 0), other[0], other[1], other[2])
	cp := article("copy", at(3, 15, 0), copies[0], copies[1], copies[2])
	if !termvec.Later(o.Doc.Facts) {
		t.Fatal("the later report does not tell it is later")
	}
	if sc := score(e, p, o, s); sc != -1 {
		t.Errorf("the next day's report scores %.3f, want the veto (-1)", sc)
	}
	if sc := score(e, p, cp, s); sc < p.MinSimilarity {
		t.Errorf("a copy scores %.3f, want at least %.2f", sc, p.MinSimilarity)
	}
	soon := o
	soon.Time = at(3, 20, 0)
	q := p
	q.AfterVeto = false
	if sc := score(e, p, soon, s); sc != score(e, q, soon, s) {
		t.Errorf("posted 7 h after the story's first, the report scores %.3f, want as without the veto", sc)
	}
	if sc := score(e, q, o, s); sc < 0 {
		t.Errorf("without the veto the next day's report scores %.3f, want no veto", sc)
	}
	// the other way round: the later report came first and leads
	e2, s2 := storyOf(t, p, o)
	first := article("lead", at(3, 13, 0), lead[0], lead[1], lead[2])
	if sc := score(e2, p, first, s2); sc != -1 {
		t.Errorf("the day before's report scores %.3f against the later story, want the veto (-1)", sc)
	}
	if sc := score(e2, q, first, s2); sc < 0 {
		t.Errorf("without the veto the day before's report scores %.3f, want no veto", sc)
	}
}
