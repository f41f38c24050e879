package termvec

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A figure is a number as a reader sees it, one word whatever its
// notation: two writings of one value are one figure (so that copies of
// an event that write it otherwise still share it), two values are two
// (so that titles of other events, 2-0 and 2-1, 2.1% and 3.1%, share
// none: Doc.Facts). Its canonical form:
//
//   - its digits, any script's, are ASCII ("٢" is "2", "２" is "2");
//   - a thousands separator is dropped: a comma, a space (a no-break,
//     narrow no-break, thin or figure space is one after NFKC), an
//     apostrophe (' ’ ʼ) or the Arabic "٬", before exactly three digits
//     and no fourth, after the first one to three digits of a number
//     or three digits after the same separator ("1,500", "1 500",
//     "1'500" and "1500" are one figure; a number begins the figure or
//     follows a dash or slash: "1,500-2,000" is "1500-2000");
//   - any other joiner between two digits is one separator: a point, a
//     comma, the Arabic decimal "٫", a colon, a slash, a dash or minus
//     sign, the 比 (対, 대) of a CJK score, and a dash or colon between
//     single spaces ("2 - 0", "2 : 0"): "2:1" is "2-1", "2024/25" is
//     "2024-25", "14:30" is "14.30", "1,5" is "1.5" ("×" is kept apart,
//     as "x": 3×4 is not 3.4);
//   - a decimal (one point, comma or "٫" between two digit groups) whose
//     second group is all zeros loses it: "7.0" is "7" (not its other
//     trailing zeros: "3.10" is a version, "12.10." a date, and neither is
//     "3.1" or "12.1."); that figure as written is a figure of the text too, so that
//     "14.30" still shares "14.30" with "14:30" and "7.0" with "7-0",
//     where a score keeps its zeros ("2-0" is not "2", "20-10" not
//     "20-1"). A second group of exactly three digits is kept as it is:
//     "1.500" is a thousand and a half in Europe and one and a half
//     elsewhere, so it is neither "1500" nor "1.5";
//   - a scale after a number (not a range's), its word or abbreviation
//     (scales), multiplies it: "$1.2bn", "$1.2 billion" and "$1,200m"
//     are "1200000000", "1.5m" is "1,500,000", "10k" is "10,000", and
//     "$5m" is not "$5bn";
//   - letters between digits are kept ("14h30", "4x100", "H1N1"'s
//     "1n1"), and the figure ends at any other letter, which begins the
//     next word, a unit or ending: "5km" is "5 km", "2nd" is "2" and
//     "nd";
//   - a word of one letter ends where a digit follows ("v2.1" is "v"
//     and "2.1", "Q3" is "q" and "3", "G7" is "g" and "7"): a version,
//     a quarter, a motorway. A longer word keeps its digits ("ABC7",
//     "TVN24", "COP26", "CO2"): the name of an outlet (in the titles of
//     its pages), a meeting, a compound, which another outlet's copy may
//     leave out and whose digits are no value of the event;
//   - a minus sign (- or −) before a digit at a word's start (at the
//     text's start, after a space, a bracket or an opening quote) is
//     the figure's: "-3" is not "3"; within a word it is a joiner ("2-3
//     June") or nothing ("covid-19").
//
// Left apart: a score's order ("2-1" is not "1-2"), a date's ("1 June
// 2025" is not "2025-06-01"), the "1.500" of Europe and the "1,500" of
// elsewhere, and a number spelt out ("2 to 1", "two").

