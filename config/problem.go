package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/newsrank/newsrank/internal/redact"
)

// Origin says where a configuration value was set: a line of a file, or a
// command-line flag.
type Origin struct {
	// File is the file's name as given; empty for ParseConfig's reader
	// and for flags.
	File string
	// Line is 1-based; 0 when not known.
	Line int
	// Flag is the command-line flag that set the value, as the user wrote
	// it ("-set crawler.delay=0s", "-log-level debug"); empty for a file.
	Flag string
	// Path is the key a Flag sets.
	Path string
}

// String is "file:line", "line N", the flag, or "" for a default.
func (o Origin) String() string {
	switch {
	case o.Flag != "":
		return o.Flag
	case o.File != "" && o.Line > 0:
		return fmt.Sprintf("%s:%d", o.File, o.Line)
	case o.File != "":
		return o.File
	case o.Line > 0:
		return fmt.Sprintf("line %d", o.Line)
	}
	return ""
}

// Problem is one mistake in a configuration.
type Problem struct {
	// Origin is where the key at fault was set; zero when it holds its
	// default.
	Origin
	// Path is the key, dotted, with list indexes: "crawler.sources[2].kind".
	// Empty for a problem with a whole file.
	Path string
	// Msg says what is wrong, in the user's terms.
	Msg string
	// Err is the underlying error, if any (a file that cannot be read).
	Err error
}

// String formats the problem as "file:line: path: message" (or
// "-set key=value: message" for a flag), with the userinfo of any URL in it
// masked.
func (p Problem) String() string {
	parts := make([]string, 0, 3)
	if loc := p.Origin.String(); loc != "" {
		parts = append(parts, loc)
	}
	if p.Path != "" && (p.Flag == "" || p.Path != p.Origin.Path) {
		parts = append(parts, p.Path)
	}
	parts = append(parts, p.Msg)
	return redact.String(strings.Join(parts, ": "))
}

// Error lists every problem found in a configuration: those of each file
// in order, then those of the flags, of ${ENV} expansion and of validation.
type Error struct {
	Problems []Problem
}

// Error is a heading line, then one problem per line.
func (e *Error) Error() string {
	var b strings.Builder
	if len(e.Problems) == 1 {
		b.WriteString("invalid configuration (1 problem):")
	} else {
		fmt.Fprintf(&b, "invalid configuration (%d problems):", len(e.Problems))
	}
	for _, p := range e.Problems {
		b.WriteByte('\n')
		b.WriteString(p.String())
	}
	return b.String()
}

// Unwrap returns the underlying errors of the problems that have one.
func (e *Error) Unwrap() []error {
	var errs []error
	for _, p := range e.Problems {
		if p.Err != nil {
			errs = append(errs, p.Err)
		}
	}
	return errs
}

// IsValidation reports whether err is, or wraps, an *Error: a
// configuration that could not be read or is invalid.
func IsValidation(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// errorOf returns the problems as an *Error, or nil when there are none.
func errorOf(probs []Problem) error {
	if len(probs) == 0 {
		return nil
	}
	return &Error{Problems: probs}
}

// secretKeys are the keys whose values are secrets.
var secretKeys = []string{"password", "tokens", "admin_tokens", "cookie_secret"}

// secretWords mark keys whose values are never echoed in a message.
var secretWords = []string{"pass", "token", "secret", "auth"}

// secretPath reports whether a key path names a secret (redis.password,
// web.tokens[0], web.cookie_secret, or a misspelling of one).
func secretPath(path string) bool {
	p := strings.ToLower(path)
	for _, w := range secretWords {
		if strings.Contains(p, w) {
			return true
		}
	}
	return false
}
