package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
)

// seedLast records a past run of job as its last run.
func seedLast(t *testing.T, c redis.UniversalClient, job string, start time.Time) {
	t.Helper()
	if err := record(context.Background(), c, newKeys(prefix), 10, Run{Job: job, Trigger: TriggerSchedule, Holder: "old/1", Start: start, End: start.Add(time.Second), Status: StatusOK}); err != nil {
		t.Fatal(err)
	}
}

func TestCatchUpRunsMissedJobsOnce(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	// Monday 8 January 2024, 10:00 in Shanghai (02:00 UTC).
	clk := clock.NewFake(time.Date(2024, 1, 8, 10, 0, 0, 0, sh))
	ran := map[string]int{}
	job := func(name, schedule string, enabled bool) Job {
		return Job{Name: name, Schedule: schedule, Enabled: enabled, Run: func(ctx context.Context) (Counts, error) {
			ran[name]++
			return nil, nil
		}}
	}
	m := newManager(t, c, Options{Location: sh, Clock: clk, CatchUp: true},
		job("missed", "0 0 * * 1", true),    // last ran a week ago: this Monday's 00:00 was missed
		job("current", "0 0 * * 1", true),   // ran at this Monday's 00:00: nothing missed
		job("never", "0 */6 * * *", true),   // never ran: nothing missed
		job("disabled", "0 0 * * 1", false), // missed but not scheduled
		job("manual", "", true),             // no schedule
		job("zone", "0 9 * * 1", true),      // 09:00 Shanghai = 01:00 UTC: fired an hour ago
	)
	seedLast(t, c, "missed", time.Date(2024, 1, 1, 0, 0, 3, 0, sh))
	seedLast(t, c, "current", time.Date(2024, 1, 8, 0, 0, 2, 0, sh))
	seedLast(t, c, "disabled", time.Date(2023, 12, 1, 0, 0, 0, 0, sh))
	// Ran at 08:30 Shanghai, before today's 09:00 run; read in UTC that
	// would be Monday 00:30 UTC with the 09:00 UTC run still ahead.
	seedLast(t, c, "zone", time.Date(2024, 1, 8, 0, 30, 0, 0, time.UTC))

	missed, err := m.Missed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"missed", "zone"}; !slices.Equal(missed, want) {
		t.Fatalf("missed = %v, want %v", missed, want)
	}
	got, err := m.CatchUp(ctx)
	if err != nil || !slices.Equal(got, missed) {
		t.Fatalf("caught up %v, %v; want %v", got, err, missed)
	}
	for _, name := range missed {
		if ran[name] != 1 {
			t.Errorf("%s ran %d times, want 1", name, ran[name])
		}
	}
	if ran["current"]+ran["disabled"]+ran["manual"]+ran["never"] != 0 {
		t.Errorf("ran jobs that were not missed: %v", ran)
	}
	// A second start an hour later has nothing to catch up.
	clk.Advance(time.Hour)
	if got, err := m.CatchUp(ctx); err != nil || len(got) != 0 {
		t.Fatalf("second catch-up ran %v, %v", got, err)
	}
	// A week later the Monday job is due again.
	clk.Advance(7 * 24 * time.Hour)
	missed, _ = m.Missed(ctx)
	if !slices.Contains(missed, "missed") || !slices.Contains(missed, "current") {
		t.Fatalf("a week later missed = %v", missed)
	}
	h, _ := m.History(ctx, "missed", 1)
	if h[0].Trigger != TriggerCatchUp || !h[0].Start.Equal(time.Date(2024, 1, 8, 10, 0, 0, 0, sh)) {
		t.Fatalf("recorded catch-up run: %+v", h[0])
	}
}

func TestScheduledTickSkipsWhenAnotherDaemonRanIt(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	clk := clock.NewFake(time.Date(2024, 1, 8, 0, 0, 0, 200e6, time.UTC))
	var ran atomic.Int32
	m := newManager(t, c, Options{Location: time.UTC, Clock: clk}, Job{Name: "w", Schedule: "0 0 * * 1", Enabled: true,
		Run: func(ctx context.Context) (Counts, error) { ran.Add(1); return nil, nil }})
	// Another daemon's tick ran it 100 ms after 00:00; ours comes later.
	seedLast(t, c, "w", time.Date(2024, 1, 8, 0, 0, 0, 100e6, time.UTC))
	m.tick(ctx, "w")
	if ran.Load() != 0 {
		t.Fatal("the tick ran a job another daemon already ran for this tick")
	}
	h, _ := m.History(ctx, "w", 1)
	if h[0].Status != StatusSkipped || h[0].Error == "" {
		t.Fatalf("history: %+v", h[0])
	}
	// Next Monday's tick runs.
	clk.Advance(7 * 24 * time.Hour)
	m.tick(ctx, "w")
	if ran.Load() != 1 {
		t.Fatal("next week's tick did not run")
	}
}

