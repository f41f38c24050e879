package web

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
	"golang.org/x/net/html"
)

// feedPaths are the feeds by format, as a reader asks for them.
var feedPaths = []struct {
	path, mediaType, kind string
}{
	{"/rss", "application/rss+xml", "rss"},
	{"/atom.xml", "application/atom+xml", "atom"},
	{"/feed.json", "application/feed+json", "json"},
}

// readFeed fetches a feed with the headers hdr and parses it as a feed
// reader does (gofeed), after checking its status, content type and, for
// the XML formats, that a strict XML decoder reads it whole.
func (e *testEnv) readFeed(path, wantType string, hdr ...string) (*gofeed.Feed, response) {
	e.t.Helper()
	r := e.do("GET", path, "", "", hdr...)
	if r.status != http.StatusOK {
		e.t.Fatalf("GET %s = %d: %s", path, r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != wantType+"; charset=utf-8" {
		e.t.Fatalf("GET %s: Content-Type %q, want %s; charset=utf-8", path, ct, wantType)
	}
	if strings.HasSuffix(wantType, "xml") {
		strictXML(e.t, r.body)
	} else if !json.Valid(r.body) {
		e.t.Fatalf("GET %s: not JSON: %s", path, r.body)
	}
	f, err := gofeed.NewParser().Parse(bytes.NewReader(r.body))
	if err != nil {
		e.t.Fatalf("GET %s: gofeed cannot read it: %v\n%s", path, err, r.body)
	}
	return f, r
}

// strictXML decodes a document token by token with encoding/xml in strict
// mode, which refuses characters XML does not allow and broken markup.
func strictXML(t testing.TB, b []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, b)
		}
	}
}

// voteUp gives id one up-vote from each of n users.
func (e *testEnv) voteUp(id string, n int) {
	e.t.Helper()
	for i := range n {
		r := e.do("POST", "/api/news/"+id+"/vote", writerToken, fmt.Sprintf(`{"user":"voter%d","dir":"up"}`, i))
		if r.status != http.StatusOK {
			e.t.Fatalf("vote on %s = %d: %s", id, r.status, r.body)
		}
	}
}

// checkFeedAgainstAPI compares a parsed feed with the JSON API's page of
// the same ranking: the same articles in the same order, with their
// titles, links, post times and pages.
func checkFeedAgainstAPI(t *testing.T, kind string, f *gofeed.Feed, want pageJSON, base string) {
	t.Helper()
	if len(f.Items) != len(want.Items) {
		t.Fatalf("%s: %d items, the API lists %d", kind, len(f.Items), len(want.Items))
	}
	for i, it := range f.Items {
		w := want.Items[i]
		page := base + "/news/" + w.ID
		if it.Title != w.Title || it.Link != w.URL || it.GUID != page {
			t.Errorf("%s item %d: title %q link %q guid %q; want %q %q %q", kind, i, it.Title, it.Link, it.GUID, w.Title, w.URL, page)
		}
		if it.PublishedParsed == nil || !it.PublishedParsed.Equal(w.PostTime.Truncate(time.Second)) {
			t.Errorf("%s item %d: published %v (%q), want %s", kind, i, it.PublishedParsed, it.Published, w.PostTime)
		}
		if !strings.Contains(it.Content+it.Description, `href="`+page+`"`) {
			t.Errorf("%s item %d: content does not link the article's page %s: %q", kind, i, page, it.Content+it.Description)
		}
	}
}

