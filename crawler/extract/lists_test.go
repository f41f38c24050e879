package extract

import (
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/newsrank/newsrank/crawler/dates"
)

func TestParseHTMLList(t *testing.T) {
	page := `<html><body><ul class="list">
<li><a class="t" href="/a/1.html">One</a></li>
<li><a class="t" href="https://example.com/a/2.html#top">Two</a></li>
<li><a class="t" href="/a/1.html">One again</a></li>
<li><a class="t" href="mailto:x@example.com">mail</a></li>
<li><a class="t" data-href="/a/3.html">No href</a></li>
</ul><div class="pager"><a class="next" href="?page=2">下一页</a></div></body></html>`
	items, next, err := ParseHTMLList([]byte(page), "text/html", "https://example.com/list/", sel("ul.list a.t"), sel("div.pager a.next"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.URL)
	}
	want := []string{"https://example.com/a/1.html", "https://example.com/a/2.html#top"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("links = %q, want %q", got, want)
	}
	if next != "https://example.com/list/?page=2" {
		t.Errorf("next = %q", next)
	}
	// An attribute selector reads data-href instead.
	items, _, err = ParseHTMLList([]byte(page), "text/html", "https://example.com/list/", sel("ul.list a.t@data-href"), Selector{})
	if err != nil || len(items) != 1 || items[0].URL != "https://example.com/a/3.html" {
		t.Errorf("@data-href: %v %v", items, err)
	}
	for _, bad := range []string{"ul[", "@href", "a@1x"} {
		if _, err := CompileSelector(bad); err == nil {
			t.Errorf("CompileSelector(%q): a bad selector is not an error", bad)
		}
	}
}

const rss2 = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:slash="http://purl.org/rss/1.0/modules/slash/"
 xmlns:media="http://search.yahoo.com/mrss/" xmlns:atom="http://www.w3.org/2005/Atom">
<channel><title>World</title><link>https://example.com/world/</link>
<atom:link href="https://example.com/world/rss.xml" rel="self"/>
<item>
  <title>Talks resume in Geneva</title>
  <atom:link href="https://example.com/amp/geneva" rel="amphtml"/>
  <link>https://example.com/world/geneva?utm_source=rss</link>
  <description><![CDATA[<p>Diplomats <b>met</b> again.</p>]]></description>
  <pubDate>Tue, 05 Mar 2024 09:30:00 +0000</pubDate>
  <slash:comments>17</slash:comments>
  <media:content url="https://img.example.com/geneva.jpg" medium="image"/>
  <source url="https://wire.example.com/rss">Wire Service</source>
</item>
<item>
  <title>Only a guid</title>
  <guid isPermaLink="true">https://example.com/world/guid-only</guid>
  <dc:date>2024-03-04T08:00:00+01:00</dc:date>
  <enclosure url="/audio.mp3" type="audio/mpeg"/>
  <enclosure url="/pic.png" type="image/png"/>
</item>
<item><title>No link at all</title><guid isPermaLink="false">abc-123</guid></item>
</channel></rss>`

func TestParseXMLListRSS(t *testing.T) {
	l, err := ParseXMLList([]byte(rss2), "application/rss+xml", "https://example.com/world/rss.xml", nil, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 {
		t.Fatalf("items = %+v, want 2", l.Items)
	}
	a := l.Items[0]
	if a.URL != "https://example.com/world/geneva?utm_source=rss" {
		t.Errorf("URL = %q", a.URL)
	}
	checkFields(t, a.Fields, Fields{Title: "Talks resume in Geneva", Summary: "Diplomats met again.",
		PostTime: time.Date(2024, 3, 5, 9, 30, 0, 0, time.UTC), Comments: i64(17),
		Image: "https://img.example.com/geneva.jpg", Source: "Wire Service"})
	b := l.Items[1]
	if b.URL != "https://example.com/world/guid-only" || b.Image != "https://example.com/pic.png" ||
		!b.PostTime.Equal(time.Date(2024, 3, 4, 7, 0, 0, 0, time.UTC)) {
		t.Errorf("guid item = %+v", b)
	}
}

func TestParseXMLListAtomAndRDF(t *testing.T) {
	atom := `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:thr="http://purl.org/syndication/thread/1.0">
<title>Sports</title>
<entry><title type="html">Derby ends 2&amp;ndash;2</title>
 <link rel="replies" href="/sports/derby#comments"/>
 <link href="/sports/derby.html"/>
 <id>tag:example.com,2024:derby</id>
 <published>2024-05-01T20:45:00+02:00</published><updated>2024-05-02T08:00:00+02:00</updated>
 <summary>A late equaliser.</summary><thr:total>230</thr:total>
 <link rel="enclosure" type="image/jpeg" href="/img/derby.jpg"/>
