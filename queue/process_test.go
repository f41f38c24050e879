package queue

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
)

const (
	helperEnv     = "NEWSRANK_QUEUE_HELPER_REDIS" // the helper's Redis address
	processedKey  = "test:processed"              // HASH url → times a consumer started it
	ackedKey      = "test:acked"                  // HASH url → times a consumer acked it
	childReadyKey = "test:child-ready"            // STRING set once the child is mid-batch
	helperQueue   = "killed"
	helperBatch   = 20
	helperAcks    = 8
	helperLease   = time.Second
)

// TestHelperConsumerProcess is the consumer process TestKilledConsumerProcess
// starts and kills; run on its own it does nothing.
func TestHelperConsumerProcess(t *testing.T) {
	addr := os.Getenv(helperEnv)
	if addr == "" {
		return
	}
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	q := newQueue(c, helperQueue, testConfig())
	urls, err := q.Claim(ctx, helperBatch, helperLease)
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range urls {
		c.HIncrBy(ctx, processedKey, u, 1)
		if i < helperAcks {
			if err := q.Ack(ctx, u); err != nil {
				t.Fatal(err)
			}
			c.HIncrBy(ctx, ackedKey, u, 1)
		}
	}
	c.Set(ctx, childReadyKey, len(urls), 0)
	select {} // mid-batch: the parent kills us here
}

func TestKilledConsumerProcess(t *testing.T) {
	const total = 200
	ctx := testCtx(t, 90*time.Second)
	s, c := newServer(t)
	q := newQueue(c, helperQueue, testConfig())
	urls := testURLs(total)
	if _, err := q.Push(ctx, urls...); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperConsumerProcess$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+s.Addr())
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	proctest.WaitFor(t, 30*time.Second, "the consumer process to be mid-batch", func() bool {
		return c.Exists(ctx, childReadyKey).Val() == 1
	})
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	err := cmd.Wait()
	t.Logf("consumer process killed: %v", err)
	if n, _ := c.Get(ctx, childReadyKey).Int(); n != helperBatch {
		t.Fatalf("child claimed %d URLs, want %d; its output:\n%s", n, helperBatch, out)
	}
	if st := mustStats(t, q); st.InFlight != helperBatch-helperAcks || st.Done != helperAcks {
		t.Fatalf("after the kill: %+v; want %d in flight, %d done", st, helperBatch-helperAcks, helperAcks)
	}

	// Surviving consumers (with a long lease) finish everything.
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				got, err := q.Claim(cctx, 8, time.Minute)
				if err != nil {
					return
				}
				for _, u := range got {
					c.HIncrBy(ctx, processedKey, u, 1)
				}
				if err := q.Ack(ctx, got...); err != nil {
					t.Error(err)
					return
				}
				for _, u := range got {
					c.HIncrBy(ctx, ackedKey, u, 1)
				}
				if c.HLen(ctx, ackedKey).Val() == total {
					stop()
				}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("URLs left: acked %d of %d; stats %+v", c.HLen(ctx, ackedKey).Val(), total, mustStats(t, q))
	}
	acked := c.HGetAll(ctx, ackedKey).Val()
	processed := c.HGetAll(ctx, processedKey).Val()
	redone := 0
	for _, u := range urls {
		if acked[u] != "1" {
			t.Errorf("%s acked %q times, want once", u, acked[u])
		}
		switch processed[u] {
		case "1":
		case "2":
			redone++ // the killed consumer's unacked URLs
		default:
			t.Errorf("%s processed %q times", u, processed[u])
		}
	}
	if redone != helperBatch-helperAcks {
		t.Errorf("%d URLs processed twice, want the %d the killed consumer left unacked", redone, helperBatch-helperAcks)
	}
	if st := mustStats(t, q); st != (Stats{Done: total}) {
		t.Errorf("stats = %+v, want all done", st)
	}
}

// TestRedisRestartLosesNothing kills an appendonly redis-server (SIGKILL)
// and starts it again half a second later, twice, while producers and consumers run on newsrank's own
// client (rdb.Open); every URL must end done, and every claim must bring
// the payload the URL was pushed with.
func TestRedisRestartLosesNothing(t *testing.T) {
	const total = 3000
	ctx := testCtx(t, 120*time.Second)
	s := redistest.Start(t, redistest.Options{AppendOnly: true})
	rc, err := rdb.Open(ctx, s.Options(), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	q := newQueue(rc, "restart", testConfig())
	urls := testURLs(total)
	var (
		mu        sync.Mutex
		processed = map[string]int{}
		acked     = map[string]bool{}
		errCount  int
		noPayload []string
	)
	retry := func(f func() error) {
		for f() != nil && ctx.Err() == nil {
			mu.Lock()
			errCount++
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
		}
	}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the producer
		defer wg.Done()
		for i := 0; i < total; i += 50 {
			es := make([]Entry, 0, 50)
			for _, u := range urls[i : i+50] {
				es = append(es, Entry{URL: u, Payload: []byte("fields of " + u)})
			}
			retry(func() error { _, err := q.PushEntries(ctx, es...); return err })
			time.Sleep(2 * time.Millisecond)
		}
	}()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for cctx.Err() == nil {
				// A short lease: URLs whose claim reply was lost in the
				// restart come back soon.
				_, es, err := ClaimAnyEntries(cctx, []*Queue{q}, 8, 2*time.Second)
				if err != nil {
					if cctx.Err() == nil {
						mu.Lock()
						errCount++
						mu.Unlock()
						time.Sleep(50 * time.Millisecond)
					}
					continue
				}
				got := make([]string, len(es))
				mu.Lock()
				for i, e := range es {
					got[i] = e.URL
					processed[e.URL]++
					if string(e.Payload) != "fields of "+e.URL {
						noPayload = append(noPayload, e.URL)
					}
				}
				mu.Unlock()
				retry(func() error { return q.Ack(ctx, got...) })
				mu.Lock()
				for _, u := range got {
					acked[u] = true
				}
				n := len(acked)
				mu.Unlock()
				if n == total {
					stop()
				}
			}
		}()
	}
	for _, at := range []int{total / 4, total / 2} {
		proctest.WaitFor(t, 60*time.Second, fmt.Sprintf("%d URLs acked", at), func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(acked) >= at
		})
		s.Kill() // SIGKILL, as a crash
		time.Sleep(500 * time.Millisecond)
		s.Start()
		t.Logf("redis-server killed and started again with %d URLs acked", at)
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("only %d of %d URLs acked; stats %+v", len(acked), total, mustStats(t, q))
	}
	twice := 0
	for _, u := range urls {
		if processed[u] == 0 {
			t.Errorf("%s never processed", u)
		}
		if processed[u] > 1 {
			twice++
		}
	}
	if len(noPayload) > 0 {
		t.Errorf("%d claims without their payload, e.g. %s", len(noPayload), noPayload[0])
	}
	if n := rc.Exists(context.Background(), q.payloadKey()).Val(); n != 0 {
		t.Error("payloads left after every URL was acked")
	}
	t.Logf("%d errors retried during the restarts; %d URLs processed more than once (claim replies lost in a restart)", errCount, twice)
	st := mustStats(t, q)
	if st.Pending+st.InFlight+st.Delayed+st.Dead != 0 || st.Done != total {
		t.Errorf("stats = %+v, want all %d done", st, total)
	}
}

// syncBuffer collects a child process's output.
type syncBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}
