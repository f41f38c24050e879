package queue

import "time"

// Options are a queue's settings. Every process using a queue must use
// the same DoneRetention. The values are expected to be sane (the
// configuration checks them: a lease of at least a second, a positive
// MaxAttempts and ClaimBatch, RetryBase <= RetryMax...); New does not
// check them again.
type Options struct {
	// Lease is how long a consumer may hold a claimed URL before it is
	// handed to another consumer; consumers extend it for slow fetches.
	Lease time.Duration
	// MaxAttempts is how many times a URL is tried before it goes to the
	// dead letters.
	MaxAttempts int
	// RetryBase and RetryMax bound the exponential backoff between tries.
	RetryBase time.Duration
	RetryMax  time.Duration
	// DoneRetention is how long a fetched URL is remembered (at most a
	// minute more), so that it is not queued again; after that a push
	// queues it anew. The memory of done URLs costs about 64 to 80 bytes
	// per URL in Redis (12 bytes of hash and the minute it was done, in one
	// Redis hash per quarter of the retention) and is held for at most 1.25
	// × the retention.
	DoneRetention time.Duration
	// ClaimBatch is how many URLs a consumer claims at once. Larger
	// batches spread the cost of a round trip to Redis over more URLs but
	// leave more URLs waiting for their lease to end when a consumer dies.
	ClaimBatch int
	// IdlePoll is the longest an idle consumer waits between looks at an
	// empty queue.
	IdlePoll time.Duration
}

// DefaultOptions returns the default queue settings.
func DefaultOptions() Options {
	return Options{
		Lease:         2 * time.Minute,
		MaxAttempts:   5,
		RetryBase:     10 * time.Second,
		RetryMax:      time.Hour,
		DoneRetention: 30 * 24 * time.Hour,
		ClaimBatch:    8,
		IdlePoll:      time.Second,
	}
}
