package colly

import "strings"

// whatwgStable reports whether the WHATWG URL parser, with colly's options,
// serialises u exactly as it is, so that scrape may hand u to net/url
// directly: an absolute http or https URL with a lower-case host name or
// dotted-decimal IPv4 address, a port only when it is not the scheme's
// default and written without leading zeros, a path of characters no
// WHATWG percent-encode set holds, valid percent-escapes and no dot
// segment, an optional non-empty query of the same kind (no apostrophe),
// and no fragment. It may say no to a URL the parser would leave alone;
// it never says yes to one the parser would change (whatwg_stable_test.go
// holds it to the parser). Crawlers hand colly URLs of this shape almost
// always, and the parser costs several microseconds a URL.
func whatwgStable(u string) bool {
	rest, https := strings.CutPrefix(u, "https://")
	if !https {
		var ok bool
		if rest, ok = strings.CutPrefix(u, "http://"); !ok {
			return false
		}
	}
	slash := strings.IndexByte(rest, '/')
	if slash <= 0 {
		return false // no host, or no path (the parser adds "/")
	}
	host, rest := rest[:slash], rest[slash:]
	if h, port, ok := strings.Cut(host, ":"); ok {
		if !stablePort(port, https) {
			return false
		}
		host = h
	}
	if !stableHost(host) {
		return false
	}
	path, query, hasQuery := strings.Cut(rest, "?")
	if !stableChars(path, false) || strings.Contains(path, "/.") {
		return false // "/." also starts every dot segment
	}
	return !hasQuery || (query != "" && stableChars(query, true))
}

// stablePort: 1 to 65535 without leading zeros, not the default port.
func stablePort(p string, https bool) bool {
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
	return n <= 65535 && n != 443 && n != 80
}

// stableHost: labels of lower-case letters, digits and inner hyphens, none
// empty or punycode ("xn--"), whose last one is not a number unless the
// whole host is a dotted-decimal IPv4 address (the parser rewrites any
// other host ending in a number as an address).
func stableHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	labels, last := 0, ""
	for rest := h; ; {
		l, more, dot := strings.Cut(rest, ".")
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' || strings.HasPrefix(l, "xn--") {
			return false
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
		labels, last = labels+1, l
		if !dot {
			break
		}
		rest = more
	}
	if !allDigits(last) && !strings.HasPrefix(last, "0x") {
		return true
	}
	if labels != 4 {
		return false
	}
	for rest := h; rest != ""; {
		l, more, _ := strings.Cut(rest, ".")
		if !allDigits(l) || len(l) > 3 || (len(l) > 1 && l[0] == '0') || (len(l) == 3 && l > "255") {
			return false
		}
		rest = more
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// stableChars: RFC 3986's unreserved characters, sub-delimiters, ':', '@'
// and '/' (and '?' in a query, but not the apostrophe the parser encodes
// there), and percent-escapes of two hex digits other than "%2e", the dot
// the parser decodes in dot segments.
func stableChars(s string, query bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case plainURLByte[c]:
		case c == '\'' && !query:
		case c == '?' && query:
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) || (s[i+1] == '2' && (s[i+2] == 'e' || s[i+2] == 'E')) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

// plainURLByte: RFC 3986's unreserved characters, sub-delimiters, ':', '@'
// and '/' but the apostrophe, which stableChars looks at on its own.
var plainURLByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range []byte("-._~!$&()*+,;=:@/") {
		t[c] = true
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
