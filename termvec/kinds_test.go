package termvec

import (
	"slices"
	"testing"
)

// TestTitleKinds: a title's kinds are those of the words of action it
// writes, in English or Chinese, in any of their forms.
func TestTitleKinds(t *testing.T) {
	for _, tt := range []struct {
		title string
		want  []string
	}{
		{"Acme quarterly profit beats estimates on cloud demand", []string{KindResults}},
		{"Acme Earnings: Cloud Unit Carries the Quarter", []string{KindResults}},
		{"Acme finance chief to step down after eight years", []string{KindExit}},
		{"Acme CFO resigns, a week after annual results", []string{KindExit, KindResults}},
		{"Acme loses its chief executive to a rival", []string{KindExit}},
		{"Acme names Jane Roe as successor to retiring founder", []string{KindExit}},
		{"Acme recalls 50,000 kettles over fire risk", []string{KindRecall}},
		{"Regulator sues Acme over misleading ads", []string{KindLegal}},
		{"Acme agrees takeover of Beta for $2bn", []string{KindDeal}},
		{"Acme to cut 900 jobs in layoffs across Europe", []string{KindLayoffs}},
		{"Acme shares jump as investors cheer new chip", nil},
		{"Acme's boss says the worst is over", nil},
		{"某科技公司一季度营收同比增长12%", []string{KindResults}},
		{"某科技公司首席财务官辞职", []string{KindExit}},
		{"某车企召回3万辆电动车", []string{KindRecall}},
		{"某公司宣布裁员10%", []string{KindLayoffs}},
		{"某科技公司CFO辞任 此前一日刚发布年报", []string{KindExit, KindResults}},
		{"Rovers reach the quarter-final after a late winner", nil},
		{"Rovers edge United in Cup quarter final", nil},
		{"某公司新品发布会在京举行", nil},
	} {
		got := TitleKinds(tt.title)
		slices.Sort(got)
		slices.Sort(tt.want)
		if !slices.Equal(got, tt.want) {
			t.Errorf("TitleKinds(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

// TestKindFact: a title's kind is among its facts, written "#" and the
// kind, first when sorted; a title without one has none.
func TestKindFact(t *testing.T) {
	d := NewDoc("Acme CFO resigns as restructuring goes on", "", "", DefaultWeights)
	if !slices.Contains(d.Facts, "#"+KindExit) || !IsKind(d.Facts[0]) {
		t.Errorf("facts %v, want #%s first", d.Facts, KindExit)
	}
	d = NewDoc("Acme CFO resigns a day after annual results", "", "", DefaultWeights)
	if want := []string{"#" + KindExit, "#" + KindResults, LaterFact}; !slices.Equal(d.Facts, want) || !Later(d.Facts) {
		t.Errorf("facts %v, want %v", d.Facts, want)
	}
	d = NewDoc("Acme shares jump 5% on Monday", "", "", DefaultWeights)
	if slices.ContainsFunc(d.Facts, IsKind) {
		t.Errorf("facts %v, want no kind", d.Facts)
	}
}

// TestAfter: a title or summary that writes its event comes a day or
// more after another one is a follow-up (LaterFact), in English or
// Chinese; "after" alone is not.
func TestAfter(t *testing.T) {
	for _, tt := range []struct {
		title, summary string
		want           bool
	}{
		{"Hungary's central bank holds rates", "The bank kept its rate unchanged, a day after Romania's also held.", true},
		{"Flooding hits second town Days After Levee Breach", "", true},
		{"某地再发4.2级地震", "系前一日5.0级地震的余震。", true},
		{"新机发布次日，股价回落", "", true},
		{"Shares fall after profit warning", "The stock fell 5% after the company cut its outlook.", false},
		{"Shares drop Tuesday after profit warning", "Two weeks after its launch, the phone sells well.", true},
		{"Shares drop Tuesday after profit warning", "The stock fell on Tuesday after the warning.", false},
		{"Strong Aftershock jolts coastal towns", "", true},
		{"某县凌晨发生4.1级余震", "", true},
		{"Quake jolts coastal towns", "Residents slept outside. Aftershocks are expected for days.", false},
		{"某公司发布新款手机", "售价3999元起。", false},
	} {
		if got := Later(NewDoc(tt.title, tt.summary, "", DefaultWeights).Facts); got != tt.want {
			t.Errorf("%q / %q: After %t, want %t", tt.title, tt.summary, got, tt.want)
		}
	}
}
