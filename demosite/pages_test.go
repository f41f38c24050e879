package demosite

import (
	"bytes"
	"image/png"
	"net/http"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/temoto/robotstxt"
)

func TestRobots(t *testing.T) {
	_, srv := serve(t, Options{Now: testNow})
	r := getOK(t, srv, "/robots.txt", "text/plain")
	robots, err := robotstxt.FromBytes(r.body)
	if err != nil {
		t.Fatalf("parse robots.txt: %v", err)
	}
	for path, want := range map[string]bool{
		"/private/ABC.html": false, "/guonei/": true, "/": true, "/api/list/news/0-20.html": true,
	} {
		if got := robots.TestAgent(path, "newsrank"); got != want {
			t.Errorf("robots.txt allows %s: %v, want %v", path, got, want)
		}
	}
	if g := robots.FindGroup("newsrank"); g.CrawlDelay != 0 {
		t.Errorf("Crawl-delay %v, want 0", g.CrawlDelay)
	}
	if !slices.Contains(robots.Sitemaps, srv.URL+"/finance/sitemap_index.xml") {
		t.Errorf("robots.txt sitemaps %v, want the finance sitemap index", robots.Sitemaps)
	}
}

func TestHomeStaticImages(t *testing.T) {
	s, srv := serve(t, Options{Now: testNow})
	doc := htmlDoc(t, getOK(t, srv, "/", "text/html; charset=utf-8"))
	if n := doc.Find("section.home-block").Length(); n != 6 {
		t.Errorf("home page has %d section blocks, want 6", n)
	}
	if href, _ := doc.Find("section#guonei h2 a").Attr("href"); href != "/guonei/" {
		t.Errorf("home links 国内 to %q", href)
	}
	getOK(t, srv, "/static/style.css", "text/css")
	var img string
	for _, a := range s.Articles() {
		if a.Image != "" {
			img = a.Image
			break
		}
	}
	r := getOK(t, srv, img, "image/png")
	if _, err := png.Decode(bytes.NewReader(r.body)); err != nil {
		t.Errorf("%s is not a PNG: %v", img, err)
	}
	if r := get(t, srv, "/img/nope.png"); r.status != http.StatusNotFound {
		t.Errorf("unknown image: status %d, want 404", r.status)
	}
}

func TestNotFoundAndBadRequests(t *testing.T) {
	s, srv := serve(t, Options{Articles: 120, Now: testNow})
	a := s.Articles()[0]
	for _, p := range []string{
		"/nope", a.Path + "x", strings.TrimSuffix(a.Path, ".html") + ".htm",
		"/guonei/index_1.html", "/guonei/index_999.html", "/tech/list_0.html", "/tech/list_999.html",
		"/world/page/1/", "/world/page/999/", "/finance/sitemap_1999-01-01.xml",
		"/api/list/world/0-20.html", "/private/NOPE.html", "/static/nope.css",
	} {
		r := get(t, srv, p)
		if r.status != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, r.status)
		}
	}
	nf := get(t, srv, "/nope")
	if !strings.HasPrefix(nf.contentType(), "text/html") || !bytes.Contains(nf.body, []byte("404")) {
		t.Errorf("404 page: %q %.100s", nf.contentType(), nf.body)
	}
	for _, p := range []string{
		"/api/list/news/0-0.html", "/api/list/news/0-101.html", "/api/list/news/x-20.html",
		"/api/list/news/0-20.json", "/api/list/news/0-20.html?callback=alert(1)",
	} {
		if r := get(t, srv, p); r.status != http.StatusBadRequest {
			t.Errorf("GET %s: status %d, want 400", p, r.status)
		}
	}
	resp, err := srv.Client().Post(srv.URL+a.Path, "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodHead, srv.URL+a.Path, nil)
	resp, err = srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD: status %d, want 200", resp.StatusCode)
	}
}