</entry>
<entry><title>Updated only</title><id>https://example.com/sports/u</id><updated>2024-05-03T00:00:00Z</updated></entry>
</feed>`
	l, err := ParseXMLList([]byte(atom), "application/atom+xml", "https://example.com/sports/atom.xml", nil, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 {
		t.Fatalf("items = %+v", l.Items)
	}
	if l.Items[0].URL != "https://example.com/sports/derby.html" || *l.Items[0].Comments != 230 ||
		l.Items[0].Image != "https://example.com/img/derby.jpg" || !l.Items[0].PostTime.Equal(time.Date(2024, 5, 1, 18, 45, 0, 0, time.UTC)) {
		t.Errorf("atom entry = %+v", l.Items[0])
	}
	if l.Items[1].URL != "https://example.com/sports/u" || !l.Items[1].PostTime.Equal(time.Date(2024, 5, 3, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("atom entry 2 = %+v", l.Items[1])
	}

	rdf := `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="https://example.com/"><title>RDF</title></channel>
<item rdf:about="https://example.com/rdf/1"><title>RDF one</title><link>https://example.com/rdf/1</link><dc:date>2024-01-01T00:00:00Z</dc:date></item>
</rdf:RDF>`
	l, err = ParseXMLList([]byte(rdf), "text/xml", "https://example.com/index.rdf", nil, testNow)
	if err != nil || len(l.Items) != 1 || l.Items[0].URL != "https://example.com/rdf/1" || l.Items[0].Title != "RDF one" {
		t.Errorf("rdf = %+v, %v", l, err)
	}
}

func TestParseXMLListSitemaps(t *testing.T) {
	index := `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://example.com/sitemap-news.xml</loc></sitemap>
<sitemap><loc>/sitemap-2024-03-05.xml.gz</loc><lastmod>2024-03-05</lastmod></sitemap>
</sitemapindex>`
	l, err := ParseXMLList([]byte(index), "application/xml", "https://example.com/sitemap_index.xml", nil, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(l.Sitemaps, " ") != "https://example.com/sitemap-news.xml https://example.com/sitemap-2024-03-05.xml.gz" || len(l.Items) != 0 {
		t.Errorf("index = %+v", l)
	}

	sh, _ := time.LoadLocation("Asia/Shanghai")
	newsMap := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
 xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
<url><loc>https://example.com/finance/20240305/a1.shtml</loc>
 <news:news><news:publication><news:name>财经频道</news:name><news:language>zh</news:language></news:publication>
 <news:publication_date>2024-03-05T09:30:00+08:00</news:publication_date><news:title>央行宣布降准</news:title></news:news>
 <image:image><image:loc>https://img.example.com/a1.jpg</image:loc></image:image>
</url>
<url><loc>https://example.com/finance/20240304/a0.shtml</loc><lastmod>2024-03-04</lastmod></url>
</urlset>`
	l, err = ParseXMLList([]byte(newsMap), "application/xml", "https://example.com/sitemap-news.xml", &Rules{times: dates.Reader{Loc: sh}}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 {
		t.Fatalf("items = %+v", l.Items)
	}
	checkFields(t, l.Items[0].Fields, Fields{Title: "央行宣布降准", Source: "财经频道",
		PostTime: time.Date(2024, 3, 5, 1, 30, 0, 0, time.UTC), Image: "https://img.example.com/a1.jpg"})
	if !l.Items[1].Fields.Empty() {
		t.Errorf("plain sitemap URL carries fields: %+v (lastmod is not a post time)", l.Items[1].Fields)
	}
}

func TestParseXMLListCharsets(t *testing.T) {
	feed := `<?xml version="1.0" encoding="gbk"?><rss version="2.0"><channel>
<item><title>国内新闻标题</title><link>https://example.com/n/1.html</link></item></channel></rss>`
	gbk, err := simplifiedchinese.GBK.NewEncoder().String(feed)
	if err != nil {
		t.Fatal(err)
	}
	// The declaration names the charset.
	l, err := ParseXMLList([]byte(gbk), "text/xml", "https://example.com/rss.xml", nil, testNow)
	if err != nil || len(l.Items) != 1 || l.Items[0].Title != "国内新闻标题" {
		t.Fatalf("gbk declared: %+v, %v", l, err)
	}
	// When the HTTP header named a charset, the fetcher already decoded
	// the body (colly), and the stale declaration must be ignored.
	l, err = ParseXMLList([]byte(feed), "text/xml; charset=utf-8", "https://example.com/rss.xml", nil, testNow)
	if err != nil || len(l.Items) != 1 || l.Items[0].Title != "国内新闻标题" {
		t.Fatalf("decoded body: %+v, %v", l, err)
	}
}

