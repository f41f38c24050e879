package web

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/jobs"
)

func TestJobEndpoints(t *testing.T) {
	e := newEnv(t, func(c *envConfig) { c.web.RequestTimeout = 500 * time.Millisecond })
	var list struct{ Jobs []jobJSON }
	e.get("/api/jobs", &list)
	var names []string
	for _, j := range list.Jobs {
		names = append(names, j.Name)
	}
	if !slices.Equal(names, []string{"quick", "slow", "broken"}) {
		t.Fatalf("jobs = %v", names)
	}

	r := e.do("POST", "/api/jobs/quick/run", adminToken, "")
	var run jobs.Run
	r.json(t, &run)
	if r.status != http.StatusOK || run.Status != jobs.StatusOK || run.Trigger != jobs.TriggerAPI || run.Counts["done"] != 1 {
		t.Fatalf("run quick = %d %s", r.status, r.body)
	}
	r = e.do("POST", "/api/jobs/broken/run", adminToken, "")
	r.json(t, &run)
	if r.status != http.StatusOK || run.Status != jobs.StatusFailed || !strings.Contains(run.Error, "the source is down") {
		t.Fatalf("run broken = %d %s; want 200 with status failed", r.status, r.body)
	}

	r = e.do("POST", "/api/jobs/slow/run", adminToken, "")
	if r.status != http.StatusAccepted || r.header.Get("Location") != "/api/jobs" {
		t.Fatalf("run slow = %d %s; want 202", r.status, r.body)
	}
	r = e.do("POST", "/api/jobs/slow/run", adminToken, "")
	if r.status != http.StatusConflict || r.errorOf(t).Code != CodeJobRunning {
		t.Fatalf("second run of slow = %d %s; want 409 job_running", r.status, r.body)
	}
	close(e.release)
	proctest.WaitFor(t, 20*time.Second, "slow's run to be recorded", func() bool {
		e.get("/api/jobs?runs=3", &list)
		return list.Jobs[1].Last != nil && list.Jobs[1].Last.Status == jobs.StatusOK
	})
	if j := list.Jobs[1]; len(j.Runs) != 2 || j.Runs[0].Status != jobs.StatusOK || j.Runs[1].Status != jobs.StatusSkipped {
		t.Fatalf("slow's runs = %+v; want ok then skipped", j.Runs)
	}
}

func TestQueueEndpoint(t *testing.T) {
	e := newEnv(t)
	if _, err := e.queue.Push(context.Background(), "https://news.example.com/x/1", "https://news.example.com/x/2"); err != nil {
		t.Fatal(err)
	}
	var q struct {
		Queues []queueJSON
		Total  queueCounts
	}
	e.get("/api/queue", &q)
	if len(q.Queues) != 1 || q.Queues[0].Name != "demo" || q.Queues[0].Pending != 2 || q.Total.Pending != 2 {
		t.Fatalf("queue = %+v", q)
	}
}
