package crawler

import (
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/newsrank/newsrank/internal/human"
)

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
