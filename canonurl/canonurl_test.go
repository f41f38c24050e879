package canonurl

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://Example.COM/a", "http://example.com/a"},
		{"HTTPS://news.163.com:443/x.html", "https://news.163.com/x.html"},
		{"http://news.163.com:80/x.html", "http://news.163.com/x.html"},
		{"http://news.163.com:8080/x.html", "http://news.163.com:8080/x.html"},
		{"https://news.163.com:80/x.html", "https://news.163.com:80/x.html"},
		{"http://example.com", "http://example.com/"},
		{"http://example.com?b=2&a=1", "http://example.com/?a=1&b=2"},
		{"http://example.com/a#frag", "http://example.com/a"},
		{"http://example.com/a?x=1#!/hash", "http://example.com/a?x=1"},
		{"  http://example.com/a  ", "http://example.com/a"},
		{"http://example.com./a", "http://example.com/a"},
		{"http://user:pw@example.com/a", "http://example.com/a"},
		// tracking parameters
		{"https://x.com/a?utm_source=tw&utm_Medium=s&id=5", "https://x.com/a?id=5"},
		{"https://x.com/a?UTM_CAMPAIGN=z", "https://x.com/a"},
		{"https://x.com/a?spm=1.2.3&from=timeline&fbclid=abc&gclid=q&msclkid=m&id=1", "https://x.com/a?id=1"},
		{"https://x.com/a?id=1&&", "https://x.com/a?id=1"},
		{"https://x.com/a?", "https://x.com/a"},
		// repeated names keep their order; sorting is by name only
		{"https://x.com/a?b=2&a=z&a=y", "https://x.com/a?a=z&a=y&b=2"},
		{"https://x.com/a?flag&b=1", "https://x.com/a?b=1&flag"},
		// path cleaning
		{"http://example.com/a/./b/../c", "http://example.com/a/c"},
		{"http://example.com/a//b/", "http://example.com/a/b/"},
		{"http://example.com/a/..", "http://example.com/"},
		{"http://example.com/../../a", "http://example.com/a"},
		{"http://example.com/a/%2E%2E/b", "http://example.com/b"},
		// percent-encoding
		{"http://example.com/%7euser/%2f", "http://example.com/~user/%2F"},
		{"http://example.com/a%41b", "http://example.com/aAb"},
		{"http://example.com/新闻/a.html", "http://example.com/%E6%96%B0%E9%97%BB/a.html"},
		{"http://example.com/%e6%96%b0%e9%97%bb/a.html", "http://example.com/%E6%96%B0%E9%97%BB/a.html"},
		{"http://example.com/a b", "http://example.com/a%20b"},
		{"http://example.com/a?q=a%20b&r=c+d", "http://example.com/a?q=a%20b&r=c+d"},
		{"http://example.com/a?q=新", "http://example.com/a?q=%E6%96%B0"},
		{"http://[::1]:80/a", "http://[::1]/a"},
		{"http://[::1]:8080/a", "http://[::1]:8080/a"},
		{"http://EXAMPLE.com:0080/a", "http://example.com/a"},
		{"http://[::FFFF:1.2.3.4]/a", "http://[::ffff:1.2.3.4]/a"},
		{"http://新闻.Example.cn/a", "http://xn--efvy88h.example.cn/a"},
		// a NetEase mobile-news article URL: the fragment goes, the query stays
		{"https://3g.163.com/news/article/H5L6S9C60001899O.html?clickfrom=index2018_news_newslist#offset=0",
			"https://3g.163.com/news/article/H5L6S9C60001899O.html?clickfrom=index2018_news_newslist"},
	}
	for _, tt := range tests {
		got, err := Canonical(tt.in)
		if err != nil {
			t.Errorf("Canonical(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
		again, err := Canonical(got)
		if err != nil || again != got {
			t.Errorf("Canonical(Canonical(%q)) = %q, %v; want %q (idempotent)", tt.in, again, err, got)
		}
		if isCanonical(tt.in) && tt.in != tt.want {
			t.Errorf("the fast path takes %q as canonical", tt.in)
		}
	}
}

func TestCanonicalRejects(t *testing.T) {
	tests := []struct{ in, wantMsg string }{
		{"", "empty"},
		{"/news/a.html", "not an absolute URL"},
		{"example.com/a", "not an absolute URL"},
		{"ftp://example.com/a", `scheme "ftp"`},
		{"javascript:alert(1)", `scheme "javascript"`},
		{"mailto:a@b.c", `scheme "mailto"`},
		{"http:///a", "no host"},
		{"http://exa mple.com/a", "invalid character"},
		{"http://example.com:99999999999/a", "out of range"},
		{"http://example.com:0/a", "port 0 out of range"},
		{"http://example.com:70000/a", "port 70000 out of range"},
		{"http://example.com/100%", "invalid URL escape"},
		{"http://]:1", "bad host"},
		{"http://a..b/", "bad host"},
		{"http://a%41b/", "invalid URL escape"},
		{"http://example.com/" + strings.Repeat("a", MaxURLLen), "longer than"},
	}
	for _, tt := range tests {
		got, err := Canonical(tt.in)
		if err == nil {
			t.Errorf("Canonical(%.40q) = %q, want an error", tt.in, got)
			continue
		}
		if !errors.Is(err, ErrBadURL) {
			t.Errorf("Canonical(%.40q) error %v does not wrap ErrBadURL", tt.in, err)
		}
		if !strings.Contains(err.Error(), tt.wantMsg) {
			t.Errorf("Canonical(%.40q) error %q does not say %q", tt.in, err, tt.wantMsg)
		}
	}
}

func TestIsTrackingParam(t *testing.T) {
	for _, p := range []string{"utm_source", "UTM_TERM", "utm_whatever", "spm", "from", "fbclid", "gclid", "Msclkid"} {
		if !IsTrackingParam(p) {
			t.Errorf("IsTrackingParam(%q) = false", p)
		}
	}
	for _, p := range []string{"id", "page", "utm", "fromage", "docid"} {
		if IsTrackingParam(p) {
			t.Errorf("IsTrackingParam(%q) = true", p)
		}
	}
}

func TestCanonicalFastPath(t *testing.T) {
	for _, s := range []string{
		"https://news.example.com/a/000123.html",
		"http://x.com/",
		"https://3g.163.com/news/article/H5L6S9C60001899O.html?clickfrom=index2018_news_newslist",
		"https://x.com/a?a=1&a=0&b=&c",
		"https://x.com:8080/", "http://127.0.0.1:41234/ch1/a/17.html", "https://x.com:80/", "http://x.com:443/a",
		"http://x.com:1/", "http://x.com:65535/",
	} {
		if !isCanonical(s) {
			t.Errorf("fast path misses canonical %q", s)
		}
	}
	for _, s := range []string{
		"https://x.com", "https://X.com/", "https://x.com/a//b",
		"http://x.com:80/", "https://x.com:443/", "http://x.com:/", "http://:8080/", "http://x.com:0/", "http://x.com:08080/",
		"http://x.com:65536/", "http://x.com:123456/", "http://x.com:8o/", "http://x.com:8080:1/", "http://[::1]:8080/", "https://x.com/a/./b",
		"https://x.com/a/..", "https://x.com/a?", "https://x.com/a?b=1&a=1", "https://x.com/a?a=1&", "https://x.com/a?&a=1",
		"https://x.com/a?utm_source=1", "https://x.com/%7e", "https://x.com/a#b", " https://x.com/", "https://x..com/",
		"https://x.com./", "ftp://x.com/", "https://x.com/a?a+b=1",
	} {
		if isCanonical(s) {
			t.Errorf("fast path takes %q as canonical", s)
		}
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"http://a.com/b?c=d#e", "https://X.org:443/%7e/../a?utm_x=1&b=%zz", "http://[::1]:80/",
		"https://x.com/a?a=1&a=0&b=&c", "https://x.com/a/.b/..c/", "https://x.com/a?b=1&a=1",
		"http://127.0.0.1:41234/a", "https://x.com:443/", "http://x.com:080/", "http://x.com:65536/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isCanonical(s) {
			if c, err := canonical(s); err != nil || c != s {
				t.Fatalf("fast path takes %q as canonical; the full path says %q, %v", s, c, err)
			}
		}
		c, err := Canonical(s)
		if err != nil {
			return
		}
		again, err := Canonical(c)
		if err != nil {
			t.Fatalf("Canonical(%q) = %q, which fails again: %v", s, c, err)
		}
		if again != c {
			t.Fatalf("not idempotent: %q → %q → %q", s, c, again)
		}
	})
}