// TestFeedsMatchTheAPI reads every feed, by score and by time, whole and
// of a group, and compares it with the JSON API's answer for the same
// ranking on the same store.
func TestFeedsMatchTheAPI(t *testing.T) {
	e := newEnv(t)
	ids := e.seed(12, "tech")
	e.seed(0)
	other := e.ingest("sport", 0, "Local team wins", "Marathon record falls")
	// votes lift older articles above newer ones: the hot ranking and the
	// latest differ
	e.voteUp(ids[9], 3)
	e.voteUp(ids[5], 2)
	e.voteUp(other[1], 1)
	base := e.ts.URL
	for _, c := range []struct {
		query, api, home string
	}{
		{"", "/api/news?size=25", "/"},
		{"?order=time", "/api/news?order=time&size=25", "/latest"},
		{"?group=tech", "/api/groups/tech/news?size=25", "/?group=tech"},
		{"?group=sport&order=time", "/api/groups/sport/news?order=time&size=25", "/latest?group=sport"},
		{"?size=5", "/api/news?size=5", "/"},
	} {
		var want pageJSON
		e.get(c.api, &want)
		if len(want.Items) == 0 {
			t.Fatalf("%s lists nothing", c.api)
		}
		for _, fp := range feedPaths {
			f, _ := e.readFeed(fp.path+c.query, fp.mediaType)
			checkFeedAgainstAPI(t, fp.kind+c.query, f, want, base)
			if f.Link != base+c.home {
				t.Errorf("%s%s: home %q, want %q", fp.path, c.query, f.Link, base+c.home)
			}
			if f.FeedLink == "" || !strings.HasPrefix(f.FeedLink, base+fp.path) {
				t.Errorf("%s%s: self link %q", fp.path, c.query, f.FeedLink)
			}
		}
	}
	// the two orders do differ, so the comparison above tells them apart
	var hot, latest pageJSON
	e.get("/api/news", &hot)
	e.get("/api/news?order=time", &latest)
	if hot.Items[0].ID == latest.Items[0].ID {
		t.Fatalf("the votes did not change the order: both start with %s", hot.Items[0].ID)
	}
}

// TestFeedStoryOnce: ranking by story, a story is one item, its lead,
// whose content names and links the other outlets as the pages do.
func TestFeedStoryOnce(t *testing.T) {
	e, lead, members, alone := storyEnv(t)
	var want pageJSON
	e.get("/api/news?size=25", &want)
	for _, fp := range feedPaths {
		f, _ := e.readFeed(fp.path, fp.mediaType)
		checkFeedAgainstAPI(t, fp.kind, f, want, e.ts.URL)
		var leadItem *gofeed.Item
		for _, it := range f.Items {
			switch it.GUID {
			case e.ts.URL + "/news/" + lead:
				leadItem = it
			case e.ts.URL + "/news/" + members[0], e.ts.URL + "/news/" + members[1]:
				t.Errorf("%s: a story's other article %s is an item of its own", fp.kind, it.GUID)
			}
		}
		if leadItem == nil || len(f.Items) != 2 {
			t.Fatalf("%s: %d items, lead present %v; want the story's lead and %s", fp.kind, len(f.Items), leadItem != nil, alone)
		}
		content := leadItem.Content + leadItem.Description
		for _, m := range members {
			if !strings.Contains(content, `<a href="`+e.ts.URL+`/news/`+m+`">`) {
				t.Errorf("%s: the lead's content does not link the other article %s: %q", fp.kind, m, content)
			}
		}
		if !strings.Contains(content, "also: ") || !strings.Contains(content, "Outlet B") {
			t.Errorf("%s: the lead's content lacks \"also: ... Outlet B\": %q", fp.kind, content)
		}
	}
}

// hostileTitles are titles a site may send, and what the feeds show.
var hostileTitles = []struct{ title, want string }{
	{`<script>alert("x")</script> & <b>bold</b>`, `<script>alert("x")</script> & <b>bold</b>`},
	{`CDATA ends here ]]> and &amp; stays`, `CDATA ends here ]]> and &amp; stays`},
	{"国内新闻：北京今日晴 « 引号 » — ok", "国内新闻：北京今日晴 « 引号 » — ok"},
	{"controls\x00\x01\x02\x03\x04\x05\x06\x07\x08 gone\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f here",
		"controls gone here"},
	{"tab\tnew\nline\r\nend", "tab new line end"},
	{"nonchar \uFFFE\uFFFF and DEL\x7f and C1 \u0085\u009f done", "nonchar and DEL and C1 done"},
}

