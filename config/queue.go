package config

import (
	"time"

	"github.com/newsrank/newsrank/queue"
)

// Queue configures the Redis URL queue shared by the producer and the
// consumers (package queue).
type Queue struct {
	// Lease is how long a consumer may hold a claimed URL before it is
	// handed to another consumer; consumers extend it for slow fetches.
	Lease Duration `yaml:"lease"`
	// MaxAttempts is how many times a URL is tried before it goes to the
	// dead letters.
	MaxAttempts int `yaml:"max_attempts"`
	// RetryBase and RetryMax bound the exponential backoff between tries.
	RetryBase Duration `yaml:"retry_base"`
	RetryMax  Duration `yaml:"retry_max"`
	// DoneRetention is how long a fetched URL is remembered (at most a
	// minute more), so that it is not queued again; after that a push
	// queues it anew. The memory of done URLs costs about 64 to 80 bytes
	// per URL in Redis (12 bytes of hash and the minute it was done, in one
	// Redis hash per quarter of the retention) and is held for at most 1.25
	// × the retention. Every process using a queue must use the same value.
	DoneRetention Duration `yaml:"done_retention"`
	// ClaimBatch is how many URLs a consumer claims at once. Larger
	// batches spread the cost of a round trip to Redis over more URLs but
	// leave more URLs waiting for their lease to end when a consumer dies.
	ClaimBatch int `yaml:"claim_batch"`
	// IdlePoll is the longest an idle consumer waits between looks at an
	// empty queue.
	IdlePoll Duration `yaml:"idle_poll"`
}

func defaultQueue() Queue { return queueFromOptions(queue.DefaultOptions()) }

func (q *Queue) validate(v *validator) {
	v.minDur("lease", q.Lease, time.Second)
	v.min("max_attempts", q.MaxAttempts, 1)
	v.minDur("retry_base", q.RetryBase, time.Millisecond)
	ordered(v, "retry_base", q.RetryBase, "retry_max", q.RetryMax)
	v.minDur("done_retention", q.DoneRetention, time.Minute)
	v.min("claim_batch", q.ClaimBatch, 1)
	if q.ClaimBatch > 1000 {
		v.addf("claim_batch", "must be <= 1000, got %d", q.ClaimBatch)
	}
	v.minDur("idle_poll", q.IdlePoll, 10*time.Millisecond)
}
