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
// most MaxLen bytes of valid UTF-8 with no control character and no
// bidirectional control character, must not begin or end with a space,
// and must not contain a comma.
func Check(id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return ErrEmpty
	case len(id) > MaxLen:
		return fmt.Errorf("is %d bytes, at most %d", len(id), MaxLen)
	case !utf8.ValidString(id) || strings.IndexFunc(id, unicode.IsControl) >= 0:
		return errors.New("contains control characters or invalid UTF-8")
	case strings.TrimSpace(id) != id:
		return errors.New("begins or ends with a space")
	case strings.Contains(id, ","):
		return errors.New("contains a comma (lists of user ids are comma-separated)")
	case strings.IndexFunc(id, bidiControl) >= 0:
		return errors.New("contains a bidirectional control character (it would reorder the text shown around it)")
	}
	return nil
}

// bidiControl reports the characters that reorder the text around them
// (U+202A–U+202E embeddings and overrides, U+2066–U+2069 isolates,
// U+200E/U+200F/U+061C marks): in a user id shown on a board they would
// make it read as another.
func bidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}
