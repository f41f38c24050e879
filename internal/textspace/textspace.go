// Package textspace folds white space as strings.Fields does, sooner for
// text that needs no folding: the page extractor's and the date reader's.
package textspace

import (
	"strings"
	"unicode"
	"unicode/utf8"
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
// strings.Join(strings.Fields(s), " "), and s itself when that is s. It
// writes the words in one pass, without the list of them (bytes that
// are not UTF-8 are kept as they are, as Fields keeps them).
func Collapse(s string) string {
	if Collapsed(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := true // as after a space: a leading one is dropped
	for i := 0; i < len(s); {
		c, size := s[i], 1
		var sp bool
		if c < utf8.RuneSelf {
			sp = c == ' ' || '\t' <= c && c <= '\r'
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			sp = IsSpace(r)
		}
		if !sp {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s[i : i+size])
		}
		space = sp
		i += size
	}
	return b.String()
}
