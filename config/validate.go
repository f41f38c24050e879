package config

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// validator collects the problems of a configuration under a dotted path.
type validator struct {
	prefix string
	probs  *[]Problem
	// set reports whether the user set the key at a path (in a file or a
	// flag); nil when nothing is known, as for Validate.
	set func(path string) bool
}

func newValidator(set func(string) bool) *validator {
	return &validator{probs: new([]Problem), set: set}
}

func (v *validator) at(name string) *validator {
	return &validator{prefix: v.field(name), probs: v.probs, set: v.set}
}

func (v *validator) field(name string) string {
	if v.prefix == "" {
		return name
	}
	if strings.HasPrefix(name, "[") {
		return v.prefix + name
	}
	return v.prefix + "." + name
}

// isSet reports whether the user set the key name (relative to v).
func (v *validator) isSet(name string) bool { return v.set != nil && v.set(v.field(name)) }

// addf records a problem with the key name (relative to v).
func (v *validator) addf(name, format string, args ...any) {
	*v.probs = append(*v.probs, Problem{Path: v.field(name), Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) min(name string, got, min int) {
	if got < min {
		v.addf(name, "must be >= %d, got %d", min, got)
	}
}

func (v *validator) minF(name string, got, min float64) {
	if got < min {
		v.addf(name, "must be >= %g, got %g", min, got)
	}
}

func (v *validator) minDur(name string, got Duration, min time.Duration) {
	if got.D() < min {
		v.addf(name, "must be >= %s, got %s", Duration(min), got)
	}
}

func (v *validator) oneOf(name, got string, allowed ...string) {
	if !slices.Contains(allowed, got) {
		msg := fmt.Sprintf("must be one of %s, got %q", strings.Join(allowed, ", "), got)
		if s := suggest(got, allowed); s != "" {
			msg += ", did you mean " + s + "?"
		}
		v.addf(name, "%s", msg)
	}
}

func (v *validator) required(name, got string) {
	if strings.TrimSpace(got) == "" {
		v.addf(name, "is required")
	}
}

// ordered checks lo <= hi for two keys whose values are compared
// (news.page_size and news.max_page_size). The problem goes to the key the
// user set: loName, unless only hiName was set.
func ordered[T cmp.Ordered](v *validator, loName string, lo T, hiName string, hi T) {
	if lo <= hi {
		return
	}
	if v.isSet(hiName) && !v.isSet(loName) {
		v.addf(hiName, "must be >= %s (%v), got %v", v.field(loName), lo, hi)
		return
	}
	v.addf(loName, "must be <= %s (%v), got %v", v.field(hiName), hi, lo)
}
