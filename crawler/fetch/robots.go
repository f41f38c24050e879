package fetch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

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
	group   *robotstxt.Group // data's group for the user agent: its crawl delay
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
	return e.data.TestAgent(path, rc.ua), e.group.CrawlDelay, nil
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
	e.data, e.group = data, data.FindGroup(rc.ua)
	e.expires = now.Add(rc.ttl)
}

// robotsRedirect follows a robots.txt redirect (at most 5) only to the
// same host, on the same port or a default one; any other is not followed
// and the redirect itself is read as "no robots.txt" (all allowed).
func robotsRedirect(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	p := req.URL.Port()
	if len(via) > 5 || req.URL.User != nil || !strings.EqualFold(req.URL.Hostname(), from.Hostname()) ||
		p != "" && p != from.Port() && p != defaultPort(req.URL.Scheme) {
		return http.ErrUseLastResponse
	}
	return nil
}
