package demosite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// testNow is the anchor of the test sites: its week spans the end of US
// daylight saving time (2026-11-01), so the New York offsets vary.
var testNow = time.Date(2026, 11, 5, 12, 0, 0, 0, time.UTC)

func serve(t testing.TB, opts Options) (*Site, *httptest.Server) {
	t.Helper()
	s := New(opts)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) contentType() string { return r.header.Get("Content-Type") }

func get(t testing.TB, srv *httptest.Server, rawURL string) response {
	t.Helper()
	if strings.HasPrefix(rawURL, "/") {
		rawURL = srv.URL + rawURL
	}
	resp, err := srv.Client().Get(rawURL)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", rawURL, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

// getOK fetches a URL and fails the test unless it answers 200 with a
// content type starting with wantType.
func getOK(t testing.TB, srv *httptest.Server, rawURL, wantType string) response {
	t.Helper()
	r := get(t, srv, rawURL)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: status %d, want 200; body:\n%.400s", rawURL, r.status, r.body)
	}
	if !strings.HasPrefix(r.contentType(), wantType) {
		t.Fatalf("GET %s: Content-Type %q, want %s", rawURL, r.contentType(), wantType)
	}
	return r
}

// htmlDoc parses an HTML response, decoding GBK when the header says so.
func htmlDoc(t testing.TB, r response) *goquery.Document {
	t.Helper()
	body := r.body
	if strings.Contains(strings.ToLower(r.contentType()), "charset=gbk") {
		var err error
		body, err = simplifiedchinese.GBK.NewDecoder().Bytes(body)
		if err != nil {
			t.Fatalf("decode GBK: %v", err)
		}
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	return doc
}

// sel reads "selector" (text) or "selector@attr" from a page.
func sel(doc *goquery.Document, s string) string {
	css, attr, hasAttr := strings.Cut(s, "@")
	n := doc.Find(css).First()
	if hasAttr {
		v, _ := n.Attr(attr)
		return strings.TrimSpace(v)
	}
	return strings.TrimSpace(n.Text())
}

// stripJSONP returns the JSON inside callback(...).
func stripJSONP(t testing.TB, body []byte, callback string) []byte {
	t.Helper()
	s := bytes.TrimSpace(body)
	if !bytes.HasPrefix(s, []byte(callback+"(")) || !bytes.HasSuffix(s, []byte(")")) {
		t.Fatalf("not a %s(...) JSONP response: %.200s", callback, s)
	}
	return s[len(callback)+1 : len(s)-1]
}

// apiListItem is the part of a list API item the tests check.
type apiListItem struct {
	DocID      string `json:"docid"`
	Title      string `json:"title"`
	URL        string `json:"url"`
	PTime      string `json:"ptime"`
	ReplyCount int64  `json:"replyCount"`
	Source     string `json:"source"`
	Digest     string `json:"digest"`
	ImgSrc     string `json:"imgsrc"`
}

func decodeAPI(t testing.TB, body []byte, callback string) []apiListItem {
	t.Helper()
	var m map[string][]apiListItem
	if err := json.Unmarshal(stripJSONP(t, body, callback), &m); err != nil {
		t.Fatalf("decode list API JSON: %v", err)
	}
	items, ok := m[jsonpKey]
	if !ok || items == nil {
		t.Fatalf("list API: no %q array in %v", jsonpKey, m)
	}
	return items
}

// resolve makes an href absolute against the page it appeared on.
func resolve(t testing.TB, page, href string) string {
	t.Helper()
	b, err := url.Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	u, err := b.Parse(href)
	if err != nil {
		t.Fatalf("bad link %q on %s: %v", href, page, err)
	}
	return u.String()
}

func pathOf(t testing.TB, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatalf("bad URL %q: %v", rawURL, err)
	}
	return u.Path
}

func bySection(as []ArticleInfo) map[string][]ArticleInfo {
	m := map[string][]ArticleInfo{}
	for _, a := range as {
		m[a.Section] = append(m[a.Section], a)
	}
	return m
}

func byPath(as []ArticleInfo) map[string]ArticleInfo {
	m := map[string]ArticleInfo{}
	for _, a := range as {
		m[a.Path] = a
	}
	return m
}

func fmtInfo(a ArticleInfo) string {
	return fmt.Sprintf("%s %q %s comments=%d", a.Path, a.Title, a.PostTime.Format(time.RFC3339), a.Comments)
}
