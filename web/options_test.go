package web

import (
	"testing"
	"time"
)

// TestHumanDuration: the messages name durations as the configuration
// writes them.
func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		12 * time.Hour:     "12h0m0s",
		24 * time.Hour:     "1d",
		7 * 24 * time.Hour: "7d",
		36 * time.Hour:     "36h0m0s",
		90 * time.Minute:   "1h30m0s",
	} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%s) = %q, want %q", d, got, want)
		}
	}
}
