package web

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/newsrank/newsrank/internal/metrics"
)

// healthz says the process is up; it touches nothing else.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readyz says whether Redis answers PING within web.request_timeout.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	start := time.Now()
	if err := s.opts.Redis.Ping(r.Context()).Err(); err != nil {
		return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable,
			Message: "redis at " + s.opts.Redis.Addr + " is not reachable: " + err.Error(), Err: err}
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "redis_ms": float64(time.Since(start).Microseconds()) / 1000})
	return nil
}

// metrics serves metrics.Registry and the gauges read from Redis at scrape
// time (queue depths, article counts).
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) error {
	reg := prometheus.NewRegistry()
	reg.MustRegister(&scrapeCollector{s: s, ctx: r.Context()})
	promhttp.HandlerFor(prometheus.Gatherers{metrics.Registry, reg}, promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError,
	}).ServeHTTP(w, r)
	return nil
}

var (
	redisUpDesc = prometheus.NewDesc("newsrank_redis_up",
		"1 when Redis answered the scrape's queries, 0 when it did not.", nil, nil)
)

// scrapeCollector reads gauges from Redis when Prometheus scrapes, within
// the request's timeout. When Redis does not answer, it reports
// newsrank_redis_up 0 and leaves the Redis-backed gauges out.
type scrapeCollector struct {
	s   *Server
	ctx context.Context
}

// Describe sends nothing: the collector is unchecked, its gauges vary with
// the configured parts.
func (c *scrapeCollector) Describe(chan<- *prometheus.Desc) {}

// Collect reads the gauges.
func (c *scrapeCollector) Collect(ch chan<- prometheus.Metric) {
	up := 1.0
	for _, g := range c.s.gauges() {
		if err := g(c.ctx, ch); err != nil {
			c.s.log.Warn("metrics: read gauge", "err", err)
			up = 0
		}
	}
	if err := c.s.opts.Redis.Ping(c.ctx).Err(); err != nil {
		up = 0
	}
	ch <- prometheus.MustNewConstMetric(redisUpDesc, prometheus.GaugeValue, up)
}

// gaugeFunc sends scrape-time metrics read from Redis.
type gaugeFunc func(ctx context.Context, ch chan<- prometheus.Metric) error
