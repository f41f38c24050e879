package crawler

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/queue"
)

// Consume runs the consumers on every source's queue until ctx ends. When
// it ends, no new URL is claimed; pages being fetched are finished (within
// crawler.request_timeout, after which they are handed back for a retry),
// stored and acknowledged. It returns nil after a normal stop, or an error
// that stopped it (Redis gone for good is not one: it keeps retrying).
func (c *Crawler) Consume(ctx context.Context) error {
	if len(c.sources) == 0 {
		return ErrNoSources
	}
	run := c.newRun(c.sources, false)
	return run.run(ctx)
}

// RunOnce is RunOnceWith with only a progress function.
func (c *Crawler) RunOnce(ctx context.Context, progress func(Progress), names ...string) (Report, error) {
	return c.RunOnceWith(ctx, RunOptions{Progress: progress}, names...)
}

// RunOnceWith produces the given sources (all when names is empty) and,
// at the same time, consumes their queues: the consumers fetch the
// articles a list page queued while the producer reads the next list
// pages. It ends once the producer is done and nothing is pending, due
// for a retry or in flight; retries due later are left for the next run
// (Report's Left), or waited for up to opts.WaitRetries. The error is for
// an unknown source or a cancelled context; the report is filled in either
// case (what was done until the interruption), and sources that failed are
// in it (FailedSources).
func (c *Crawler) RunOnceWith(ctx context.Context, opts RunOptions, names ...string) (Report, error) {
	srcs, err := c.pick(names)
	if err != nil {
		return Report{}, err
	}
	run := c.newRun(srcs, true)
	run.waitRetries = opts.WaitRetries
	run.listing.Store(true)
	stop := run.watchProgress(ctx, opts.Progress)
	var (
		prep     ProduceReport
		prodErr  error
		produced = make(chan struct{})
	)
	go func() {
		defer close(produced)
		prep, prodErr = c.produceAll(ctx, &run.prod, names...)
		run.listing.Store(false)
		run.prod.wakeConsumers()
	}()
	err = run.run(ctx)
	run.prod.openFirst() // the consumers stopped: nothing to wait for
	<-produced
	if prodErr != nil {
		err = prodErr
	}
	rep := Report{Produce: prep}
	stop()
	rep.Sources = run.report(ctx)
	rep.Elapsed = time.Since(run.start)
	rep.Interrupted = err != nil && ctx.Err() != nil
	return rep, err
}

// job is one claimed URL.
type job struct {
	s    *source
	url  string
	item extract.Fields
}

// counters are one source's counts in a run.
type counters struct {
	fetched, created, updated, tooOld, dead atomic.Int64
	// oldest: the earliest post time (Unix s) of the articles created, 0
	// none
	oldest atomic.Int64
	mu     sync.Mutex
	failed map[string]int64
}

// noteCreated notes the post time of an article created.
func (k *counters) noteCreated(post time.Time) {
	t := post.Unix()
	for {
		o := k.oldest.Load()
		if o != 0 && o <= t || k.oldest.CompareAndSwap(o, t) {
			return
		}
	}
}

