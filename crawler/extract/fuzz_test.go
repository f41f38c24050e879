package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzExtract feeds arbitrary bytes and content types to Extract: it must
// not panic, and what it returns must be valid UTF-8 with sane numbers.
func FuzzExtract(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "extract", "*.html"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b, "text/html")
		}
	}
	f.Add([]byte(`<script type="application/ld+json">[{"@graph":[{"@type":["NewsArticle"],"image":[[["x"]]],"commentCount":"1e400"}]}]</script>`), "text/html; charset=gbk")
	f.Add([]byte("\xff\xfe<\x00h\x001\x00>"), "")
	rules, err := NewRules(Config{TimeZone: "Asia/Shanghai",
		Selectors: Selectors{Title: sel("h1"), PostTime: sel(".t"), Comments: sel(".c"), Body: sel("p"), Image: sel("img@src")}})
	if err != nil {
		f.Fatal(err)
	}
	plain, _ := NewRules(Config{})
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		for _, r := range []*Rules{rules, plain} {
			p, err := Extract(body, contentType, "https://example.com/a/b.html", r, testNow, Fields{})
			if err != nil {
				continue
			}
			m := p.Merge(Fields{})
			for _, s := range []string{m.Title, m.Source, m.Summary, m.Image, p.Canonical} {
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 %q", s)
				}
			}
			if p.BodyLen < 0 || (m.Comments != nil && *m.Comments < 0) {
				t.Fatalf("negative count: body %d comments %v", p.BodyLen, ptrStr(m.Comments))
			}
		}
	})
}

// FuzzParseJSONList feeds arbitrary JSONP to the list API parser.
func FuzzParseJSONList(f *testing.F) {
	f.Add([]byte(netEaseList), true)
	f.Add([]byte(`{"data":{"list":[{"link":"/a","meta":{"n":"1.2万"}}]}}`), false)
	f.Add([]byte(`cb([{"docid":{"x":1}},null,1,"s"])`), true)
	cfg := JSONList{ItemsPath: "BBM54PGAwangning", URLTemplate: "https://x.example/{docid}.html",
		Fields: map[string]string{"title": "title", "post_time": "ptime", "comments": "replyCount", "image": "imgsrc"}}
	cfg2 := JSONList{ItemsPath: "data.list", Fields: map[string]string{"url": "link", "comments": "meta.n"}}
	f.Fuzz(func(t *testing.T, body []byte, jsonp bool) {
		for _, c := range []JSONList{cfg, cfg2, {Fields: map[string]string{"url": "0"}}} {
			items, skipped, err := ParseJSONList(body, jsonp, c, "https://x.example/api", nil, testNow)
			if err != nil {
				continue
			}
			if skipped < 0 {
				t.Fatal("negative skipped")
			}
			for _, it := range items {
				if it.URL == "" || (it.Comments != nil && *it.Comments < 0) {
					t.Fatalf("bad item %+v", it)
				}
			}
		}
		if out, err := StripJSONP(body); err == nil && len(out) > len(body) {
			t.Fatal("StripJSONP grew its input")
		}
	})
}

// FuzzParseXMLList feeds arbitrary XML to the feed and sitemap parser.
func FuzzParseXMLList(f *testing.F) {
	f.Add([]byte(rss2), "application/rss+xml")
	f.Add([]byte(`<?xml version="1.0" encoding="big5"?><urlset><url><loc>/x</loc></url></urlset>`), "text/xml")
	f.Add([]byte(`<feed><entry><link href="http://[::1"/></entry></feed>`), "")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		l, err := ParseXMLList(body, contentType, "https://example.com/feed", nil, testNow)
		if err != nil {
			return
		}
		for _, it := range l.Items {
			if it.URL == "" {
				t.Fatal("item without URL")
			}
		}
	})
}

// FuzzDecodeHTML checks decoding never panics and always yields UTF-8
// from a known charset.
func FuzzDecodeHTML(f *testing.F) {
	f.Add([]byte(`<meta charset="gbk">\xc4\xe3\xba\xc3`), "")
	f.Add([]byte("\xef\xbb\xbfhello"), "text/html; charset=big5")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		out, name, err := DecodeHTML(body, contentType)
		if err != nil {
			return
		}
		if name == "" {
			t.Fatal("no charset name")
		}
		if !utf8.Valid(out) {
			t.Fatalf("decoded from %s to invalid UTF-8", name)
		}
		if in := bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")); name == "utf-8" && utf8.Valid(in) && !bytes.Equal(in, out) {
			t.Fatal("valid UTF-8 input changed")
		}
	})
}
