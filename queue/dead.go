package queue

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// DeadLetter is a URL that failed for good: its last failure, how many
// attempts it had, and when it died.
type DeadLetter struct {
	URL, Reason, Error string
	Attempts           int
	At                 time.Time
}

// Dead lists up to limit dead letters (limit <= 0: 100; at most 10,000),
// newest first. Dead letters older than DoneRetention are forgotten.
func (q *Queue) Dead(ctx context.Context, limit int) ([]DeadLetter, error) {
	if q.err != nil {
		return nil, q.err
	}
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 10000)
	rows, err := deadCmd.Run(ctx, q.c, q.stateKeys(), limit).StringSlice()
	if err != nil {
		return nil, q.wrap("dead", err)
	}
	out := make([]DeadLetter, 0, len(rows)/4)
	for i := 0; i+3 < len(rows); i += 4 {
		ms, _ := strconv.ParseFloat(rows[i+1], 64)
		reason, msg, _ := strings.Cut(rows[i+2], "\n")
		att, _ := strconv.Atoi(rows[i+3])
		out = append(out, DeadLetter{URL: rows[i], Reason: reason, Error: msg, Attempts: att, At: time.UnixMilli(int64(ms))})
	}
	return out, nil
}

// RequeueDead moves dead letters back to pending with their attempts
// reset: urls, or with no urls all of them (in batches of 500). It returns
// how many were requeued; URLs that are not dead are ignored.
func (q *Queue) RequeueDead(ctx context.Context, urls ...string) (int, error) {
	if q.err != nil {
		return 0, q.err
	}
	total := 0
	defer func() {
		if total > 0 {
			q.wake(ctx)
		}
	}()
	if len(urls) == 0 {
		for {
			n, err := requeueDeadCmd.Run(ctx, q.c, q.stateKeys(), scriptBatch).Int()
			if err != nil {
				return total, q.wrap("requeue dead", err)
			}
			total += n
			if n < scriptBatch {
				return total, nil
			}
		}
	}
	good, badErr := canonicalAll(urls)
	for _, batch := range chunks(good) {
		argv := []any{scriptBatch}
		for _, u := range batch {
			argv = append(argv, u)
		}
		n, err := requeueDeadCmd.Run(ctx, q.c, q.stateKeys(), argv...).Int()
		if err != nil {
			return total, q.wrap("requeue dead", err)
		}
		total += n
	}
	return total, q.wrap("requeue dead", badErr)
}
