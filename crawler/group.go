package crawler

import (
	"context"
	"sync"

	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// group sends the items the workers hand in at about the same time to
// Redis in one call (group commit): a worker whose item finds no call
// running sends it with every item handed in meanwhile (then the next
// group, until none is left); the others wait for the call that carries
// theirs. Each worker returns once its own item is done, as with one call
// per item, so leases, counts and the order of store and ack are
// unchanged: only the round trips (and the ack scripts) shrink.
type group[T, R any] struct {
	// flush does items in one call and returns one result per item.
	flush   func(ctx context.Context, items []T) []outcome[R]
	mu      sync.Mutex
	busy    bool
	items   []T
	waiters []chan outcome[R]
}

// outcome is one item's result.
type outcome[R any] struct {
	val R
	err error
}

// do hands in item and returns its outcome.
func (g *group[T, R]) do(ctx context.Context, item T) (R, error) {
	done := make(chan outcome[R], 1)
	g.mu.Lock()
	g.items = append(g.items, item)
	g.waiters = append(g.waiters, done)
	if !g.busy {
		g.busy = true
		for len(g.items) > 0 {
			items, waiters := g.items, g.waiters
			g.items, g.waiters = nil, nil
			g.mu.Unlock()
			for i, o := range g.flush(ctx, items) {
				waiters[i] <- o
			}
			g.mu.Lock()
		}
		g.busy = false
	}
	g.mu.Unlock()
	o := <-done
	return o.val, o.err
}

// ackGroup acknowledges a queue's URLs in groups; when a group's call
// fails, it acknowledges them one by one, so each URL gets its own error.
func ackGroup(q *queue.Queue) *group[string, struct{}] {
	return &group[string, struct{}]{flush: func(ctx context.Context, urls []string) []outcome[struct{}] {
		out := make([]outcome[struct{}], len(urls))
		err := q.Ack(ctx, urls...)
		for i, u := range urls {
			switch {
			case err == nil || len(urls) == 1:
				out[i].err = err
			default:
				out[i].err = q.Ack(ctx, u)
			}
		}
		return out
	}}
}

// batchStore is a Store that ingests several articles in one pipeline
// (*news.Store).
type batchStore interface {
	IngestBatch(ctx context.Context, as []news.Article) ([]news.IngestResult, error)
}

// ingestGroup ingests articles in groups when the store can (one
// pipeline per group), else one by one. A rejected article's error is
// its own, as from Ingest; a Redis error is every article's of the group.
func ingestGroup(st Store) *group[news.Article, news.IngestResult] {
	bs, ok := st.(batchStore)
	return &group[news.Article, news.IngestResult]{flush: func(ctx context.Context, as []news.Article) []outcome[news.IngestResult] {
		out := make([]outcome[news.IngestResult], len(as))
		if !ok || len(as) == 1 {
			for i, a := range as {
				out[i].val, out[i].err = st.Ingest(ctx, a)
			}
			return out
		}
		rs, err := bs.IngestBatch(ctx, as)
		for i := range as {
			if err != nil {
				out[i].err = err
				continue
			}
			out[i].val, out[i].err = rs[i], rs[i].Err
		}
		return out
	}}
}
