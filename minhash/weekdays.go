package minhash

import (
	"slices"
	"strconv"
)

// Weekdays tell events apart as figures do: "Stocks close at a record
// high on Monday" and "… on Tuesday" are two days' closes, as "2.1%" and
// "3.1%" are two months' rates, so titles that both name a weekday and
// share none are other events (the story's titled, besides its figures).
// A weekday is one hash (Weekday: one of 14 values, high so that it is
// seldom among a sketch's least, and never an index key), the same in a
// language's forms of it ("周五", "星期五", "礼拜五"; "Friday"), not
// across languages (no shingle is). It weighs nothing more than a word:
// a weekday shared by many stories of a day says little of the event.

// weekdays are the English weekdays' numbers (1 Monday … 7 Sunday); the
// abbreviations are left out: "wed", "sat" and "sun" are words too.
var weekdays = map[string]int{"monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5,
	"saturday": 6, "sunday": 7}

// weekdayHash are the figures' word hashes of the weekdays 1..7 (English
// ones and CJK ones apart: index 0..7 English, 8..15 CJK).
var weekdayHash = func() (h [16]uint64) {
	for d := 1; d <= 7; d++ {
		h[d] = fnv([]byte("weekday " + strconv.Itoa(d)))
		h[8+d] = fnv([]byte("周" + strconv.Itoa(d)))
	}
	return h
}()

// cjkWeekday is the index in weekdayHash of the weekday the CJK pair a b
// ends ("周五", "星期五" read from its last two characters "期五",
// "礼拜五" from "拜五"), 0 for none.
func cjkWeekday(a, b rune) int {
	if a != '周' && a != '期' && a != '拜' {
		return 0
	}
	switch b {
	case '一':
		return 9
	case '二':
		return 10
	case '三':
		return 11
	case '四':
		return 12
	case '五':
		return 13
	case '六':
		return 14
	case '日', '天':
		return 15
	}
	return 0
}

// weekdayValues are the sketch values of the weekdays (appendHashes).
var weekdayValues = func() map[uint32]bool {
	m := make(map[uint32]bool, 14)
	for i, h := range weekdayHash {
		if i%8 != 0 {
			m[uint32(h>>32)|0xff000007] = true
		}
	}
	return m
}()

// Weekday tells whether v, a hash of a sketch, is a weekday's.
func Weekday(v uint32) bool { return v >= 0xff000007 && weekdayValues[v] }

// WeekdayValues returns the sketch values of the weekdays, increasing
// (for the story script, which checks them as titled does).
func WeekdayValues() []uint32 {
	out := make([]uint32, 0, len(weekdayValues))
	for v := range weekdayValues {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
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