// figureAt reads the figure that begins at text[i], rune r, if one does:
// a digit (not in a word of two letters or more), or a minus sign before
// a digit at a word's start. It ends the word of one letter before it,
// emits the figure (and, when a decimal's trailing zeros made its value
// shorter, the figure as written too) and returns how many bytes of text
// it is; 0 when no figure begins there. A day of a month is a Date
// ("March 5", "5 March", "3月5日"), and basis points and percentage
// points are one unit ("50 bp", "50个基点", "0.5 percentage point" and
// "0.5个百分点" are "50bp").
func (tk *tokenizer) figureAt(text string, i int, r rune) int {
	if !unicode.IsDigit(r) && !signAt(text, i, r) || utf8.RuneCount(tk.word[:tk.n]) > 1 {
		return 0
	}
	tk.flushRun()
	month := tk.month
	tk.flushWord()
	tk.endRun()
	var f figure
	n := f.read(text[i:])
	value := string(f.b[:f.value])
	if d, ok := day(value); ok {
		if month != 0 {
			tk.emit(dateTerm(month, d), Date)
			tk.suffix = false
			return n
		}
		if m, size := monthAfter(text[i+n:]); m != 0 {
			if m < 0 { // 3月5日: value is the month
				tk.emit(dateTerm(d, -m>>5), Date)
			} else {
				tk.emit(dateTerm(m, d), Date)
			}
			return n + size
		}
	}
	if m, ok := day(value); ok && m <= 12 && strings.HasPrefix(text[i+n:], "月") {
		size := len("月")
		if strings.HasPrefix(text[i+n+size:], "份") {
			size += len("份")
		}
		tk.emit(monthTerm(m), Word)
		return n + size
	}
	if e, size := pointsAt(text[i+n:]); size > 0 {
		f.scale(e)
		tk.emit(string(f.b[:f.value])+"bp", Figure)
		return n + size
	}
	tk.emit(value, Figure)
	if f.value < f.n {
		tk.emit(string(f.b[:f.n]), Figure) // as written
	}
	next, _ := utf8.DecodeRuneInString(text[i+n:])
	tk.suffix = unicode.IsLetter(next) && !isCJK(next)
	return n
}

// day returns the day of the month a figure's value is, when it is one
// (1 to 31, no sign or point).
func day(v string) (int, bool) {
	if len(v) == 0 || len(v) > 2 || v[0] == '0' {
		return 0, false
	}
	d := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		d = 10*d + int(c-'0')
	}
	return d, d >= 1 && d <= 31
}

// monthAfter reads what may follow a day's number: " March" (the month,
// and the length read), or, when the number is a month, "月5日" (minus
// the day << 5: "3月5日" is 5 March). 0 when neither follows.
func monthAfter(s string) (m, n int) {
	if rest, ok := strings.CutPrefix(s, "月"); ok {
		if d := leadingDigits(rest); d > 0 && d <= 2 {
			v, _ := day(rest[:d])
			if after := rest[d:]; v > 0 && (strings.HasPrefix(after, "日") || strings.HasPrefix(after, "号")) {
				return -v << 5, len("月") + d + len("日")
			}
		}
		return 0, 0
	}
	if !strings.HasPrefix(s, " ") {
		return 0, 0
	}
	end := 1
	for end < len(s) && ('a' <= s[end] && s[end] <= 'z' || 'A' <= s[end] && s[end] <= 'Z') {
		end++
	}
	w := s[1:end]
	if len(w) < 3 || w[0] < 'A' || w[0] > 'Z' {
		return 0, 0
	}
	return months[strings.ToLower(w)], end
}

// pointsAt reads a unit of basis points or percentage points after a
// figure (a space before a Latin one allowed) and returns the power of
// ten that makes the figure basis points (0 or 2) and the unit's length;
// 0, 0 when none follows.
func pointsAt(s string) (e, n int) {
	for _, u := range [...]struct {
		unit string
		e    int
	}{{"个基点", 0}, {"基点", 0}, {"个百分点", 2}, {"百分点", 2}} {
		if strings.HasPrefix(s, u.unit) {
			return u.e, len(u.unit)
		}
	}
	t := strings.TrimPrefix(s, " ")
	lower := strings.ToLower(t[:min(len(t), 20)])
	for _, u := range [...]struct {
		unit string
		e    int
	}{{"basis points", 0}, {"basis point", 0}, {"bps", 0}, {"bp", 0},
		{"percentage points", 2}, {"percentage point", 2}, {"pct points", 2}, {"pct point", 2}} {
		if strings.HasPrefix(lower, u.unit) {
			rest := t[len(u.unit):]
			if r, _ := utf8.DecodeRuneInString(rest); unicode.IsLetter(r) || unicode.IsDigit(r) {
				continue
			}
			return u.e, len(s) - len(t) + len(u.unit)
		}
	}
	return 0, 0
}

// signAt tells whether r, at text[i], is the minus sign of a figure: a
// hyphen-minus or minus sign before a digit, at the text's start or
// after a space, a bracket or an opening quote.
func signAt(text string, i int, r rune) bool {
	if r != '-' && r != '−' {
		return false
	}
	if d, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):]); !unicode.IsDigit(d) {
		return false
	}
	if i == 0 {
		return true
	}
	p, _ := utf8.DecodeLastRuneInString(text[:i])
	return unicode.IsSpace(p) || p == '"' || p == '\'' || unicode.In(p, unicode.Ps, unicode.Pi)
}