// urlCombos are URLs made of plain and odd parts, for the checks of what
// IsCanonical promises.
func urlCombos() []string {
	schemes := []string{"http://", "https://", "HTTP://", "ftp://", ""}
	hosts := []string{"x.com", "news.163.com", "X.com", "a_b.c-d.org", "127.0.0.1", "x..com", "[::1]", "user@x.com", ""}
	ports := []string{"", ":8080", ":80", ":443", ":080", ":65536", ":"}
	paths := []string{"/", "", "/a/b.html", "/a//b", "/a/./b", "/a/../b", "/a/.", "/.well-known/x", "/a/%2e/b", "/%41",
		"/a b", "/a'b", "/~u/!$&()*+,;=:@", "/中文", "/a#f", "/A/B.HTML", "/a/.b/..c/"}
	queries := []string{"", "?", "?a=1", "?a=1&b=2", "?b=1&a=1", "?q='x'", "?a=%27", "?a=b?c", "?a=1&", "?utm_source=x",
		"?a+b=1", "?a=1#f", "?k=v/w:x@y"}
	var out []string
	for _, s := range schemes {
		for _, h := range hosts {
			for _, p := range ports {
				for _, pa := range paths {
					for _, q := range queries {
						out = append(out, s+h+p+pa+q)
					}
				}
			}
		}
	}
	return out
}

