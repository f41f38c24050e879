// Package userid is the one rule for user ids, the same for votes, posts,
// activity points and invitations: so that an id the news store accepts
// can earn points, and an id on a board can be asked about in the lists
// the API takes (users=a,b: comma-separated, each trimmed).
package userid

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLen is the longest user id accepted, in bytes.
const MaxLen = 256

// ErrEmpty is Check's error for an id that is empty or only spaces.
var ErrEmpty = errors.New("is empty")

// Check returns nil for a valid user id, else an error that says what is
// wrong with it (to be prefixed by the field's name): an id must be at
// most MaxLen bytes of valid UTF-8 with no control character, no
// replacement character (U+FFFD: what invalid UTF-8 becomes once decoded
// from JSON), no invisible one (invisible) and no space but U+0020 (a
// no-break space, a line separator: it would read as another id), must
// not begin or end with a space or a joiner, nor begin with a combining
// mark, must not contain a comma, and must not be "." or ".." (which no
// URL path can name).
func Check(id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return ErrEmpty
	case len(id) > MaxLen:
		return fmt.Errorf("is %d bytes, at most %d", len(id), MaxLen)
	case !utf8.ValidString(id) || strings.ContainsRune(id, utf8.RuneError) || strings.IndexFunc(id, unicode.IsControl) >= 0:
		return errors.New("contains control characters or invalid UTF-8")
	case strings.TrimSpace(id) != id:
		return errors.New("begins or ends with a space")
	case strings.Contains(id, ","):
		return errors.New("contains a comma (lists of user ids are comma-separated)")
	case id == "." || id == "..":
		return fmt.Errorf("is %q, which a URL path cannot name", id)
	}
	if i := strings.IndexFunc(id, invisible); i >= 0 {
		r, _ := utf8.DecodeRuneInString(id[i:])
		return fmt.Errorf("contains an invisible or formatting character (%U): on a board it would read as another id", r)
	}
	if i := strings.IndexFunc(id, func(r rune) bool { return unicode.IsSpace(r) && r != ' ' }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(id[i:])
		return fmt.Errorf("contains a space other than U+0020 (%U): on a board it would read as another id", r)
	}
	if first, _ := utf8.DecodeRuneInString(id); unicode.In(first, unicode.Mn, unicode.Me) {
		return fmt.Errorf("begins with a combining mark (%U): it shows on nothing", first)
	}
	return checkJoiners(id)
}

// checkJoiners refuses a joiner (zero-width joiner or non-joiner) or a
// variation selector that does nothing visible: a joiner must stand
// between two characters beyond ASCII (an emoji sequence, Persian or
// Indic letters), a variation selector after one ("bob\u200d" and
// "bob\ufe0f" look like "bob").
func checkJoiners(id string) error {
	rs := []rune(id)
	for i, r := range rs {
		switch {
		case isJoiner(r) && (i == 0 || i == len(rs)-1 || rs[i-1] < 0x80 || rs[i+1] < 0x80 || isJoiner(rs[i+1])):
			return fmt.Errorf("contains a joiner (%U) that joins nothing visible: it would read as another id", r)
		case isVariation(r) && (i == 0 || rs[i-1] < 0x80 || isVariation(rs[i-1])):
			return fmt.Errorf("contains a variation selector (%U) that selects nothing visible: it would read as another id", r)
		}
	}
	return nil
}

// invisible reports the characters that show nothing or reorder the text
// around them: Unicode's format characters (zero-width space, word
// joiner, byte order mark, soft hyphen, the bidirectional embeddings,
// overrides, isolates and marks...) but the zero-width joiner and
// non-joiner that emoji sequences and some scripts need between two
// characters, the tag characters of flag emoji (the England flag) and
// the prepended marks that show (U+0600 Arabic number sign...); and the
// Hangul fillers, the combining grapheme joiner, the Khmer inherent
// vowels and the Braille blank. In a user id shown on a board they would
// make it read as another ("zw\u200b" as "zw").
func invisible(r rune) bool {
	switch {
	case r == 0x200c, r == 0x200d: // zero-width non-joiner, joiner
		return false
	case r >= 0xe0020 && r <= 0xe007f: // tags of flag emoji
		return false
	case r >= 0x0600 && r <= 0x0605, r == 0x06dd, r == 0x070f, r == 0x0890, r == 0x0891, r == 0x08e2, r == 0x110bd, r == 0x110cd:
		return false // prepended concatenation marks: they show
	case r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0, r == 0x034f, r == 0x17b4, r == 0x17b5, r == 0x2800:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

func isJoiner(r rune) bool { return r == 0x200c || r == 0x200d }

// isVariation reports a variation selector (it selects a form of the
// character before it).
func isVariation(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}