// consumeRun is one Consume or RunOnce: a dispatcher claiming URLs for
// the workers, the workers, and a lease heartbeat. crawler.workers bounds
// the pages fetched (and read) at once, not the workers: the dispatcher
// keeps up to one URL per fetch slot claimed ahead, for workers that wait
// for a slot, so that a slot that frees has its next page at hand instead
// of waiting for the claim's round trip.
type consumeRun struct {
	c         *Crawler
	srcs      []*source
	qs        []*queue.Queue
	untilIdle bool
	counts    map[*source]*counters
	byQueue   map[*queue.Queue]*source
	slots     chan struct{}   // one token per URL that may be claimed and not yet read
	fetching  chan struct{}   // one token per page being fetched or read (crawler.workers)
	stop      <-chan struct{} // the run's end: claimed URLs not fetched yet go back
	left      chan struct{}   // signalled when a URL leaves flight
	jobs      chan job
	mu        sync.Mutex
	inflight  map[*source]map[string]bool
	commit    *committer
	rhythm    rhythmNotes // the post times stored, for the sources' rhythms
	fetched   atomic.Int64
	stored    atomic.Int64
	failed    atomic.Int64
	nextQueue int
	dry       map[*queue.Queue]bool // RunOnce: queues to skip (pass)

	// The second claimer (claimAhead): the queue the dispatcher last
	// claimed URLs from, a signal that it did, and the claims under way
	// whose URLs are not in flight yet. claimHook, when set (tests), is
	// called before each claim of either claimer with its size.
	hotQueue  atomic.Pointer[queue.Queue]
	claimed   chan struct{}
	claiming  atomic.Int64
	claimHook func(n int)

	// waitRetries: see RunOptions.WaitRetries; idleSince is when nothing
	// but retries was first left, retryDue (unix ns) the retry waited for.
	waitRetries time.Duration
	idleSince   time.Time
	retryDue    atomic.Int64
	// For Progress: when the run and its consumers started, whether the
	// producer still runs and its totals.
	start        time.Time
	consumeStart atomic.Int64
	listing      atomic.Bool
	prod         produceCounts
	disallowed   atomic.Int64
}

func (c *Crawler) newRun(srcs []*source, untilIdle bool) *consumeRun {
	r := &consumeRun{c: c, srcs: srcs, untilIdle: untilIdle, start: time.Now(), counts: map[*source]*counters{},
		byQueue: map[*queue.Queue]*source{}, inflight: map[*source]map[string]bool{},
		fetching: make(chan struct{}, c.cfg.Workers), jobs: make(chan job)}
	r.commit = newCommitter(r, c.cfg.Workers)
	r.rhythm.flushed = r.start
	for _, s := range srcs {
		r.qs = append(r.qs, s.queue)
		r.counts[s] = &counters{failed: map[string]int64{}}
		r.byQueue[s.queue] = s
		r.inflight[s] = map[string]bool{}
	}
	r.prod.pushed = make(chan struct{}, 1)
	r.left = make(chan struct{}, 1)
	r.claimed = make(chan struct{}, 1)
	r.slots = make(chan struct{}, 2*c.cfg.Workers) // fetching or read, and as many ahead
	start := cap(r.slots)
	if untilIdle {
		// Until the first article URL is done, one claim batch at a time:
		// the first articles do not share the cores with a full set of
		// fetches (see produceCounts.waitFirst for the list pages).
		start = min(max(c.qopt.ClaimBatch, 1), start)
		r.prod.first, r.prod.begun = make(chan struct{}), r.start
		r.prod.onFirst = func() {
			for range cap(r.slots) - start {
				r.slots <- struct{}{}
			}
		}
	}
	for range start {
		r.slots <- struct{}{}
	}
	return r
}

func (r *consumeRun) run(ctx context.Context) error {
	r.consumeStart.Store(time.Now().UnixNano())
	// Work already claimed runs on a context that outlives ctx by the
	// request timeout, so a shutdown finishes it rather than losing it.
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.NewTimer(r.c.cfg.RequestTimeout + time.Second)
		defer t.Stop()
		select {
		case <-t.C:
			cancelWork()
		case <-work.Done():
		}
	})
	defer stopGrace()

	go r.commit.run(work)
	r.stop = ctx.Done()
	var wg sync.WaitGroup
	for range cap(r.slots) { // a worker per claimed URL not read yet
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range r.jobs {
				if !r.fetchSlot() {
					// The run ends before the page's turn: hand it back unfetched.
					r.release(work, j)
					r.finished(j)
					r.slots <- struct{}{}
					continue
				}
				r.commit.reading.Add(1)
				a, ok := r.process(work, j)
				r.commit.reading.Add(-1)
				<-r.fetching
				if ok {
					// The committer finishes the URL.
					r.commit.in <- readPage{j: j, a: a}
				} else {
					r.finished(j)
				}
				r.slots <- struct{}{}
			}
		}()
	}
	hbCtx, stopHB := context.WithCancel(work)
	var aux sync.WaitGroup
	aux.Add(1)
	go func() { defer aux.Done(); r.heartbeat(hbCtx) }()

	err := r.dispatch(ctx)
	close(r.jobs)
	wg.Wait()
	close(r.commit.in)
	<-r.commit.done
	stopHB()
	aux.Wait()
	if errors.Is(err, context.Canceled) && ctx.Err() != nil && !r.untilIdle {
		return nil
	}
	return err
}

