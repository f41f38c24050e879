package crawler

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// countingStore counts the ingest pipelines; with fail set, every one
// fails as a Redis error would.
type countingStore struct {
	*news.Store
	batches atomic.Int64
	fail    bool
}

func (s *countingStore) IngestBatch(ctx context.Context, as []news.Article) ([]news.IngestResult, error) {
	s.batches.Add(1)
	if s.fail {
		return nil, errors.New("redis is gone")
	}
	return s.Store.IngestBatch(ctx, as)
}

// commitAll claims n URLs of each source of c and hands their articles
// (the last one of each source without a title) to a committer in one
// go, then waits for it.
func commitAll(t *testing.T, c *Crawler, n int) *consumeRun {
	t.Helper()
	ctx := context.Background()
	r := c.newRun(c.sources, true)
	for _, s := range c.sources {
		urls := make([]string, n)
		for i := range urls {
			urls[i] = fmt.Sprintf("http://%s.example/a/%d.html", s.cfg.Name, i)
		}
		if _, err := s.queue.Push(ctx, urls...); err != nil {
			t.Fatal(err)
		}
		claimed, err := s.queue.TryClaim(ctx, n, time.Minute)
		if err != nil || len(claimed) != n {
			t.Fatalf("claim = %d URLs, %v", len(claimed), err)
		}
		for i, u := range claimed {
			r.inflight[s][u] = true
			a := news.Article{URL: u, Title: "Title " + u, CrawlTime: time.Now()}
			if i == n-1 {
				a.Title = ""
			}
			r.commit.in <- readPage{j: job{s: s, url: u}, a: a}
		}
	}
	close(r.commit.in)
	r.commit.run(ctx)
	return r
}

// TestCommitterStoresThenAcks: articles of two sources handed in together
// are stored in one pipeline and their URLs acknowledged; a rejected
// article's URL is not acknowledged but dead-lettered.
func TestCommitterStoresThenAcks(t *testing.T) {
	e := newEnv(t)
	st := &countingStore{Store: e.store}
	e.opts.Sources = []Source{htmlSource("a"), htmlSource("b")}
	c, err := New(e.opts, e.qopts, e.rdb, testPrefix, st, WithLogger(quietLog()))
	if err != nil {
		t.Fatal(err)
	}
	const n = 10
	r := commitAll(t, c, n)
	if got := st.batches.Load(); got != 1 {
		t.Errorf("%d ingest pipelines for %d articles handed in at once, want 1", got, 2*n)
	}
	if r.inflightCount() != 0 {
		t.Errorf("%d URLs still in flight", r.inflightCount())
	}
	for _, s := range c.sources {
		qs, err := s.queue.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if qs != (queue.Stats{Done: n - 1, Dead: 1}) {
			t.Errorf("source %s: %+v, want %d done and the rejected one dead", s.cfg.Name, qs, n-1)
		}
		if k := r.counts[s]; k.created.Load() != n-1 {
			t.Errorf("source %s: %d created, want %d", s.cfg.Name, k.created.Load(), n-1)
		}
	}
}

// TestCommitterStoreFails: when the store fails, no URL is acknowledged:
// each is scheduled for a retry.
func TestCommitterStoreFails(t *testing.T) {
	e := newEnv(t)
	st := &countingStore{Store: e.store, fail: true}
	e.opts.Sources = []Source{htmlSource("a")}
	c, err := New(e.opts, e.qopts, e.rdb, testPrefix, st, WithLogger(quietLog()))
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	r := commitAll(t, c, n)
	qs, err := c.sources[0].queue.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if qs != (queue.Stats{Delayed: n}) {
		t.Errorf("after a failed store: %+v, want all %d waiting for a retry, none done", qs, n)
	}
	if r.inflightCount() != 0 {
		t.Errorf("%d URLs still in flight", r.inflightCount())
	}
}
