package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
)

// collector is Manager.Collect as an unchecked prometheus.Collector.
type collector struct {
	m   *Manager
	err error
}

func (c *collector) Describe(chan<- *prometheus.Desc) {}
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.err = c.m.Collect(context.Background(), ch)
}

// gauges gathers Collect's metrics and returns metric name → job → value.
func gauges(t *testing.T, m *Manager) map[string]map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	c := &collector{m: m}
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil || c.err != nil {
		t.Fatalf("gather: %v, collect: %v", err, c.err)
	}
	out := map[string]map[string]float64{}
	for _, mf := range mfs {
		out[mf.GetName()] = map[string]float64{}
		for _, pm := range mf.GetMetric() {
			out[mf.GetName()][pm.GetLabel()[0].GetValue()] = pm.GetGauge().GetValue()
		}
	}
	return out
}

// The gauges say when each job last ran, whether it succeeded, and when
// its schedule fired (or fires) after that run began; a job that never
// ran has none, and an unscheduled job has no due time.
func TestCollectGauges(t *testing.T) {
	c := redistest.Start(t).Client()
	clk := clock.NewFake(time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC))
	fail := errors.New("boom")
	m := newManager(t, c, Options{Clock: clk, Location: time.UTC},
		Job{Name: "hourly", Schedule: "0 * * * *", Enabled: true, Run: func(context.Context) (Counts, error) { return nil, nil }},
		Job{Name: "failing", Schedule: "@every 6h", Enabled: true, Run: func(context.Context) (Counts, error) { return nil, fail }},
		Job{Name: "manual", Run: func(context.Context) (Counts, error) { return nil, nil }},
		Job{Name: "never", Schedule: "0 3 * * *", Enabled: true, Run: func(context.Context) (Counts, error) { return nil, nil }},
	)
	if g := gauges(t, m); len(g) != 1 || len(g["newsrank_job_running"]) != 4 {
		t.Fatalf("gauges before any run: %v, want only newsrank_job_running, for the 4 jobs", g)
	}
	ctx := context.Background()
	clk.Set(time.Date(2024, 3, 4, 10, 20, 0, 0, time.UTC))
	for _, name := range []string{"hourly", "failing", "manual"} {
		if _, err := m.Run(ctx, name, TriggerManual); err != nil && name != "failing" {
			t.Fatal(err)
		}
	}
	// A run in progress: the gauge is read while it holds the lock.
	var during map[string]map[string]float64
	if _, err := m.RunFunc(ctx, "never", TriggerManual, func(context.Context) (Counts, error) {
		during = gauges(t, m)
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if during["newsrank_job_running"]["never"] != 1 || during["newsrank_job_running"]["hourly"] != 0 {
		t.Errorf("newsrank_job_running during a run of never: %v, want never 1, the others 0", during["newsrank_job_running"])
	}
	if _, err := c.Del(ctx, prefix+"{jobs}:last:never", prefix+"{jobs}:runs:never").Result(); err != nil {
		t.Fatal(err)
	}
	g := gauges(t, m)
	if g["newsrank_job_running"]["never"] != 0 {
		t.Errorf("newsrank_job_running after the run: %v, want 0", g["newsrank_job_running"])
	}
	at := float64(time.Date(2024, 3, 4, 10, 20, 0, 0, time.UTC).Unix())
	for _, name := range []string{"hourly", "failing", "manual"} {
		if got := g["newsrank_job_last_run_timestamp_seconds"][name]; got != at {
			t.Errorf("%s: last run at %v, want %v", name, got, at)
		}
	}
	if _, ok := g["newsrank_job_last_run_timestamp_seconds"]["never"]; ok {
		t.Errorf("a job that never ran has a last run: %v", g)
	}
	for name, want := range map[string]float64{"hourly": 1, "failing": 0, "manual": 1} {
		if got, ok := g["newsrank_job_last_run_ok"][name]; !ok || got != want {
			t.Errorf("%s: last_run_ok %v (present %v), want %v", name, got, ok, want)
		}
	}
	due := g["newsrank_job_due_timestamp_seconds"]
	if want := float64(time.Date(2024, 3, 4, 11, 0, 0, 0, time.UTC).Unix()); due["hourly"] != want {
		t.Errorf("hourly due at %v, want %v (the next hour after the run began)", due["hourly"], want)
	}
	if want := float64(time.Date(2024, 3, 4, 16, 20, 0, 0, time.UTC).Unix()); due["failing"] != want {
		t.Errorf("failing (@every 6h) due at %v, want %v", due["failing"], want)
	}
	if _, ok := due["manual"]; ok {
		t.Errorf("an unscheduled job has a due time: %v", due)
	}
	if _, ok := due["never"]; ok {
		t.Errorf("a job that never ran has a due time: %v", due)
	}
}