// TestListPagesReachEveryArticle walks every section's HTML list pages by
// their "next" links, and the tech section by numbered URLs.
func TestListPagesReachEveryArticle(t *testing.T) {
	s, srv := serve(t, Options{Articles: 500, Now: testNow, Seed: 7})
	all := slices.Concat(s.Articles(), s.PrivateArticles())
	slices.SortFunc(all, func(a, b ArticleInfo) int { // newest first, as the lists
		if c := b.PostTime.Compare(a.PostTime); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	truth := bySection(all)
	for _, sec := range s.sections {
		t.Run(sec.id, func(t *testing.T) {
			want := map[string]bool{}
			for _, a := range truth[sec.id] {
				want[a.Path] = true
			}
			seen := map[string]bool{}
			var order []string
			page := srv.URL + sec.listPath(1)
			pages := 0
			for page != "" {
				pages++
				if pages > sec.pages {
					t.Fatalf("more than %d list pages", sec.pages)
				}
				r := getOK(t, srv, page, "text/html; charset="+sec.charset)
				doc := htmlDoc(t, r)
				if got := doc.Find(`meta[charset]`).AttrOr("charset", ""); got != sec.charset {
					t.Errorf("%s: <meta charset=%q>, want %q", page, got, sec.charset)
				}
				links := doc.Find(listLinkSelector)
				if links.Length() == 0 || links.Length() > pageSize {
					t.Errorf("%s: %d article links", page, links.Length())
				}
				links.Each(func(_ int, l *goquery.Selection) {
					p := pathOf(t, resolve(t, page, l.AttrOr("href", "")))
					if seen[p] {
						t.Errorf("%s listed twice", p)
					}
					seen[p] = true
					order = append(order, p)
				})
				next, ok := doc.Find(listNextSelector).Attr("href")
				page = ""
				if ok {
					page = resolve(t, srv.URL+sec.listPath(pages), next)
				}
			}
			if pages != sec.pages {
				t.Errorf("walked %d pages, want %d", pages, sec.pages)
			}
			if len(seen) != len(want) {
				t.Errorf("list pages link %d articles, want %d", len(seen), len(want))
			}
			for p := range want {
				if !seen[p] {
					t.Errorf("%s is not on any list page", p)
				}
			}
			for i, a := range truth[sec.id] { // truth is newest first too
				if i < len(order) && order[i] != a.Path {
					t.Fatalf("list order differs at %d: %s, want %s", i, order[i], a.Path)
				}
			}
		})
	}

	tech := s.byID["tech"]
	first := get(t, srv, "/tech/").body
	if !bytes.Equal(first, get(t, srv, "/tech/list_1.html").body) {
		t.Error("/tech/ differs from /tech/list_1.html")
	}
	total := 0
	for p := 1; p <= tech.pages; p++ {
		doc := htmlDoc(t, getOK(t, srv, srv.URL+tech.listPath(p), "text/html"))
		total += doc.Find(listLinkSelector).Length()
		if cur := doc.Find("div.pager span.current").Text(); cur != strings.TrimSpace(cur) || cur == "" {
			t.Errorf("tech page %d: current page marker %q", p, cur)
		}
	}
	if want := len(truth["tech"]); total != want {
		t.Errorf("numbered tech pages link %d articles, want %d", total, want)
	}
}

func TestListPrivateLinks(t *testing.T) {
	s, srv := serve(t, Options{Articles: 600, Now: testNow, Seed: 2})
	priv := s.PrivateArticles()
	if len(priv) < 2 {
		t.Fatalf("%d private articles, want some in guonei and tech", len(priv))
	}
	secs := map[string]bool{}
	for _, p := range priv {
		secs[p.Section] = true
		r := getOK(t, srv, p.Path, "text/html")
		if !bytes.Contains(r.body, []byte(p.Title)) {
			t.Errorf("private page %s lacks its title", p.Path)
		}
	}
	if !secs["guonei"] || !secs["tech"] {
		t.Errorf("private articles only in %v, want guonei and tech", secs)
	}
}

func TestGBKSection(t *testing.T) {
	s, srv := serve(t, Options{Articles: 120, Now: testNow, Seed: 1})
	fin := bySection(s.Articles())["finance"]
	if len(fin) == 0 {
		t.Fatal("no finance articles")
	}
	for _, a := range fin {
		if a.Charset != "gbk" {
			t.Errorf("%s: charset %q", a.Path, a.Charset)
		}
		r := getOK(t, srv, a.Path, "text/html; charset=gbk")
		if utf8.Valid(r.body) || bytes.Contains(r.body, []byte(a.Title)) {
			t.Fatalf("%s: body is UTF-8, not GBK", a.Path)
		}
		if !bytes.Contains(r.body, []byte(`<meta charset="gbk">`)) {
			t.Errorf("%s: no <meta charset=\"gbk\">", a.Path)
		}
		doc := htmlDoc(t, r)
		if got := sel(doc, "#artTitle"); got != a.Title {
			t.Errorf("%s: decoded title %q, want %q", a.Path, got, a.Title)
		}
		if !strings.ContainsFunc(a.Title, func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff }) {
			t.Errorf("%s: title %q has no Chinese", a.Path, a.Title)
		}
	}
	r := getOK(t, srv, "/finance/", "text/html; charset=gbk")
	if utf8.Valid(r.body) {
		t.Error("finance list page is not GBK")
	}
	if got := sel(htmlDoc(t, r), listLinkSelector); got != fin[0].Title {
		t.Errorf("finance list first title %q, want %q", got, fin[0].Title)
	}
}
