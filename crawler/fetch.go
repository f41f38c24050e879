package crawler

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/newsrank/newsrank/internal/redact"
)

// Failure reasons, used in FetchError.Reason, dead letters and the
// metrics.PagesFailed reason label.
const (
	ReasonHTTP404          = "http_404"
	ReasonHTTP410          = "http_410"
	ReasonHTTP429          = "http_429"
	ReasonHTTP5xx          = "http_5xx"
	ReasonHTTP4xx          = "http_4xx" // other client errors (401, 403, ...): not retried
	ReasonHTTPStatus       = "http_status"
	ReasonTimeout          = "timeout"
	ReasonConn             = "conn"
	ReasonRobots           = "robots"
	ReasonRobotsFailed     = "robots_unavailable"
	ReasonNotHTML          = "not_html"
	ReasonTooLarge         = "too_large"
	ReasonNoTitle          = "no_title"
	ReasonTooManyRedirects = "too_many_redirects"
	ReasonOffsite          = "offsite_redirect"
	ReasonNotAllowed       = "not_allowed"     // a queued URL outside the source's allowed targets
	ReasonPrivateNetwork   = "private_network" // crawler.deny_private_networks refused the address
	ReasonBadURL           = "bad_url"
	ReasonDecode           = "decode"
	ReasonBadList          = "bad_list"
	ReasonStore            = "store"
)

// FetchError is a page that could not be fetched or read: why, and
// whether trying again later may help.
type FetchError struct {
	URL       string
	Reason    string // one of the Reason constants
	Status    int    // HTTP status, when there was a response
	Retryable bool
	// RetryAfter is the server's Retry-After, if it sent one.
	RetryAfter time.Duration
	Err        error
}

// Error names the URL without its user name and password, if any (a
// source URL may carry them).
func (e *FetchError) Error() string {
	if e.Err != nil {
		return redact.String(fmt.Sprintf("%s: %s: %v", e.URL, e.Reason, e.Err))
	}
	return fmt.Sprintf("%s: %s", redact.URL(e.URL), e.Reason)
}

func (e *FetchError) Unwrap() error { return e.Err }

// Sentinel errors inside FetchError.Err.
var (
	// ErrTooLarge is a body over crawler.max_body_size.
	ErrTooLarge = errors.New("body larger than max_body_size")
	// ErrRobots is a URL robots.txt disallows.
	ErrRobots = errors.New("disallowed by robots.txt")
	// ErrTooManyRedirects is a redirect chain over crawler.max_redirects.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrOffsite is a redirect to a URL outside the source's allowed
	// targets (scheme, host and port).
	ErrOffsite = errors.New("redirect off the allowed targets")
	// ErrNotHTML is an article response whose content type is not HTML.
	ErrNotHTML = errors.New("content type is not HTML")
	// ErrNoTitle is an article page with no title anywhere.
	ErrNoTitle = errors.New("page has no title")
)

// response is a fetched page.
type response struct {
	url         string // final URL, after redirects
	status      int
	contentType string // the charset parameter says utf-8 when colly decoded the body
	body        []byte
	// notModified: the server answered 304 to a conditional request
	// (no body); header is set for requests with a cond only.
	notModified bool
	header      http.Header
}

// fetchReq describes one fetch.
type fetchReq struct {
	url     string
	allowed allowedSet // redirects must stay inside
	charset string     // forced charset ("" = header, then <meta>)
	accept  func(mediaType string) bool
	// cond (list pages only) holds the validators of the page's last
	// answer, sent as If-None-Match / If-Modified-Since; the response
	// then keeps its headers (validators.go).
	cond *listValidators
}

// fetcher fetches pages with colly: robots.txt, per-host politeness,
// timeouts, redirect and body-size limits, and an error with a reason for
// every way a fetch fails.
type fetcher struct {
	base         *colly.Collector
	timeout      time.Duration // of a whole fetch, body included (0: none)
	maxBody      int64
	maxRedirects int
	robots       *robotsCache // nil: robots.txt is not obeyed
	hosts        *hostLimiter
	collectors   sync.Pool // of *pooledCollector
}

type fetchKey struct{}

// fetchState travels in the request context, so the collector-wide
// redirect handler can see which fetch a redirect belongs to.
type fetchState struct {
	req         fetchReq
	status      int
	retryAfter  time.Duration
	contentType string
	mediaType   string // contentType's, "" when it does not parse
	charset     bool   // contentType parses and names a charset
	abort       *FetchError
	notModified bool
	header      http.Header
}

func newFetcher(ua string, timeout time.Duration, maxBody int64, maxRedirects int, transport http.RoundTripper,
	robots *robotsCache, hosts *hostLimiter) *fetcher {
	c := colly.NewCollector()
	// Set everything explicitly: NewCollector reads COLLY_* environment
	// variables, and newsrank's behaviour comes from its config only.
	c.UserAgent = ua
	c.MaxBodySize = int(maxBody + 1) // one byte more, to see that a body is too large
	c.AllowURLRevisit = true         // the queue dedups, not colly
	c.IgnoreRobotsTxt = true         // robotsCache, with a TTL and Crawl-delay
	c.ParseHTTPErrorResponse = true  // every status reaches our callbacks
	c.DetectCharset = false          // Extract decodes from <meta> when headers are silent
	c.AllowedDomains = nil
	c.CacheDir = ""
	c.MaxDepth = 0
	c.Async = false
	// bodyTransport inflates and bounds every body; colly's own limit
	// (on the bytes as they arrive) stays as a second fence.
	// The timeout is each fetch's context's (fetch): a Client.Timeout
	// costs a goroutine per request.
	c.SetClient(&http.Client{Transport: &bodyTransport{next: transport, limit: maxBody}})
	c.DisableCookies()
	f := &fetcher{base: c, timeout: timeout, maxBody: maxBody, maxRedirects: maxRedirects, robots: robots, hosts: hosts}
	c.SetRedirectHandler(f.checkRedirect)
	return f
}

