package queue

import (
	"testing"
	"time"
)

// TestAckClaimed: the claimed URLs of two queues are acknowledged in one
// pipeline, also when the server forgot the ack script, and a queue whose
// set is empty is left alone.
func TestAckClaimed(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	a, b, idle := newQueue(c, "ack-a", testConfig()), newQueue(c, "ack-b", testConfig()), newQueue(c, "ack-idle", testConfig())
	for _, q := range []*Queue{a, b, idle} {
		if _, err := q.Push(ctx, testURLs(5)...); err != nil {
			t.Fatal(err)
		}
	}
	ua, err := a.TryClaim(ctx, 5, time.Minute)
	if err != nil || len(ua) != 5 {
		t.Fatalf("claim a = %v, %v", ua, err)
	}
	ub, err := b.TryClaim(ctx, 3, time.Minute)
	if err != nil || len(ub) != 3 {
		t.Fatalf("claim b = %v, %v", ub, err)
	}
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	errs := AckClaimed(ctx, []Acks{{Queue: a, URLs: append(ua, ua[0])}, {Queue: b, URLs: ub}, {Queue: idle}})
	for i, err := range errs {
		if err != nil {
			t.Errorf("set %d: %v", i, err)
		}
	}
	if st := mustStats(t, a); st != (Stats{Done: 5}) {
		t.Errorf("a after ack = %+v", st)
	}
	if st := mustStats(t, b); st != (Stats{Pending: 2, Done: 3}) {
		t.Errorf("b after ack = %+v", st)
	}
	if st := mustStats(t, idle); st != (Stats{Pending: 5}) {
		t.Errorf("idle queue after ack = %+v", st)
	}
	// Done URLs are not queued again.
	if added, err := b.Push(ctx, ub...); err != nil || added != 0 {
		t.Errorf("push of acked URLs = %d, %v; want 0", added, err)
	}
}