// dispatch claims URLs for idle workers until ctx ends or, untilIdle,
// until the queues are drained. A second claimer (claimAhead) claims from
// the queue it last claimed from meanwhile; dispatch returns once both
// have stopped.
func (r *consumeRun) dispatch(ctx context.Context) error {
	done, ahead := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ahead)
		r.claimAhead(ctx, done)
	}()
	defer func() {
		close(done)
		<-ahead
	}()
	lease := r.c.qopt.Lease
	batch := max(r.c.qopt.ClaimBatch, 1)
	errDelay := r.c.qopt.IdlePoll
	for {
		// Take one idle worker (waiting for one), then any others idle now.
		n, ok := r.takeSlots(ctx.Done(), batch)
		if !ok {
			return ctx.Err()
		}
		if r.claimHook != nil {
			r.claimHook(n)
		}
		q, entries, err := r.claim(ctx, n, lease)
		r.giveSlots(n - len(entries))
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, errDrained):
			return nil
		case err != nil:
			r.c.log.Error("claim failed, retrying", "err", err, "retry_in", errDelay)
			if err := clock.Sleep(ctx, errDelay); err != nil {
				return err
			}
			// Capped low: after an outage the consumers should be back
			// within seconds of Redis, not idle for half a minute.
			errDelay = min(errDelay*2, redisRetryMax)
			continue
		}
		errDelay = r.c.qopt.IdlePoll
		if len(entries) == 0 {
			continue
		}
		r.handOut(r.hold(ctx, q, entries))
		r.hotQueue.Store(q)
		select {
		case r.claimed <- struct{}{}:
		default:
		}
	}
}

// claimAhead is the dispatcher's second claimer. A claim is a round trip
// to Redis during which its claimer does nothing else: with one claimer,
// the fetch slots wait for the claims' round trips one batch after the
// other, and empty faster than they fill when Redis is slow to answer.
// Each time the dispatcher has claimed URLs, claimAhead claims from the
// same queue too, batch after batch while it gets full ones, so that one
// claim's URLs are handed out while the next is under way. It takes its
// URLs' slots first, as the dispatcher does: what is claimed and not read
// yet stays bounded by them. It leaves every other decision (which queue,
// waiting for the producer or the workers, the end of the run, Redis
// errors) to the dispatcher, and stops when done is closed.
func (r *consumeRun) claimAhead(ctx context.Context, done <-chan struct{}) {
	lease := r.c.qopt.Lease
	batch := max(r.c.qopt.ClaimBatch, 1)
	for {
		select {
		case <-r.claimed:
		case <-done:
			return
		}
		for q := r.hotQueue.Load(); ; {
			n, ok := r.takeSlots(done, batch)
			if !ok {
				return
			}
			if r.claimHook != nil {
				r.claimHook(n)
			}
			r.claiming.Add(1)
			entries, err := q.TryClaimEntries(ctx, n, lease)
			r.giveSlots(n - len(entries))
			var jobs []job
			if len(entries) > 0 {
				jobs = r.hold(ctx, q, entries)
			}
			r.claiming.Add(-1)
			r.signalLeft() // a dispatcher waiting for the workers looks again
			r.handOut(jobs)
			if err != nil || len(entries) < n {
				break
			}
		}
	}
}

// takeSlots waits for one idle slot, then takes any others idle now, up
// to batch; false when stop is closed first.
func (r *consumeRun) takeSlots(stop <-chan struct{}, batch int) (int, bool) {
	select {
	case <-r.slots:
	case <-stop:
		return 0, false
	}
	n := 1
	for n < batch {
		select {
		case <-r.slots:
			n++
		default:
			return n, true
		}
	}
	return n, true
}

