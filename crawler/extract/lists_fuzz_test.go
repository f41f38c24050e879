package extract_test

import (
	"net/url"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/newsrank/newsrank/crawler/extract"
)

// FuzzParseHTMLList feeds arbitrary bytes and content types to the HTML
// list parser the producer reads list pages with. It must not panic, and
// what it returns must be usable: distinct absolute http(s) article URLs
// in valid UTF-8, a next-page URL that is empty or absolute, and the same
// answer twice.
func FuzzParseHTMLList(f *testing.F) {
	for _, seed := range []struct{ body, ct string }{
		{`<ul><li><a class="t" href="/a/1.html">One</a></li><li><a class="t" href="a/2.html?x=1#f">Two</a></li></ul><a class="next" href="?page=2">下一页</a>`, "text/html; charset=utf-8"},
		{`<a class="t" href="javascript:void(0)">x</a><a class="t" href="mailto:a@b">y</a><a class="t" href="//cdn.example.com/x">z</a>`, ""},
		{`<base href="https://other.example/dir/"><a class="t" href="x.html">x</a><a class="t" data-url="/d.html">d</a>`, "text/html"},
		{"<meta charset=\"gbk\"><a class=\"t\" href=\"/\xc4\xe3.html\">\xc4\xe3\xba\xc3</a>", ""},
		{`<a class="t" href="http://[::1">bad</a><a class="t" href="https://例え.jp/記事">idn</a><a class="next" href="%zz">n</a>`, "text/html; charset=big5"},
		{"\xff\xfe<\x00a\x00 \x00h\x00r\x00e\x00f\x00=\x00\"\x00/\x00x\x00\"\x00>\x00", ""},
	} {
		f.Add([]byte(seed.body), seed.ct)
	}
	const page = "https://news.example.com/list/index.html"
	sels := [][2]extract.Selector{}
	for _, s := range [][2]string{{"a.t", "a.next"}, {"a.t@data-url", ""}, {"a", "a"}} {
		sels = append(sels, [2]extract.Selector{extract.MustCompileSelector(s[0]), extract.MustCompileSelector(s[1])})
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		for _, sel := range sels {
			items, next, err := extract.ParseHTMLList(body, contentType, page, sel[0], sel[1])
			if err != nil {
				continue
			}
			seen := map[string]bool{}
			for _, it := range items {
				u, err := url.Parse(it.URL)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					t.Fatalf("item URL %q is not an absolute http(s) URL (%v)", it.URL, err)
				}
				if !utf8.ValidString(it.URL) {
					t.Fatalf("item URL %q is not UTF-8", it.URL)
				}
				if seen[it.URL] {
					t.Fatalf("item URL %q listed twice", it.URL)
				}
				seen[it.URL] = true
			}
			if next != "" {
				if u, err := url.Parse(next); err != nil || !u.IsAbs() {
					t.Fatalf("next URL %q is not absolute (%v)", next, err)
				}
			}
			again, next2, err := extract.ParseHTMLList(body, contentType, page, sel[0], sel[1])
			if err != nil || next2 != next || !slices.EqualFunc(items, again, func(a, b extract.ListItem) bool { return a.URL == b.URL }) {
				t.Fatalf("ParseHTMLList is not deterministic on %q", body)
			}
		}
	})
}
