package colly

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// newRequest is http.NewRequestWithContext(ctx, method, s, body), where s
// is parsed.String() and parsed is url.Parse(u) (newsrank). When s == u,
// parsing s again would give parsed itself, so the request takes a copy
// of parsed instead, its host without an empty port as
// NewRequestWithContext leaves it; any other URL is parsed from s.
func newRequest(ctx context.Context, method, u, s string, parsed *url.URL, body io.Reader) (*http.Request, error) {
	if s != u {
		return http.NewRequestWithContext(ctx, method, s, body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "", body)
	if err != nil {
		return nil, err
	}
	cp := *parsed
	cp.Host = removeEmptyPort(cp.Host)
	req.URL = &cp
	req.Host = cp.Host
	return req, nil
}

// removeEmptyPort strips the empty port in ":port" to "" as net/http
// does for a request's URL: "example.com:" is "example.com".
func removeEmptyPort(host string) string {
	if strings.LastIndex(host, ":") > strings.LastIndex(host, "]") {
		return strings.TrimSuffix(host, ":")
	}
	return host
}
