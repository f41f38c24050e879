package termvec

import (
	"slices"
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
