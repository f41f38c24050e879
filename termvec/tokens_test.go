package termvec

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestIsCJK: isCJK's ranges read without the tables agree with the
// tables on every rune.
func TestIsCJK(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := r >= 0x2e80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
		if got := isCJK(r); got != want {
			t.Fatalf("isCJK(%U) = %t, want %t", r, got, want)
		}
	}
}

// TestNFKC holds nfkc to norm.NFKC.String: on every rune alone, on the
// full-width forms and ASCII letters before every combining mark of
// U+0300..U+036F and U+3099..U+309A, and on texts that mix them.
func TestNFKC(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := nfkc(s), norm.NFKC.String(s); got != want {
			t.Fatalf("nfkc(%+q) = %+q, want %+q", s, got, want)
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if utf8.ValidRune(r) {
			check(string(r))
		}
	}
	var marks []rune
	for m := rune(0x300); m <= 0x36f; m++ {
		marks = append(marks, m)
	}
	marks = append(marks, 0x3099, 0x309a)
	for r := rune(0xff01); r <= 0xff5e; r++ {
		for _, m := range marks {
			check(string([]rune{r, m}))
			check(string([]rune{r - 0xff01 + '!', m}))
			check("美团（" + string([]rune{r, m, 0x3000, r}) + "）２０２５年，Ｅ" + string(m))
		}
	}
	check("\xef\xbc")
	check("a\xef\xbc\x81\xef")
	check("\u3000\u3000ｶﾞ｡ﾟ－５％")
}
