package minhash

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// joint tells whether r, at text[i:], joins two digit groups of the
// figure being read (a word that begins with a digit, read up to a
// digit): a point, comma, colon, slash, dash, times sign or the 比 (対,
// 대) of a CJK score before a digit, or a dash between single spaces
// ("2 - 0"). A figure is the whole number as a reader sees it: "2-0",
// "2.1", "14:30", "18.1", "3/4", "2025-06-01" and "2比0" are one figure
// each, so that 2-0 and 2-1 share none. joint returns how many bytes of
// text the joint is (0: r joins nothing) and the byte the figure keeps
// of it (joinerOf), none for a thousands separator: a comma before three
// digits and no fourth ("1,500" is "1500", as it was; "1,5" stays
// "1,5"). A point is kept whatever follows it: "1.500" is a thousand
// and a half in Europe and one and a half elsewhere, so it is neither
// "1500" nor "1.5", and only equal figures written alike are one.
func (sh *shingler) joint(text string, i int, r rune) (c byte, n int) {
	if !sh.digit || sh.n == 0 {
		return 0, 0
	}
	n = utf8.RuneLen(r)
	if r == ' ' {
		d, size := utf8.DecodeRuneInString(text[i+1:])
		if c = joinerOf(d); c != '-' || !strings.HasPrefix(text[i+1+size:], " ") {
			return 0, 0
		}
		n += size + 1
	} else if c = joinerOf(r); c == 0 {
		return 0, 0
	}
	if last, _ := utf8.DecodeLastRune(sh.word[:sh.n]); !unicode.IsDigit(last) {
		return 0, 0
	}
	switch digits := leadingDigits(text[i+n:]); {
	case digits == 0:
		return 0, 0
	case c == ',' && digits == 3:
		return 0, n
	}
	return c, n
}

// joinerOf is what a figure keeps of r between two of its digits: '.',
// ',', ':' and '/' themselves, a dash or minus sign '-', '×' 'x', the 比
// of a CJK score ':'; 0 when r does not join digits.
func joinerOf(r rune) byte {
	switch r {
	case '.', ',', ':', '/':
		return byte(r)
	case '-', '‐', '‑', '‒', '–', '—', '―', '−':
		return '-'
	case '×':
		return 'x'
	case '比', '対', '대':
		return ':'
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
