package crawler

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
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
	// waiting tells the progress line what holds requests back (limits.go).
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

// robotsCache fetches and caches robots.txt per scheme and host for ttl.
// One fetch per host runs at a time; other callers wait for it.
type robotsCache struct {
	client *http.Client
	ua     string
	ttl    time.Duration
	now    func() time.Time
	mu     sync.Mutex
	hosts  map[string]*robotsEntry
}

type robotsEntry struct {
	ready   chan struct{} // closed when data/err are set
	data    *robotstxt.RobotsData
	err     error
	expires time.Time
}

// robotsError is a robots.txt that could not be read: a server error
// (status set) or a transport error (status 0).
type robotsError struct {
	status int
	err    error
}

func (e *robotsError) Error() string { return e.err.Error() }
func (e *robotsError) Unwrap() error { return e.err }

// robotsErrorTTL is how long a robots.txt that could not be fetched (5xx,
// connection error) is remembered before it is tried again.
const robotsErrorTTL = 30 * time.Second

// maxRobotsSize bounds the robots.txt read, inflated (Google reads 500
// KiB): what follows is ignored.
const maxRobotsSize = 512 << 10

func newRobotsCache(client *http.Client, ua string, ttl time.Duration, now func() time.Time) *robotsCache {
	return &robotsCache{client: client, ua: ua, ttl: ttl, now: now, hosts: map[string]*robotsEntry{}}
}

// check reports whether u may be fetched and the host's Crawl-delay for
// our user agent. An error means robots.txt could not be read (a 5xx or a
// connection error): the caller should retry later.
func (rc *robotsCache) check(ctx context.Context, u *url.URL) (allowed bool, crawlDelay time.Duration, err error) {
	e, err := rc.entry(ctx, u.Scheme+"://"+u.Host)
	if err != nil {
		return false, 0, err
	}
	if e.err != nil {
		return false, 0, e.err
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	g := e.data.FindGroup(rc.ua)
	return e.data.TestAgent(path, rc.ua), g.CrawlDelay, nil
}

func (rc *robotsCache) entry(ctx context.Context, origin string) (*robotsEntry, error) {
	for {
		rc.mu.Lock()
		e := rc.hosts[origin]
		if e != nil {
			select {
			case <-e.ready:
				if rc.now().Before(e.expires) {
					rc.mu.Unlock()
					return e, nil
				}
				e = nil // expired: fetch again below
			default:
			}
		}
		if e == nil {
			e = &robotsEntry{ready: make(chan struct{})}
			rc.hosts[origin] = e
			rc.mu.Unlock()
			rc.fetch(ctx, origin, e)
			close(e.ready)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return e, nil
		}
		rc.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// fetch fills e. A 4xx means no rules (allow all), as Google reads it; a
// 5xx or a network error is remembered briefly as an error.
func (rc *robotsCache) fetch(ctx context.Context, origin string, e *robotsEntry) {
	now := rc.now()
	e.expires = now.Add(robotsErrorTTL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		e.err = fmt.Errorf("robots.txt: %w", err)
		return
	}
	req.Header.Set("User-Agent", rc.ua)
	resp, err := rc.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			e.expires = now // do not remember a cancelled fetch
		}
		e.err = &robotsError{err: fmt.Errorf("fetch %s/robots.txt: %w", origin, err)}
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsSize))
	if err != nil {
		e.err = fmt.Errorf("read %s/robots.txt: %w", origin, err)
		return
	}
	if resp.StatusCode >= 500 {
		e.err = &robotsError{status: resp.StatusCode, err: fmt.Errorf("%s/robots.txt: HTTP %d", origin, resp.StatusCode)}
		return
	}
	data, err := robotstxt.FromStatusAndBytes(resp.StatusCode, body)
	if err != nil {
		// Unparseable rules: read as "no rules", as crawlers commonly do.
		data, _ = robotstxt.FromStatusAndBytes(http.StatusNotFound, nil)
	}
	e.data = data
	e.expires = now.Add(rc.ttl)
}
