package minhash

import (
	"fmt"
	"slices"
	"testing"
)

// TestWeekdays: a title's sketch holds one weekday hash per weekday it
// names, the same for a language's forms of it, none in a text's sketch
// (Of), and a weekday is never a figure or an index key.
func TestWeekdays(t *testing.T) {
	days := func(title string) []uint32 {
		_, head, _ := OfTitled(title, "Some words of a summary on Friday.")
		var out []uint32
		for _, v := range head {
			if Weekday(v) {
				if Figure(v) {
					t.Errorf("%q: weekday %x is a figure", title, v)
				}
				out = append(out, v)
			}
		}
		return out
	}
	same := [][]string{
		{"Stocks close at record high on Friday", "Friday: stocks at record high", "FRIDAY CLOSE"},
		{"股市周五收于历史新高", "股市星期五收于历史新高", "股市礼拜五收于新高"},
		{"股市周日收于历史新高", "股市星期天收于历史新高"},
	}
	var seen []uint32
	for _, forms := range same {
		want := days(forms[0])
		if len(want) != 1 {
			t.Fatalf("%q: weekdays %x, want one", forms[0], want)
		}
		for _, f := range forms[1:] {
			if got := days(f); !slices.Equal(got, want) {
				t.Errorf("%q: weekdays %x, want %x (as %q)", f, got, want, forms[0])
			}
		}
		if slices.Contains(seen, want[0]) {
			t.Errorf("%q: weekday %x met before", forms[0], want[0])
		}
		seen = append(seen, want[0])
	}
	if a, b := days("Stocks close on Monday"), days("Stocks close on Tuesday"); len(a) != 1 || len(b) != 1 || a[0] == b[0] {
		t.Errorf("Monday %x and Tuesday %x", a, b)
	}
	if a, b := days("股市周四收于历史新高"), days("股市收于历史新高周四"); len(a) != 1 || !slices.Equal(a, b) {
		t.Errorf("周四 inside and at the end of a title: %x and %x", a, b)
	}
	for _, title := range []string{"Stocks close at record high", "Couple wed on a sunny day", "Sun and sat: a weekend",
		"本周日本股市大涨", "央行每周一次公开市场操作", "公司成立三周年"} {
		if d := days(title); len(d) != 0 {
			t.Errorf("%q: weekdays %x, want none", title, d)
		}
	}
	sk, _ := Of("Stocks close at record high on Friday. 周五收盘")
	for _, v := range sk {
		if Weekday(v) {
			t.Errorf("a text's sketch holds weekday %x", v)
		}
	}
	for _, v := range sk.Keys() {
		if Weekday(v) {
			t.Errorf("weekday %x is an index key", v)
		}
	}
	var long string
	for i := range 80 {
		long += fmt.Sprintf("word%c%c ", 'a'+i%26, 'a'+i/26)
	}
	if a, b := days(long+"on Monday"), days(long+"on Tuesday"); len(a) != 1 || len(b) != 1 || a[0] == b[0] {
		t.Errorf("a title of more than K shingles: Monday %x, Tuesday %x", a, b)
	}
	if len(WeekdayValues()) != 14 {
		t.Errorf("%d weekday values, want 14 (7 English, 7 CJK)", len(WeekdayValues()))
	}
}