// giveSlots returns n slots that were taken for URLs not claimed.
func (r *consumeRun) giveSlots(n int) {
	for range n {
		r.slots <- struct{}{}
	}
}

// hold puts claimed URLs in flight and returns their jobs.
func (r *consumeRun) hold(ctx context.Context, q *queue.Queue, entries []queue.Entry) []job {
	s := r.byQueue[q]
	items := r.c.claimedFields(ctx, s, entries)
	jobs := make([]job, len(entries))
	r.mu.Lock()
	for i, e := range entries {
		r.inflight[s][e.URL] = true
		jobs[i] = job{s: s, url: e.URL, item: items[i]}
	}
	r.mu.Unlock()
	return jobs
}

// handOut gives jobs to the workers (one is idle for each: its slot was
// taken for it).
func (r *consumeRun) handOut(jobs []job) {
	for _, j := range jobs {
		r.jobs <- j
	}
}

// errDrained ends an untilIdle run.
var errDrained = errors.New("queues drained")

// claim claims up to n URLs with their payloads. Consume waits for work
// (queue.ClaimAnyEntries);
// RunOnce looks at each queue in turn and, when none has work, waits for
// its own workers, then ends once no queue has anything pending or in
// flight.
func (r *consumeRun) claim(ctx context.Context, n int, lease time.Duration) (*queue.Queue, []queue.Entry, error) {
	if !r.untilIdle {
		return queue.ClaimAnyEntries(ctx, r.qs, n, lease)
	}
	poll := min(r.c.qopt.IdlePoll, 50*time.Millisecond)
	for {
		q, entries, skipped, err := r.pass(ctx, n, lease)
		switch {
		case err != nil:
			return nil, nil, err
		case len(entries) > 0:
			r.retryDue.Store(0)
			return q, entries, nil
		case skipped:
			clear(r.dry) // look at every queue before waiting
			continue
		}
		if r.listing.Load() {
			if r.prod.idleWalks() && r.inflightCount() == 0 {
				r.prod.openFirst() // the first pages queued nothing to fetch
			}
			// The producer may queue more: wait for it, not for the
			// workers (an empty queue now does not end the run).
			if err := r.prod.waitPush(ctx, poll); err != nil {
				return nil, nil, err
			}
			continue
		}
		if r.inflightCount() > 0 {
			// Look again once the workers' last URL is done (the run may
			// then be over), or after poll (a retry may come due, or
			// another consumer's lease expire, which TryClaim reaps).
			if err := r.waitWorkers(ctx, poll); err != nil {
				return nil, nil, err
			}
			continue
		}
		busy, err := r.busy(ctx)
		if err != nil {
			return nil, nil, err
		}
		poll = r.c.qopt.IdlePoll
		if !busy {
			wait, err := r.retryWait(ctx)
			if err != nil {
				return nil, nil, err
			}
			if wait < 0 {
				return nil, nil, errDrained
			}
			poll = max(min(wait, poll), time.Millisecond)
		}
		// Else another consumer holds leases: wait for it (or for its
		// leases to expire, which TryClaim reaps).
		if err := clock.Sleep(ctx, poll); err != nil {
			return nil, nil, err
		}
	}
}

