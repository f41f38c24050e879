package crawler

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/internal/corpus"
)

func itemURLs(t *testing.T, doc []byte) []string {
	t.Helper()
	l, err := extract.ParseXMLList(doc, "", "https://feeds.example.com/f.xml", nil, testNow)
	if err != nil {
		t.Fatalf("extract.ParseXMLList(%q): %v", doc, err)
	}
	var out []string
	for _, it := range l.Items {
		out = append(out, it.URL)
	}
	return out
}

// TestCutHead: a head cut anywhere reads as the whole entries before the
// cut, in every feed format and a sitemap, prefixes and CDATA included.
func TestCutHead(t *testing.T) {
	docs := map[string]string{
		"rss2": `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>` +
			`<item><title>A</title><link>https://x.test/a</link><description><![CDATA[<p>x</item> y</p>]]></description></item>` +
			`<item><title>B</title><link>https://x.test/b</link></item>` +
			`<item><title>C</title><link>https://x.test/c</link></item></channel></rss>`,
		"rdf": `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">` +
			`<channel rdf:about="https://x.test/"><title>T</title></channel>` +
			`<item rdf:about="https://x.test/a"><title>A</title><link>https://x.test/a</link></item>` +
			`<item rdf:about="https://x.test/b"><title>B</title><link>https://x.test/b</link></item>` +
			`<item rdf:about="https://x.test/c"><title>C</title><link>https://x.test/c</link></item></rdf:RDF>`,
		"atom prefixed": `<?xml version="1.0"?><a:feed xmlns:a="http://www.w3.org/2005/Atom"><a:title>T</a:title>` +
			`<a:entry><a:title>A</a:title><a:link href="https://x.test/a"/><a:id>1</a:id></a:entry>` +
			`<a:entry><a:title>B &amp; b&nbsp;</a:title><a:link href="https://x.test/b"/><a:id>2</a:id></a:entry>` +
			`<a:entry><a:title>C</a:title><a:link href="https://x.test/c"/><a:id>3</a:id></a:entry></a:feed>`,
		"sitemap": `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
			`<url><loc>https://x.test/a</loc></url><url><loc>https://x.test/b</loc></url>` +
			`<url><loc>https://x.test/c</loc></url></urlset>`,
	}
	for name, doc := range docs {
		all := itemURLs(t, []byte(doc))
		if len(all) != 3 {
			t.Fatalf("%s: %d items whole", name, len(all))
		}
		prev := 0
		for n := 1; n <= len(doc); n++ {
			head, err := cutHead([]byte(doc[:n]))
			if errors.Is(err, errNoWholeEntry) {
				if prev != 0 {
					t.Fatalf("%s: cut at %d reads no entry after %d did", name, n, prev)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: cut at %d: %v", name, n, err)
			}
			got := itemURLs(t, head)
			if len(got) < prev || len(got) == 0 || strings.Join(got, " ") != strings.Join(all[:len(got)], " ") {
				t.Fatalf("%s: cut at %d reads %q, want a prefix of %q of at least %d", name, n, got, all, prev)
			}
			prev = len(got)
		}
		if prev != 3 {
			t.Errorf("%s: the whole document cut reads %d entries", name, prev)
		}
	}
}

// TestCutHeadCorpus cuts every feed of gofeed's test corpus that lists
// entries with links at eight points: a cut that reads (it may hold no
// whole entry) gives the document's first entries, in order, never
// another; the whole document cut gives them all.
func TestCutHeadCorpus(t *testing.T) {
	root := filepath.Join(corpus.ModuleDir(t, "github.com/mmcdole/gofeed"), "testdata")
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".xml") {
			files = append(files, p)
		}
		return err
	})
	feeds, cuts, read := 0, 0, 0
	for _, p := range files {
		body, _ := os.ReadFile(p)
		l, err := extract.ParseXMLList(body, "", "https://feeds.example.com/f.xml", nil, testNow)
		if err != nil || len(l.Items) == 0 {
			continue
		}
		all := make([]string, len(l.Items))
		for i, it := range l.Items {
			all[i] = it.URL + "\x00" + it.Title
		}
		feeds++
		for k := 1; k <= 8; k++ {
			n := len(body) * k / 8
			cuts++
			head, err := cutHead(body[:n])
			if err != nil {
				if k == 8 {
					t.Errorf("%s whole: %v", filepath.Base(p), err)
				}
				continue
			}
			h, err := extract.ParseXMLList(head, "", "https://feeds.example.com/f.xml", nil, testNow)
			if err != nil {
				t.Errorf("%s cut at %d/%d: %v", filepath.Base(p), n, len(body), err)
				continue
			}
			read++
			if k == 8 && len(h.Items) != len(all) {
				t.Errorf("%s whole: %d entries, the document %d", filepath.Base(p), len(h.Items), len(all))
			}
			for i, it := range h.Items {
				if i >= len(all) || it.URL+"\x00"+it.Title != all[i] {
					t.Errorf("%s cut at %d/%d: entry %d %q, not the document's", filepath.Base(p), n, len(body), i, it.URL)
					break
				}
			}
		}
	}
	if feeds < 30 || read < 40 {
		t.Fatalf("%d feeds with items, %d of %d cuts read: the corpus or cutHead is not what it was", feeds, read, cuts)
	}
	t.Logf("%d feeds, %d of %d cuts read", feeds, read, cuts)
}