// TestFeedHostileTitles: markup, CDATA ends, CJK and every character XML
// cannot carry come out as a strict XML parser and gofeed read them:
// markup as text, controls removed.
func TestFeedHostileTitles(t *testing.T) {
	e := newEnv(t)
	titles := make([]string, len(hostileTitles))
	for i, h := range hostileTitles {
		titles[i] = h.title
	}
	ids := e.ingest("hostile", 0, titles...)
	for _, fp := range feedPaths {
		f, r := e.readFeed(fp.path+"?order=time", fp.mediaType)
		if len(f.Items) != len(ids) {
			t.Fatalf("%s: %d items, want %d", fp.kind, len(f.Items), len(ids))
		}
		for i, it := range f.Items { // by time: ingest order, the newest first
			if it.Title != hostileTitles[i].want {
				t.Errorf("%s: title %q, want %q", fp.kind, it.Title, hostileTitles[i].want)
			}
		}
		// in XML the markup is text; in JSON, strings carry it as is
		if fp.kind != "json" && (bytes.Contains(r.body, []byte("<script>")) || bytes.Contains(r.body, []byte("<b>"))) {
			t.Errorf("%s: markup of a title is not escaped:\n%s", fp.kind, r.body)
		}
		for _, c := range r.body {
			if c < 0x20 && c != '\n' && c != '\t' && c != '\r' {
				t.Fatalf("%s: raw control character %#x in the body", fp.kind, c)
			}
		}
	}
	// the API keeps the titles as stored: the cleaning is the feeds'
	var it itemJSON
	e.get("/api/news/"+ids[3], &it)
	if it.Title != strings.TrimSpace(hostileTitles[3].title) {
		t.Errorf("API title = %q", it.Title)
	}
}

