// Package human formats values as people read them in logs, messages and
// the effective configuration.
package human

import (
	"strconv"
	"strings"
	"time"
)

// Duration formats d as the configuration writes durations: whole days as
// "7d", else time.Duration's form without its zero tails ("2m", "1h",
// "1h30m", "1m30s", "500ms"), which config parses back.
func Duration(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= day && d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
