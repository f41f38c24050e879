package crawler

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	whatwg "github.com/nlnwa/whatwg-url/url"
	"golang.org/x/net/html/charset"
)

// errAbortedAfterHeaders ends a request whose headers (fetchState.headers)
// say its body is not wanted.
var errAbortedAfterHeaders = errors.New("request aborted after the response headers")

// urlParser parses request URLs as browsers (and colly, which the
// fetcher used before) do.
var urlParser = whatwg.NewParser(whatwg.WithPercentEncodeSinglePercentSign())

// get GETs st.req.url: the URL read as a WHATWG URL (requestURL), the
// User-Agent, Accept and Accept-Encoding: gzip headers and the list
// page's validators, the response headers checked (fetchState.headers),
// the body read up to the limit and, when a charset is forced or
// declared other than UTF-8, decoded to UTF-8 (decodeBody). ctx carries
// st for the redirect check.
func (f *fetcher) get(ctx context.Context, st *fetchState) (*response, error) {
	u, err := requestURL(st.req.url)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header["User-Agent"] = []string{f.ua}
	req.Header["Accept"] = []string{"*/*"}
	req.Header["Accept-Encoding"] = []string{"gzip"}
	st.req.cond.apply(&req.Header)
	res, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if !st.headers(res.StatusCode, res.Header, f.maxBody) {
		// Closing the body unread drops the connection: cheaper than
		// reading an unwanted body.
		return nil, errAbortedAfterHeaders
	}
	body, err := readBody(res.Body, res.ContentLength, f.maxBody+1)
	if err != nil {
		return nil, err
	}
	if body, err = decodeBody(body, st.req.charset, res.Header.Get("Content-Type")); err != nil {
		return nil, err
	}
	return &response{url: res.Request.URL.String(), status: res.StatusCode, contentType: st.contentType,
		body: body, header: st.header}, nil
}

// readBody reads r to its end, at most limit bytes, into a slice sized
// from the Content-Length when there is one (a gzip body's is its
// compressed size: the slice grows past it).
func readBody(r io.Reader, size, limit int64) ([]byte, error) {
	n := int64(512)
	if size > 0 {
		n = min(size, limit) + 1 // the spare byte takes the read that meets EOF
	}
	buf := make([]byte, 0, n)
	lr := io.LimitedReader{R: r, N: limit}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// decodeBody decodes body to UTF-8 from the forced charset, else from the
// charset the Content-Type declares (none, or UTF-8: body as it is;
// media types that are not text are left alone), as colly did.
func decodeBody(body []byte, forced, contentType string) ([]byte, error) {
	if len(body) == 0 {
		return body, nil
	}
	if forced != "" {
		return decodeAs(body, "text/plain; charset="+forced)
	}
	ct := strings.ToLower(contentType)
	for _, t := range [...]string{"image/", "video/", "audio/", "font/"} {
		if strings.Contains(ct, t) {
			return body, nil
		}
	}
	if !strings.Contains(ct, "charset") || strings.Contains(ct, "utf-8") || strings.Contains(ct, "utf8") {
		return body, nil
	}
	return decodeAs(body, ct)
}

// decodeAs decodes b from the charset of contentType.
func decodeAs(b []byte, contentType string) ([]byte, error) {
	r, err := charset.NewReader(bytes.NewReader(b), contentType)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// requestURL is the URL a request for raw goes to: raw read as a WHATWG
// URL (what a browser sends: the host lower-cased and its default port
// dropped, dot segments resolved, characters a URL cannot carry
// percent-encoded) and written back by net/url. A plain URL, which that
// leaves as it is (the queue's canonical URLs are), skips the parse.
func requestURL(raw string) (string, error) {
	if plainURL(raw) {
		return raw, nil
	}
	return parsedURL(raw)
}

// parsedURL is raw read as a WHATWG URL and written back by net/url.
func parsedURL(raw string) (string, error) {
	w, err := urlParser.Parse(raw)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(w.Href(false))
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// plainURL reports whether raw is an http(s) URL that requestURL's parse
// would give back unchanged: a lower-case scheme and host name (not an
// IDN, not a number other than a dotted quad), no default port or port
// with a leading zero, and a path and query of letters, digits, "-._~",
// "/?=&+,:@" and valid percent-escapes, without dot segments.
func plainURL(raw string) bool {
	var rest string
	switch {
	case strings.HasPrefix(raw, "http://"):
		rest = raw[len("http://"):]
	case strings.HasPrefix(raw, "https://"):
		rest = raw[len("https://"):]
	default:
		return false
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return false
	}
	hostport, path := rest[:slash], rest[slash:]
	host, port, hasPort := strings.Cut(hostport, ":")
	if !plainHost(host) || hasPort && !plainPort(port, strings.HasPrefix(raw, "https:")) {
		return false
	}
	return plainPath(path)
}

// plainHost: see plainURL.
func plainHost(h string) bool {
	if h == "" || strings.Contains(h, "xn--") || h[len(h)-1] == '.' {
		return false
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" {
			return false
		}
		for i := range len(l) {
			if c := l[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	if c := last[0]; '0' <= c && c <= '9' {
		// A number: only a dotted quad of plain decimals is left as it is.
		if len(labels) != 4 {
			return false
		}
		for _, l := range labels {
			if len(l) > 3 || len(l) > 1 && l[0] == '0' || !allDigits(l) || len(l) == 3 && l > "255" {
				return false
			}
		}
	}
	return true
}

// plainPort: see plainURL.
func plainPort(p string, https bool) bool {
	if p == "" || len(p) > 5 || p[0] == '0' || !allDigits(p) || len(p) == 5 && p > "65535" {
		return false
	}
	return !(p == "80" && !https || p == "443" && https)
}

// plainPath: see plainURL.
func plainPath(p string) bool {
	q := strings.IndexByte(p, '?')
	path := p
	if q >= 0 {
		path = p[:q]
	}
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." || strings.HasPrefix(strings.ToLower(seg), "%2e") || strings.HasSuffix(strings.ToLower(seg), "%2e") {
			return false
		}
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-._~/=&+,:@", c) >= 0:
		case c == '?' && i >= q:
		case c == '%':
			if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
