package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/metrics"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
)

const prefix = "test:"

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newManager(t *testing.T, c redis.UniversalClient, opts Options, jobs ...Job) *Manager {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quietLog()
	}
	m, err := NewManager(c, prefix, opts, jobs...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRunRecordsHistoryCappedNewestFirst(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	clk := clock.NewFake(time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC))
	n := 0
	m := newManager(t, c, Options{History: 3, Clock: clk}, Job{Name: "count", Run: func(ctx context.Context) (Counts, error) {
		n++
		clk.Advance(2 * time.Second)
		if n == 5 {
			return Counts{"n": int64(n)}, errors.New("fifth run breaks")
		}
		return Counts{"n": int64(n)}, nil
	}})
	okBefore := counter(t, "count", "ok")
	for i := 1; i <= 5; i++ {
		run, err := m.Run(ctx, "count", TriggerManual)
		if i < 5 && (err != nil || run.Status != StatusOK) {
			t.Fatalf("run %d: %+v, %v", i, run, err)
		}
		if i == 5 && (err == nil || run.Status != StatusFailed || run.Error == "") {
			t.Fatalf("run 5 should fail: %+v, %v", run, err)
		}
		clk.Advance(time.Minute)
	}
	h, err := m.History(ctx, "count", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 3 {
		t.Fatalf("history has %d runs, want 3 (capped)", len(h))
	}
	for i, want := range []int64{5, 4, 3} {
		if h[i].Counts["n"] != want {
			t.Errorf("history[%d].counts = %v, want n=%d", i, h[i].Counts, want)
		}
	}
	if h[0].Status != StatusFailed || h[0].Error != "fifth run breaks" || h[1].Status != StatusOK {
		t.Errorf("statuses: %+v", h[:2])
	}
	if d := h[1].Duration(); d != 2*time.Second {
		t.Errorf("duration = %s, want 2s (fake clock)", d)
	}
	if h[1].Trigger != TriggerManual || h[1].Holder == "" {
		t.Errorf("trigger/holder: %+v", h[1])
	}
	if got := counter(t, "count", "ok") - okBefore; got != 4 {
		t.Errorf("metrics ok runs = %g, want 4", got)
	}
	if _, err := m.Run(ctx, "nope", TriggerManual); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("unknown job: %v", err)
	}
	if n, _ := c.Exists(ctx, m.keys.lock("count")).Result(); n != 0 {
		t.Error("lock left behind after the runs")
	}
}

func TestConcurrentRunsOneRunsOtherSkips(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	release := make(chan struct{})
	started := make(chan struct{})
	var runs atomic.Int32
	m := newManager(t, c, Options{LockTTL: time.Second}, Job{Name: "slow", Run: func(ctx context.Context) (Counts, error) {
		runs.Add(1)
		close(started)
		<-release
		return nil, nil
	}})
	var wg sync.WaitGroup
	var first Run
	var firstErr error
	wg.Go(func() { first, firstErr = m.Run(ctx, "slow", TriggerManual) })
	<-started
	// The holder must keep the lock past its 1 s TTL by renewing it.
	time.Sleep(2500 * time.Millisecond)
	second, err := m.Run(ctx, "slow", TriggerAPI)
	if !errors.Is(err, ErrLocked) || second.Status != StatusSkipped {
		t.Fatalf("second run while the first holds the lock: %+v, %v; want skipped, ErrLocked", second, err)
	}
	close(release)
	wg.Wait()
	if firstErr != nil || first.Status != StatusOK {
		t.Fatalf("first run: %+v, %v", first, firstErr)
	}
	if runs.Load() != 1 {
		t.Fatalf("job ran %d times, want 1", runs.Load())
	}
	h, _ := m.History(ctx, "slow", 10)
	if len(h) != 2 || h[0].Status != StatusOK || h[1].Status != StatusSkipped {
		t.Fatalf("history: %+v", h)
	}
	st, err := m.Status(ctx)
	if err != nil || st[0].Last == nil || st[0].Last.Status != StatusOK || st[0].Running != nil {
		t.Fatalf("status: %+v, %v", st, err)
	}
}

