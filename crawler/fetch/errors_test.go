package fetch

import (
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2024, 5, 1, 8, 0, 0, 500_000_000, time.UTC)
	week := 7 * 24 * time.Hour
	for _, tc := range []struct {
		h    string
		want time.Duration
	}{
		{"", 0},
		{"30", 30 * time.Second},
		{"-100", 0},
		{"30.5", 0},
		{"soon", 0},
		{"999999999999", week},
		{"99999999999999999999999", week}, // too large for int64: capped, not ignored
		{"Wed, 01 May 2024 09:00:00 GMT", time.Hour}, // 59m59.5s, rounded up
		{"Wed, 01 May 2024 07:00:00 GMT", 0},
		{"Fri, 31 Dec 9999 23:59:59 GMT", week},
	} {
		if got := retryAfter(tc.h, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tc.h, got, tc.want)
		}
	}
}
