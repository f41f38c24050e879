package termvec

import (
	"slices"
	"strings"
	"testing"
)

// TestNames: the names of an article are the words it writes with a
// capital inside a sentence, the Latin words of a CJK text, and the
// words it writes with a capital only at a start but twice and never in
// lower case; its title names are those of its title.
func TestNames(t *testing.T) {
	for _, tt := range []struct {
		name                  string
		title, summary, lead  string
		names, titleNames     []string
		notNames, notTitle    []string
		weekdayOrDateInCounts string
	}{
		{
			name:  "a name that only heads sentences",
			title: "TSMC Sales Rise 22% in February",
			lead:  "TSMC reported revenue of NT$318.6 billion. Shares rose in Taipei.",
			names: []string{"tsmc", "taipei"}, titleNames: []string{"tsmc"},
			notNames: []string{"sal", "shar", "revenu"},
		},
		{
			name:  "a word heading two sentences but also in lower case is no name",
			title: "Revenue rises at Quantix",
			lead:  "Revenue grew 5%. The revenue of Quantix beat estimates.",
			names: []string{"quantix"}, titleNames: []string{"quantix"}, notNames: []string{"revenu"},
		},
		{
			name:     "an English text glossing a name in Chinese",
			title:    "Chipmaker posts record sales",
			lead:     "Taiwan Semiconductor Manufacturing Co (台積電) yesterday reported revenue of NT$318.6 billion for last month, down from January.",
			names:    []string{"manufactur", "semiconductor"},
			notNames: []string{"revenu", "report", "yesterday", "month", "taiwan"}, // Taiwan heads it once
		},
		{
			name:     "Latin words in a Chinese text are names",
			title:    "英伟达发布新芯片",
			lead:     "英伟达周二在GTC大会上发布Blackwell Ultra芯片。",
			names:    []string{"blackwell", "gtc", "ultra"},
			notTitle: []string{"blackwell"},
		},
		{
			name:  "an abbreviation's point ends no sentence",
			title: "Broadcom forecasts revenue above estimates",
			lead:  "Revenue more than doubled in the first quarter ended Feb. 1, Broadcom said. The U.S. company beat estimates.",
			names: []string{"broadcom"}, titleNames: []string{"broadcom"},
			weekdayOrDateInCounts: "@d2-1",
		},
		{
			name:       "two-letter names are no title names",
			title:      "Tesla's EV sales fall in Germany",
			lead:       "Sales of the EV maker fell, Tesla said, as the wider EV market in Germany grew.",
			names:      []string{"ev", "germany", "tesla"},
			titleNames: []string{"germany", "tesla"}, notTitle: []string{"ev"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDoc(tt.title, tt.summary, tt.lead, DefaultWeights)
			for _, n := range tt.names {
				if !slices.Contains(d.Names, n) {
					t.Errorf("%q is not among the names %q", n, d.Names)
				}
			}
			for _, n := range tt.notNames {
				if slices.Contains(d.Names, n) {
					t.Errorf("%q is among the names %q", n, d.Names)
				}
			}
			for _, n := range tt.titleNames {
				if !slices.Contains(d.TitleNames, n) {
					t.Errorf("%q is not among the title names %q", n, d.TitleNames)
				}
			}
			for _, n := range tt.notTitle {
				if slices.Contains(d.TitleNames, n) {
					t.Errorf("%q is among the title names %q", n, d.TitleNames)
				}
			}
			if x := tt.weekdayOrDateInCounts; x != "" && d.Counts[x] == 0 {
				t.Errorf("no %s among the terms %v", x, d.Counts)
			}
			if !slices.IsSorted(d.Names) || !slices.IsSorted(d.TitleNames) {
				t.Errorf("names %q, title names %q: want them sorted", d.Names, d.TitleNames)
			}
		})
	}
}

// TestNameWeight: a name that heads its sentences weighs as a name
// wherever the article writes it; a capitalised word heading one
// sentence weighs as a word.
func TestNameWeight(t *testing.T) {
	w := Weights{Title: 1, Summary: 1, Lead: 1, Name: 3, Figure: 1}
	d := NewDoc("Quantix raises prices", "", "Quantix said on Monday it raised prices. Analysts expected it.", w)
	if got := d.Counts["quantix"]; got != 6 {
		t.Errorf("quantix counts %v, want 6 (twice a name)", got)
	}
	if got := d.Counts["analyst"]; got != 1 {
		t.Errorf("analyst counts %v, want 1 (once a word)", got)
	}
}

