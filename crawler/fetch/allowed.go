package fetch

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/newsrank/newsrank/internal/redact"
)

// Errors of URLs a source may not fetch; Error.Err wraps them.
var (
	// ErrUserInfo is a URL that carries user info (user:pass@host): never
	// fetched, queued or stored.
	ErrUserInfo = errors.New("URL carries user info")
	// ErrNotAllowed is a URL outside the source's allowed targets: another
	// scheme, host or port than crawler.sources[].allowed_domains (or the
	// start URLs) allow.
	ErrNotAllowed = errors.New("URL outside the allowed targets")
)

// allowRule is one allowed target: a host, and for a host name its
// subdomains, on one port and scheme.
type allowRule struct {
	scheme string // "http" or "https"; "" is both, each on its default port
	host   string // lower case, no trailing dot; an IP literal without brackets
	port   string // "" is the scheme's default port
	ip     bool   // host is an IP literal: no subdomains
}

// Allowed is what a source may fetch: scheme, host and port. An empty
// set allows every http(s) URL.
type Allowed []allowRule

// NewAllowed compiles a source's allowed_domains, or, when there are
// none, the origins of its start URLs (and page_template): a host name
// alone ("example.com", or a start URL on the default port) allows http
// on 80 and https on 443; "http://host:8080" (or a start URL on another
// port) allows that scheme on that port only. A host name allows its
// subdomains too.
func NewAllowed(domains, startURLs []string) (Allowed, error) {
	var out Allowed
	add := func(r allowRule) {
		for _, have := range out {
			if have == r {
				return
			}
		}
		out = append(out, r)
	}
	for _, d := range domains {
		r, err := parseAllowRule(d)
		if err != nil {
			return nil, fmt.Errorf("allowed_domains: %w", err)
		}
		add(r)
	}
	if len(domains) > 0 {
		return out, nil
	}
	for _, raw := range startURLs {
		probe := strings.NewReplacer("{page}", "1", "{offset}", "0").Replace(raw)
		u, err := url.Parse(probe)
		if err != nil || u.Hostname() == "" {
			continue // config validation names it
		}
		r := ruleFor(u)
		if r.port == "" {
			r.scheme = "" // the default port: the site may move between http and https
		}
		add(r)
	}
	return out, nil
}

// parseAllowRule reads an allowed_domains entry: "example.com", or
// "http://host:port" / "https://host[:port]".
func parseAllowRule(d string) (allowRule, error) {
	u, err := ParseAllowedDomain(strings.TrimSpace(d))
	if err != nil {
		return allowRule{}, err
	}
	return ruleFor(u), nil
}

// ParseAllowedDomain reads an allowed_domains entry: a host name
// ("example.com", returned with an empty Scheme) or an http(s) origin
// ("http://example.com:8080", nothing after the port). The error says
// what is wrong.
func ParseAllowedDomain(d string) (*url.URL, error) {
	const want = `want a host name such as "example.com" or an origin such as "http://example.com:8080"`
	if !strings.Contains(d, "://") {
		if d == "" || strings.ContainsAny(d, "/:@?# ") {
			return nil, fmt.Errorf("%q: %s", redact.URL(d), want)
		}
		return &url.URL{Host: d}, nil
	}
	u, err := url.Parse(d)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%q: %s", redact.URL(d), want)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%q: the scheme must be http or https", redact.URL(d))
	case u.User != nil:
		return nil, fmt.Errorf("%q: must not carry user info", redact.URL(u.String()))
	case u.Hostname() == "", u.Path != "" && u.Path != "/", u.RawQuery != "", u.Fragment != "", u.ForceQuery:
		return nil, fmt.Errorf("%q: %s", redact.URL(d), want)
	}
	return u, nil
}

// ruleFor is the rule allowing exactly u's scheme, host and port.
func ruleFor(u *url.URL) allowRule {
	scheme := strings.ToLower(u.Scheme)
	host, port := normHostPort(scheme, u)
	_, err := netip.ParseAddr(host)
	return allowRule{scheme: scheme, host: host, port: port, ip: err == nil}
}

// normHostPort returns u's host (lower case, no trailing dot) and port
// ("" for the scheme's default).
func normHostPort(scheme string, u *url.URL) (host, port string) {
	host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	port = u.Port()
	if port == defaultPort(scheme) {
		port = ""
	}
	return host, port
}

func defaultPort(scheme string) string {
	switch scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// allows reports whether the set allows u (user info aside: see Check).
func (a Allowed) allows(u *url.URL) bool {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return false
	}
	if len(a) == 0 {
		return true
	}
	host, port := normHostPort(scheme, u)
	for _, r := range a {
		if host != r.host && (r.ip || !strings.HasSuffix(host, "."+r.host)) {
			continue
		}
		if r.scheme == "" && port == "" || r.scheme == scheme && r.port == port {
			return true
		}
	}
	return false
}

// Check reports why the absolute URL raw may not be fetched: it does not
// parse, carries user info, or is outside the set.
func (a Allowed) Check(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotAllowed, err)
	}
	return a.checkURL(u)
}

func (a Allowed) checkURL(u *url.URL) error {
	switch {
	case u.User != nil:
		return fmt.Errorf("%w: %s", ErrUserInfo, redact.URL(u.String()))
	case !a.allows(u):
		return fmt.Errorf("%w: %s (allowed: %s)", ErrNotAllowed, redact.URL(u.String()), a)
	}
	return nil
}

// String lists the allowed targets, for error messages.
func (a Allowed) String() string {
	var parts []string
	for _, r := range a {
		h := r.host
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		switch {
		case r.scheme == "":
			parts = append(parts, h+" (http, https)")
		case r.port == "":
			parts = append(parts, r.scheme+"://"+h)
		default:
			parts = append(parts, r.scheme+"://"+h+":"+r.port)
		}
	}
	return strings.Join(parts, ", ")
}

// URLFailure maps a Check error to the Error of u: user info is a bad
// URL, the rest is outside the allowed targets (reason: notAllowed).
func URLFailure(u, notAllowed string, err error) *Error {
	if errors.Is(err, ErrUserInfo) {
		return &Error{URL: u, Reason: ReasonBadURL, Err: err}
	}
	return &Error{URL: u, Reason: notAllowed, Err: err}
}
