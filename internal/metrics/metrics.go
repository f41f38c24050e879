// Package metrics holds newsrank's Prometheus metrics. Packages update them
// where the event happens; the web package serves Registry on /metrics.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Registry is the registry /metrics serves. It holds the Go runtime and
// process collectors and every metric below.
var Registry = prometheus.NewRegistry()

var (
	// PagesFetched counts pages fetched successfully, by source and kind
	// (list or article).
	PagesFetched = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "newsrank_pages_fetched_total",
		Help: "Pages fetched successfully, by source and kind (list, article).",
	}, []string{"source", "kind"})
	// PagesFailed counts failed fetches by source and reason (http_404,
	// http_5xx, timeout, too_large, robots, not_html, no_title, ...).
	PagesFailed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "newsrank_pages_failed_total",
		Help: "Pages that failed, by source and reason.",
	}, []string{"source", "reason"})
	// PostTimesUnread counts articles stored with the crawl time as their
	// post time because the time their page or list carried could not be
	// read, by source.
	PostTimesUnread = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "newsrank_post_times_unread_total",
		Help: "Articles whose page or list carried a post time that could not be read (the crawl time stands in), by source.",
	}, []string{"source"})
	// Articles counts ingest outcomes: new, updated, too_old.
	Articles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "newsrank_articles_ingested_total",
		Help: "Articles handed to the store, by result (new, updated, too_old).",
	}, []string{"result"})
	// StoryChunks counts the ingest script calls with news.rank_by: story
	// by how their stories were decided: planned (in Go, the plan taken),
	// stale (a plan refused: the index changed since it was read; the
	// chunk is planned again) and locked (planned under the story lock,
	// taken after news.PlanAttempts stale plans, the plan taken).
	StoryChunks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "newsrank_story_chunks_total",
		Help: "Ingest script calls ranking by story, by how their stories were decided (planned, stale, locked).",
	}, []string{"result"})
	// Votes counts votes cast, by direction (up, down, none).
	Votes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "newsrank_votes_total",
		Help: "Votes cast, by direction (up, down, none).",
	}, []string{"dir"})
	// JobRuns counts job runs by job and status (ok, failed, skipped).
	JobRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "newsrank_job_runs_total",
		Help: "Job runs, by job and status (ok, failed, skipped).",
	}, []string{"job", "status"})
	// JobDuration observes how long job runs take.
	JobDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "newsrank_job_duration_seconds",
		Help:    "Duration of job runs, by job.",
		Buckets: prometheus.ExponentialBuckets(0.01, 4, 10),
	}, []string{"job"})
	// WebSubPushes counts valid WebSub pushes read, by source.
	WebSubPushes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "newsrank_websub_pushes_total",
		Help: "WebSub pushes whose signature was valid and whose feed was read, by source.",
	}, []string{"source"})
	// WebSubRejected counts WebSub callback POSTs rejected, by reason
	// (unknown_callback, inactive, no_signature, bad_signature,
	// too_large, unreadable); not by source, which a forger would choose.
	WebSubRejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "newsrank_websub_rejected_total",
		Help: "WebSub pushes rejected, by reason.",
	}, []string{"reason"})
	// WebSubRequests counts subscription requests and their
	// verifications, by mode (subscribe, renew, unsubscribe) and result
	// (accepted, failed, verified, denied).
	WebSubRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "newsrank_websub_requests_total",
		Help: "WebSub hub requests and verifications, by mode (subscribe, renew, unsubscribe) and result (accepted, failed, verified, denied).",
	}, []string{"mode", "result"})
	// HTTPDuration observes HTTP request latency by route pattern, method
	// and status code.
	HTTPDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "newsrank_http_request_duration_seconds",
		Help:    "HTTP request latency, by route, method and status code.",
		Buckets: prometheus.DefBuckets,
	}, []string{"route", "method", "code"})
)

func init() {
	Registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		PagesFetched, PagesFailed, PostTimesUnread, Articles, StoryChunks, Votes, JobRuns, JobDuration, HTTPDuration,
		WebSubPushes, WebSubRejected, WebSubRequests,
	)
	// the hub requests' series exist from the start at 0, so that an alert
	// on their increase sees the first failure
	for _, mode := range []string{"subscribe", "renew", "unsubscribe"} {
		for _, result := range []string{"accepted", "failed", "verified", "denied"} {
			WebSubRequests.WithLabelValues(mode, result)
		}
	}
}