// TestNamePhrases: capitalised words one after another are one name too
// (their terms joined by '_'), cut where a word is no name (a title in
// title case), ended by a possessive, a stop word or a punctuation mark;
// the Latin words of a CJK text form them as well. The title's actor is
// its first name, of several words when it begins one, or in a CJK
// title its first bigram that the report repeats.
func TestNamePhrases(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		title, summary, lead string
		titleNames, notTitle []string
		actor                string
	}{
		{
			name:  "two discount chains sharing a word",
			title: "Dollar General lifts outlook as shoppers trade down",
			lead: "Dollar General raised its annual sales forecast on Thursday, as higher-income shoppers " +
				"hunted for bargains. Rival Dollar Tree reports next week.",
			titleNames: []string{"dollar", "dollar_general", "general"},
			notTitle:   []string{"dollar_tree", "tree"},
			actor:      "dollar_general",
		},
		{
			name:       "a title in title case keeps the names of its run",
			title:      "Dollar Tree Beats Estimates As Shoppers Trade Down",
			lead:       "Dollar Tree posted higher quarterly sales on Wednesday, as shoppers traded down.",
			titleNames: []string{"dollar_tree"}, notTitle: []string{"dollar_tree_beat", "beat_estimat", "shopper_trad"},
			actor: "dollar_tree",
		},
		{
			name:  "a product of several words after its maker",
			title: "Apple unveils MacBook Air with M4 chip, cuts price to $999",
			lead: "Apple on Wednesday announced a new MacBook Air powered by its M4 processor. " +
				"The MacBook Air starts at $999, $100 less than before, the company said.",
			titleNames: []string{"appl", "macbook_air"},
			actor:      "appl",
		},
		{
			name:       "a possessive and a stop word end a name",
			title:      "Tesla's China sales fall as Bank of England holds rates",
			lead:       "Tesla sold fewer cars in China in February. The Bank of England kept its main rate at 4%.",
			titleNames: []string{"china", "tesla"}, notTitle: []string{"tesla_china", "bank_of_england", "bank_england"},
			actor: "tesla",
		},
		{
			name:       "a hyphen joins a name's words",
			title:      "Voters in Baden-Württemberg hand CDU a narrow win",
			lead:       "The CDU won the election in Baden-Württemberg on Sunday, ending the Greens' long hold on the state.",
			titleNames: []string{"baden_wurttemberg", "cdu"},
			actor:      "baden_wurttemberg", // a letter with a mark is its base letter
		},
		{
			name:       "Latin words in a Chinese title",
			title:      "苹果发布新款MacBook Air 搭载M4芯片",
			lead:       "苹果公司周三发布新款MacBook Air，起售价为7999元。苹果表示，新款MacBook Air续航最长可达18小时。",
			titleNames: []string{"macbook_air"},
		},
		{
			name:    "the company a Chinese report repeats",
			title:   "宁德时代去年净利润同比增长15%",
			summary: "宁德时代周一晚间发布年报，全年营业收入与净利润均创新高。",
			lead: "宁德时代3月9日晚间披露年报。报告期内，宁德时代动力电池系统销量继续位居全球第一，" +
				"储能电池出货同比大增。宁德时代表示，将继续加大海外产能建设。",
			titleNames: []string{"宁德"}, notTitle: []string{"去年", "增长"},
			actor: "宁德",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDoc(tt.title, tt.summary, tt.lead, DefaultWeights)
			for _, n := range tt.titleNames {
				if !slices.Contains(d.TitleNames, n) {
					t.Errorf("%q is not among the title names %q", n, d.TitleNames)
				}
			}
			for _, n := range tt.notTitle {
				if slices.Contains(d.TitleNames, n) {
					t.Errorf("%q is among the title names %q", n, d.TitleNames)
				}
			}
			if tt.actor != "" && d.Actor != tt.actor {
				t.Errorf("actor %q, want %q (title names %q)", d.Actor, tt.actor, d.TitleNames)
			}
			for term := range d.Counts {
				if strings.IndexByte(term, '_') >= 0 {
					t.Errorf("the name %q of several words is among the vector's terms", term)
				}
			}
		})
	}
}
