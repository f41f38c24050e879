package canonurl_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/newsrank/newsrank/canonurl"
)

// FuzzCanonicalOutput checks what Canonical promises about its output,
// whatever the input: an error is always ErrBadURL; a result is at most
// MaxURLLen printable ASCII bytes that net/url parses as an absolute
// http(s) URL with a lower-case host, no user info, default port,
// fragment, dot segment, repeated slash, empty or tracking parameter,
// with its parameters sorted by name; and net/url's own rendering of it
// canonicalises back to it. (FuzzCanonical, beside Canonical's other
// tests, checks idempotence and the fast path.)
func FuzzCanonicalOutput(f *testing.F) {
	for _, s := range []string{
		"https://News.Example.COM:443/a/./b/../c//d?utm_source=x&b=2&a=1#top",
		"http://user:pw@example.com:80/%7euser/%e4%b8%ad?q=%zz&q=1&spm=a.b",
		"https://例え.jp/ニュース?名前=値",
		"http://[::1]:8080/a?x=1+2&x=0",
		"https://example.com./?&&a=&b",
		"HTTP://EXAMPLE.com/a%2Fb?%41=%42",
		"https://example.com/a b\t/c?d=e f",
		"https://3g.163.com/news/article/DH9JGL5N0001875O.html?from=index&spm=1",
		"ftp://example.com/",
		"//example.com/a",
		"https://exa_mple.com/;p?q#f",
		"http://127.0.0.1:65536/",
		"https://example.com/" + strings.Repeat("a", 5000),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := canonurl.Canonical(s)
		if err != nil {
			if !errors.Is(err, canonurl.ErrBadURL) {
				t.Fatalf("Canonical(%q): error %v does not wrap ErrBadURL", s, err)
			}
			return
		}
		if len(c) > canonurl.MaxURLLen {
			t.Fatalf("Canonical(%q) = %d bytes, more than MaxURLLen", s, len(c))
		}
		for i := 0; i < len(c); i++ {
			if c[i] <= ' ' || c[i] >= 0x7f {
				t.Fatalf("Canonical(%q) = %q holds byte %#x", s, c, c[i])
			}
		}
		u, err := url.Parse(c)
		if err != nil {
			t.Fatalf("Canonical(%q) = %q, which net/url cannot parse: %v", s, c, err)
		}
		switch {
		case u.Scheme != "http" && u.Scheme != "https":
			t.Fatalf("Canonical(%q) = %q: scheme %q", s, c, u.Scheme)
		case u.Host == "" || u.Opaque != "":
			t.Fatalf("Canonical(%q) = %q: no host", s, c)
		case u.Host != strings.ToLower(u.Host):
			t.Fatalf("Canonical(%q) = %q: host not lower-case", s, c)
		case u.User != nil:
			t.Fatalf("Canonical(%q) = %q keeps user info", s, c)
		case strings.Contains(c, "#"):
			t.Fatalf("Canonical(%q) = %q keeps a fragment", s, c)
		case (u.Scheme == "http" && u.Port() == "80") || (u.Scheme == "https" && u.Port() == "443"):
			t.Fatalf("Canonical(%q) = %q keeps the default port", s, c)
		case !strings.HasPrefix(u.EscapedPath(), "/"):
			t.Fatalf("Canonical(%q) = %q: path does not start with /", s, c)
		}
		p := u.EscapedPath()
		if strings.Contains(p, "//") || strings.Contains(p+"/", "/./") || strings.Contains(p+"/", "/../") {
			t.Fatalf("Canonical(%q) = %q: path %q is not clean", s, c, p)
		}
		if u.RawQuery != "" || strings.HasSuffix(c, "?") {
			prev := ""
			for i, part := range strings.Split(u.RawQuery, "&") {
				k, v, _ := strings.Cut(part, "=")
				name, err := url.QueryUnescape(k)
				if err != nil {
					t.Fatalf("Canonical(%q) = %q: parameter %q does not unescape: %v", s, c, k, err)
				}
				if part == "" || (k == "" && v == "") {
					t.Fatalf("Canonical(%q) = %q keeps an empty parameter", s, c)
				}
				if canonurl.IsTrackingParam(name) {
					t.Fatalf("Canonical(%q) = %q keeps the tracking parameter %q", s, c, name)
				}
				if i > 0 && name < prev {
					t.Fatalf("Canonical(%q) = %q: parameters not sorted (%q after %q)", s, c, name, prev)
				}
				prev = name
			}
		}
		if again, err := canonurl.Canonical(u.String()); err != nil || again != c {
			t.Fatalf("Canonical(%q) = %q; net/url renders it %q, which canonicalises to %q (%v)", s, c, u.String(), again, err)
		}
	})
}
