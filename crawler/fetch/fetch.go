// Package fetch gets the crawler's pages: list pages, feeds, sitemaps,
// list APIs and articles. A Fetcher fetches with colly under the rules a
// crawler owes the sites it reads and itself:
//
//   - robots.txt is obeyed (cached per host, Crawl-delay honoured:
//     robots.go), and every request waits its host's turn: at most
//     PerHostParallelism at once, starts spaced by Delay plus a random
//     0..Jitter, list pages ahead of article pages (politeness.go);
//   - every body is bounded after gzip inflation, which the fetcher does
//     itself, so a gzip bomb costs its compressed size (body.go); a body
//     over the limit is an error, never a silent truncation;
//   - redirects stay inside the source's allowed targets (scheme, host
//     and port: allowed.go), and the transport's dialer refuses private
//     addresses but the sources' own configured endpoints (net_guard.go);
//   - a conditional request (Validators) sends a list page's ETag and
//     Last-Modified, or asks for a byte range, and keeps the answer's
//     headers;
//   - every way a fetch fails is an *Error with a reason and whether
//     another try may help, with the server's Retry-After (errors.go).
//
// Retrying is the caller's: a walk retries a list page, the queue an
// article.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/newsrank/newsrank/internal/redact"
)

// Options configure a Fetcher and its transport. The values are expected
// to be sane (the configuration checks the ranges).
type Options struct {
	// UserAgent is sent with every request.
	UserAgent string
	// RequestTimeout bounds one HTTP request, body included.
	RequestTimeout time.Duration
	// MaxBodySize is the largest body accepted in bytes (pages, lists,
	// feeds, sitemaps, APIs), counted after gzip inflation; a larger one
	// is an error, never a silent truncation.
	MaxBodySize int64
	// MaxRedirects is how many redirects a request may follow.
	MaxRedirects int
	// DenyPrivateNetworks refuses connections to loopback, link-local,
	// private and unspecified addresses (checked after DNS resolution, on
	// every connection), except the endpoints a source's own start URLs
	// resolve to (NewTransport).
	DenyPrivateNetworks bool
	// ObeyRobots makes the fetcher honour robots.txt (cached RobotsTTL).
	ObeyRobots bool
	RobotsTTL  time.Duration
	// PerHostParallelism, Delay and Jitter are the politeness per host:
	// at most PerHostParallelism requests at once, Delay plus a random
	// 0..Jitter between them. List pages waiting for a host's turn go
	// before its article pages.
	PerHostParallelism int
	Delay              time.Duration
	Jitter             time.Duration
}

// DefaultOptions are the default fetch settings.
func DefaultOptions() Options {
	return Options{
		UserAgent:           "newsrank/1.0 (+https://github.com/newsrank/newsrank)",
		RequestTimeout:      15 * time.Second,
		MaxBodySize:         5 << 20,
		MaxRedirects:        5,
		DenyPrivateNetworks: true,
		ObeyRobots:          true,
		RobotsTTL:           time.Hour,
		PerHostParallelism:  2,
		Delay:               500 * time.Millisecond,
		Jitter:              250 * time.Millisecond,
	}
}

// Response is a fetched page.
type Response struct {
	URL         string // final URL, after redirects
	Status      int
	ContentType string // the charset parameter says utf-8 when colly decoded the body
	Body        []byte
	// NotModified: the server answered 304 to a conditional request
	// (no body); Header is set for requests with Cond only.
	NotModified bool
	Header      http.Header
}

// Request describes one fetch.
type Request struct {
	URL     string
	Allowed Allowed // redirects must stay inside
	// NotAllowed, when set, makes the fetch check URL itself against
	// Allowed first, on the parse it needs anyway: a URL Check turns
	// down fails as URLFailure(URL, NotAllowed, Check's error) would,
	// before robots.txt and politeness.
	NotAllowed string
	Charset    string // forced charset ("" = header, then <meta>)
	// Accept, when set, refuses a response whose media type it does not
	// accept (IsHTML for article pages), before its body is read.
	Accept func(mediaType string) bool
	// Cond (list pages only) makes the request conditional: its headers
	// are sent, and the response keeps its headers.
	Cond *Validators
}

