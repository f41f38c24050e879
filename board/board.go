package board

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/userid"
)

// Limits on arguments.
const (
	// MaxIDLen is the longest user id accepted, in bytes.
	MaxIDLen = userid.MaxLen
	// MaxTargetLen is the longest event target accepted, in bytes.
	MaxTargetLen = 1024
	// MaxN is the largest n accepted by Top, and by AroundMe on each side.
	MaxN = 1000
	// MaxSkew is how far in the future an event's time may be (clocks of
	// the machines that report events differ a little).
	MaxSkew = 5 * time.Minute
	// MaxLateness is how far in the past an event's time may be. A visit's
	// ledger entry lives until the end of its day plus MaxLateness, so any
	// accepted repeat of a visit is still recognised.
	MaxLateness = 24 * time.Hour
	// MaxBatch is the most events RecordMany sends in one pipeline.
	MaxBatch = 500
)

// Entry is one user's place on a board.
type Entry struct {
	// Rank is 1-based, highest score first. On activity boards equal
	// scores share a rank (competition ranking: 1, 1, 3); on the
	// invitation board there are no ties. 0 means not ranked.
	Rank int `json:"rank"`
	// User is the user id.
	User string `json:"user"`
	// Score is the activity points, or the number of invited users.
	Score int64 `json:"score"`
}

// Option configures NewActivity and NewInvites.
type Option func(*settings)

type settings struct {
	clock clock.Clock
	log   *slog.Logger
}

func buildSettings(opts []Option) settings {
	o := settings{clock: clock.Real{}, log: slog.Default()}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// WithClock sets the clock that decides the day and month of an event
// (default clock.Real).
func WithClock(c clock.Clock) Option {
	return func(o *settings) {
		if c != nil {
			o.clock = c
		}
	}
}

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(o *settings) {
		if l != nil {
			o.log = l
		}
	}
}

// checkUser validates a user id; what names the argument in the error.
func checkUser(what, id string) error {
	if err := userid.Check(id); errors.Is(err, userid.ErrEmpty) {
		return fmt.Errorf("%s: %w", what, ErrEmptyUser)
	} else if err != nil {
		return fmt.Errorf("%s %.40q: %w: %v", what, id, ErrBadUser, err)
	}
	return nil
}

func checkTarget(action, target string) error {
	if strings.TrimSpace(target) == "" {
		return fmt.Errorf("%s: %w: empty", action, ErrBadTarget)
	}
	if len(target) > MaxTargetLen {
		return fmt.Errorf("%s: %w: %d bytes, at most %d", action, ErrBadTarget, len(target), MaxTargetLen)
	}
	if !printable(target) {
		return fmt.Errorf("%s target %q: %w: control characters or invalid UTF-8", action, target, ErrBadTarget)
	}
	return nil
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func checkN(what string, n, lo int) error {
	if n < lo || n > MaxN {
		return fmt.Errorf("%s: %w: %d, must be between %d and %d", what, ErrBadLimit, n, lo, MaxN)
	}
	return nil
}
