package termvec

import (
	"testing"
	"unicode"
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
