package queue

import (
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
)

func TestDoneRetention(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	clk := clock.NewFake(time.Now())
	cfg := testConfig()
	cfg.DoneRetention = 7 * 24 * time.Hour
	q := newQueue(c, "retention", cfg, WithClock(clk))
	u := "https://x.example.com/once"
	q.Push(ctx, u)
	got, _ := q.TryClaim(ctx, 1, time.Minute)
	if err := q.Ack(ctx, got...); err != nil {
		t.Fatal(err)
	}
	// The done memory expires (a safety net: claims unlink it earlier).
	s := q.doneWindow(clk.Now())
	key := q.doneKey(s.currentGen)
	if ttl, err := c.PTTL(ctx, key).Result(); err != nil || ttl <= 7*24*time.Hour*5/4 || ttl > 7*24*time.Hour*6/4+2*time.Minute {
		t.Errorf("done generation TTL = %s, %v; want between 1.25 and 1.5 × the retention", ttl, err)
	}
	for _, step := range []struct {
		advance time.Duration
		added   int
	}{
		{time.Hour, 0},
		{3 * 24 * time.Hour, 0},
		{3*24*time.Hour + 22*time.Hour, 0}, // 6d23h after the ack: still within the retention
		{2 * time.Hour, 1},                 // 7d1h: forgotten, queued anew
	} {
		clk.Advance(step.advance)
		n, err := q.Push(ctx, u)
		if err != nil || n != step.added {
			t.Fatalf("push %s after the ack: added %d, %v; want %d", clk.Now().Sub(s.nowTime()), n, err, step.added)
		}
	}
	// Once all it holds is older than the retention, a claim's
	// housekeeping unlinks the generation, long before its TTL.
	if n := c.Exists(ctx, key).Val(); n != 1 {
		t.Fatalf("done generation %s gone before its time", key)
	}
	clk.Advance(2 * 24 * time.Hour)
	if _, err := q.TryClaim(ctx, 10, time.Minute); err != nil {
		t.Fatal(err)
	}
	if n := c.Exists(ctx, key).Val(); n != 0 {
		t.Errorf("done generation %s older than the retention was not unlinked", key)
	}
}

func (s doneWindow) nowTime() time.Time { return time.UnixMilli(s.nowMs) }
