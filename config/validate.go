package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// validator collects field errors under a dotted path.
type validator struct {
	prefix string
	errs   *[]error
}

func (v *validator) at(name string) *validator {
	if v.errs == nil {
		v.errs = new([]error)
	}
	p := name
	if v.prefix != "" {
		p = v.prefix + "." + name
	}
	return &validator{prefix: p, errs: v.errs}
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

// addf records "<path>.<name>: <message>".
func (v *validator) addf(name, format string, args ...any) {
	*v.errs = append(*v.errs, fmt.Errorf("%s: %s", v.field(name), fmt.Sprintf(format, args...)))
}

func (v *validator) err() error {
	if v.errs == nil || len(*v.errs) == 0 {
		return nil
	}
	return &ValidationError{Errs: *v.errs}
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
		v.addf(name, "must be one of %s, got %q", strings.Join(allowed, ", "), got)
	}
}

func (v *validator) required(name, got string) {
	if strings.TrimSpace(got) == "" {
		v.addf(name, "is required")
	}
}

// ValidationError lists every invalid field of a configuration.
type ValidationError struct {
	Errs []error
}

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		msgs[i] = err.Error()
	}
	return "invalid config: " + strings.Join(msgs, "; ")
}

// Unwrap returns the field errors.
func (e *ValidationError) Unwrap() []error { return e.Errs }

// IsValidation reports whether err is a configuration validation error.
func IsValidation(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve)
}
