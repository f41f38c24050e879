package jobs

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

// The jobs' gauges, read from Redis when Prometheus scrapes (Collect).
// They come from the run history every process shares, so they say the
// same whichever daemon, timer or command ran the job.
var (
	lastRunDesc = prometheus.NewDesc("newsrank_job_last_run_timestamp_seconds",
		"When the job's last run that ran (ok or failed) ended, Unix seconds; absent when it never ran.",
		[]string{"job"}, nil)
	lastOKDesc = prometheus.NewDesc("newsrank_job_last_run_ok",
		"1 when the job's last run that ran succeeded, 0 when it failed; absent when it never ran.",
		[]string{"job"}, nil)
	dueDesc = prometheus.NewDesc("newsrank_job_due_timestamp_seconds",
		"When the job's schedule fires next after the start of its last run, Unix seconds: in the past, a scheduled run is due "+
			"and none has started since; absent for a job that is not scheduled or never ran.",
		[]string{"job"}, nil)
	runningDesc = prometheus.NewDesc("newsrank_job_running",
		"1 while a run of the job holds its lock (in any process), else 0.",
		[]string{"job"}, nil)
)

// Collect sends each job's gauges: newsrank_job_running for every job,
// newsrank_job_last_run_timestamp_seconds
// and newsrank_job_last_run_ok for jobs that ran, and
// newsrank_job_due_timestamp_seconds for enabled, scheduled jobs that ran
// (a job that never ran has missed nothing, as for catch-up). It returns
// Redis's error, having sent the gauges of the jobs read before it.
func (m *Manager) Collect(ctx context.Context, ch chan<- prometheus.Metric) error {
	for _, j := range m.jobs {
		_, running, err := holderOf(ctx, m.c, m.keys.lock(j.Name))
		if err != nil {
			return err
		}
		rv := 0.0
		if running {
			rv = 1
		}
		ch <- prometheus.MustNewConstMetric(runningDesc, prometheus.GaugeValue, rv, j.Name)
		last, ok, err := lastRun(ctx, m.c, m.keys, j.Name)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		okv := 0.0
		if last.Status == StatusOK {
			okv = 1
		}
		ch <- prometheus.MustNewConstMetric(lastRunDesc, prometheus.GaugeValue, float64(last.End.UnixMilli())/1000, j.Name)
		ch <- prometheus.MustNewConstMetric(lastOKDesc, prometheus.GaugeValue, okv, j.Name)
		if j.Enabled && j.sched != nil {
			due := j.sched.Next(last.Start.In(m.opts.Location))
			ch <- prometheus.MustNewConstMetric(dueDesc, prometheus.GaugeValue, float64(due.Unix()), j.Name)
		}
	}
	return nil
}