func TestStatusShowsHolderWhileRunning(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	release := make(chan struct{})
	started := make(chan struct{})
	m := newManager(t, c, Options{Holder: "box/42"}, Job{Name: "j", Schedule: "@every 1h", Run: func(ctx context.Context) (Counts, error) {
		close(started)
		<-release
		return nil, nil
	}})
	done := make(chan struct{})
	go func() { m.Run(ctx, "j", TriggerManual); close(done) }()
	<-started
	st, err := m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Running == nil || st[0].Running.Holder != "box/42" {
		t.Fatalf("running = %+v, want holder box/42", st[0].Running)
	}
	if st[0].Next != nil {
		t.Errorf("a disabled job has no next run, got %v", st[0].Next)
	}
	close(release)
	<-done
}

func TestPanicIsAFailedRun(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	m := newManager(t, c, Options{}, Job{Name: "p", Run: func(ctx context.Context) (Counts, error) { panic("boom") }})
	run, err := m.Run(ctx, "p", TriggerManual)
	if err == nil || run.Status != StatusFailed {
		t.Fatalf("%+v, %v", run, err)
	}
	if _, err := m.Run(ctx, "p", TriggerManual); errors.Is(err, ErrLocked) {
		t.Fatal("a panicking run left its lock behind")
	}
}

func TestBadSchedule(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	_, err := NewManager(c, prefix, Options{}, Job{Name: "j", Schedule: "61 * * * *", Run: func(context.Context) (Counts, error) { return nil, nil }})
	if err == nil {
		t.Fatal("bad schedule accepted")
	}
}

// TestEmbeddedRedis runs the lock, history and catch-up flow on miniredis,
// as newsrank demo does.
func TestEmbeddedRedis(t *testing.T) {
	ctx := context.Background()
	c, err := rdb.Open(ctx, rdb.DefaultOptions(), quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Embedded() {
		t.Fatal("default config is not embedded")
	}
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	m := newManager(t, c, Options{CatchUp: true, LockTTL: 3 * time.Second}, Job{Name: "j", Schedule: "@weekly", Enabled: true, Run: func(ctx context.Context) (Counts, error) {
		started <- struct{}{}
		<-release
		return Counts{"done": 1}, nil
	}})
	seedLast(t, c, "j", time.Now().Add(-8*24*time.Hour)) // a week's run was missed
	done := make(chan []string)
	go func() { ran, _ := m.CatchUp(ctx); done <- ran }()
	<-started
	if _, err := m.Run(ctx, "j", TriggerManual); !errors.Is(err, ErrLocked) {
		t.Fatalf("run during catch-up: %v, want ErrLocked", err)
	}
	close(release)
	if ran := <-done; len(ran) != 1 {
		t.Fatalf("catch-up ran %v", ran)
	}
	if missed, err := m.Missed(ctx); err != nil || len(missed) != 0 {
		t.Fatalf("missed after catch-up: %v, %v", missed, err)
	}
	h, err := m.History(ctx, "j", 10)
	if err != nil || len(h) != 3 || h[0].Status != StatusOK || h[0].Trigger != TriggerCatchUp || h[1].Status != StatusSkipped {
		t.Fatalf("history: %+v, %v", h, err)
	}
}

func ExampleManager() {
	c := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	m, err := NewManager(c, "newsrank:", Options{LockTTL: time.Minute}, Job{
		Name: Prune, Schedule: "0 0 * * 1", Enabled: true,
		Run: func(ctx context.Context) (Counts, error) { return Counts{"removed": 0}, nil },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = m // m.Run(ctx, Prune, TriggerManual); m.Schedule(ctx)
}

// counter reads metrics.JobRuns{job, status}.
func counter(t *testing.T, job, status string) float64 {
	t.Helper()
	var m dto.Metric
	if err := metrics.JobRuns.WithLabelValues(job, status).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
