package web

import (
	"context"
	"strings"
	"testing"
)

func TestHealthAndMetrics(t *testing.T) {
	e := newEnv(t)
	e.seed(3)
	if _, err := e.queue.Push(context.Background(), "https://news.example.com/x/1"); err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	e.get("/healthz", &h)
	if h["status"] != "ok" {
		t.Fatalf("healthz = %v", h)
	}
	e.get("/readyz", &h)
	if h["status"] != "ready" {
		t.Fatalf("readyz = %v", h)
	}
	e.get("/api/news", nil)
	r := e.do("GET", "/metrics", "", "")
	body := string(r.body)
	for _, want := range []string{
		`newsrank_http_request_duration_seconds_count{code="200",method="GET",route="GET /api/news"}`,
		`newsrank_queue_urls{queue="demo",state="pending"} 1`,
		`newsrank_articles_ranked 3`,
		`newsrank_redis_up 1`,
		`newsrank_articles_ingested_total{result="new"}`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
}
