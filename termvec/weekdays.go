package termvec

import (
	"strconv"
	"strings"
)

// Weekdays tell events apart as figures do: "Stocks close at a record
// high on Monday" and "… on Tuesday" are two days' closes, as "2.1%" and
// "3.1%" are two months' rates, so titles that both name a weekday and
// share none are other events (Doc.Facts). A weekday is one term, the
// same in every form and language ("周五", "星期五", "礼拜五", "Friday":
// "@w5"), so that it is also a fact a Chinese and an English copy share.

// weekdays are the English weekdays' numbers (1 Monday … 7 Sunday); the
// abbreviations are left out: "wed", "sat" and "sun" are words too.
var weekdays = map[string]int{"monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5,
	"saturday": 6, "sunday": 7}

// weekdayTerm returns the term of weekday d (1 Monday … 7 Sunday).
func weekdayTerm(d int) string {
	if 1 <= d && d <= 7 {
		return weekdayTerms[d]
	}
	return "@w" + string(rune('0'+d))
}

// weekdayTerms and monthTerms are the terms of the weekdays (1..7) and
// the months (1..12), made once.
var weekdayTerms, monthTerms = func() (w [8]string, m [13]string) {
	for d := 1; d <= 7; d++ {
		w[d] = "@w" + string(rune('0'+d))
	}
	for i := 1; i <= 12; i++ {
		m[i] = "@m" + itoa(i)
	}
	return w, m
}()

// cjkWeekday is the weekday (1..7) the CJK pair a b ends ("周五",
// "星期五" read from its last two characters "期五", "礼拜五" from "拜五"),
// 0 for none.
func cjkWeekday(a, b rune) int {
	if a != '周' && a != '期' && a != '拜' {
		return 0
	}
	switch b {
	case '一':
		return 1
	case '二':
		return 2
	case '三':
		return 3
	case '四':
		return 4
	case '五':
		return 5
	case '六':
		return 6
	case '日', '天':
		return 7
	}
	return 0
}

// notWeekdayAfter says whether the character r after a weekday's last
// character d ("一" of "周一") makes it no weekday: "每周一次" is once a
// week, "本周日本" this week in Japan, "三周年" an anniversary.
func notWeekdayAfter(d, r rune) bool {
	switch r {
	case '次', '年', '岁', '个', '內', '内':
		return true
	case '本':
		return d == '日'
	}
	return false
}

// months are the English months' numbers, for dates (dateTerm).
var months = map[string]int{"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
	"july": 7, "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
	"oct": 10, "nov": 11, "dec": 12}

// dateTerm is the term of day d of month m, the same in every language:
// "March 5", "5 March" and "3月5日" are "@d3-5".
func dateTerm(m, d int) string {
	return "@d" + itoa(m) + "-" + itoa(d)
}

// monthTerm is the term of month m (1..12), the same in every language:
// "March" and "3月" are "@m3".
func monthTerm(m int) string {
	if 1 <= m && m <= 12 {
		return monthTerms[m]
	}
	return "@m" + itoa(m)
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// WeekdayOf returns the weekday (1 Monday … 7 Sunday) a weekday term
// stands for.
func WeekdayOf(term string) (int, bool) {
	if len(term) != 3 || term[:2] != "@w" || term[2] < '1' || term[2] > '7' {
		return 0, false
	}
	return int(term[2] - '0'), true
}

// DateOf returns the month and day a date term ("@d3-5") stands for.
func DateOf(term string) (month, day int, ok bool) {
	s, ok := strings.CutPrefix(term, "@d")
	if !ok {
		return 0, 0, false
	}
	m, d, ok := strings.Cut(s, "-")
	if !ok {
		return 0, 0, false
	}
	month, err1 := strconv.Atoi(m)
	day, err2 := strconv.Atoi(d)
	if err1 != nil || err2 != nil || month < 1 || month > 12 || day < 1 || day > 31 {
		return 0, 0, false
	}
	return month, day, true
}
