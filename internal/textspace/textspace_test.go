package textspace

import (
	"strings"
	"testing"
	"unicode"
)

// TestIsSpace: IsSpace is unicode.IsSpace.
func TestIsSpace(t *testing.T) {
	for r := rune(0); r <= 0x10ffff; r++ {
		if IsSpace(r) != unicode.IsSpace(r) {
			t.Fatalf("IsSpace(%U) = %v", r, IsSpace(r))
		}
	}
}

// TestCollapse: Collapse is strings.Join(strings.Fields(s), " ") on every
// string of up to four pieces of text, white space and invalid UTF-8, and
// Collapsed says whether that is s.
func TestCollapse(t *testing.T) {
	pieces := []string{"", "a", "新闻", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u0085", "\u00a0", "\u2003",
		"\u3000", "\xff", "\xe6\x96", "2026-11-28", "15:04:05"}
	ref := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	n, same := 0, 0
	for _, a := range pieces {
		for _, b := range pieces {
			for _, c := range pieces {
				for _, d := range pieces {
					s := a + b + c + d
					want := ref(s)
					if got := Collapse(s); got != want {
						t.Fatalf("Collapse(%q) = %q, want %q", s, got, want)
					}
					if Collapsed(s) != (want == s) {
						t.Fatalf("Collapsed(%q) = %v, want %v", s, Collapsed(s), want == s)
					}
					n++
					if want == s {
						same++
					}
				}
			}
		}
	}
	if same == 0 || same == n {
		t.Fatalf("%d of %d strings already collapsed: both kinds are needed", same, n)
	}
}
