package termvec

import (
	"slices"
	"testing"
)

// TestWeekdays: a text has one weekday term per weekday it names, the
// same in every form and language, and none where a weekday's word means
// something else.
func TestWeekdays(t *testing.T) {
	days := func(text string) []string {
		var out []string
		Tokens(text, func(term string, k Kind) {
			if k == Weekday {
				out = append(out, term)
			}
		})
		return out
	}
	same := [][]string{
		{"Stocks close at record high on Friday", "Friday: stocks at record high", "FRIDAY CLOSE", "股市周五收于历史新高", "股市星期五收于历史新高", "股市礼拜五收于新高"},
		{"股市周日收于历史新高", "股市星期天收于历史新高", "Stocks fall on Sunday"},
	}
	var seen []string
	for _, forms := range same {
		want := days(forms[0])
		if len(want) != 1 {
			t.Fatalf("%q: weekdays %q, want one", forms[0], want)
		}
		for _, f := range forms[1:] {
			if got := days(f); !slices.Equal(got, want) {
				t.Errorf("%q: weekdays %q, want %q (as %q)", f, got, want, forms[0])
			}
		}
		if slices.Contains(seen, want[0]) {
			t.Errorf("%q: weekday %q met before", forms[0], want[0])
		}
		seen = append(seen, want[0])
	}
	if a, b := days("股市周四收于历史新高"), days("股市收于历史新高周四"); len(a) != 1 || !slices.Equal(a, b) {
		t.Errorf("周四 inside and at the end of a title: %q and %q", a, b)
	}
	for _, title := range []string{"Stocks close at record high", "Couple wed on a sunny day", "Sun and sat: a weekend",
		"本周日本股市大涨", "央行每周一次公开市场操作", "公司成立三周年"} {
		if d := days(title); len(d) != 0 {
			t.Errorf("%q: weekdays %q, want none", title, d)
		}
	}
}

// TestDatesAndPoints: a day of a month, and basis or percentage points,
// are one term in every notation and language.
func TestDatesAndPoints(t *testing.T) {
	for _, same := range [][]string{
		{"on March 5", "on 5 March", "3月5日", "3月5号", "on Mar 5"},
		{"cut by 50 basis points", "cut by 50bp", "cut by 50 bps", "下调50个基点", "下调0.5个百分点", "cut by 0.5 percentage point", "cut by half a point 0.5 percentage points"},
		{"$1.2 trillion", "1.2万亿美元", "12000亿美元"},
		{"5万人", "50,000 people", "50 thousand"},
	} {
		want := facts(same[0])
		if len(want) == 0 {
			t.Fatalf("%q: no facts", same[0])
		}
		for _, f := range same[1:] {
			if got := facts(f); !slices.Contains(got, want[0]) {
				t.Errorf("%q: facts %q, want %q (as %q)", f, got, want[0], same[0])
			}
		}
	}
	if a, b := facts("on March 5"), facts("on March 6"); slices.Equal(a, b) {
		t.Errorf("March 5 and 6: facts %q and %q", a, b)
	}
}

// facts returns the fact terms of text.
func facts(text string) []string {
	var out []string
	Tokens(text, func(term string, k Kind) {
		if k.IsFact() && k != Name {
			out = append(out, term)
		}
	})
	return out
}