// Validators are what a conditional request of a list page sends: the
// validators of the page's last answer (If-None-Match, If-Modified-Since),
// and for a read of a feed by its head, a byte range (Range) with the
// If-Range of the read of the head's rest.
type Validators struct {
	ETag, LastModified string
	Range, IfRange     string
}

// apply sets the conditional headers (nothing for nil or empty v). A
// range is asked for uncompressed: a byte range of a gzip stream cannot
// be read on its own.
func (v *Validators) apply(h *http.Header) {
	if v == nil {
		return
	}
	if v.ETag != "" {
		h.Set("If-None-Match", v.ETag)
	}
	if v.LastModified != "" {
		h.Set("If-Modified-Since", v.LastModified)
	}
	if v.Range != "" {
		h.Set("Range", v.Range)
		h.Set("Accept-Encoding", "identity")
	}
	if v.IfRange != "" {
		h.Set("If-Range", v.IfRange)
	}
}

// Fetcher fetches pages with colly: robots.txt, per-host politeness,
// timeouts, redirect and body-size limits, and an error with a reason for
// every way a fetch fails. It is safe for concurrent use.
type Fetcher struct {
	base         *colly.Collector
	timeout      time.Duration // of a whole fetch, body included (0: none)
	maxBody      int64
	maxRedirects int
	robots       *robotsCache // nil: robots.txt is not obeyed
	hosts        *hostLimiter
	collectors   sync.Pool // of *pooledCollector
	lastType     atomic.Pointer[mediaType]
}

// mediaType is what a response's Content-Type says: its media type and
// whether it names a charset (mime.ParseMediaType's reading of it).
type mediaType struct {
	contentType string
	mt          string // as mime.ParseMediaType gives it
	charset     bool
}

// mediaTypeOf reads a Content-Type with mime.ParseMediaType, once for
// the same header a site sends with every page: the last one read is
// kept.
func (f *Fetcher) mediaTypeOf(ct string) (mt string, charset bool) {
	if p := f.lastType.Load(); p != nil && p.contentType == ct {
		return p.mt, p.charset
	}
	mt, params, err := mime.ParseMediaType(ct)
	charset = err == nil && params["charset"] != ""
	f.lastType.Store(&mediaType{contentType: ct, mt: mt, charset: charset})
	return mt, charset
}

// pooledCollector is a clone of the fetcher's collector with its
// callbacks registered once; they read the fetch in progress from st. A
// fetch takes one from the pool for the length of its (synchronous)
// request, so one fetch at a time uses it.
type pooledCollector struct {
	c    *colly.Collector
	st   *fetchState
	resp *Response
}

type fetchKey struct{}

// fetchState travels in the request context, so the collector-wide
// redirect handler can see which fetch a redirect belongs to.
type fetchState struct {
	req         Request
	status      int
	retryAfter  time.Duration
	contentType string
	mediaType   string // contentType's, "" when it does not parse
	charset     bool   // contentType parses and names a charset
	abort       *Error
	notModified bool
	header      http.Header
}