// figure is the canonical form of a figure being read: b[:n] as written
// (its separators made one), b[:value] its value (a decimal without its
// trailing zeros; value is n for any other figure).
type figure struct {
	b        [64]byte
	n, value int
}

// read reads into f the figure s begins with (a digit, or a minus sign
// and a digit) and returns how many bytes of s it is.
func (f *figure) read(s string) int {
	i := 0
	if r, size := utf8.DecodeRuneInString(s); !unicode.IsDigit(r) {
		f.add('-')
		i = size
	}
	joints, kind, letters := 0, byte(0), false
	// lead: the digits read begin a number (the figure or what follows a
	// dash or slash), or follow its thousands separator sep
	lead, sep := true, rune(0)
	group := 0 // where the last digit group begins in b
	for {
		group = f.n
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsDigit(r) {
				break
			}
			f.add(byte('0' + digitValue(r)))
			i += size
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if thousands(r) && lead && (sep == 0 && f.n-group <= 3 || sep == r) && leadingDigits(s[i+size:]) == 3 {
			sep, i = r, i+size
			continue
		}
		if k, n := joinAt(s[i:]); n > 0 && leadingDigits(s[i+n:]) > 0 {
			joints, kind = joints+1, k
			if k == 'x' {
				f.add('x')
			} else {
				f.add('.')
			}
			lead, sep, i = k == '-', 0, i+n
			continue
		}
		if n := lettersBeforeDigit(s[i:]); n > 0 {
			for _, r := range s[i : i+n] {
				f.addRune(unicode.ToLower(r))
			}
			letters, lead, sep, i = true, false, 0, i+n
			continue
		}
		break
	}
	// (a scale does not read a second group of three digits: "1.500
	// Mio." is 1,500 million in Europe, 1.5 million elsewhere)
	scalable := !letters && (joints == 0 || joints == 1 && kind == '.' && f.n-group != 3)
	if e, n := scaleAt(s[i:]); n > 0 && scalable {
		f.scale(e)
		return i + n
	}
	// a hyphenated scale of two letters or more: "$1.2-billion", "$1.2-bn"
	// ("100-m" is a hundred metres)
	if e, n := scaleAt(strings.TrimPrefix(s[i:], "-")); strings.HasPrefix(s[i:], "-") && n > 1 && scalable {
		f.scale(e)
		return i + 1 + n
	}
	f.value = f.n
	if joints == 1 && kind == '.' && !letters && f.n-group != 3 && allZeros(f.b[group:f.n]) {
		f.value = group - 1 // the point and its zeros
	}
	return i
}

// scales are the powers of ten of scales written after a figure, as a
// word ("1.2 billion", "1,5 Mio.") or an abbreviation ("1.2bn", "10k",
// "$5m"); those of one letter only right after the digits (after a
// space, "5 m" is five metres).
var scales = map[string]int{"thousand": 3, "k": 3,
	"million": 6, "millionen": 6, "mn": 6, "mln": 6, "mio": 6, "m": 6,
	"billion": 9, "bn": 9, "bln": 9, "bil": 9, "b": 9, "milliard": 9, "milliarde": 9, "milliarden": 9, "mrd": 9,
	"trillion": 12, "tn": 12, "trln": 12}

// scaleAt returns the power of ten of the scale s begins with (scales; the
// plural s of a word of five letters or more left out: "millions") and
// its length in bytes, the space before a word included; 0, 0 for none.
func scaleAt(s string) (e, n int) {
	for _, c := range [...]struct {
		scale string
		e     int
	}{{"万亿", 12}, {"亿", 8}, {"万", 4}} {
		if strings.HasPrefix(s, c.scale) {
			return c.e, len(c.scale)
		}
	}
	i := 0
	if strings.HasPrefix(s, " ") {
		i = 1
	}
	end := i
	for end < len(s) {
		r, size := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsLetter(r) || isCJK(r) {
			break
		}
		end += size
	}
	if end == i || end-i > len("milliarden") || !strings.ContainsRune("kKmMbBtT", rune(s[i])) {
		return 0, 0 // no scale begins otherwise
	}
	w := strings.ToLower(s[i:end])
	if e = scales[w]; e == 0 && len(w) > 4 && strings.HasSuffix(w, "s") {
		e = scales[w[:len(w)-1]]
	}
	if e == 0 || i == 1 && len(w) == 1 {
		return 0, 0
	}
	return e, end
}

