package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/redistest"
)

func TestLockReleasedOnlyByHolder(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	key := newKeys(prefix).lock("x")
	a, err := acquire(ctx, c, key, 5*time.Second, Holder{Holder: "a"}, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acquire(ctx, c, key, 5*time.Second, Holder{Holder: "b"}, quietLog()); !errors.Is(err, ErrLocked) {
		t.Fatalf("second acquire: %v, want ErrLocked", err)
	}
	// a's lock expires and b takes it: a's late release must not free b's.
	c.Del(ctx, key)
	b, err := acquire(ctx, c, key, 5*time.Second, Holder{Holder: "b"}, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := a.Release(ctx); ok || err != nil {
		t.Fatalf("stale holder released the lock: %v, %v", ok, err)
	}
	if h, ok, _ := holderOf(ctx, c, key); !ok || h.Holder != "b" {
		t.Fatalf("lock after stale release: %+v %v, want held by b", h, ok)
	}
	if ok, err := b.Release(ctx); !ok || err != nil {
		t.Fatalf("holder release: %v, %v", ok, err)
	}
}

func TestLockLostCancelsTheJob(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	started := make(chan struct{})
	m := newManager(t, c, Options{LockTTL: 600 * time.Millisecond}, Job{Name: "j", Run: func(ctx context.Context) (Counts, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	done := make(chan error, 1)
	go func() { _, err := m.Run(ctx, "j", TriggerManual); done <- err }()
	<-started
	// Another process takes over the lock (as if ours had expired).
	c.Set(ctx, m.keys.lock("j"), "someone else", time.Minute)
	select {
	case err := <-done:
		if !errors.Is(err, ErrLockLost) {
			t.Fatalf("run error = %v, want ErrLockLost", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("job not cancelled after losing its lock")
	}
	if v, _ := c.Get(ctx, m.keys.lock("j")).Result(); v != "someone else" {
		t.Fatalf("the new holder's lock was touched: %q", v)
	}
}
