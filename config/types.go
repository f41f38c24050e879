package config

import (
	"fmt"
	"regexp"
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
	if !wholeBytes(s, v) {
		return 0, fmt.Errorf("invalid size %q: not a whole number of bytes (%d and a fraction)", s, v)
	}
	return Size(v), nil
}

// sizeParts is a size's number and unit.
var sizeParts = regexp.MustCompile(`^\s*([0-9.]+)\s*([A-Za-z]*)\s*$`)

// wholeBytes says whether size s, which humanize read as v bytes (it
// rounds down: "2048.9" is 2048, "1.0001KiB" 1024), is v exactly.
func wholeBytes(s string, v uint64) bool {
	m := sizeParts.FindStringSubmatch(s)
	if m == nil || !strings.Contains(m[1], ".") {
		return true
	}
	unit := uint64(1)
	if m[2] != "" {
		u, err := humanize.ParseBytes("1" + m[2])
		if err != nil {
			return true
		}
		unit = u
	}
	f, err := strconv.ParseFloat(m[1], 64)
	return err != nil || f*float64(unit) == float64(v)
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
