package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
)

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
