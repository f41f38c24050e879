package colly

import (
	"strings"
	"testing"
)

// whatwgPieces are URL parts whose combinations exercise whatwgStable.
var whatwgPieces = struct{ schemes, hosts, ports, paths, queries []string }{
	schemes: []string{"http://", "https://", "HTTP://", "ftp://", "http:/", ""},
	hosts: []string{"example.com", "news.163.com", "Example.com", "a-b.c", "-a.com", "a-.com", "a..b", "a.b.", ".a.b",
		"127.0.0.1", "10.0.0.255", "127.1", "0x7f.0.0.1", "1.2.3.256", "01.2.3.4", "1.2.3", "a.1", "a.0x1",
		"xn--fiq228c.com", "exa_mple.com", "ex%41mple.com", "新闻.cn", "[::1]", "user@host.com", ""},
	ports: []string{"", ":8080", ":80", ":443", ":080", ":65535", ":65536", ":0", ":", ":8a"},
	paths: []string{"/", "", "/a/b.html", "/a//b", "/a/./b", "/a/../b", "/a/.", "/a/..", "/.well-known/x", "/a/%2e/b",
		"/a/%2E%2e/b", "/%41%7e%e4%b8%ad", "/100%", "/%zz", "/a b", "/a\tb", "/a\\b", "/a|b^c", "/a`b", "/a{b}",
		"/a\"b", "/a<b>", "/a'b", "/~user/!$&()*+,;=:@", "/中文", "/a#frag", "/A/B/C.HTML"},
	queries: []string{"", "?", "?a=1", "?a=1&b=2", "?q='x'", "?q=%27", "?a=b?c", "?a=%zz", "?a=%", "?a b", "?a=1#f",
		"?a=<b>", "?a=\"b\"", "?a=`b`", "?a={b}", "?utm=1&spm=2", "?a=%2e", "?x=中"},
}

// TestWhatwgStable: whatwgStable says yes only to URLs the WHATWG parser
// serialises unchanged, and says yes to the plain ones crawlers queue.
func TestWhatwgStable(t *testing.T) {
	p := whatwgPieces
	checked, stable := 0, 0
	for _, s := range p.schemes {
		for _, h := range p.hosts {
			for _, port := range p.ports {
				for _, path := range p.paths {
					for _, q := range p.queries {
						u := s + h + port + path + q
						checked++
						if !whatwgStable(u) {
							continue
						}
						stable++
						checkStable(t, u)
					}
				}
			}
		}
	}
	t.Logf("%d URLs, %d taken as stable", checked, stable)
	for _, u := range []string{
		"http://example.com/a/b.html",
		"https://news.163.com/26/1128/09/ABCDEF.html?x=1&y=2",
		"http://127.0.0.1:41234/ch1/a/17.html",
		"https://3g.163.com/news/article/H5L6S9C60001899O.html?clickfrom=index2018_news_newslist",
		"http://example.com/%E6%96%B0%E9%97%BB/a.html",
	} {
		if !whatwgStable(u) {
			t.Errorf("whatwgStable(%q) = false, want true", u)
		}
		checkStable(t, u)
	}
}

func checkStable(t *testing.T, u string) {
	t.Helper()
	w, err := urlParser.Parse(u)
	if err != nil {
		t.Errorf("whatwgStable(%q) = true, but the parser fails: %v", u, err)
		return
	}
	if h := w.Href(false); h != u {
		t.Errorf("whatwgStable(%q) = true, but the parser gives %q", u, h)
	}
}

func FuzzWhatwgStable(f *testing.F) {
	for _, s := range []string{"http://example.com/a", "https://a.b:8080/x?y=1", "http://1.2.3.4/%41", "http://a.1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		if whatwgStable(u) && !strings.ContainsAny(u, "\x00") {
			checkStable(t, u)
		}
	})
}

// BenchmarkWhatwgStable: the check on a plain article URL of the list-API
// benchmark site.
func BenchmarkWhatwgStable(b *testing.B) {
	const u = "http://127.0.0.1:41234/ch1/article/2DJSDAFUD80Q0001.html"
	b.ReportAllocs()
	for b.Loop() {
		if !whatwgStable(u) {
			b.Fatal("not stable")
		}
	}
}
