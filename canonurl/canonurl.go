// Package canonurl canonicalises article URLs, so that the spellings of
// one page (case, default port, fragment, tracking parameters, parameter
// order, percent-encoding, dot segments) are one string: the queue's
// members, the crawler's seen sets and the news store's article ids.
package canonurl

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/idna"

	"github.com/newsrank/newsrank/internal/errkind"
)

// ErrBadURL is returned (wrapped, naming the URL and the problem) for a URL
// that has no canonical form: not absolute, not http(s), no host, too long.
var ErrBadURL = errkind.New(errkind.Invalid, "", "bad URL")

// MaxURLLen is the longest URL Canonical accepts.
const MaxURLLen = 4096

// trackingParams are query parameters that only say where a click came
// from; Canonical drops them (names compared case-insensitively). Every
// parameter starting with "utm_" is dropped too.
var trackingParams = map[string]bool{
	"spm": true, "scm": true, "from": true, // Alibaba/NetEase/Sina share and source tags
	"fbclid": true, "gclid": true, "gclsrc": true, "dclid": true, "gbraid": true, "wbraid": true,
	"msclkid": true, "yclid": true, "twclid": true, "ttclid": true, "li_fat_id": true,
	"igshid": true, "mc_cid": true, "mc_eid": true, "_hsenc": true, "_hsmi": true,
	"mkt_tok": true, "_ga": true, "_gl": true, "oly_anon_id": true, "oly_enc_id": true,
	"vero_id": true, "wt.mc_id": true, "share_token": true,
}

// IsTrackingParam reports whether Canonical drops the query parameter
// name: utm_* and spm, scm, from, fbclid, gclid, gclsrc, dclid, gbraid,
// wbraid, msclkid, yclid, twclid, ttclid, li_fat_id, igshid, mc_cid, mc_eid,
// _hsenc, _hsmi, mkt_tok, _ga, _gl, oly_anon_id, oly_enc_id, vero_id,
// wt.mc_id and share_token (case-insensitive).
func IsTrackingParam(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "utm_") || trackingParams[n]
}

// Canonical canonicalises an article URL so that the spellings of one page
// are one string: it lower-cases the scheme and host (drops a
// trailing dot of the host, writes an internationalised host in punycode),
// drops the default port (80, 443), drops the
// fragment and the user info, drops tracking parameters (IsTrackingParam),
// sorts the query parameters by name (stable: repeated names keep their
// order), removes empty parameters, normalises percent-encoding (upper-case
// hex, unreserved characters decoded, other bytes encoded) and cleans the
// path ("." and ".." segments and repeated slashes removed, a trailing
// slash kept, empty path "/"). It returns an error wrapping ErrBadURL for a
// URL that is not absolute, not http or https, has no host, or is longer
// than MaxURLLen. Canonical(Canonical(u)) == Canonical(u).
func Canonical(raw string) (string, error) {
	if isCanonical(raw) {
		return raw, nil
	}
	return canonical(raw)
}