// TestIsCanonical: every URL IsCanonical takes is Canonical's own output
// and is written back unchanged by net/url after a parse, as an absolute
// http(s) URL with a host; it takes plain ones.
func TestIsCanonical(t *testing.T) {
	taken := 0
	for _, s := range urlCombos() {
		if !IsCanonical(s) {
			continue
		}
		taken++
		if c, err := Canonical(s); err != nil || c != s {
			t.Errorf("IsCanonical(%q), but Canonical gives %q, %v", s, c, err)
		}
		u, err := url.Parse(s)
		if err != nil || u.String() != s || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Errorf("IsCanonical(%q), but net/url reads %+v, %v", s, u, err)
		}
	}
	if taken < 100 {
		t.Errorf("IsCanonical took %d URLs, want the plain ones", taken)
	}
}

// TestResolveCanonical: Resolve gives a URL IsCanonical takes back
// as it is, without parsing it: what the parse, the resolution against any
// base and net/url's String give it (the path every other URL takes), for
// plain and odd URLs, against no base and bases of either scheme.
func TestResolveCanonical(t *testing.T) {
	slow := func(base *url.URL, ref string) string {
		ref = strings.TrimSpace(ref)
		if ref == "" {
			return ""
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
	var bases []*url.URL
	for _, b := range []string{"http://x.com/list/", "https://news.163.com:8443/a/b.html?p=2", "http://127.0.0.1:41234/api/list/ch1/0-20.html"} {
		u, err := url.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		bases = append(bases, u)
	}
	bases = append(bases, nil)
	taken := 0
	for _, s := range []string{"http://", "https://", "HTTPS://", ""} {
		for _, h := range []string{"x.com", "a_b.c-d.org", "127.0.0.1:41234", "x.com:80", "X.com", "[::1]:8080", ""} {
			for _, p := range []string{"/", "", "/a/b.html", "/a//b", "/a/./b", "/a/../b", "/%41", "/a'b", "/~u/!$&()*+,;=:@", "/中文", "/a#f"} {
				for _, q := range []string{"", "?", "?a=1&b=2", "?b=1&a=1", "?q='x'", "?a=b?c", "?utm_source=x", "?k=v/w:x@y"} {
					ref := s + h + p + q
					if IsCanonical(ref) {
						taken++
					}
					for _, b := range bases {
						if got, want := Resolve(b, ref), slow(b, ref); got != want {
							t.Errorf("Resolve(%v, %q) = %q, want %q", b, ref, got, want)
						}
					}
				}
			}
		}
	}
	if taken < 50 {
		t.Errorf("%d URLs took the fast path, want the plain ones", taken)
	}
}

// TestResolve: the links a crawler can follow, and those it cannot.
func TestResolve(t *testing.T) {
	base, _ := url.Parse("https://news.example.com/world/")
	for _, c := range []struct {
		base      *url.URL
		ref, want string
	}{
		{base, " a.html ", "https://news.example.com/world/a.html"},
		{base, "//cdn.example.com/x", "https://cdn.example.com/x"},
		{base, "/feed?p=2#top", "https://news.example.com/feed?p=2#top"},
		{nil, "http:///no-host", ""},
		{nil, "a.html", ""},
		{base, "mailto:desk@example.com", ""},
		{base, "javascript:void(0)", ""},
		{base, "  ", ""},
		{base, "http://[::1", ""},
	} {
		if got := Resolve(c.base, c.ref); got != c.want {
			t.Errorf("Resolve(%v, %q) = %q, want %q", c.base, c.ref, got, c.want)
		}
	}
}
