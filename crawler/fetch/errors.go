package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/newsrank/newsrank/internal/redact"
)

// Failure reasons of a fetch, used in Error.Reason, dead letters and the
// metrics.PagesFailed reason label (the crawler adds those of its own
// steps).
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
	ReasonTooManyRedirects = "too_many_redirects"
	ReasonOffsite          = "offsite_redirect"
	ReasonPrivateNetwork   = "private_network" // crawler.deny_private_networks refused the address
	ReasonBadURL           = "bad_url"
	ReasonDecode           = "decode"
)

// Error is a page that could not be fetched or read: why, and whether
// trying again later may help.
type Error struct {
	URL       string
	Reason    string // one of the Reason constants (or the crawler's)
	Status    int    // HTTP status, when there was a response
	Retryable bool
	// RetryAfter is the server's Retry-After, if it sent one.
	RetryAfter time.Duration
	Err        error
}

// Error names the URL without its user name and password, if any (a
// source URL may carry them).
func (e *Error) Error() string {
	if e.Err != nil {
		return redact.String(fmt.Sprintf("%s: %s: %v", e.URL, e.Reason, e.Err))
	}
	return fmt.Sprintf("%s: %s", redact.URL(e.URL), e.Reason)
}

func (e *Error) Unwrap() error { return e.Err }

// Sentinel errors inside Error.Err.
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
)

// The Error of each way a fetch fails, with its reason and whether
// another try may do better.

// robotsFailure is the failure of a fetch of u whose robots.txt could not
// be read (or ctx's error).
func robotsFailure(ctx context.Context, u string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if re := (*robotsError)(nil); errors.As(err, &re) && re.status == 0 {
		// The host is unreachable (or refused): say so rather than blame robots.txt.
		return classify(ctx, u, re.err)
	}
	return &Error{URL: u, Reason: ReasonRobotsFailed, Retryable: true, Err: err}
}

// statusError maps an HTTP status to a failure: 404 and 410 are final,
// 429, 5xx and 408 are retried (after Retry-After, if given), other 4xx
// are final.
func statusError(u string, status int, after time.Duration) *Error {
	e := &Error{URL: u, Status: status, RetryAfter: after, Err: fmt.Errorf("HTTP %d %s", status, http.StatusText(status))}
	switch {
	case status == http.StatusNotFound:
		e.Reason = ReasonHTTP404
	case status == http.StatusGone:
		e.Reason = ReasonHTTP410
	case status == http.StatusTooManyRequests:
		e.Reason, e.Retryable = ReasonHTTP429, true
	case status >= 500:
		e.Reason, e.Retryable = ReasonHTTP5xx, true
	case status == http.StatusRequestTimeout || status == http.StatusTooEarly:
		e.Reason, e.Retryable = ReasonTimeout, true
	case status >= 400:
		e.Reason = ReasonHTTP4xx
	case status == http.StatusNotModified:
		// to a request without validators (fetchState.headers): nothing
		// was read, and the page must not look read
		e.Reason = ReasonHTTPStatus
		e.Err = errors.New("HTTP 304 Not Modified to a request without validators")
	case status >= 300 && status < 400:
		e.Reason = ReasonTooManyRedirects // a redirect without a usable Location
	default:
		e.Reason = ReasonHTTPStatus
	}
	return e
}

// classify turns a transport error into a Error (or ctx's error).
func classify(ctx context.Context, u string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var fe *Error
	switch {
	case errors.As(err, &fe):
		return fe
	case errors.Is(err, ErrTooLarge):
		return &Error{URL: u, Reason: ReasonTooLarge, Err: err}
	case errors.Is(err, ErrEncoding):
		return &Error{URL: u, Reason: ReasonDecode, Err: err}
	case errors.Is(err, ErrPrivateNetwork):
		return &Error{URL: u, Reason: ReasonPrivateNetwork, Err: err}
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &Error{URL: u, Reason: ReasonTimeout, Retryable: true, Err: err}
	case errors.Is(err, colly.ErrAbortedAfterHeaders):
		return &Error{URL: u, Reason: ReasonConn, Retryable: true, Err: err}
	}
	var ue *url.Error
	var oe *net.OpError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &oe), errors.As(err, &dnsErr), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, net.ErrClosed), isEOF(err):
		return &Error{URL: u, Reason: ReasonConn, Retryable: true, Err: err}
	case errors.As(err, &ue):
		// Other transport errors (TLS, protocol): worth another try.
		return &Error{URL: u, Reason: ReasonConn, Retryable: true, Err: err}
	case strings.Contains(err.Error(), "charset"), strings.Contains(err.Error(), "encoding"):
		return &Error{URL: u, Reason: ReasonDecode, Err: err}
	}
	return &Error{URL: u, Reason: ReasonConn, Retryable: true, Err: err}
}

func isEOF(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "connection reset"))
}

// MaxRetryAfter is the longest Retry-After honoured, in either form: a
// longer one (a misconfigured or hostile server's) counts as this.
const MaxRetryAfter = 7 * 24 * time.Hour

// retryAfter reads a Retry-After header: seconds (a number too large for
// int64 is read as very many) or an HTTP date (whole seconds from now,
// rounded up), at most MaxRetryAfter; 0 for none, a date past or a value
// that does not parse.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if n, err := strconv.ParseInt(h, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(MaxRetryAfter/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		d := min(t.Sub(now), MaxRetryAfter)
		return (d + time.Second - 1).Truncate(time.Second)
	}
	return 0
}
