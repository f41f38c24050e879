package config

import "github.com/newsrank/newsrank/queue"

// Options translates the queue section into queue.Options.
func (q Queue) Options() queue.Options {
	return queue.Options{
		Lease:         q.Lease.D(),
		MaxAttempts:   q.MaxAttempts,
		RetryBase:     q.RetryBase.D(),
		RetryMax:      q.RetryMax.D(),
		DoneRetention: q.DoneRetention.D(),
		ClaimBatch:    q.ClaimBatch,
		IdlePoll:      q.IdlePoll.D(),
	}
}

// queueFromOptions is the queue section holding o: the defaults are
// written once, in package queue.
func queueFromOptions(o queue.Options) Queue {
	return Queue{
		Lease:         Duration(o.Lease),
		MaxAttempts:   o.MaxAttempts,
		RetryBase:     Duration(o.RetryBase),
		RetryMax:      Duration(o.RetryMax),
		DoneRetention: Duration(o.DoneRetention),
		ClaimBatch:    o.ClaimBatch,
		IdlePoll:      Duration(o.IdlePoll),
	}
}