func TestStatusNextRunInTheConfiguredZone(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	ny, _ := time.LoadLocation("America/New_York")
	clk := clock.NewFake(time.Date(2024, 1, 8, 3, 0, 0, 0, time.UTC)) // Sunday 22:00 in New York
	m := newManager(t, c, Options{Location: ny, Clock: clk}, Job{Name: "w", Schedule: "0 0 * * 1", Enabled: true,
		Run: func(ctx context.Context) (Counts, error) { return nil, nil }})
	st, err := m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2024, 1, 8, 0, 0, 0, 0, ny) // Monday 00:00 New York = 05:00 UTC
	if st[0].Next == nil || !st[0].Next.Equal(want) {
		t.Fatalf("next = %v, want %v", st[0].Next, want)
	}
	b, _ := json.Marshal(st[0])
	if !json.Valid(b) {
		t.Fatal("status does not encode")
	}
}

func TestScheduleFiresCatchesUpAndStopsCleanly(t *testing.T) {
	c := redistest.Start(t).Client()
	ctx, cancel := context.WithCancel(context.Background())
	var ticks, catchUps atomic.Int32
	stopped := make(chan struct{})
	m := newManager(t, c, Options{CatchUp: true, LockTTL: 3 * time.Second},
		Job{Name: "often", Schedule: "@every 1s", Enabled: true, Run: func(ctx context.Context) (Counts, error) {
			ticks.Add(1)
			return nil, nil
		}},
		Job{Name: "weekly", Schedule: "@weekly", Enabled: true, Run: func(ctx context.Context) (Counts, error) {
			catchUps.Add(1)
			return nil, nil
		}},
		Job{Name: "long", Schedule: "@every 1s", Enabled: true, Run: func(ctx context.Context) (Counts, error) {
			<-ctx.Done() // runs until shutdown
			close(stopped)
			return nil, ctx.Err()
		}},
	)
	seedLast(t, c, "weekly", time.Now().Add(-8*24*time.Hour)) // missed last week's run
	done := make(chan error, 1)
	go func() { done <- m.Schedule(ctx) }()
	proctest.WaitFor(t, 30*time.Second, "three scheduled runs", func() bool { return ticks.Load() >= 3 })
	proctest.WaitFor(t, 30*time.Second, "the weekly catch-up", func() bool { return catchUps.Load() == 1 })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Schedule did not return after cancel")
	}
	select {
	case <-stopped:
	default:
		t.Fatal("Schedule returned before the running job stopped")
	}
	h, _ := m.History(context.Background(), "often", 50)
	triggers := map[string]int{}
	for _, r := range h {
		triggers[r.Trigger]++
	}
	if triggers[TriggerSchedule] < 2 {
		t.Fatalf("history triggers %v, want >= 2 scheduled runs", triggers)
	}
	if n, _ := c.Exists(context.Background(), m.keys.lock("long")).Result(); n != 0 {
		t.Fatal("the long job's lock survived shutdown")
	}
}

// TestFreshKeyspaceCatchesNothingUp: on a keyspace where no job ever ran
// there is no missed run; Schedule with catch-up runs nothing at start and
// does not say it is catching up.
func TestFreshKeyspaceCatchesNothingUp(t *testing.T) {
	c := redistest.Start(t).Client()
	var logs proctest.Log
	var ran atomic.Int32
	job := func(name, spec string) Job {
		return Job{Name: name, Schedule: spec, Enabled: true, Run: func(ctx context.Context) (Counts, error) { ran.Add(1); return nil, nil }}
	}
	m := newManager(t, c, Options{CatchUp: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		job("crawl", "0 */6 * * *"), job("prune", "@weekly"), job("rescore", "5 0 * * 1"))
	if missed, err := m.Missed(context.Background()); err != nil || len(missed) != 0 {
		t.Fatalf("missed on a fresh keyspace = %v, %v; want none", missed, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Schedule(ctx) }()
	proctest.WaitFor(t, 30*time.Second, "the schedule to be announced", func() bool {
		s, err := m.Schedulers(context.Background())
		return err == nil && len(s) == 1
	})
	cancel()
	if err := <-done; err != nil { // Schedule waits for its catch-up
		t.Fatal(err)
	}
	if ran.Load() != 0 {
		t.Errorf("%d jobs ran at start on a fresh keyspace", ran.Load())
	}
	if strings.Contains(logs.String(), "catching up") {
		t.Errorf("logs say it is catching up:\n%s", logs.String())
	}
	for _, name := range []string{"crawl", "prune", "rescore"} {
		if h, _ := m.History(context.Background(), name, 5); len(h) != 0 {
			t.Errorf("%s has history %+v", name, h)
		}
	}
}