func TestParseXMLListErrors(t *testing.T) {
	for _, body := range []string{"", "not xml at all", `<html><body>oops</body></html>`, `<?xml version="1.0"?><rss><channel><item>`} {
		_, err := ParseXMLList([]byte(body), "text/xml", "https://example.com/f", nil, testNow)
		if !errors.Is(err, ErrBadList) {
			t.Errorf("ParseXMLList(%q) error = %v, want ErrBadList", body, err)
		}
	}
}

func TestStripJSONP(t *testing.T) {
	tests := []struct{ in, want string }{
		{`artiList({"a":1})`, `{"a":1}`},
		{"  artiList( {\"a\":1} );\n", `{"a":1}`},
		{`/**/ typeof cb === 'function' && cb([1,2]);`, `[1,2]`},
		{`jQuery1234_5678({"x":"(y)"})`, `{"x":"(y)"}`},
		{`window.callbacks.f1([])`, `[]`},
		{"\ufeff{\"plain\":true}", `{"plain":true}`},
	}
	for _, tt := range tests {
		got, err := StripJSONP([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("StripJSONP(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "alert(1", "<html>", "1+f({})", "f({})x"} {
		if _, err := StripJSONP([]byte(bad)); !errors.Is(err, ErrBadList) {
			t.Errorf("StripJSONP(%q) error = %v, want ErrBadList", bad, err)
		}
	}
}

// netEaseList is shaped like NetEase's mobile news list API: JSONP
// (artiList(...)), the items under a column id, times without a zone.
const netEaseList = `artiList({"BBM54PGAwangning":[
{"docid":"DHV6L1U00001875N","title":"国务院常务会议部署促进消费措施","ptime":"2018-05-10 09:55:47","replyCount":1234,
 "source":"新华社","digest":"会议指出...","imgsrc":"http://cms-bucket.nosdn.127.net/a.jpg","url_3w":""},
{"docid":"DHV6L1U00001875M","title":"第二条","ptime":"2018-05-10 08:00:00","replyCount":"0","source":"人民网"},
{"title":"没有 docid 的条目"},
{"docid":"has space","title":"坏 docid"}
]})`

func TestParseJSONList(t *testing.T) {
	sh, _ := time.LoadLocation("Asia/Shanghai")
	cfg := JSONList{
		ItemsPath:   "BBM54PGAwangning",
		URLTemplate: "https://3g.163.com/news/article/{docid}.html",
		Fields: map[string]string{"title": "title", "post_time": "ptime", "comments": "replyCount",
			"source": "source", "summary": "digest", "image": "imgsrc"},
	}
	items, skipped, err := ParseJSONList([]byte(netEaseList), true, cfg, "https://3g.163.com/touch/reconstruct/article/list/BBM54PGAwangning/0-10.html", &Rules{times: dates.Reader{Loc: sh}}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || skipped != 2 {
		t.Fatalf("items = %d, skipped = %d; want 2, 2", len(items), skipped)
	}
	if items[0].URL != "https://3g.163.com/news/article/DHV6L1U00001875N.html" {
		t.Errorf("URL = %q", items[0].URL)
	}
	checkFields(t, items[0].Fields, Fields{Title: "国务院常务会议部署促进消费措施", PostTime: time.Date(2018, 5, 10, 1, 55, 47, 0, time.UTC),
		Comments: i64(1234), Source: "新华社", Summary: "会议指出...", Image: "http://cms-bucket.nosdn.127.net/a.jpg"})
	if items[1].Comments == nil || *items[1].Comments != 0 {
		t.Errorf("a zero comment count is a count: %v", ptrStr(items[1].Comments))
	}

	// Plain JSON, nested path, url field instead of a template.
	api := `{"code":0,"data":{"list":[{"link":"/a/1","meta":{"n":5}},{"link":"https://other.example/b"}]}}`
	items, _, err = ParseJSONList([]byte(api), false, JSONList{ItemsPath: "data.list",
		Fields: map[string]string{"url": "link", "comments": "meta.n"}}, "https://api.example.com/v1/list?p=1", nil, testNow)
	if err != nil || len(items) != 2 || items[0].URL != "https://api.example.com/a/1" || *items[0].Comments != 5 {
		t.Errorf("plain json = %+v, %v", items, err)
	}

	for _, tt := range []struct{ body, path string }{
		{`{"data":{}}`, "data.list"},
		{`{"data":{"list":{"a":1}}}`, "data.list"},
		{`{"data":`, "data"},
	} {
		if _, _, err := ParseJSONList([]byte(tt.body), false, JSONList{ItemsPath: tt.path, Fields: map[string]string{"url": "u"}}, "https://x.example/", nil, testNow); !errors.Is(err, ErrBadList) {
			t.Errorf("ParseJSONList(%q) error = %v, want ErrBadList", tt.body, err)
		}
	}
	// A null list is an empty page, not an error.
	if items, _, err := ParseJSONList([]byte(`{"list":null}`), false, JSONList{ItemsPath: "list", Fields: map[string]string{"url": "u"}}, "https://x.example/", nil, testNow); err != nil || len(items) != 0 {
		t.Errorf("null list: %v, %v", items, err)
	}
}

// TestFeedRules holds the feed rules feeds.go lists (URL, plain-text
// title, post time, comments, image), one feed each.
func TestFeedRules(t *testing.T) {
	const feedURL = "https://example.com/blog/feed.xml"
	tests := []struct {
		name, body string
		url, title string
		time       string // RFC 3339, "" for none
		items      int
	}{
		{"xml:base on the feed", `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://base.example/news/"><entry><title>a</title><link href="a.html"/></entry></feed>`,
			"https://base.example/news/a.html", "a", "", 1},
		{"xml:base on the entry", `<feed xmlns="http://www.w3.org/2005/Atom"><entry xml:base="/posts/"><title>a</title><link href="a.html"/></entry></feed>`,
			"https://example.com/posts/a.html", "a", "", 1},
		{"xml:base on the link", `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>a</title><link xml:base="https://cdn.example/x/" href="a.html"/></entry></feed>`,
			"https://cdn.example/x/a.html", "a", "", 1},
		{"xml:base in RSS", `<rss version="2.0" xml:base="https://base.example/r/"><channel><item><title>a</title><link>a.html</link></item></channel></rss>`,
			"https://base.example/r/a.html", "a", "", 1},
		{"isPermaLink False", `<rss version="2.0"><channel><item><title>a</title><guid isPermaLink="False">https://example.com/not-a-page</guid></item></channel></rss>`,
			"", "", "", 0},
		{"relative permalink guid", `<rss version="2.0"><channel><item><title>a</title><guid>/p/1.html</guid></item></channel></rss>`,
			"https://example.com/p/1.html", "a", "", 1},
		{"control character in a title", "<rss version=\"2.0\"><channel><item><title>a\bb</title><link>https://example.com/1</link></item><item><title>c</title><link>https://example.com/2</link></item></channel></rss>",
			"https://example.com/1", "ab", "", 2},
		{"xhtml title", `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">The <b>big</b> &amp; small</div></title><link href="https://example.com/1"/></entry></feed>`,
			"https://example.com/1", "The big & small", "", 1},
		{"markup in an RSS title", `<rss version="2.0"><channel><item><title><![CDATA[<em>Breaking</em>: it&#8217;s out]]></title><link>https://example.com/1</link></item></channel></rss>`,
			"https://example.com/1", "Breaking: it’s out", "", 1},
		{"Atom 0.3 base64 title and issued", `<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry><title mode="base64">SGVsbG8gd29ybGQ=</title><link rel="alternate" href="https://example.com/1"/><issued>2021-11-19T08:07:06-05:00</issued></entry></feed>`,
			"https://example.com/1", "Hello world", "2021-11-19T13:07:06Z", 1},
		{"Atom 0.3 modified", `<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry><title>a</title><link rel="alternate" href="https://example.com/1"/><modified>2021-11-19T08:07:06Z</modified></entry></feed>`,
			"https://example.com/1", "a", "2021-11-19T08:07:06Z", 1},
		{"atom:published in RSS", `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><item><title>a</title><link>https://example.com/1</link><atom:published>2021-11-19T08:07:06+08:00</atom:published></item></channel></rss>`,
			"https://example.com/1", "a", "2021-11-19T00:07:06Z", 1},
		{"named zone in pubDate", `<rss version="2.0"><channel><item><title>a</title><link>https://example.com/1</link><pubDate>Fri, 19 Nov 2021 08:07:06 PST</pubDate></item></channel></rss>`,
			"https://example.com/1", "a", "2021-11-19T16:07:06Z", 1},
		{"JSON Feed 1.1", `{"version":"https://jsonfeed.org/version/1.1","title":"t","items":[{"id":"1","url":"/p/1","title":"Hi &amp; bye","date_published":"2021-11-19T08:07:06-05:00","image":"/i.png"},{"id":"2","content_text":"no url"}]}`,
			"https://example.com/p/1", "Hi & bye", "2021-11-19T13:07:06Z", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseXMLList([]byte(tt.body), "", feedURL, nil, testNow)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Items) != tt.items {
				t.Fatalf("%d items, want %d: %+v", len(l.Items), tt.items, l.Items)
			}
			if tt.items == 0 {
				return
			}
			it := l.Items[0]
			got := ""
			if !it.PostTime.IsZero() {
				got = it.PostTime.UTC().Format(time.RFC3339)
			}
			if it.URL != tt.url || it.Title != tt.title || got != tt.time {
				t.Errorf("got %q %q %q, want %q %q %q", it.URL, it.Title, got, tt.url, tt.title, tt.time)
			}
		})
	}
}
