package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// opsRoutes are the operations endpoints: jobs and the URL queue.
func (s *Server) opsRoutes() []route {
	return []route{
		{method: "GET", path: "/api/jobs", h: s.apiJobs},
		{method: "POST", path: "/api/jobs/{name}/run", access: admin, h: s.apiRunJob},
		{method: "GET", path: "/api/queue", h: s.apiQueue},
	}
}

func (s *Server) jobManager() (*jobs.Manager, error) {
	if s.opts.Jobs == nil {
		return nil, errorf(http.StatusServiceUnavailable, CodeUnavailable, "jobs are not configured in this process")
	}
	return s.opts.Jobs, nil
}

// namedJob is the jobs manager and the job {name} of the request, which
// must be one of its jobs.
func (s *Server) namedJob(r *http.Request) (*jobs.Manager, string, error) {
	m, err := s.jobManager()
	if err != nil {
		return nil, "", err
	}
	name := r.PathValue("name")
	if !m.Has(name) {
		return nil, "", errorf(http.StatusNotFound, CodeNotFound, "unknown job %q", name)
	}
	return m, name, nil
}

// jobJSON is a job's status and its recent runs.
type jobJSON struct {
	jobs.JobStatus
	Runs []jobs.Run `json:"runs"`
}

// jobStatus reads every job's status and its last n runs.
func (s *Server) jobStatus(ctx context.Context, m *jobs.Manager, n int) ([]jobJSON, error) {
	sts, err := m.Status(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]jobJSON, 0, len(sts))
	for _, st := range sts {
		j := jobJSON{JobStatus: st, Runs: []jobs.Run{}}
		if n > 0 {
			runs, err := m.History(ctx, st.Name, n)
			if err != nil {
				return nil, err
			}
			j.Runs = nonNil(runs)
		}
		out = append(out, j)
	}
	return out, nil
}

// GET /api/jobs?runs=5
func (s *Server) apiJobs(w http.ResponseWriter, r *http.Request) error {
	m, err := s.jobManager()
	if err != nil {
		return err
	}
	q, err := params(r, "runs")
	if err != nil {
		return err
	}
	n, err := q.intIn("runs", 5, 0, 100)
	if err != nil {
		return err
	}
	js, err := s.jobStatus(r.Context(), m, n)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"jobs": js})
	return nil
}

// POST /api/jobs/{name}/run (admin token)
//
// The run goes on in the background, bound to the server's life rather
// than the request's. If it ends within web.request_timeout the reply is
// 200 with the run (status ok or failed); if another run holds the job's
// lock, 409 job_running; otherwise 202 with status "running" — follow it
// with GET /api/jobs.
func (s *Server) apiRunJob(w http.ResponseWriter, r *http.Request) error {
	m, name, err := s.namedJob(r)
	if err != nil {
		return err
	}
	if _, err := params(r); err != nil {
		return err
	}
	run, done, err := s.runJob(r, m, name, jobs.TriggerAPI)
	switch {
	case err != nil:
		return err
	case !done:
		w.Header().Set("Location", "/api/jobs")
		writeJSON(w, http.StatusAccepted, map[string]string{"job": name, "status": "running",
			"message": "the run goes on in the background; GET /api/jobs shows its result"})
		return nil
	}
	writeJSON(w, http.StatusOK, run)
	return nil
}

