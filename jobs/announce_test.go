package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
)

// TestScheduleIsAnnounced: a running Schedule announces each job as it
// runs it (spec, zone, its cron's next run); StatusAsScheduled shows that
// rather than the asking Manager's own configuration; a stopped Schedule
// withdraws it.
func TestScheduleIsAnnounced(t *testing.T) {
	c := redistest.Start(t).Client()
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	noop := func(ctx context.Context) (Counts, error) { return nil, nil }
	daemon := newManager(t, c, Options{Location: sh, Holder: "daemon-host/7"},
		Job{Name: "crawl", Schedule: "@every 15m", Enabled: true, Run: noop},
		Job{Name: "prune", Schedule: "@every 1h", Enabled: false, Run: noop})
	// What `newsrank jobs` builds from another configuration.
	viewer := newManager(t, c, Options{Location: time.UTC},
		Job{Name: "crawl", Schedule: "0 */6 * * *", Enabled: true, Run: noop},
		Job{Name: "prune", Schedule: "0 0 * * 1", Enabled: true, Run: noop})
	bg := context.Background()
	st, scheds, err := viewer.StatusAsScheduled(bg)
	if err != nil || len(scheds) != 0 || st[0].Schedule != "0 */6 * * *" || st[0].ScheduledBy != "" || st[0].TimeZone != "UTC" {
		t.Fatalf("with no scheduler running: %+v %+v %v", st, scheds, err)
	}

	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	before := time.Now()
	go func() { done <- daemon.Schedule(ctx) }()
	proctest.WaitFor(t, 30*time.Second, "the announcement", func() bool {
		s, err := viewer.Schedulers(bg)
		return err == nil && len(s) == 1
	})
	st, scheds, err = viewer.StatusAsScheduled(bg)
	if err != nil {
		t.Fatal(err)
	}
	if scheds[0].Holder != "daemon-host/7" || scheds[0].TimeZone != "Asia/Shanghai" {
		t.Errorf("scheduler = %+v", scheds[0])
	}
	crawl, prune := st[0], st[1]
	if crawl.Schedule != "@every 15m" || !crawl.Enabled || crawl.ScheduledBy != "daemon-host/7" || crawl.TimeZone != "Asia/Shanghai" {
		t.Errorf("crawl as scheduled = %+v", crawl)
	}
	// The daemon's cron runs "@every 15m" 15 minutes after it started,
	// whatever time the viewer asks.
	if crawl.Next == nil || crawl.Next.Before(before.Add(15*time.Minute-time.Second)) || crawl.Next.After(time.Now().Add(15*time.Minute+time.Second)) {
		t.Errorf("crawl next = %v, want 15 minutes after %v", crawl.Next, before)
	}
	if prune.Schedule != "@every 1h" || prune.Enabled || prune.Next != nil {
		t.Errorf("disabled prune as scheduled = %+v", prune)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s, err := viewer.Schedulers(bg); err != nil || len(s) != 0 {
		t.Errorf("after the scheduler stopped: %+v, %v", s, err)
	}
	// One that died without withdrawing is dropped once its announcement expires.
	if err := daemon.announce(bg, Scheduler{Holder: "killed/9", Since: time.Now()}); err != nil {
		t.Fatal(err)
	}
	c.Del(bg, viewer.keys.scheduler("killed/9")) // as the TTL would
	if s, err := viewer.Schedulers(bg); err != nil || len(s) != 0 {
		t.Errorf("expired announcement still listed: %+v, %v", s, err)
	}
	if n, _ := c.SCard(bg, viewer.keys.schedulers()).Result(); n != 0 {
		t.Errorf("expired scheduler left in the set")
	}
}
