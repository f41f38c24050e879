package fetch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/newsrank/newsrank/internal/human"
)

// hostLimiter is the per-host politeness: at most par requests to a host
// at once, and request starts spaced by delay (or the host's robots.txt
// Crawl-delay, whichever is longer) plus a random 0..jitter. Waiting
// honours the context, unlike colly's LimitRule, whose sleep does not.
//
// List pages go first: a freed slot goes to the list page that waits
// longest, and to an article page only when no list page waits. The
// consumers keep URLs claimed ahead, so without this a poll of a busy
// source would queue behind every article claimed for its host (behind
// their delays, or their timeouts when the host hangs) and the ranking
// would learn of new articles that much later. Article pages are not
// starved: a walk reads one list page at a time, so at most one list
// page per source waits.
type hostLimiter struct {
	par           int
	delay, jitter time.Duration
	mu            sync.Mutex
	hosts         map[string]*hostSlot
}

type hostSlot struct {
	mu   sync.Mutex
	busy int // requests holding one of the par slots
	// lists and pages are the requests waiting for a slot, list pages
	// and the others, each in arrival order; a slot is handed to a
	// waiter by closing its channel.
	lists, pages []chan struct{}
	next         time.Time // earliest start of the next request
	// waiting tells the progress line what holds requests back.
	waiting waiting
}

func newHostLimiter(par int, delay, jitter time.Duration) *hostLimiter {
	return &hostLimiter{par: max(par, 1), delay: delay, jitter: jitter, hosts: map[string]*hostSlot{}}
}

func (l *hostLimiter) slot(host string) *hostSlot {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.hosts[host]
	if s == nil {
		s = &hostSlot{}
		l.hosts[host] = s
	}
	return s
}

// acquire waits for a turn at host, ahead of other pages when list is
// true; the caller must call release.
func (l *hostLimiter) acquire(ctx context.Context, host string, crawlDelay time.Duration, list bool) (release func(), err error) {
	s := l.slot(host)
	if err := s.take(ctx, l.par, list); err != nil {
		return nil, err
	}
	release = s.give
	delay := max(l.delay, crawlDelay)
	if delay <= 0 && l.jitter <= 0 {
		return release, nil
	}
	s.mu.Lock()
	now := time.Now()
	start := now
	if s.next.After(now) {
		start = s.next
	}
	gap := delay
	if l.jitter > 0 {
		gap += rand.N(l.jitter)
	}
	s.next = start.Add(gap)
	s.mu.Unlock()
	if wait := start.Sub(now); wait > 0 {
		defer s.waiting.delay(delay, crawlDelay > l.delay)()
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			release()
			return nil, ctx.Err()
		}
	}
	return release, nil
}

// take waits for one of the host's par slots: at once when one is free
// and nobody waits, else in its queue until give hands it one.
func (s *hostSlot) take(ctx context.Context, par int, list bool) error {
	s.mu.Lock()
	if s.busy < par && len(s.lists)+len(s.pages) == 0 {
		s.busy++
		s.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	q := &s.pages
	if list {
		q = &s.lists
	}
	*q = append(*q, ch)
	s.waiting.forSlot.Add(1)
	s.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		if i := slices.Index(*q, ch); i >= 0 {
			*q = slices.Delete(*q, i, i+1)
			s.waiting.forSlot.Add(-1)
			s.mu.Unlock()
			return ctx.Err()
		}
		s.mu.Unlock()
		s.give() // handed a slot as ctx ended: pass it on
		return ctx.Err()
	}
}

// give frees a slot: it goes to the list page waiting longest, else to
// the page waiting longest, else back to the pool.
func (s *hostSlot) give() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range []*[]chan struct{}{&s.lists, &s.pages} {
		if len(*q) > 0 {
			ch := (*q)[0]
			(*q)[0] = nil
			*q = (*q)[1:]
			s.waiting.forSlot.Add(-1)
			close(ch)
			return
		}
	}
	s.busy--
}

// waiting counts the requests a host's politeness holds back right now,
// for the progress line.
type waiting struct {
	// forSlot: requests waiting for one of the host's
	// crawler.per_host_parallelism slots.
	forSlot atomic.Int64
	// forDelay: requests holding a slot and waiting out the gap between
	// request starts; gap is that gap (ns) and robots whether robots.txt's
	// Crawl-delay set it (longer than crawler.delay).
	forDelay atomic.Int64
	gap      atomic.Int64
	robots   atomic.Bool
}

// delay records a request waiting out gap; call the result when it is done.
func (w *waiting) delay(gap time.Duration, robots bool) (done func()) {
	w.gap.Store(int64(gap))
	w.robots.Store(robots)
	w.forDelay.Add(1)
	return func() { w.forDelay.Add(-1) }
}

// HostLimit names the per-host politeness setting that holds the crawl
// back (see hostLimiter.limit for the rule).
type HostLimit struct {
	// Host is the host (and port) requests wait for.
	Host string
	// Setting is "crawler.delay", "robots.txt Crawl-delay" or
	// "crawler.per_host_parallelism"; Value its value ("500ms", "2").
	Setting, Value string
	// Waiting is how many requests wait for the host right now.
	Waiting int64
}

// String reads "crawler.delay 500ms on news.example.com".
func (l HostLimit) String() string {
	return fmt.Sprintf("%s %s on %s", l.Setting, l.Value, l.Host)
}

// limit says which host's politeness holds requests back right now, if
// any. The rule: a host holds requests back when requests wait for it;
// when one of them waits out the gap between request starts, the gap
// (crawler.delay, or robots.txt's Crawl-delay when longer) is the limit,
// else all of its crawler.per_host_parallelism slots are busy fetching and
// the parallelism is. Of several hosts, the one with the most requests
// waiting is named (ties: the first host name). Requests waiting for a
// worker (crawler.workers) are not the host's doing and do not count.
func (l *hostLimiter) limit() (HostLimit, bool) {
	l.mu.Lock()
	hosts := make([]string, 0, len(l.hosts))
	for h := range l.hosts {
		hosts = append(hosts, h)
	}
	l.mu.Unlock()
	sort.Strings(hosts)
	var best HostLimit
	for _, h := range hosts {
		s := l.slot(h)
		slot, delay := s.waiting.forSlot.Load(), s.waiting.forDelay.Load()
		n := slot + delay
		if n == 0 || n <= best.Waiting {
			continue
		}
		best = HostLimit{Host: h, Waiting: n, Setting: "crawler.per_host_parallelism", Value: fmt.Sprint(l.par)}
		switch gap := time.Duration(s.waiting.gap.Load()); {
		case delay == 0:
		case s.waiting.robots.Load():
			best.Setting, best.Value = "robots.txt Crawl-delay", human.Duration(gap)
		case gap > 0:
			best.Setting, best.Value = "crawler.delay", human.Duration(gap)
		default:
			best.Setting, best.Value = "crawler.jitter", human.Duration(l.jitter)
		}
	}
	return best, best.Waiting > 0
}
