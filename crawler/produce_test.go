package crawler

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestRecentKeys: a key is remembered for at least recentCap more adds,
// and the memory holds at most 2×recentCap keys however many are added.
func TestRecentKeys(t *testing.T) {
	var r recentKeys
	key := func(i int) urlKey { return keyOf(fmt.Sprintf("https://example.com/a/%d", i)) }
	if r.has(key(0)) {
		t.Fatal("an empty memory has a key")
	}
	const n = 5*recentCap + 7
	for i := range n {
		r.add(key(i))
		if !r.has(key(i)) {
			t.Fatalf("key %d not remembered right after its add", i)
		}
		if old := i - recentCap; old >= 0 && !r.has(key(old)) {
			t.Fatalf("key %d forgotten after only %d more adds", old, recentCap)
		}
		if held := len(r.cur) + len(r.prev); held > 2*recentCap {
			t.Fatalf("after %d adds, %d keys held (> %d)", i+1, held, 2*recentCap)
		}
	}
	if r.has(key(0)) {
		t.Error("key 0 still remembered after 5 generations: the memory is not bounded")
	}
}

// pushPeak is a Redis hook that counts the push scripts under way on one
// queue and holds each one until more than hold are under way (or a few
// milliseconds pass), so that a walk's sends pile up as far as it lets
// them.
type pushPeak struct {
	pendingKey string
	hold       int
	mu         sync.Mutex
	cur, peak  int
	pushes     int
}

func (h *pushPeak) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *pushPeak) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *pushPeak) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		args := cmd.Args()
		if len(args) < 4 || (args[0] != "evalsha" && args[0] != "eval") || args[3] != h.pendingKey {
			return next(ctx, cmd)
		}
		h.mu.Lock()
		h.cur++
		h.pushes++
		h.peak = max(h.peak, h.cur)
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			h.cur--
			h.mu.Unlock()
		}()
		for range 20 {
			h.mu.Lock()
			piled := h.cur > h.hold
			h.mu.Unlock()
			if piled {
				break
			}
			time.Sleep(time.Millisecond)
		}
		return next(ctx, cmd)
	}
}

// TestSendsBounded: a crawl of a list API of 16 pages read 8 ahead, on a
// Redis that is slow to push: the walk has at most sendsMax pushes under
// way at once, not one per page read ahead, so that the consumers' claims
// are not queued behind them for the Redis client's connections; every
// URL is still queued.
func TestSendsBounded(t *testing.T) {
	e := newEnv(t)
	e.opts.PerHostParallelism = 8
	a := newAPIPages(e, 5, 80)
	c := e.crawler(a.source(16))
	if c.readAheadDepth() <= sendsMax {
		t.Fatalf("read-ahead depth %d: the test needs more pages in flight than sendsMax (%d)", c.readAheadDepth(), sendsMax)
	}
	h := &pushPeak{pendingKey: testPrefix + "{q:api}:pending", hold: sendsMax}
	e.rdb.AddHook(h)
	rep, err := c.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Sources[0]; p.Pages != 16 || p.Found != 80 || p.New != 80 || p.Err != nil {
		t.Fatalf("produce = %+v, want 16 pages and 80 new URLs", p)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pushes < 16 {
		t.Fatalf("%d pushes seen, want one a page at least: the hook does not see them", h.pushes)
	}
	if h.peak > sendsMax {
		t.Errorf("%d pushes under way at once, want at most sendsMax (%d)", h.peak, sendsMax)
	}
	if h.peak < 2 {
		t.Errorf("pushes never overlapped (peak %d): the walk waits for each send", h.peak)
	}
}