// pass tries to claim up to n URLs from one queue: first the one the
// producer pushed to last (the first list page's URLs are claimed in one
// call, not after a call per queue), then each in turn. Once the producer
// is done, a queue that gave less than asked is dry: nothing is pushed to
// it any more, so passes skip it (skipped) until one finds nothing in the
// others (a retry may come due in it meanwhile).
func (r *consumeRun) pass(ctx context.Context, n int, lease time.Duration) (*queue.Queue, []queue.Entry, bool, error) {
	skipped := false
	for i := -1; i < len(r.qs); i++ {
		var q *queue.Queue
		if i < 0 {
			if q = r.prod.lastPush.Swap(nil); q == nil || r.byQueue[q] == nil {
				continue
			}
		} else {
			q = r.qs[r.nextQueue%len(r.qs)]
			r.nextQueue++
			if r.dry[q] {
				skipped = true
				continue
			}
		}
		listing := r.listing.Load()
		entries, err := q.TryClaimEntries(ctx, n, lease)
		if err != nil {
			return nil, nil, false, err
		}
		if !listing && len(entries) < n {
			if r.dry == nil {
				r.dry = map[*queue.Queue]bool{}
			}
			r.dry[q] = true
		}
		if len(entries) > 0 {
			return q, entries, false, nil
		}
	}
	return nil, nil, skipped, nil
}

// waitWorkers waits until no claimed URL is left in flight, at most d.
func (r *consumeRun) waitWorkers(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	for r.inflightCount() > 0 {
		select {
		case <-r.left:
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// retryWait is called when nothing is pending or in flight: it returns
// how long to wait for the next retry when RunOptions.WaitRetries asks to
// and one comes due within it, else -1 (the run is over).
func (r *consumeRun) retryWait(ctx context.Context) (time.Duration, error) {
	if r.waitRetries <= 0 {
		return -1, nil
	}
	now := r.c.clock.Now()
	if r.idleSince.IsZero() {
		r.idleSince = now
	}
	var next time.Time
	for _, q := range r.qs {
		due, ok, err := q.NextRetry(ctx)
		if err != nil {
			return 0, err
		}
		if ok && (next.IsZero() || due.Before(next)) {
			next = due
		}
	}
	if next.IsZero() || next.After(r.idleSince.Add(r.waitRetries)) {
		r.retryDue.Store(0)
		return -1, nil
	}
	wait := max(next.Sub(now), 0)
	r.retryDue.Store(time.Now().Add(wait).UnixNano())
	return wait, nil
}

// busy reports whether any queue has URLs pending or in flight.
func (r *consumeRun) busy(ctx context.Context) (bool, error) {
	for _, q := range r.qs {
		st, err := q.Stats(ctx)
		if err != nil {
			return false, err
		}
		if st.Pending > 0 || st.InFlight > 0 {
			return true, nil
		}
	}
	return false, nil
}

// inflightCount is the number of claimed URLs not finished yet, a claim
// of claimAhead's under way counting as one.
func (r *consumeRun) inflightCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := int(r.claiming.Load())
	for _, m := range r.inflight {
		n += len(m)
	}
	return n
}

// fetchSlot waits for a fetch slot; false when the run ends first.
func (r *consumeRun) fetchSlot() bool {
	select {
	case r.fetching <- struct{}{}:
		return true
	case <-r.stop:
		return false
	}
}

// finished takes a URL out of flight once it is acknowledged, failed or
// handed back.
func (r *consumeRun) finished(j job) {
	r.mu.Lock()
	delete(r.inflight[j.s], j.url)
	r.mu.Unlock()
	r.prod.openFirst()
	r.signalLeft()
}

// signalLeft wakes a dispatcher waiting for the workers (waitWorkers).
func (r *consumeRun) signalLeft() {
	select {
	case r.left <- struct{}{}:
	default:
	}
}

// heartbeat extends the leases of the URLs being fetched every third of
// the lease, so a slow fetch is not handed to another consumer.
func (r *consumeRun) heartbeat(ctx context.Context) {
	lease := r.c.qopt.Lease
	t := time.NewTicker(max(lease/3, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.mu.Lock()
		held := map[*source][]string{}
		for s, m := range r.inflight {
			if len(m) > 0 {
				held[s] = slices.Collect(maps.Keys(m))
			}
		}
		r.mu.Unlock()
		for s, urls := range held {
			if err := s.queue.Extend(ctx, lease, urls...); err != nil && ctx.Err() == nil {
				r.c.log.Warn("lease extension failed", "source", s.cfg.Name, "urls", len(urls), "err", err)
			}
		}
	}
}
