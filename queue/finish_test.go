package queue

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/redistest"
)

// TestAckClaimed: the claimed URLs of two queues are acknowledged in one
// pipeline, also when the server forgot the ack script, and a queue whose
// set is empty is left alone; on one server and on a cluster, where the
// queues' keys are in different slots.
func TestAckClaimed(t *testing.T) {
	t.Run("server", func(t *testing.T) {
		_, c := newServer(t)
		testAckClaimed(t, c)
	})
	t.Run("cluster", func(t *testing.T) {
		testAckClaimed(t, redistest.StartCluster(t).Client())
	})
}

func testAckClaimed(t *testing.T, c redis.UniversalClient) {
	ctx := testCtx(t, 30*time.Second)
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
	flush := func(ctx context.Context, c *redis.Client) error { return c.ScriptFlush(ctx).Err() }
	if cc, ok := c.(*redis.ClusterClient); ok {
		err = cc.ForEachShard(ctx, flush)
	} else {
		err = flush(ctx, c.(*redis.Client))
	}
	if err != nil {
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