func TestCleanText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"  a  b  ", "a b"},
		{"\x00", ""},
		{"a\x00b", "ab"},
		{"bad utf-8 \xff!", "bad utf-8 \uFFFD!"},
		{"全角　空格", "全角　空格"}, // U+3000 is a character of the title, kept
		{"emoji 🎉 \U0001FFFE", "emoji 🎉 \U0001FFFE"},
	} {
		if got := cleanText(c.in); got != c.want {
			t.Errorf("cleanText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestFeedConditionalGet: a feed answers If-None-Match and
// If-Modified-Since with 304 while it is unchanged, and with the new feed
// once a vote changed it, even within the same second.
func TestFeedConditionalGet(t *testing.T) {
	e := newEnv(t)
	ids := e.seed(5)
	for _, fp := range feedPaths {
		_, r := e.readFeed(fp.path, fp.mediaType)
		tag, lm := r.header.Get("ETag"), r.header.Get("Last-Modified")
		if !strings.HasPrefix(tag, `"`) || lm == "" {
			t.Fatalf("%s: ETag %q, Last-Modified %q", fp.kind, tag, lm)
		}
		if r2 := e.do("GET", fp.path, "", ""); r2.header.Get("ETag") != tag || r2.header.Get("Last-Modified") != lm || !bytes.Equal(r2.body, r.body) {
			t.Fatalf("%s: the same feed twice differs: %q %q then %q %q", fp.kind, tag, lm, r2.header.Get("ETag"), r2.header.Get("Last-Modified"))
		}
		for _, h := range [][]string{
			{"If-None-Match", tag},
			{"If-None-Match", `"other", ` + tag},
			{"If-None-Match", "W/" + tag},
			{"If-Modified-Since", lm},
		} {
			nm := e.do("GET", fp.path, "", "", h...)
			if nm.status != http.StatusNotModified || len(nm.body) != 0 {
				t.Errorf("%s with %s: %d, %d bytes; want 304 and no body", fp.kind, h, nm.status, len(nm.body))
			}
			if nm.header.Get("ETag") != tag {
				t.Errorf("%s with %s: 304 without the ETag", fp.kind, h)
			}
		}
		if r := e.do("GET", fp.path, "", "", "If-None-Match", `"stale"`); r.status != http.StatusOK {
			t.Errorf("%s: another ETag = %d, want 200", fp.kind, r.status)
		}
		if r := e.do("GET", fp.path, "", "", "Range", "bytes=0-9"); r.status != http.StatusPartialContent || len(r.body) != 10 {
			t.Errorf("%s: Range = %d, %d bytes; want 206, 10 bytes", fp.kind, r.status, len(r.body))
		}
		if r := e.do("GET", fp.path, "", "", "If-Match", `"stale"`); r.status != http.StatusPreconditionFailed {
			t.Errorf("%s: If-Match of another ETag = %d, want 412", fp.kind, r.status)
		}
		if r := e.do("HEAD", fp.path, "", ""); r.status != http.StatusOK || r.header.Get("ETag") != tag || len(r.body) != 0 {
			t.Errorf("%s: HEAD = %d, ETag %q, %d bytes", fp.kind, r.status, r.header.Get("ETag"), len(r.body))
		}
	}
	// a vote reorders the ranking, at the same instant (the clock does
	// not move): every feed changes, and so does its Last-Modified
	before := map[string]response{}
	for _, fp := range feedPaths {
		before[fp.path] = e.do("GET", fp.path, "", "")
	}
	e.voteUp(ids[4], 2)
	for _, fp := range feedPaths {
		old := before[fp.path]
		r := e.do("GET", fp.path, "", "", "If-None-Match", old.header.Get("ETag"))
		if r.status != http.StatusOK || r.header.Get("ETag") == old.header.Get("ETag") {
			t.Fatalf("%s after a vote: %d, ETag %q (was %q); want 200 and a new ETag", fp.kind, r.status, r.header.Get("ETag"), old.header.Get("ETag"))
		}
		oldLM, _ := http.ParseTime(old.header.Get("Last-Modified"))
		newLM, _ := http.ParseTime(r.header.Get("Last-Modified"))
		if !newLM.After(oldLM) {
			t.Errorf("%s after a vote: Last-Modified %s, not after %s", fp.kind, newLM, oldLM)
		}
		if r := e.do("GET", fp.path, "", "", "If-Modified-Since", old.header.Get("Last-Modified")); r.status != http.StatusOK {
			t.Errorf("%s after a vote with the old If-Modified-Since: %d, want 200", fp.kind, r.status)
		}
	}
	// the RSS and Atom feeds say when they changed
	f, _ := e.readFeed("/atom.xml", "application/atom+xml")
	if f.UpdatedParsed == nil || f.UpdatedParsed.Before(testNow) {
		t.Errorf("atom updated = %v, want the time of the change (at or after %s)", f.UpdatedParsed, testNow)
	}
}

// TestFeedBaseURL: links start with web.public_url when set; else with
// the request's host, and the X-Forwarded headers count only from a
// trusted proxy.
func TestFeedBaseURL(t *testing.T) {
	t.Run("public url", func(t *testing.T) {
		e := newEnv(t, func(c *envConfig) { c.web.PublicURL = "https://news.example.org/nr/" })
		id := e.seed(1)[0]
		for _, fp := range feedPaths {
			f, _ := e.readFeed(fp.path+"?order=time", fp.mediaType, "Host", "evil.example", "X-Forwarded-Host", "evil.example")
			if f.Items[0].GUID != "https://news.example.org/nr/news/"+id || f.Link != "https://news.example.org/nr/latest" ||
				f.FeedLink != "https://news.example.org/nr"+fp.path+"?order=time" {
				t.Errorf("%s: guid %q home %q self %q", fp.kind, f.Items[0].GUID, f.Link, f.FeedLink)
			}
		}
	})
	t.Run("request host", func(t *testing.T) {
		e := newEnv(t)
		id := e.seed(1)[0]
		f, _ := e.readFeed("/rss", "application/rss+xml", "Host", "News.Example.org:8443", "X-Forwarded-Host", "evil.example", "X-Forwarded-Proto", "https")
		if f.Items[0].GUID != "http://news.example.org:8443/news/"+id {
			t.Errorf("guid %q: want the request's host, the forwarded headers of an untrusted peer ignored", f.Items[0].GUID)
		}
		for _, host := range []string{"a.example/path", "a.example:80x", "[::1", "a@b"} {
			req, _ := http.NewRequest("GET", e.ts.URL+"/rss", nil)
			req.Host = host
			res, err := e.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest {
				t.Errorf("Host %q: %d, want 400", host, res.StatusCode)
			}
		}
	})
	t.Run("trusted proxy", func(t *testing.T) {
		e := newEnv(t, func(c *envConfig) { c.web.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")} })
		id := e.seed(1)[0]
		f, _ := e.readFeed("/feed.json", "application/feed+json", "X-Forwarded-Host", "client.example, news.example.org", "X-Forwarded-Proto", "https")
		if f.Items[0].GUID != "https://news.example.org/news/"+id {
			t.Errorf("guid %q: want the proxy's X-Forwarded-Host and -Proto (their last value)", f.Items[0].GUID)
		}
		r := e.do("GET", "/feed.json", "", "", "X-Forwarded-Host", "bad/host")
		if r.status != http.StatusBadRequest {
			t.Errorf("a forwarded host with a path: %d, want 400", r.status)
		}
	})
}

func TestCheckPublicURL(t *testing.T) {
	for _, ok := range []string{"https://news.example.org", "http://127.0.0.1:8080/", "https://example.org/news/", "https://[::1]:8443"} {
		if err := CheckPublicURL(ok); err != nil {
			t.Errorf("CheckPublicURL(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"news.example.org", "ftp://example.org", "https://", "https://u:p@example.org", "https://example.org/?a=1", "https://example.org/#x", "/relative"} {
		if err := CheckPublicURL(bad); err == nil {
			t.Errorf("CheckPublicURL(%q) accepted it", bad)
		}
	}
	o := DefaultOptions()
	o.PublicURL = "example.org"
	if _, err := New(o); err == nil {
		t.Error("New accepted a PublicURL without a scheme")
	}
}

// TestFeedBadQueries: a feed refuses what the API refuses, with its JSON
// error.
func TestFeedBadQueries(t *testing.T) {
	e := newEnv(t)
	e.seed(2)
	for _, q := range []string{"?order=hot", "?size=0", "?size=101", "?group=bad%20name", "?page=2", "?order=time&order=score"} {
		for _, fp := range feedPaths {
			r := e.do("GET", fp.path+q, "", "")
			if r.status != http.StatusBadRequest || r.errorOf(t).Code != CodeInvalid {
				t.Errorf("%s%s = %d %s, want 400 %s", fp.path, q, r.status, r.body, CodeInvalid)
			}
		}
	}
	if r := e.do("POST", "/rss", writerToken, "{}"); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST /rss = %d, want 405", r.status)
	}
}

// TestFeedEmpty: an empty ranking is a valid empty feed; JSON Feed keeps
// its required items member.
func TestFeedEmpty(t *testing.T) {
	e := newEnv(t)
	for _, fp := range feedPaths {
		f, r := e.readFeed(fp.path+"?group=nothing", fp.mediaType)
		if len(f.Items) != 0 {
			t.Errorf("%s: %d items", fp.kind, len(f.Items))
		}
		if fp.kind == "json" {
			var doc map[string]any
			if err := json.Unmarshal(r.body, &doc); err != nil {
				t.Fatal(err)
			}
			if items, ok := doc["items"].([]any); !ok || len(items) != 0 || doc["version"] != "https://jsonfeed.org/version/1.1" {
				t.Errorf("json feed: items %v, version %v; want [] and 1.1", doc["items"], doc["version"])
			}
		}
	}
}

// TestPagesLinkFeeds: the list pages name their own feeds in
// <link rel="alternate">, the other pages the hot ranking's.
func TestPagesLinkFeeds(t *testing.T) {
	e := newEnv(t, withSources(guoneiSource))
	id := e.ingest("guonei", 0, "第一条")[0]
	for _, c := range []struct{ page, query, title string }{
		{"/", "", "This week's hot"},
		{"/latest", "?order=time", "Latest"},
		{"/?group=guonei", "?group=guonei", "This week's hot in 国内"},
		{"/latest?group=guonei", "?group=guonei&order=time", "Latest in 国内"},
		{"/news/" + id, "", "This week's hot"},
	} {
		r := e.do("GET", c.page, "", "")
		if r.status != http.StatusOK {
			t.Fatalf("GET %s = %d", c.page, r.status)
		}
		doc, err := html.Parse(bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for n := range doc.Descendants() {
			if n.Type == html.ElementNode && n.Data == "link" && attr(n, "rel") == "alternate" {
				got = append(got, attr(n, "type")+" "+attr(n, "title")+" "+attr(n, "href"))
			}
		}
		var want []string
		for _, fp := range feedPaths {
			name := map[string]string{"rss": "RSS", "atom": "Atom", "json": "JSON Feed"}[fp.kind]
			want = append(want, fp.mediaType+" "+c.title+" ("+name+") "+fp.path+c.query)
		}
		if !slices.Equal(got, want) {
			t.Errorf("GET %s links\n%s\nwant\n%s", c.page, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// and what they link is served
	f, _ := e.readFeed("/rss?group=guonei&order=time", "application/rss+xml")
	if len(f.Items) != 1 || f.Items[0].Title != "第一条" || f.Title != "newsrank: Latest in 国内" {
		t.Errorf("the group's latest feed: title %q, items %d", f.Title, len(f.Items))
	}
}

// attr is the value of an element's attribute.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// TestFeedNoStore: without the article store a feed is the API's 503.
func TestFeedNoStore(t *testing.T) {
	e := newEnv(t)
	o := e.srv.opts
	o.News = nil
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/rss", nil))
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), CodeUnavailable) {
		t.Errorf("GET /rss without a store = %d %s", w.Code, w.Body)
	}
}