// Resolve returns ref, trimmed of white space, resolved against base
// (when base is not nil) and written as net/url writes it, or "" when
// ref is empty, does not parse, or does not resolve to an absolute http
// or https URL with a host: the links a page or a feed gives, as a
// crawler can follow them. A ref IsCanonical accepts is returned as it
// is, which is what the parse and the resolution would give.
func Resolve(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	if isCanonical(ref) {
		return ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// IsCanonical reports, without allocating, that s is a URL Canonical
// leaves as it is, of the common simple shape isCanonical knows (an
// absolute http or https URL with a lower-case host name: no escapes, no
// IPv6 host, no dot segment, no fragment...). It may say no to a canonical
// URL, never yes to one that is not. Such a URL parses with net/url and
// is written back by it unchanged.
func IsCanonical(s string) bool { return isCanonical(s) }

// isCanonical is Canonical's fast path: it reports, without allocating,
// that s is already canonical (for the common simple URLs: no escapes, no
// IPv6 host, no '+' in names; it may say no to a canonical URL, never yes
// to one that is not: FuzzCanonical checks it).
func isCanonical(s string) bool {
	if len(s) > MaxURLLen {
		return false
	}
	rest, https := strings.CutPrefix(s, "https://")
	if !https {
		var ok bool
		if rest, ok = strings.CutPrefix(s, "http://"); !ok {
			return false
		}
	}
	slash := strings.IndexByte(rest, '/')
	if slash <= 0 {
		return false // no path, or no host
	}
	host, rest := rest[:slash], rest[slash:]
	if c := strings.IndexByte(host, ':'); c >= 0 {
		if !canonicalPort(host[c+1:], https) {
			return false
		}
		host = host[:c]
		if host == "" {
			return false
		}
	}
	if host[0] == '.' || host[len(host)-1] == '.' || strings.Contains(host, "..") {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	p, query, hasQuery := strings.Cut(rest, "?")
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '%' || !isPathChar(c) {
			return false
		}
		if c == '/' && i+1 < len(p) {
			switch {
			case p[i+1] == '/':
				return false
			case p[i+1] == '.' && (i+2 == len(p) || p[i+2] == '/'):
				return false
			case p[i+1] == '.' && p[i+2] == '.' && (i+3 == len(p) || p[i+3] == '/'):
				return false
			}
		}
	}
	if !hasQuery {
		return true
	}
	prev := ""
	for len(query) > 0 || hasQuery {
		hasQuery = false
		part, more, found := strings.Cut(query, "&")
		query = more
		if part == "" {
			return false
		}
		key, _, _ := strings.Cut(part, "=")
		if key == "" || key < prev || strings.ContainsAny(key, "+") || IsTrackingParam(key) {
			return false
		}
		for i := 0; i < len(part); i++ {
			if part[i] == '%' || !isQueryChar(part[i]) {
				return false
			}
		}
		prev = key
		if found && query == "" {
			return false // a trailing '&'
		}
	}
	return true
}

// canonicalPort reports whether p is a port as Canonical writes it after
// the host: a number from 1 to 65535 without leading zeros, not the
// scheme's default (80 for http, 443 for https).
func canonicalPort(p string, https bool) bool {
	if len(p) == 0 || len(p) > 5 || p[0] == '0' {
		return false
	}
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
		n = n*10 + int(p[i]-'0')
	}
	return n <= 65535 && !(https && n == 443) && !(!https && n == 80)
}

// canonical is Canonical's full path.
func canonical(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", fmt.Errorf("%w: empty URL", ErrBadURL)
	}
	if len(s) > MaxURLLen*3 {
		return "", fmt.Errorf("%w: %.60q...: longer than %d bytes", ErrBadURL, s, MaxURLLen)
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrBadURL, s, errors.Unwrap(err))
	}
	if !u.IsAbs() {
		return "", fmt.Errorf("%w: %q: not an absolute URL", ErrBadURL, s)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("%w: %q: scheme %q is not http or https", ErrBadURL, s, u.Scheme)
	}
	if u.Opaque != "" {
		return "", fmt.Errorf("%w: %q: no host (opaque URL)", ErrBadURL, s)
	}
	host, err := cleanHost(u.Hostname())
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrBadURL, s, err)
	}
	if p := u.Port(); p != "" {
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return "", fmt.Errorf("%w: %q: port %s out of range", ErrBadURL, s, p)
		}
		if !(scheme == "http" && port == 80) && !(scheme == "https" && port == 443) {
			host = net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(port))
		}
	}

	var b strings.Builder
	b.WriteString(scheme)
	b.WriteString("://")
	b.WriteString(host)
	b.WriteString(cleanPath(u.EscapedPath()))
	if q := cleanQuery(u.RawQuery); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	out := b.String()
	if len(out) > MaxURLLen {
		return "", fmt.Errorf("%w: %.60q...: longer than %d bytes", ErrBadURL, s, MaxURLLen)
	}
	return out, nil
}

// cleanHost lower-cases a host name, drops its trailing dot, turns an
// internationalised name into its ASCII (punycode) form and checks it.
func cleanHost(h string) (string, error) {
	if h == "" {
		return "", errors.New("no host")
	}
	if strings.Contains(h, ":") {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", fmt.Errorf("bad IPv6 host %q", h)
		}
		return "[" + a.String() + "]", nil
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			a, err := idna.Lookup.ToASCII(h)
			if err != nil {
				return "", fmt.Errorf("bad host %q: %v", h, err)
			}
			h = a
			break
		}
	}
	if h == "" {
		return "", errors.New("no host")
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", fmt.Errorf("bad host %q", h)
		}
	}
	if strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") || strings.Contains(h, "..") {
		return "", fmt.Errorf("bad host %q", h)
	}
	return h, nil
}

// cleanPath normalises an escaped path.
func cleanPath(p string) string {
	p = normalizeEscapes(p, isPathChar)
	if p == "" {
		return "/"
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	trailing := strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..")
	p = path.Clean(p)
	if trailing && p != "/" {
		p += "/"
	}
	return p
}

// cleanQuery drops tracking and empty parameters and sorts the rest by
// name, keeping each parameter's raw (normalised) spelling.
func cleanQuery(raw string) string {
	if raw == "" {
		return ""
	}
	type param struct{ key, raw string }
	var ps []param
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		part = normalizeEscapes(part, isQueryChar)
		k, _, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			key = k
		}
		if key == "" || IsTrackingParam(key) {
			continue
		}
		ps = append(ps, param{key, part})
	}
	slices.SortStableFunc(ps, func(a, b param) int { return strings.Compare(a.key, b.key) })
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.raw
	}
	return strings.Join(parts, "&")
}

// normalizeEscapes rewrites s so that each byte has one spelling:
// percent-escapes of unreserved characters are decoded, other escapes get
// upper-case hex, a '%' not starting an escape becomes "%25", and bytes
// that allowed rejects are escaped.
func normalizeEscapes(s string, allowed func(byte) bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				d := unhex(s[i+1])<<4 | unhex(s[i+2])
				if isUnreserved(d) {
					b.WriteByte(d)
				} else {
					b.WriteByte('%')
					b.WriteByte(hex[d>>4])
					b.WriteByte(hex[d&15])
				}
				i += 2
				continue
			}
			b.WriteString("%25")
			continue
		}
		if allowed(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// isUnreserved: RFC 3986 unreserved characters.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }

func isPathChar(c byte) bool {
	return isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' || c == '/'
}

// isQueryChar: characters left as they are inside one query parameter
// ('&' separates parameters and never reaches here).
func isQueryChar(c byte) bool {
	return isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' || c == '/' || c == '?'
}
