package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
)

// Status is the outcome of a run.
type Status string

// The statuses of a run.
const (
	StatusOK      Status = "ok"
	StatusFailed  Status = "failed"
	StatusSkipped Status = "skipped"
	// StatusInterrupted is a run stopped by a shutdown (SIGINT, SIGTERM)
	// before it finished.
	StatusInterrupted Status = "interrupted"
)

// Triggers say what started a run.
const (
	TriggerSchedule = "schedule" // the cron schedule fired
	TriggerCatchUp  = "catch-up" // a missed scheduled run, at start
	TriggerManual   = "manual"   // the command line
	TriggerAPI      = "api"      // the HTTP API
)

// Counts are what a run reports it did, e.g. {"removed": 120}.
type Counts map[string]int64

// attrs are the counts as log attributes in key order, so a log line
// reads "created=116 updated=0".
func (c Counts) attrs() []any {
	keys := slices.Sorted(maps.Keys(c))
	out := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		out = append(out, k, c[k])
	}
	return out
}

// Run is one recorded run of a job.
type Run struct {
	Job     string    `json:"job"`
	Trigger string    `json:"trigger"`
	Holder  string    `json:"holder"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Status  Status    `json:"status"`
	Counts  Counts    `json:"counts,omitempty"`
	// Error is the failure, or why the run was skipped.
	Error string `json:"error,omitempty"`
}

// Duration is how long the run took.
func (r Run) Duration() time.Duration { return r.End.Sub(r.Start) }

// record pushes run on its job's history, trims the history to max entries
// and, for a run that ran, stores it as the job's last run, in one
// MULTI/EXEC.
func record(ctx context.Context, c redis.UniversalClient, k keys, max int, run Run) error {
	b, err := json.Marshal(run)
	if err != nil {
		return fmt.Errorf("encode run: %w", err)
	}
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, k.runs(run.Job), b)
		p.LTrim(ctx, k.runs(run.Job), 0, int64(max-1))
		if run.Status != StatusSkipped {
			p.Set(ctx, k.last(run.Job), b, 0)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record %s run: %w", run.Job, err)
	}
	return nil
}

// history reads up to n runs of job, newest first.
func history(ctx context.Context, c redis.UniversalClient, k keys, job string, n int) ([]Run, error) {
	if n <= 0 {
		return nil, nil
	}
	raw, err := c.LRange(ctx, k.runs(job), 0, int64(n-1)).Result()
	if err != nil {
		return nil, fmt.Errorf("read %s history: %w", job, err)
	}
	runs := make([]Run, 0, len(raw))
	for _, s := range raw {
		var r Run
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			return nil, fmt.Errorf("read %s history: bad entry %.60q: %w", job, s, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// lastRun reads the last run of job that ran; ok is false when it never
// ran.
func lastRun(ctx context.Context, c redis.UniversalClient, k keys, job string) (Run, bool, error) {
	s, err := c.Get(ctx, k.last(job)).Result()
	if errors.Is(err, redis.Nil) {
		return Run{}, false, nil
	}
	if err != nil {
		return Run{}, false, fmt.Errorf("read %s last run: %w", job, err)
	}
	var r Run
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return Run{}, false, fmt.Errorf("read %s last run: %w", job, err)
	}
	return r, true, nil
}