// scale multiplies the number f holds (digits, a point, maybe a sign) by
// 10^e: "1.2" and 9 is "1200000000", "1.2345" and 3 "1234.5".
func (f *figure) scale(e int) {
	num := f.b[:f.n]
	var d [len(f.b)]byte // num's digits
	nd := 0
	point := -1 // how many of them are before the point
	for _, c := range num {
		switch c {
		case '.':
			point = nd
		case '-':
		default:
			d[nd] = c
			nd++
		}
	}
	if point < 0 {
		point = nd
	}
	point += e
	f.n = 0
	if num[0] == '-' {
		f.add('-')
	}
	whole := false // a digit of the whole part is written
	for i := range point {
		c := byte('0') // past the digits
		if i < nd {
			c = d[i]
		}
		if c != '0' || whole {
			f.add(c)
			whole = true
		}
	}
	if !whole {
		f.add('0')
	}
	end := nd
	for end > point && d[end-1] == '0' {
		end--
	}
	if end > point {
		f.add('.')
		for _, c := range d[point:end] {
			f.add(c)
		}
	}
	f.value = f.n
}

// add appends c to f.
func (f *figure) add(c byte) {
	if f.n < len(f.b) {
		f.b[f.n] = c
		f.n++
	}
}

// addRune appends r to f.
func (f *figure) addRune(r rune) {
	if f.n+utf8.UTFMax <= len(f.b) {
		f.n += utf8.EncodeRune(f.b[f.n:], r)
	}
}

// thousands tells whether r may separate thousands: a comma, a space,
// an apostrophe or the Arabic thousands separator.
func thousands(r rune) bool {
	switch r {
	case ',', ' ', '\'', '’', 'ʼ', '٬':
		return true
	}
	return false
}

// joinAt returns the kind and the length in bytes of the joiner s begins
// with, if it begins with one (the caller sees that a digit follows):
// '.' a point, a comma or the Arabic decimal separator (a decimal's), '-'
// a dash, a minus sign or a slash (a range's, a season's, a date's), ':'
// a colon or the 比 (対, 대) of a CJK score, each one separator of the
// figure; 'x' the times sign. A dash or colon between single spaces is
// one too ("2 - 0", "2 : 0"); n is 0 when s begins with none.
func joinAt(s string) (kind byte, n int) {
	r, n := utf8.DecodeRuneInString(s)
	if r == ' ' {
		d, size := utf8.DecodeRuneInString(s[1:])
		if kind = joinerOf(d); (kind == '-' && d != '/' || kind == ':') && len(s) > 1+size && s[1+size] == ' ' {
			return kind, size + 2
		}
		return 0, 0
	}
	if kind = joinerOf(r); kind == 0 {
		return 0, 0
	}
	return kind, n
}

// joinerOf is the kind of joiner r is between two digits (joinAt), 0 for
// none.
func joinerOf(r rune) byte {
	switch r {
	case '.', ',', '٫':
		return '.'
	case '-', '‐', '‑', '‒', '–', '—', '―', '−', '/':
		return '-'
	case ':', '比', '対', '대':
		return ':'
	case '×':
		return 'x'
	}
	return 0
}

// lettersBeforeDigit is how many bytes of letters (not CJK) s begins
// with when a digit follows them, else 0.
func lettersBeforeDigit(s string) int {
	for i, r := range s {
		if unicode.IsDigit(r) {
			return i
		}
		if !unicode.IsLetter(r) || isCJK(r) {
			return 0
		}
	}
	return 0
}

// leadingDigits is how many digits s begins with.
func leadingDigits(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsDigit(r) {
			break
		}
		n++
	}
	return n
}

// digitValue is the value of decimal digit r: digits come in runs of ten
// from 0 to 9 (Unicode's Nd), and the runs that adjoin another (the
// mathematical digits) are ASCII after NFKC.
func digitValue(r rune) int {
	v := 0
	for v < 9 && unicode.IsDigit(r-rune(v)-1) {
		v++
	}
	return v
}

// allZeros says whether digits are all zeros.
func allZeros(digits []byte) bool {
	for _, c := range digits {
		if c != '0' {
			return false
		}
	}
	return true
}
