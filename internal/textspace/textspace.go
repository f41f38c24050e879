// Package textspace folds white space as strings.Fields does, sooner for
// text that needs no folding: the page extractor's and the date reader's.
package textspace

import (
	"strings"
	"unicode"
)

// IsSpace is unicode.IsSpace, sooner for ASCII and for the characters
// past U+3000 (CJK text), none of which is white space.
func IsSpace(r rune) bool {
	switch {
	case r < 0x80:
		return r == ' ' || '\t' <= r && r <= '\r'
	case r > 0x3000:
		return false
	}
	return unicode.IsSpace(r)
}

// Collapsed reports whether Collapse would return s unchanged: no white
// space but single ' ' between words.
func Collapsed(s string) bool {
	space := true // at the start, as after a space: a leading one fails
	for _, r := range s {
		if !IsSpace(r) {
			space = false
			continue
		}
		if r != ' ' || space {
			return false
		}
		space = true
	}
	return !space || s == ""
}

// Collapse trims s and folds runs of white space into one space:
// strings.Join(strings.Fields(s), " "), and s itself when that is s.
func Collapse(s string) string {
	if Collapsed(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
