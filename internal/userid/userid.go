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
// from JSON) and no invisible one (invisible), must not begin or end with
// a space, and must not contain a comma.
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
	}
	if i := strings.IndexFunc(id, invisible); i >= 0 {
		r, _ := utf8.DecodeRuneInString(id[i:])
		return fmt.Errorf("contains an invisible or formatting character (%U): on a board it would read as another id", r)
	}
	return nil
}

// invisible reports the characters that show nothing or reorder the text
// around them: Unicode's format characters (zero-width space, word
// joiner, byte order mark, soft hyphen, the bidirectional embeddings,
// overrides, isolates and marks...) but the zero-width joiner and
// non-joiner that emoji sequences and some scripts need, and the Hangul
// fillers. In a user id shown on a board they would make it read as
// another ("zw\u200b" as "zw").
func invisible(r rune) bool {
	switch r {
	case 0x200c, 0x200d: // zero-width non-joiner, joiner
		return false
	case 0x115f, 0x1160, 0x3164, 0xffa0: // Hangul fillers
		return true
	}
	return unicode.Is(unicode.Cf, r)
}
