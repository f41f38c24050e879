package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/internal/clock"
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

// feedSite serves an RSS feed of its articles newest first, as a static
// file server does (http.ServeContent: ETag, Accept-Ranges, Range,
// If-Range), and logs each request's range headers and answer.
type feedSite struct {
	mu        sync.Mutex
	n         int  // articles published: 1..n
	oldest    bool // list oldest first
	noRanges  bool // a dynamic server: no Accept-Ranges, Range ignored
	badRange  bool // answer a Range with a 206 of other bytes
	refuse    bool // answer a Range with 416
	gzipped   bool // answer a Range with a range of the gzipped feed
	onRest    int  // articles published when a request with If-Range comes
	back      int  // back-dated articles, listed after the others (older)
	weak      bool // a weak ETag (W/"..."), which If-Range cannot take
	noIfRange bool // a server that ignores If-Range
	log       []feedHit
}

type feedHit struct {
	rng, ifRange, inm string
	status, bytes     int
}

func (f *feedSite) doc() []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>F</title><link>http://` + host + `/</link>`)
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for k := range f.n {
		i := f.n - k
		if f.oldest {
			i = k + 1
		}
		fmt.Fprintf(&b, `<item><title>Article %d</title><link>http://%s/a/%d.html</link><pubDate>%s</pubDate>`+
			`<description>%s</description></item>`, i, host, i, t0.Add(time.Duration(i)*time.Minute).Format(time.RFC1123Z),
			strings.Repeat("Some words of the summary. ", 20))
	}
	for i := 1; i <= f.back; i++ {
		fmt.Fprintf(&b, `<item><title>Back %d</title><link>http://%s/b/%d.html</link><pubDate>%s</pubDate></item>`,
			i, host, i, t0.Add(-time.Duration(i)*time.Hour).Format(time.RFC1123Z))
	}
	b.WriteString(`</channel></rss>`)
	return b.Bytes()
}

func (f *feedSite) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if rng := r.Header.Get("Range"); f.onRest > 0 && (r.Header.Get("If-Range") != "" || rng != "" && !strings.HasPrefix(rng, "bytes=0-")) {
		f.n += f.onRest
		f.onRest = 0
	}
	if f.noIfRange {
		r.Header.Del("If-Range")
	}
	hit := feedHit{rng: r.Header.Get("Range"), ifRange: r.Header.Get("If-Range"), inm: r.Header.Get("If-None-Match")}
	body := f.doc()
	cw := &countWriter{ResponseWriter: w}
	w.Header().Set("Content-Type", "application/rss+xml")
	switch {
	case f.noRanges:
		cw.WriteHeader(http.StatusOK)
		cw.Write(body)
	case f.refuse && hit.rng != "":
		w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", len(body)))
		cw.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
	case f.gzipped && hit.rng != "":
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(body)
		zw.Close()
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-99/%d", z.Len()))
		cw.WriteHeader(http.StatusPartialContent)
		cw.Write(z.Bytes()[:100])
	case f.badRange && hit.rng != "":
		w.Header().Set("Content-Range", fmt.Sprintf("bytes 5-104/%d", len(body)))
		cw.WriteHeader(http.StatusPartialContent)
		cw.Write(body[5:105])
	default:
		tag := fmt.Sprintf(`"%d-%v"`, f.n, f.oldest)
		if f.weak {
			tag = "W/" + tag
		}
		w.Header().Set("ETag", tag)
		http.ServeContent(cw, r, "", time.Time{}, bytes.NewReader(body))
	}
	hit.status, hit.bytes = cw.status, cw.n
	f.log = append(f.log, hit)
}

// hits returns the requests since the last call.
func (f *feedSite) hits() []feedHit {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.log
	f.log = nil
	return h
}

func (f *feedSite) set(fn func(f *feedSite)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

type countWriter struct {
	http.ResponseWriter
	status, n int
}

func (c *countWriter) WriteHeader(s int) { c.status = s; c.ResponseWriter.WriteHeader(s) }
func (c *countWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	n, err := c.ResponseWriter.Write(b)
	c.n += n
	return n, err
}

func newFeedPollEnv(t *testing.T, f *feedSite) *pollEnv {
	e := &pollEnv{env: newEnv(t), clk: clock.NewFake(time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC))}
	e.opts.Poll = PollOptions{Min: 10 * time.Minute, Max: 6 * time.Hour}
	e.opts.MaxBodySize = 1 << 20
	e.site.handle(host+"/feed.xml", f.serve)
	e.c = e.newCrawler([]Source{{Name: "f", Kind: "rss", URLs: []string{"http://" + host + "/feed.xml"}}},
		WithTransport(e.site.transport()), WithClock(e.clk))
	return e
}