// runJob runs the job in the background, bound to the server's life
// rather than the request's, and waits for it until the request's deadline
// (web.request_timeout): done is false when the run goes on. A run that
// ran and failed is no error (its Status says failed); another run holding
// the job's lock is a 409 job_running error that wraps jobs.ErrLocked.
func (s *Server) runJob(r *http.Request, m *jobs.Manager, name, trigger string) (run jobs.Run, done bool, err error) {
	type result struct {
		run jobs.Run
		err error
	}
	ch := make(chan result, 1)
	if !s.bg.start(func(ctx context.Context) {
		run, err := m.Run(ctx, name, trigger)
		ch <- result{run, err}
	}) {
		return jobs.Run{}, false, errorf(http.StatusServiceUnavailable, CodeUnavailable, "the server is shutting down")
	}
	select {
	case res := <-ch:
		switch {
		case errors.Is(res.err, jobs.ErrLocked):
			return res.run, true, &Error{Status: http.StatusConflict, Code: CodeJobRunning, Message: "job " + name + ": " + res.run.Error, Err: res.err}
		case res.err != nil && res.run.Status == "":
			return res.run, true, res.err // it did not run: Redis trouble
		}
		return res.run, true, nil
	case <-r.Context().Done():
		return jobs.Run{}, false, nil
	}
}

// queueJSON is one source's queue counts.
type queueJSON struct {
	Name string `json:"name"`
	queueCounts
}

type queueCounts struct {
	Pending  int64 `json:"pending"`
	InFlight int64 `json:"in_flight"`
	Delayed  int64 `json:"delayed"`
	Done     int64 `json:"done"`
	Dead     int64 `json:"dead"`
}

// queueStats reads every queue's counts and their total.
func (s *Server) queueStats(ctx context.Context) ([]queueJSON, queueCounts, error) {
	out := make([]queueJSON, 0, len(s.opts.Queues))
	var total queueCounts
	for _, q := range s.opts.Queues {
		st, err := q.Stats(ctx)
		if err != nil {
			return nil, total, err
		}
		c := countsOf(st)
		out = append(out, queueJSON{Name: q.Name(), queueCounts: c})
		total.Pending += c.Pending
		total.InFlight += c.InFlight
		total.Delayed += c.Delayed
		total.Done += c.Done
		total.Dead += c.Dead
	}
	return out, total, nil
}

func countsOf(st queue.Stats) queueCounts {
	return queueCounts{Pending: st.Pending, InFlight: st.InFlight, Delayed: st.Delayed, Done: st.Done, Dead: st.Dead}
}

// GET /api/queue
func (s *Server) apiQueue(w http.ResponseWriter, r *http.Request) error {
	if _, err := params(r); err != nil {
		return err
	}
	qs, total, err := s.queueStats(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"queues": qs, "total": total})
	return nil
}

var (
	queueDesc = prometheus.NewDesc("newsrank_queue_urls",
		"URLs in each source's crawl queue, by state (pending, in_flight, delayed, done, dead), read at scrape time.",
		[]string{"queue", "state"}, nil)
	rankedDesc = prometheus.NewDesc("newsrank_articles_ranked",
		"Articles in the ranking window (the time: ranking), read at scrape time.", nil, nil)
)

// gauges are the metrics read from Redis at scrape time.
func (s *Server) gauges() []gaugeFunc {
	var gs []gaugeFunc
	if len(s.opts.Queues) > 0 {
		gs = append(gs, func(ctx context.Context, ch chan<- prometheus.Metric) error {
			qs, _, err := s.queueStats(ctx)
			if err != nil {
				return err
			}
			for _, q := range qs {
				for _, v := range []struct {
					state string
					n     int64
				}{{"pending", q.Pending}, {"in_flight", q.InFlight}, {"delayed", q.Delayed}, {"done", q.Done}, {"dead", q.Dead}} {
					ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(v.n), q.Name, v.state)
				}
			}
			return nil
		})
	}
	if s.opts.News != nil {
		gs = append(gs, func(ctx context.Context, ch chan<- prometheus.Metric) error {
			p, err := s.opts.News.List(ctx, news.ByTime, 1, 1)
			if err != nil {
				return err
			}
			ch <- prometheus.MustNewConstMetric(rankedDesc, prometheus.GaugeValue, float64(p.Total))
			return nil
		})
	}
	if s.opts.Jobs != nil {
		gs = append(gs, s.opts.Jobs.Collect) // last run, its result, when the next is due
	}
	return gs
}
