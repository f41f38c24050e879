package crawler

import (
	"context"
	"fmt"
	"strings"
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
// queue (pendingKey), or on every queue ("": the peak of one queue in
// queuePeak), and holds each one until more than hold are under way (or a
// few milliseconds pass), so that the walks' sends pile up as far as they
// are let.
type pushPeak struct {
	pendingKey string
	hold       int
	mu         sync.Mutex
	cur, peak  int
	pushes     int
	perQueue   map[string]int
	queuePeak  int
}

func (h *pushPeak) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *pushPeak) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *pushPeak) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		args := cmd.Args()
		if len(args) < 4 || (args[0] != "evalsha" && args[0] != "eval") {
			return next(ctx, cmd)
		}
		key, _ := args[3].(string)
		if key != h.pendingKey && (h.pendingKey != "" || !strings.HasSuffix(key, ":pending")) {
			return next(ctx, cmd)
		}
		h.mu.Lock()
		h.cur++
		h.pushes++
		h.peak = max(h.peak, h.cur)
		if h.perQueue == nil {
			h.perQueue = map[string]int{}
		}
		h.perQueue[key]++
		h.queuePeak = max(h.queuePeak, h.perQueue[key])
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			h.cur--
			h.perQueue[key]--
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

// TestSendsBoundedCrawlWide: a crawl of four list APIs on a Redis that is
// slow to push has at most crawlSendsMax pushes under way in all, and at
// most sendsMax of one walk; every URL is still queued.
func TestSendsBoundedCrawlWide(t *testing.T) {
	e := newEnv(t)
	e.opts.PerHostParallelism = 16
	e.opts.Workers = 8
	a := newAPIPages(e, 5, 80)
	var srcs []Source
	for i := range 4 {
		s := a.source(16)
		s.Name = fmt.Sprintf("api%d", i)
		srcs = append(srcs, s)
	}
	c := e.crawler(srcs...)
	if len(srcs)*sendsMax <= crawlSendsMax {
		t.Fatalf("the test needs the walks' own bounds (%d each) to allow more than crawlSendsMax (%d)", sendsMax, crawlSendsMax)
	}
	h := &pushPeak{hold: len(srcs) * sendsMax}
	e.rdb.AddHook(h)
	rep, err := c.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Sources {
		if p.Pages != 16 || p.Found != 80 || p.New != 80 || p.Err != nil {
			t.Fatalf("produce of %s = %+v, want 16 pages and 80 new URLs", p.Name, p)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pushes < 4*16 {
		t.Fatalf("%d pushes seen, want one a page at least: the hook does not see them", h.pushes)
	}
	if h.peak > crawlSendsMax || h.queuePeak > sendsMax {
		t.Errorf("%d pushes under way at once, %d of one walk; want at most crawlSendsMax (%d) and sendsMax (%d)",
			h.peak, h.queuePeak, crawlSendsMax, sendsMax)
	}
	if h.peak <= sendsMax {
		t.Errorf("at most %d pushes under way at once: the walks' sends never overlapped beyond one walk's", h.peak)
	}
}