// New returns a Fetcher on transport (NewTransport's, or the caller's
// own); now is the clock of the robots.txt cache.
func New(o Options, transport http.RoundTripper, now func() time.Time) *Fetcher {
	var robots *robotsCache
	if o.ObeyRobots {
		rc := &http.Client{Transport: &bodyTransport{next: transport, limit: maxRobotsSize, truncate: true},
			Timeout: o.RequestTimeout, CheckRedirect: robotsRedirect}
		robots = newRobotsCache(rc, o.UserAgent, o.RobotsTTL, now)
	}
	c := colly.NewCollector()
	// Set everything explicitly: NewCollector reads COLLY_* environment
	// variables, and newsrank's behaviour comes from its config only.
	c.UserAgent = o.UserAgent
	c.MaxBodySize = int(o.MaxBodySize + 1) // one byte more, to see that a body is too large
	c.AllowURLRevisit = true               // the queue dedups, not colly
	c.IgnoreRobotsTxt = true               // robotsCache, with a TTL and Crawl-delay
	c.ParseHTTPErrorResponse = true        // every status reaches our callbacks
	c.DetectCharset = false                // Extract decodes from <meta> when headers are silent
	c.AllowedDomains = nil
	c.CacheDir = ""
	c.MaxDepth = 0
	c.Async = false
	// bodyTransport inflates and bounds every body; colly's own limit
	// (on the bytes as they arrive) stays as a second fence.
	// The timeout is each fetch's context's (Fetch): a Client.Timeout
	// costs a goroutine per request.
	c.SetClient(&http.Client{Transport: &bodyTransport{next: transport, limit: o.MaxBodySize}})
	c.DisableCookies()
	f := &Fetcher{base: c, timeout: o.RequestTimeout, maxBody: o.MaxBodySize, maxRedirects: o.MaxRedirects, robots: robots,
		hosts: newHostLimiter(o.PerHostParallelism, o.Delay, o.Jitter)}
	c.SetRedirectHandler(f.checkRedirect)
	return f
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	st, _ := req.Context().Value(fetchKey{}).(*fetchState)
	if len(via) > f.maxRedirects {
		return &Error{URL: via[0].URL.String(), Reason: ReasonTooManyRedirects,
			Err: fmt.Errorf("%w: more than %d", ErrTooManyRedirects, f.maxRedirects)}
	}
	if st != nil {
		if err := st.req.Allowed.checkURL(req.URL); err != nil {
			return URLFailure(via[0].URL.String(), ReasonOffsite, fmt.Errorf("%w: %w", ErrOffsite, err))
		}
	}
	if f.robots != nil {
		ok, _, err := f.robots.check(req.Context(), req.URL)
		if err != nil {
			return robotsFailure(req.Context(), via[0].URL.String(), err)
		}
		if !ok {
			return &Error{URL: via[0].URL.String(), Reason: ReasonRobots,
				Err: fmt.Errorf("%w: redirect to %s", ErrRobots, req.URL)}
		}
	}
	return nil
}

// Fetch GETs r.URL. It returns an *Error for a failed page, or the
// context's error when ctx ended.
func (f *Fetcher) Fetch(ctx context.Context, r Request) (*Response, error) {
	release, err := f.admit(ctx, r, r.Cond != nil)
	if err != nil {
		return nil, err
	}
	defer release()

	st := &fetchState{req: r}
	pc := f.collector()
	pc.st = st
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if f.timeout > 0 {
		rctx, cancel = context.WithTimeout(ctx, f.timeout)
	}
	pc.c.Context = context.WithValue(rctx, fetchKey{}, st)
	err = pc.c.Request(http.MethodGet, r.URL, nil, nil, nil)
	cancel()
	resp := pc.resp
	pc.st, pc.resp, pc.c.Context = nil, nil, context.Background()
	f.collectors.Put(pc)
	switch {
	case st.abort != nil:
		return nil, st.abort
	case st.notModified:
		return &Response{URL: r.URL, Status: st.status, NotModified: true, Header: st.header}, nil
	case st.status != 0 && (st.status < 200 || st.status > 299):
		return nil, statusError(r.URL, st.status, st.retryAfter)
	case err != nil:
		err = classify(ctx, r.URL, err)
		if fe, ok := err.(*Error); ok && fe.Status == 0 {
			fe.Status = st.status
		}
		return nil, err
	case resp == nil:
		return nil, &Error{URL: r.URL, Reason: ReasonConn, Retryable: true, Err: errors.New("no response")}
	}
	if int64(len(resp.Body)) > f.maxBody {
		return nil, &Error{URL: r.URL, Reason: ReasonTooLarge, Status: resp.Status,
			Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, f.maxBody)}
	}
	if r.Charset != "" || st.charset {
		// colly decoded the body to UTF-8 (the forced or declared charset).
		mt := st.mediaType
		if mt == "" {
			mt = "text/html"
		}
		resp.ContentType = mt + "; charset=utf-8"
	}
	return resp, nil
}