// pollNew fetches what the last poll queued (the queue then knows it as
// done), publishes more with fn, moves to the next poll and polls.
func (e *pollEnv) pollNew(t *testing.T, f *feedSite, fn func(f *feedSite)) PollState {
	t.Helper()
	if err := e.c.newRun(e.c.sources, true).run(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.set(fn)
	st, _ := e.c.PollStates(context.Background())
	e.advance(st[0])
	return e.poll(t)
}

// TestPollReadsAFeedByItsHead: a poll of a feed served with byte ranges
// reads its head, and its rest only when every entry of the head is new;
// nothing published is missed, whatever the server does with the range.
func TestPollReadsAFeedByItsHead(t *testing.T) {
	f := &feedSite{n: 100}
	e := newFeedPollEnv(t, f)
	whole := len(f.doc())
	if st := e.poll(t); st.New != 100 {
		t.Fatalf("first poll: %+v, want 100 new", st)
	}
	if h := f.hits(); len(h) != 1 || h[0].rng != "" || h[0].status != 200 {
		t.Fatalf("first poll: %+v, want one whole read", h)
	}

	st := e.pollNew(t, f, func(f *feedSite) { f.n += 3 })
	h := f.hits()
	if st.New != 3 || len(h) != 1 || h[0].status != 206 || !strings.HasPrefix(h[0].rng, "bytes=0-") || h[0].inm == "" ||
		h[0].bytes > whole/4 {
		t.Fatalf("3 published: %+v, requests %+v; want the 3 from one conditional head of at most %d bytes", st, h, whole/4)
	}

	st = e.pollNew(t, f, func(f *feedSite) {})
	if h := f.hits(); st.New != 0 || len(h) != 1 || h[0].status != 304 {
		t.Fatalf("nothing published: %+v, requests %+v; want a 304", st, h)
	}

	// More than a head holds: the head, then the rest if it is the same feed.
	st = e.pollNew(t, f, func(f *feedSite) { f.n += 40 })
	h = f.hits()
	if st.New != 40 || len(h) != 2 || h[0].status != 206 || h[1].status != 206 || h[1].ifRange == "" ||
		!strings.HasSuffix(h[1].rng, "-") || h[1].inm != "" {
		t.Fatalf("40 published: %+v, requests %+v; want the 40 from a head and its rest (If-Range)", st, h)
	}

	// Published between the head and its rest: If-Range brings it whole.
	st = e.pollNew(t, f, func(f *feedSite) { f.n += 40; f.onRest = 2 })
	h = f.hits()
	if st.New != 42 || len(h) != 2 || h[1].status != 200 || h[1].bytes != len(f.doc()) {
		t.Fatalf("40 published, 2 more before the rest: %+v, requests %+v; want 42, the second request whole", st, h)
	}

	// A server answering a range with other bytes: the feed is read whole.
	st = e.pollNew(t, f, func(f *feedSite) { f.n += 2; f.badRange = true })
	h = f.hits()
	if st.New != 2 || len(h) != 2 || h[0].status != 206 || h[1].rng != "" || h[1].status != 200 {
		t.Fatalf("a bad 206: %+v, requests %+v; want the 2 from a whole read after it", st, h)
	}
	f.set(func(f *feedSite) { f.badRange = false })

	// A crawl job reads every list whole.
	f.set(func(f *feedSite) { f.n++ })
	if _, err := e.c.Produce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h := f.hits(); len(h) != 1 || h[0].rng != "" || h[0].status != 200 {
		t.Fatalf("a crawl: requests %+v, want one whole read", h)
	}

	// The server stops taking ranges: the head's request is answered
	// whole, and the polls after it ask for no range.
	st = e.pollNew(t, f, func(f *feedSite) { f.n += 2; f.noRanges = true })
	if h := f.hits(); st.New != 2 || len(h) != 1 || h[0].rng == "" || h[0].status != 200 {
		t.Fatalf("no ranges any more: %+v, requests %+v; want the 2 from a whole answer to the head's range", st, h)
	}
	st = e.pollNew(t, f, func(f *feedSite) { f.n++ })
	if h := f.hits(); st.New != 1 || len(h) != 1 || h[0].rng != "" {
		t.Fatalf("the poll after it: %+v, requests %+v; want no range asked", st, h)
	}
}

// TestPollReadsAnOldestFirstFeedWhole: entries not dated newest first
// are never read by a head (the new ones are at the end).
func TestPollReadsAnOldestFirstFeedWhole(t *testing.T) {
	f := &feedSite{n: 100, oldest: true}
	e := newFeedPollEnv(t, f)
	if st := e.poll(t); st.New != 100 {
		t.Fatalf("first poll: %+v", st)
	}
	f.hits()
	st := e.pollNew(t, f, func(f *feedSite) { f.n += 3 })
	if h := f.hits(); st.New != 3 || len(h) != 1 || h[0].rng != "" || h[0].status != 200 {
		t.Fatalf("3 published: %+v, requests %+v; want one whole read", st, h)
	}
}

// TestPollFeedHeadRefused: a server that refuses the head's range (416,
// or a range of its gzipped feed) has its feed read whole in the same
// poll, conditionally; nothing is lost and the poll is not failed.
func TestPollFeedHeadRefused(t *testing.T) {
	for _, mode := range []string{"416", "gzip"} {
		t.Run(mode, func(t *testing.T) {
			f := &feedSite{n: 100}
			e := newFeedPollEnv(t, f)
			if st := e.poll(t); st.New != 100 {
				t.Fatalf("first poll: %+v", st)
			}
			f.hits()
			st := e.pollNew(t, f, func(f *feedSite) {
				f.n += 3
				f.refuse, f.gzipped = mode == "416", mode == "gzip"
			})
			h := f.hits()
			if st.New != 3 || st.Incomplete || len(h) != 2 || h[0].rng == "" || h[1].rng != "" || h[1].inm == "" || h[1].status != 200 {
				t.Fatalf("3 published: %+v, requests %+v; want the 3 from a conditional whole read after the refused head", st, h)
			}
			st = e.pollNew(t, f, func(f *feedSite) {})
			if h := f.hits(); st.New != 0 || st.Incomplete || len(h) < 1 || h[len(h)-1].status != 304 {
				t.Fatalf("nothing published: %+v, requests %+v; want a 304 at the end", st, h)
			}
		})
	}
}
