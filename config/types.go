package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"gopkg.in/yaml.v3"

	"github.com/newsrank/newsrank/internal/human"
)

// Duration is a time.Duration written in human form in YAML: "15s", "5m",
// "168h", and also whole days such as "7d" (time.ParseDuration has no days).
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats the duration, using days when it is a whole number of them.
func (d Duration) String() string { return human.Duration(time.Duration(d)) }

// ParseDuration parses "1h30m" or "7d" forms.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "d") {
		n, err := strconv.ParseInt(strings.TrimSuffix(s, "d"), 10, 64)
		if err != nil || n < 0 || n > 100000 {
			return 0, fmt.Errorf("invalid duration %q: want a whole number of days such as \"7d\"", s)
		}
		return Duration(time.Duration(n) * 24 * time.Hour), nil
	}
	td, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: want a form such as \"15s\", \"5m\", \"168h\" or \"7d\"", s)
	}
	return Duration(td), nil
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as \"15s\"", n.Line)
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = v
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// Size is a byte count written in human form in YAML: "5MiB", "512KiB",
// "10MB" or a plain number of bytes.
type Size int64

// ParseSize parses sizes such as "5MiB" with github.com/dustin/go-humanize.
func ParseSize(s string) (Size, error) {
	v, err := humanize.ParseBytes(strings.TrimSpace(s))
	if err != nil || v > 1<<50 {
		return 0, fmt.Errorf("invalid size %q: want a form such as \"5MiB\" or \"512KiB\"", s)
	}
	return Size(v), nil
}

// String formats the size exactly, in the largest binary unit that divides
// it ("5MiB", "1536KiB", "100B").
func (s Size) String() string {
	for _, u := range []struct {
		n    int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if s != 0 && int64(s)%u.n == 0 {
			return strconv.FormatInt(int64(s)/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (s *Size) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a size such as \"5MiB\"", n.Line)
	}
	v, err := ParseSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*s = v
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (s Size) MarshalYAML() (any, error) { return s.String(), nil }
