package crawler

import (
	"context"
	"net/http"
	"strings"
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

// TestPollRetryAfterIsCapped: a Retry-After HTTP date far ahead (year
// 9999) puts the next poll 7 days ahead, as a number of seconds does, with
// a readable reason; one sent with a 200 counts for nothing; and a next
// poll stored farther ahead than any poll sets it (an older release's
// uncapped Retry-After) is due, and shown so.
func TestPollRetryAfterIsCapped(t *testing.T) {
	e := newPollEnv(t)
	far := "Fri, 31 Dec 9999 23:59:59 GMT"
	e.hdr = http.Header{"Retry-After": {far}}
	st := e.poll(t)
	if st.Reason != "first poll" || !within(st.Next.Sub(e.clk.Now()), 10*time.Minute) {
		t.Fatalf("a 200 with Retry-After %s: %+v, want the first poll's 10m", far, st)
	}

	e.mu.Lock()
	e.code = http.StatusServiceUnavailable
	e.mu.Unlock()
	for _, h := range []string{far, "99999999999999999999999"} {
		e.mu.Lock()
		e.hdr = http.Header{"Retry-After": {h}}
		e.mu.Unlock()
		e.advance(st)
		st = e.poll(t)
		if st.Reason != "Retry-After 7d (the longest honoured)" || st.Next.Sub(e.clk.Now()) != 7*24*time.Hour {
			t.Errorf("a 503 with Retry-After %s: %+v (next in %v), want 7d", h, st, st.Next.Sub(e.clk.Now()))
		}
	}

	// What an older release stored: the next poll in 2319.
	ctx := context.Background()
	e.rdb.HSet(ctx, e.c.pollKey("p"), "next", time.Date(2319, 3, 8, 4, 22, 9, 0, time.UTC).UnixMilli(),
		"reason", "Retry-After 2562047h47m16.854775807s")
	states, err := e.c.PollStates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := states[0]; !st.Next.IsZero() || !strings.Contains(st.Reason, "too far ahead (2319-03-08): due now") {
		t.Errorf("a next poll in 2319: shown as %+v, want due now", st)
	}
	e.mu.Lock()
	e.code, e.hdr = http.StatusOK, nil
	e.mu.Unlock()
	before := e.site.hitCount(host + "/poll")
	if st = e.poll(t); !st.Last.Equal(e.clk.Now()) || e.site.hitCount(host+"/poll") != before+1 {
		t.Errorf("a next poll in 2319 was not polled: %+v", st)
	}
}