// admit checks that r.URL may be fetched (inside r.Allowed when
// r.NotAllowed is set, an absolute http(s) URL without user info, allowed
// by robots.txt) and waits for its host's turn
// (politeness; a list page before other pages); the caller calls release
// when the fetch is over.
func (f *Fetcher) admit(ctx context.Context, r Request, list bool) (release func(), err error) {
	rawURL := r.URL
	u, err := url.Parse(rawURL)
	if r.NotAllowed != "" {
		if err == nil {
			err = r.Allowed.checkURL(u)
		} else {
			err = fmt.Errorf("%w: %v", ErrNotAllowed, err)
		}
		if err != nil {
			return nil, URLFailure(rawURL, r.NotAllowed, err)
		}
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{URL: rawURL, Reason: ReasonBadURL, Err: fmt.Errorf("not an absolute http(s) URL")}
	}
	if u.User != nil {
		return nil, &Error{URL: redact.URL(u.String()), Reason: ReasonBadURL, Err: ErrUserInfo}
	}
	var crawlDelay time.Duration
	if f.robots != nil {
		ok, d, err := f.robots.check(ctx, u)
		if err != nil {
			return nil, robotsFailure(ctx, rawURL, err)
		}
		if !ok {
			return nil, &Error{URL: rawURL, Reason: ReasonRobots, Err: ErrRobots}
		}
		crawlDelay = d
	}
	return f.hosts.acquire(ctx, u.Host, crawlDelay, list)
}

// Limit says which host's politeness holds requests back right now, if
// any (for a progress line).
func (f *Fetcher) Limit() (HostLimit, bool) { return f.hosts.limit() }

// headers reads a response's headers and aborts the request when its
// body is not wanted: an error status, a type the request does not
// accept, or a Content-Length over maxBody.
// collector takes a collector from the pool, or makes one.
func (f *Fetcher) collector() *pooledCollector {
	if pc, ok := f.collectors.Get().(*pooledCollector); ok {
		return pc
	}
	pc := &pooledCollector{c: f.base.Clone()}
	pc.c.OnRequest(func(req *colly.Request) {
		// bodyTransport asks for gzip itself when a request does not, on
		// a clone of the request: asking here spares the clone.
		req.Headers.Set("Accept-Encoding", "gzip")
		if r := pc.st.req; r.Charset != "" {
			req.ResponseCharacterEncoding = r.Charset
		}
		pc.st.req.Cond.apply(req.Headers)
	})
	pc.c.OnResponseHeaders(func(cr *colly.Response) { pc.st.headers(cr, f) })
	pc.c.OnResponse(func(cr *colly.Response) {
		pc.resp = &Response{URL: cr.Request.URL.String(), Status: cr.StatusCode, ContentType: pc.st.contentType,
			Body: cr.Body, Header: pc.st.header}
	})
	return pc
}

func (st *fetchState) headers(cr *colly.Response, f *Fetcher) {
	st.status = cr.StatusCode
	st.contentType = cr.Headers.Get("Content-Type")
	if st.req.Cond != nil {
		st.header = cr.Headers.Clone()
		if c := st.req.Cond; st.status == http.StatusNotModified && (c.ETag != "" || c.LastModified != "") {
			st.notModified = true
			cr.Request.Abort()
			return
		}
	}
	if st.status < 200 || st.status > 299 {
		st.retryAfter = retryAfter(cr.Headers.Get("Retry-After"), time.Now())
		cr.Request.Abort() // the error page's body is not needed
		return
	}
	mt, charset := f.mediaTypeOf(st.contentType)
	st.mediaType, st.charset = mt, charset
	if st.req.Accept != nil && !st.req.Accept(mt) {
		st.abort = &Error{URL: st.req.URL, Reason: ReasonNotHTML, Status: st.status,
			Err: fmt.Errorf("%w: %q", ErrNotHTML, st.contentType)}
		cr.Request.Abort()
		return
	}
	if n, err := strconv.ParseInt(cr.Headers.Get("Content-Length"), 10, 64); err == nil && n > f.maxBody {
		st.abort = &Error{URL: st.req.URL, Reason: ReasonTooLarge, Status: st.status,
			Err: fmt.Errorf("%w: Content-Length %d > %d", ErrTooLarge, n, f.maxBody)}
		cr.Request.Abort()
	}
}

// IsHTML accepts the media types of HTML pages (and none at all): the
// Accept of article pages and HTML list pages.
func IsHTML(mt string) bool {
	return mt == "text/html" || mt == "application/xhtml+xml" || mt == ""
}