func (f *fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	st, _ := req.Context().Value(fetchKey{}).(*fetchState)
	if len(via) > f.maxRedirects {
		return &FetchError{URL: via[0].URL.String(), Reason: ReasonTooManyRedirects,
			Err: fmt.Errorf("%w: more than %d", ErrTooManyRedirects, f.maxRedirects)}
	}
	if st != nil {
		if err := st.req.allowed.checkURL(req.URL); err != nil {
			return urlFailure(via[0].URL.String(), ReasonOffsite, fmt.Errorf("%w: %w", ErrOffsite, err))
		}
	}
	if f.robots != nil {
		ok, _, err := f.robots.check(req.Context(), req.URL)
		if err != nil {
			return robotsFailure(req.Context(), via[0].URL.String(), err)
		}
		if !ok {
			return &FetchError{URL: via[0].URL.String(), Reason: ReasonRobots,
				Err: fmt.Errorf("%w: redirect to %s", ErrRobots, req.URL)}
		}
	}
	return nil
}

// fetch GETs r.url. It returns a *FetchError for a failed page, or the
// context's error when ctx ended.
func (f *fetcher) fetch(ctx context.Context, r fetchReq) (*response, error) {
	release, err := f.admit(ctx, r.url, r.cond != nil)
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
	err = pc.c.Request(http.MethodGet, r.url, nil, nil, nil)
	cancel()
	resp := pc.resp
	pc.st, pc.resp, pc.c.Context = nil, nil, context.Background()
	f.collectors.Put(pc)
	switch {
	case st.abort != nil:
		return nil, st.abort
	case st.notModified:
		return &response{url: r.url, status: st.status, notModified: true, header: st.header}, nil
	case st.status != 0 && (st.status < 200 || st.status > 299):
		return nil, statusError(r.url, st.status, st.retryAfter)
	case err != nil:
		err = classify(ctx, r.url, err)
		if fe, ok := err.(*FetchError); ok && fe.Status == 0 {
			fe.Status = st.status
		}
		return nil, err
	case resp == nil:
		return nil, &FetchError{URL: r.url, Reason: ReasonConn, Retryable: true, Err: errors.New("no response")}
	}
	if int64(len(resp.body)) > f.maxBody {
		return nil, &FetchError{URL: r.url, Reason: ReasonTooLarge, Status: resp.status,
			Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, f.maxBody)}
	}
	if r.charset != "" || st.charset {
		// colly decoded the body to UTF-8 (the forced or declared charset).
		mt := st.mediaType
		if mt == "" {
			mt = "text/html"
		}
		resp.contentType = mt + "; charset=utf-8"
	}
	return resp, nil
}

// admit checks that rawURL may be fetched (an absolute http(s) URL
// without user info, allowed by robots.txt) and waits for its host's turn
// (politeness; a list page before other pages); the caller calls release
// when the fetch is over.
func (f *fetcher) admit(ctx context.Context, rawURL string, list bool) (release func(), err error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &FetchError{URL: rawURL, Reason: ReasonBadURL, Err: fmt.Errorf("not an absolute http(s) URL")}
	}
	if u.User != nil {
		return nil, &FetchError{URL: redact.URL(u.String()), Reason: ReasonBadURL, Err: ErrUserInfo}
	}
	var crawlDelay time.Duration
	if f.robots != nil {
		ok, d, err := f.robots.check(ctx, u)
		if err != nil {
			return nil, robotsFailure(ctx, rawURL, err)
		}
		if !ok {
			return nil, &FetchError{URL: rawURL, Reason: ReasonRobots, Err: ErrRobots}
		}
		crawlDelay = d
	}
	return f.hosts.acquire(ctx, u.Host, crawlDelay, list)
}

// headers reads a response's headers and aborts the request when its
// body is not wanted: an error status, a type the request does not
// accept, or a Content-Length over maxBody.
func (st *fetchState) headers(cr *colly.Response, maxBody int64) {
	st.status = cr.StatusCode
	st.contentType = cr.Headers.Get("Content-Type")
	if st.req.cond != nil {
		st.header = cr.Headers.Clone()
		if c := st.req.cond; st.status == http.StatusNotModified && (c.etag != "" || c.lastModified != "") {
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
	mt, params, err := mime.ParseMediaType(st.contentType)
	st.mediaType, st.charset = mt, err == nil && params["charset"] != ""
	if st.req.accept != nil && !st.req.accept(mt) {
		st.abort = &FetchError{URL: st.req.url, Reason: ReasonNotHTML, Status: st.status,
			Err: fmt.Errorf("%w: %q", ErrNotHTML, st.contentType)}
		cr.Request.Abort()
		return
	}
	if n, err := strconv.ParseInt(cr.Headers.Get("Content-Length"), 10, 64); err == nil && n > maxBody {
		st.abort = &FetchError{URL: st.req.url, Reason: ReasonTooLarge, Status: st.status,
			Err: fmt.Errorf("%w: Content-Length %d > %d", ErrTooLarge, n, maxBody)}
		cr.Request.Abort()
	}
}

func isHTML(mt string) bool {
	return mt == "text/html" || mt == "application/xhtml+xml" || mt == ""
}
