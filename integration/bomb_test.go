package integration

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
)

// gzipped compresses b.
func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bomb is a gzip stream of concatenated members (gzip allows them) that
// inflates to size bytes of HTML-ish text from about size/1000 bytes.
func bomb(t *testing.T, size int) []byte {
	t.Helper()
	const member = 16 << 20
	one := gzipped(t, bytes.Repeat([]byte("<p>boom</p>\n"), member/12))
	return bytes.Repeat(one, max(size/member, 1))
}

// gzBody serves body with a Content-Type (and a Content-Encoding when
// encoding is not empty).
func gzBody(body []byte, contentType, encoding string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		if encoding != "" {
			w.Header().Set("Content-Encoding", encoding)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}
}

// TestFaultGzipBombs runs the newsrank binary's `crawl -once` against a
// site that answers gzip bombs (256 MiB inflated from 256 KiB, under
// max_body_size as sent) on every path the crawler reads: robots.txt, an
// HTML list, a feed, a sitemap index's .xml.gz child, a JSON list API and
// article pages, announced by Content-Type, a .gz name, Content-Encoding
// x-gzip or nothing. The crawl ends with each bomb failed as too_large,
// the good article beside them stored, and the process's peak RSS at most
// bombSlack above that of a control crawl of the good article alone by
// the same binary in the same run: max_body_size bounds the inflated
// bytes, streaming (an unbounded inflate would add 256 MiB per bomb).
// The absolute peak is logged, not asserted: the control's own peak
// (about 90 MB, most of it go-dateparser's tables, which go-htmldate
// needs) moves with the machine's load, and a gate must not. The binary
// is built without the race detector, whose shadow memory is several
// times the program's.
// bombSlack is how much more RSS the crawl among the bombs may use than
// the control crawl: the gzip readers and the bounded bodies of the
// crawl's concurrent requests, and the noise of two measures.
const bombSlack = 32 << 20

func TestFaultGzipBombs(t *testing.T) {
	bin := proctest.BuildNoRace(t) // the race detector's shadow memory would drown the measure
	rs := redistest.Start(t)
	h := newHostileSite(t)
	b := bomb(t, 256<<20)
	base := h.srv.URL

	h.route("/robots.txt", gzBody(b, "text/plain; x=gzip", ""))
	h.route("/list/bomb", gzBody(b, "text/html; x=gzip", ""))
	h.route("/feed.xml", gzBody(b, "application/x-gzip", ""))
	h.route("/sitemap_index.xml", gzBody(gzipped(t, fmt.Appendf(nil, `<?xml version="1.0"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/sitemap-bomb.xml.gz</loc></sitemap></sitemapindex>`, base)),
		"application/xml", "gzip"))
	h.route("/sitemap-bomb.xml.gz", gzBody(b, "application/octet-stream", ""))
	h.route("/api/list.json", gzBody(b, "application/json; x=gzip", ""))
	articles := map[string]http.HandlerFunc{
		"/a/type.html":   gzBody(b, "text/html; x=gzip", ""),
		"/a/xgzip.html":  gzBody(b, "text/html; charset=utf-8", "x-gzip"),
		"/a/hidden.html": gzBody(b, "text/html; charset=utf-8", ""),
		"/a/good.html":   goodArticle("The good article among the bombs"),
	}
	var paths []string
	for p, f := range articles {
		h.route(p, f)
		paths = append(paths, p)
	}
	h.route("/list/articles", listPage("", paths...))

	cfg := testConfig(rs.Options())
	cfg.Log.Level = "error"
	cfg.Crawler.ObeyRobots = true
	cfg.Crawler.Workers = 4
	cfg.Queue.MaxAttempts = 2
	cfg.Crawler.Sources = []config.Source{
		htmlSource("articles", base, "/list/articles", 1),
		htmlSource("bomblist", base, "/list/bomb", 1),
		{Name: "bombfeed", Kind: "rss", URLs: []string{base + "/feed.xml"}},
		{Name: "bombsitemap", Kind: "sitemap", URLs: []string{base + "/sitemap_index.xml"}},
		{Name: "bombapi", Kind: "json", URLs: []string{base + "/api/list.json"},
			JSON: config.JSONList{ItemsPath: "items", Fields: map[string]string{"url": "url"}}},
	}
	path := writeConfig(t, cfg)

	// The control: the same binary crawls the good article alone (behind
	// the same robots.txt bomb, which is read truncated), on a Redis of
	// its own.
	h.route("/list/good", listPage("", "/a/good.html"))
	control := cfg
	control.Redis = testConfig(redistest.Start(t).Options()).Redis
	control.Crawler.Sources = []config.Source{htmlSource("good", base, "/list/good", 1)}
	_, cerr, ccode, cpeak := proctest.PeakRSS(t, bin, "crawl", "-once", "-json", "-progress", "none", "-config", writeConfig(t, control))
	if ccode != 0 {
		t.Fatalf("control crawl -once: exit status %d\n%s", ccode, cerr)
	}

	stdout, stderr, code, peak := proctest.PeakRSS(t, bin, "crawl", "-once", "-json", "-progress", "none", "-config", path)
	// Exit status 1: the sources whose only list page is a bomb failed.
	if code != 0 && code != 1 {
		t.Fatalf("crawl -once: exit status %d\n%s", code, stderr)
	}
	t.Logf("crawl -once: peak RSS %d MiB among the bombs, %d MiB crawling the good article alone", peak>>20, cpeak>>20)
	if peak > cpeak+bombSlack {
		t.Errorf("crawl -once peaked at %d MiB of RSS among gzip bombs, %d MiB above the control's %d MiB: want at most %d MiB above",
			peak>>20, (peak-cpeak)>>20, cpeak>>20, bombSlack>>20)
	}

	var sum struct {
		Sources []struct {
			Source     string `json:"source"`
			PageErrors int    `json:"list_page_errors"`
			Error      string `json:"error"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(stdout, &sum); err != nil {
		t.Fatalf("crawl -once -json: %v\n%s\n%s", err, stdout, stderr)
	}
	for _, s := range sum.Sources {
		switch s.Source {
		case "articles":
			if s.Error != "" {
				t.Errorf("source articles failed: %s", s.Error)
			}
		case "bombsitemap":
			if s.PageErrors != 1 {
				t.Errorf("source bombsitemap: %d list page errors, want 1 (the .xml.gz child)", s.PageErrors)
			}
		default:
			if !bytes.Contains([]byte(s.Error), []byte(fetch.ReasonTooLarge)) {
				t.Errorf("source %s: error %q, want %s", s.Source, s.Error, fetch.ReasonTooLarge)
			}
		}
	}
	st := newStack(t, cfg)
	dead := st.deadLetters(context.Background())
	for p := range articles {
		u := canonical(t, base+p)
		if p == "/a/good.html" {
			if _, ok := dead[u]; ok {
				t.Errorf("the good article is dead: %+v", dead[u])
			}
			continue
		}
		if dl, ok := dead[u]; !ok || dl.Reason != fetch.ReasonTooLarge {
			t.Errorf("%s: dead letter %+v, want reason %s", p, dl, fetch.ReasonTooLarge)
		}
	}
	if n := st.stored(); n != 1 {
		t.Errorf("%d articles stored, want the good one", n)
	}
}
