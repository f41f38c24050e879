package crawler

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

const (
	// commitBatch bounds the articles one commit stores and acknowledges.
	commitBatch = 64
	// commitWait is how long a commit waits for more articles while
	// workers are still reading pages.
	commitWait = 2 * time.Millisecond
)

// readPage is an article page read and waiting to be stored and acknowledged.
type readPage struct {
	j job
	a news.Article
}

// committer stores the articles the workers read and then acknowledges
// their URLs, in batches: a worker hands its article over and goes on to
// its next page, while the committer gathers the articles read meanwhile
// (up to commitBatch, waiting up to commitWait while other workers are
// still reading) and sends them to Redis in one ingest pipeline, then
// acknowledges the stored ones, of every source, in one ack pipeline. A
// URL is acknowledged only once its article is stored, and it stays in
// flight (its lease extended) until then.
type committer struct {
	r       *consumeRun
	in      chan readPage
	done    chan struct{}
	reading atomic.Int64 // workers reading a page
}

func newCommitter(r *consumeRun, workers int) *committer {
	return &committer{r: r, in: make(chan readPage, max(workers, commitBatch)), done: make(chan struct{})}
}

// run commits what the workers hand in until in is closed and drained.
func (c *committer) run(ctx context.Context) {
	defer close(c.done)
	batch := make([]readPage, 0, commitBatch)
	timer := time.NewTimer(commitWait)
	timer.Stop()
	defer func() {
		// What the run counted of its sources' rhythms, and the story
		// ingest's document frequencies, even at shutdown.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		c.r.rhythm.flush(fctx, c.r.c)
		if f, ok := c.r.c.store.(storyFlusher); ok {
			if err := f.FlushStoryCounts(fctx); err != nil {
				// they stay in Redis's journal, which the prune adds
				c.r.c.log.Warn("add the story ingest's document frequencies", "err", err)
			}
		}
	}()
	for {
		first, ok := <-c.in
		if !ok {
			return
		}
		batch = append(batch[:0], first)
		timer.Reset(commitWait)
		batch = c.gather(batch, timer)
		timer.Stop()
		c.commit(ctx, batch)
	}
}

// gather adds to batch what is handed in until it is full, no worker is
// reading a page, in is closed or the timer fires.
func (c *committer) gather(batch []readPage, timer *time.Timer) []readPage {
	for len(batch) < commitBatch {
		select {
		case x, ok := <-c.in:
			if !ok {
				return batch
			}
			batch = append(batch, x)
			continue
		default:
		}
		if c.reading.Load() == 0 || c.r.prod.beforeFirst() {
			return batch // the run's first article is not kept waiting
		}
		select {
		case x, ok := <-c.in:
			if !ok {
				return batch
			}
			batch = append(batch, x)
		case <-timer.C:
			return batch
		}
	}
	return batch
}

// commit stores batch, acknowledges the stored articles' URLs and
// settles the others (a retry, a dead letter, or back to pending at
// shutdown).
func (c *committer) commit(ctx context.Context, batch []readPage) {
	r := c.r
	octx, cancel := opContext(ctx)
	defer cancel()
	as := make([]news.Article, len(batch))
	for i, x := range batch {
		as[i] = x.a
	}
	outs := ingestAll(octx, r.c.store, as)
	var sets []queue.Acks
	setOf := map[*source]int{}
	now := r.c.clock.Now()
	for i, x := range batch {
		if fe := r.counted(x.j, outs[i]); fe != nil {
			r.settle(ctx, x.j, fe)
			continue
		}
		if outs[i].res.Status == news.Created {
			r.rhythm.note(x.j.s, x.a.PostTime, now)
			r.counts[x.j.s].noteCreated(x.a.PostTime)
		}
		k, ok := setOf[x.j.s]
		if !ok {
			k = len(sets)
			setOf[x.j.s] = k
			sets = append(sets, queue.Acks{Queue: x.j.s.queue})
		}
		sets[k].URLs = append(sets[k].URLs, x.j.url)
	}
	if len(sets) > 0 {
		for k, err := range queue.AckClaimed(octx, sets) {
			if err == nil {
				continue
			}
			// The articles are stored; the leases will expire and the
			// pages be fetched again, which updates them: nothing is lost.
			s := r.byQueue[sets[k].Queue]
			for _, u := range sets[k].URLs {
				r.c.log.Error("ack failed", "source", s.cfg.Name, "url", u, "err", err)
			}
		}
	}
	for _, x := range batch {
		r.finished(x.j)
	}
	if r.rhythm.due() {
		r.rhythm.flush(octx, r.c)
	}
}

// outcome is one article's ingest result.
type outcome struct {
	res news.IngestResult
	err error
}

// storyFlusher is a Store that holds the document frequencies of its
// story ingests to add them to Redis in bulk (*news.Store): a run adds
// them when it ends, so that other processes count its articles.
type storyFlusher interface {
	FlushStoryCounts(ctx context.Context) error
}

// batchStore is a Store that ingests several articles in one pipeline
// (*news.Store).
type batchStore interface {
	IngestBatch(ctx context.Context, as []news.Article) ([]news.IngestResult, error)
}

// ingestAll ingests as in one pipeline when the store can, else one by
// one. A rejected article's error is its own, as from Ingest; a Redis
// error is every article's.
func ingestAll(ctx context.Context, st Store, as []news.Article) []outcome {
	out := make([]outcome, len(as))
	bs, ok := st.(batchStore)
	if !ok || len(as) == 1 {
		for i, a := range as {
			out[i].res, out[i].err = st.Ingest(ctx, a)
		}
		return out
	}
	rs, err := bs.IngestBatch(ctx, as)
	for i := range as {
		if err != nil {
			out[i].err = err
			continue
		}
		out[i].res, out[i].err = rs[i], rs[i].Err
	}
	return out
}

// counted counts an ingest's outcome; it returns the failure of an
// article not stored (nil for a stored or too old one).
func (r *consumeRun) counted(j job, o outcome) *fetch.Error {
	k := r.counts[j.s]
	switch {
	case errors.Is(o.err, news.ErrBadInput):
		return &fetch.Error{URL: j.url, Reason: "rejected", Err: o.err}
	case o.err != nil:
		return &fetch.Error{URL: j.url, Reason: ReasonStore, Retryable: true, Err: o.err}
	}
	switch o.res.Status {
	case news.Created:
		k.created.Add(1)
		r.stored.Add(1)
	case news.Updated:
		k.updated.Add(1)
		r.stored.Add(1)
	case news.TooOld:
		k.tooOld.Add(1)
	}
	return nil
}
