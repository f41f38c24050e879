package crawler

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

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

func TestFreshness(t *testing.T) {
	for _, tc := range []struct {
		cc   []string
		age  string
		want time.Duration
		why  string
	}{
		{nil, "", 0, ""},
		{[]string{"max-age=600"}, "", 10 * time.Minute, "Cache-Control max-age 10m"},
		{[]string{`MAX-AGE="600"`}, "", 10 * time.Minute, "Cache-Control max-age 10m"},
		{[]string{"public", "max-age=600"}, "", 10 * time.Minute, "Cache-Control max-age 10m"},              // two lines combine
		{[]string{`max-age=600, no-cache="Set-Cookie"`}, "", 10 * time.Minute, "Cache-Control max-age 10m"}, // no-cache of a header only
		{[]string{"max-age=600, max-age=60"}, "", 10 * time.Minute, "Cache-Control max-age 10m"},
		{[]string{"max-age=600", "no-cache"}, "", 0, ""},
		{[]string{"no-store, max-age=600"}, "", 0, ""},
		{[]string{"max-age=0"}, "", 0, ""},
		{[]string{"max-age=-5"}, "", 0, ""},
		{[]string{"max-age=1e12"}, "", 0, ""},
		{[]string{"s-maxage=600"}, "", 0, ""},
		{[]string{"max-age=99999999999999999999"}, "", 30 * 24 * time.Hour, "Cache-Control max-age 30d"}, // 2^31 s, capped
		{[]string{"max-age=3600"}, "600", 50 * time.Minute, "Cache-Control max-age 1h less Age 10m"},
		{[]string{"max-age=3600"}, "3600", 0, ""},
		{[]string{"max-age=3600"}, "99999999999999999999", 0, ""},
		{[]string{"max-age=3600"}, "soon", time.Hour, "Cache-Control max-age 1h"},
	} {
		h := http.Header{"Cache-Control": tc.cc}
		if tc.age != "" {
			h.Set("Age", tc.age)
		}
		if got, why := freshness(h); got != tc.want || why != tc.why {
			t.Errorf("freshness(%q, Age %q) = %v, %q; want %v, %q", tc.cc, tc.age, got, why, tc.want, tc.why)
		}
	}
}

// TestPollCacheControl: the poll reads max-age from every Cache-Control
// line, takes the Age a cache sent off it, reads a max-age too large for
// int64 as very long, and its reason says when crawler.poll.max cut it.
func TestPollCacheControl(t *testing.T) {
	e := newPollEnv(t)
	set := func(h http.Header) {
		e.mu.Lock()
		e.hdr = h
		e.mu.Unlock()
	}
	set(http.Header{"Cache-Control": {"public", "max-age=3600"}})
	st := e.poll(t)
	if st.Interval != time.Hour || st.Reason != "Cache-Control max-age 1h" || !within(st.Next.Sub(e.clk.Now()), time.Hour) {
		t.Errorf("max-age on a second Cache-Control line: %+v", st)
	}

	// Behind a CDN: 10 of its 60 minutes spent in the cache. The interval
	// halves (a new article) to 30m, and the 50m left lengthen it.
	set(http.Header{"Cache-Control": {"max-age=3600"}, "Age": {"600"}})
	e.publish(1)
	e.advance(st)
	st = e.poll(t)
	if st.Interval != 50*time.Minute || st.Reason != "Cache-Control max-age 1h less Age 10m" {
		t.Errorf("max-age 1h with Age 10m: %+v, want 50m", st)
	}

	set(http.Header{"Cache-Control": {"max-age=99999999999999999999"}})
	e.advance(st)
	st = e.poll(t)
	if st.Interval != 6*time.Hour || st.Reason != "Cache-Control max-age 30d (crawler.poll.max)" {
		t.Errorf("a max-age too large for int64: %+v, want crawler.poll.max's 6h", st)
	}

	set(http.Header{"Cache-Control": {"max-age=86400"}})
	e.advance(st)
	st = e.poll(t)
	if st.Interval != 6*time.Hour || st.Reason != "Cache-Control max-age 1d (crawler.poll.max)" || st.Next.Sub(e.clk.Now()) > 6*time.Hour {
		t.Errorf("max-age 1d over crawler.poll.max: %+v", st)
	}
}