func TestContentRange(t *testing.T) {
	for v, want := range map[string][3]int64{
		"bytes 0-99/1000": {0, 99, 1000}, "bytes 100-999/1000": {100, 999, 1000}, "bytes 0-9/*": {0, 9, -1},
	} {
		h := http.Header{"Content-Range": {v}}
		a, b, c, err := contentRange(h)
		if err != nil || [3]int64{a, b, c} != want {
			t.Errorf("%q: %d %d %d %v, want %v", v, a, b, c, err, want)
		}
	}
	for _, v := range []string{"", "bytes */1000", "bytes 0-1000/1000", "bytes 9-1/100", "items 0-9/10", "bytes -1-9/10", "bytes 0-x/10"} {
		if _, _, _, err := contentRange(http.Header{"Content-Range": {v}}); err == nil {
			t.Errorf("%q read", v)
		}
	}
}

// TestHeadSize: only a feed sent whole, uncompressed, by a server that
// takes byte ranges, dated newest first and well over a head, is read by
// its head.
func TestHeadSize(t *testing.T) {
	doc := func(n int, step time.Duration) []byte {
		var b strings.Builder
		b.WriteString(`<rss version="2.0"><channel><title>T</title>`)
		t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
		for i := range n {
			b.WriteString(`<item><title>Item ` + strconv.Itoa(i) + `</title><link>https://x.test/` + strconv.Itoa(i) +
				`</link><pubDate>` + t0.Add(-time.Duration(i)*step).Format(time.RFC1123Z) + `</pubDate><description>` +
				strings.Repeat("words ", 60) + `</description></item>`)
		}
		b.WriteString(`</channel></rss>`)
		return []byte(b.String())
	}
	resp := func(body []byte, h ...string) *fetch.Response {
		hdr := http.Header{"Accept-Ranges": {"bytes"}, "Content-Length": {strconv.Itoa(len(body))}}
		for i := 0; i+1 < len(h); i += 2 {
			hdr.Set(h[i], h[i+1])
			if h[i+1] == "" {
				hdr.Del(h[i])
			}
		}
		return &fetch.Response{Status: 200, Body: body, Header: hdr}
	}
	items := func(body []byte) []extract.ListItem {
		l, err := extract.ParseXMLList(body, "", "https://x.test/f.xml", nil, testNow)
		if err != nil {
			t.Fatal(err)
		}
		return l.Items
	}
	big := doc(100, time.Hour)
	if n := headSize(resp(big), items(big), false); n < headMin || n > headMax || n < 8*len(big)/100 {
		t.Fatalf("a 100-entry feed: head %d bytes, want at least 8 entries (%d) within [%d, %d]", n, 8*len(big)/100, headMin, headMax)
	}
	for name, n := range map[string]int{
		"no Accept-Ranges":     headSize(resp(big, "Accept-Ranges", ""), items(big), false),
		"Accept-Ranges: none":  headSize(resp(big, "Accept-Ranges", "none"), items(big), false),
		"compressed":           headSize(resp(big, "Content-Length", "5000"), items(big), false),
		"chunked":              headSize(resp(big, "Content-Length", ""), items(big), false),
		"forced charset":       headSize(resp(big), items(big), true),
		"oldest first":         headSize(resp(doc(100, -time.Hour)), items(doc(100, -time.Hour)), false),
		"small":                headSize(resp(doc(10, time.Hour)), items(doc(10, time.Hour)), false),
		"a 206":                headSize(&fetch.Response{Status: 206, Body: big, Header: resp(big).Header}, items(big), false),
		"entries over a head":  headSize(resp(bigEntries()), items(bigEntries()), false),
		"undated":              headSize(resp(big), undated(items(big)), false),
		"a sitemap index only": headSize(resp(big), nil, false),
	} {
		if n != 0 {
			t.Errorf("%s: head %d, want 0 (read whole)", name, n)
		}
	}
}

// bigEntries is a feed whose entries are each larger than the largest head.
func bigEntries() []byte {
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel><title>T</title>`)
	for i := range 4 {
		b.WriteString(`<item><title>I</title><link>https://x.test/` + strconv.Itoa(i) + `</link><pubDate>Wed, 01 May 2024 12:0` +
			strconv.Itoa(9-i) + `:00 +0000</pubDate><description>` + strings.Repeat("w ", headMax/2+1) + `</description></item>`)
	}
	b.WriteString(`</channel></rss>`)
	return []byte(b.String())
}

func undated(items []extract.ListItem) []extract.ListItem {
	out := append([]extract.ListItem(nil), items...)
	out[3].PostTime = time.Time{}
	return out
}
