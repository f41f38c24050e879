package demosite

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/temoto/robotstxt"
	"golang.org/x/text/encoding/simplifiedchinese"
)

func TestOptionsAndGroundTruth(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		before := time.Now()
		s := New(Options{})
		if got := len(s.Articles()); got != DefaultArticles {
			t.Errorf("Articles() has %d articles, want the default %d", got, DefaultArticles)
		}
		if s.Now().Before(before.Add(-time.Second)) || s.Now().After(time.Now()) {
			t.Errorf("zero Now became %v, want the time New was called (~%v)", s.Now(), before)
		}
	})
	for _, n := range []int{1, 7, 120, 1000} {
		s := New(Options{Articles: n, Now: testNow, Seed: 3})
		as := s.Articles()
		if len(as) != n {
			t.Fatalf("Articles: %d, want %d", len(as), n)
		}
		counts := map[string]int{}
		paths := map[string]bool{}
		stale := 0
		for i, a := range as {
			counts[a.Section]++
			if paths[a.Path] {
				t.Errorf("duplicate path %s", a.Path)
			}
			paths[a.Path] = true
			if a.Title == "" || a.Source == "" || a.Summary == "" {
				t.Errorf("incomplete article %+v", a)
			}
			if a.Private {
				t.Errorf("Articles() includes private %s", a.Path)
			}
			if !a.PostTime.Before(testNow) || a.PostTime.Before(testNow.Add(-week-staleMax-time.Minute)) {
				t.Errorf("%s: post time %v outside the week (+%v) before %v", a.Path, a.PostTime, staleMax, testNow)
			}
			if a.PostTime.Before(testNow.Add(-week)) {
				stale++
			}
			if a.PostTime.Nanosecond() != 0 || a.PostTime.Location() != time.UTC {
				t.Errorf("%s: post time %v is not whole UTC seconds", a.Path, a.PostTime)
			}
			if a.Comments < 0 {
				t.Errorf("%s: negative comments", a.Path)
			}
			if i > 0 && a.PostTime.After(as[i-1].PostTime) {
				t.Errorf("Articles not newest first at %d", i)
			}
		}
		if n >= 120 && (stale == 0 || stale > n/10) {
			t.Errorf("%d articles: %d older than a week, want a few", n, stale)
		}
		if n >= 6 {
			if len(counts) != 6 {
				t.Errorf("%d articles in %d sections, want 6: %v", n, len(counts), counts)
			}
			lo, hi := n, 0
			for _, c := range counts {
				lo, hi = min(lo, c), max(hi, c)
			}
			if hi-lo > 1 {
				t.Errorf("uneven sections: %v", counts)
			}
		}
		for _, p := range s.PrivateArticles() {
			if !p.Private || !strings.HasPrefix(p.Path, "/private/") || paths[p.Path] {
				t.Errorf("bad private article %+v", p)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	opts := Options{Articles: 300, Now: testNow, Seed: 42}
	s1, srv1 := serve(t, opts)
	s2, srv2 := serve(t, opts)
	if !slices.Equal(s1.Articles(), s2.Articles()) || !slices.Equal(s1.PrivateArticles(), s2.PrivateArticles()) {
		t.Fatal("same options, different ground truth")
	}
	paths := []string{"/", "/robots.txt", "/world/rss.xml", "/sports/atom.xml", "/finance/sitemap_index.xml",
		"/finance/sitemap_news.xml", "/api/list/news/0-50.html?callback=artiList", "/tech/list_2.html"}
	for _, sec := range s1.sections {
		paths = append(paths, sec.listPath(1), sec.listPath(sec.pages))
	}
	for i, a := range s1.Articles() {
		if i%17 == 0 {
			paths = append(paths, a.Path)
		}
	}
	paths = append(paths, s1.PrivateArticles()[0].Path)
	for _, p := range paths {
		b1 := bytes.ReplaceAll(get(t, srv1, p).body, []byte(srv1.URL), []byte("BASE"))
		b2 := bytes.ReplaceAll(get(t, srv2, p).body, []byte(srv2.URL), []byte("BASE"))
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s differs between two sites with the same options", p)
		}
	}

	other := New(Options{Articles: 300, Now: testNow, Seed: 43}).Articles()
	same := 0
	for i, a := range s1.Articles() {
		if other[i].Title == a.Title {
			same++
		}
	}
	if same > 30 {
		t.Errorf("seeds 42 and 43 share %d of 300 titles", same)
	}

	later := New(Options{Articles: 300, Now: testNow.Add(time.Hour), Seed: 42}).Articles()
	for i, a := range s1.Articles() {
		if later[i].Title != a.Title || !later[i].PostTime.Equal(a.PostTime.Add(time.Hour)) {
			t.Fatalf("Now+1h should shift post times by 1h: %s vs %s", fmtInfo(a), fmtInfo(later[i]))
		}
	}

	// Growing the site keeps the first articles' content.
	bigger := byPath(New(Options{Articles: 600, Now: testNow, Seed: 42}).Articles())
	for _, a := range s1.Articles() {
		if b, ok := bigger[a.Path]; !ok || b != a {
			t.Fatalf("article %s changed when the site grew", a.Path)
		}
	}
}

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

type rssDoc struct {
	XMLName xml.Name `xml:"rss"`
	Version string   `xml:"version,attr"`
	Items   []struct {
		Title    string `xml:"title"`
		Link     string `xml:"link"`
		GUID     string `xml:"guid"`
		PubDate  string `xml:"pubDate"`
		Creator  string `xml:"http://purl.org/dc/elements/1.1/ creator"`
		Desc     string `xml:"description"`
		Comments int64  `xml:"http://purl.org/rss/1.0/modules/slash/ comments"`
	} `xml:"channel>item"`
}

func TestRSS(t *testing.T) {
	s, srv := serve(t, Options{Articles: 300, Now: testNow, Seed: 5})
	r := getOK(t, srv, "/world/rss.xml", "application/rss+xml")
	var feed rssDoc
	if err := xml.Unmarshal(r.body, &feed); err != nil {
		t.Fatalf("parse RSS: %v", err)
	}
	want := bySection(s.Articles())["world"]
	if feed.Version != "2.0" || len(feed.Items) != len(want) {
		t.Fatalf("RSS %s with %d items, want 2.0 with %d", feed.Version, len(feed.Items), len(want))
	}
	offsets := map[string]bool{}
	for i, it := range feed.Items {
		a := want[i]
		if it.Link != srv.URL+a.Path || it.GUID != it.Link || it.Title != a.Title || it.Desc != a.Summary || it.Comments != a.Comments {
			t.Errorf("item %d: %+v, want %s", i, it, fmtInfo(a))
		}
		pub, err := time.Parse(time.RFC1123Z, it.PubDate)
		if err != nil || !pub.Equal(a.PostTime) {
			t.Errorf("item %d pubDate %q (%v), want %v", i, it.PubDate, err, a.PostTime)
		}
		offsets[it.PubDate[len(it.PubDate)-5:]] = true
	}
	if !offsets["-0400"] || !offsets["-0500"] {
		t.Errorf("pubDate offsets %v, want New York's EDT and EST across the DST change", offsets)
	}
}

type atomDoc struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	Entries []struct {
		Title string `xml:"title"`
		Links []struct {
			Rel  string `xml:"rel,attr"`
			Href string `xml:"href,attr"`
		} `xml:"link"`
		ID        string `xml:"id"`
		Published string `xml:"published"`
		Author    string `xml:"author>name"`
		Summary   string `xml:"summary"`
	} `xml:"entry"`
}

func TestAtom(t *testing.T) {
	s, srv := serve(t, Options{Articles: 300, Now: testNow, Seed: 5})
	r := getOK(t, srv, "/sports/atom.xml", "application/atom+xml")
	var feed atomDoc
	if err := xml.Unmarshal(r.body, &feed); err != nil {
		t.Fatalf("parse Atom: %v", err)
	}
	want := bySection(s.Articles())["sports"]
	if len(feed.Entries) != len(want) {
		t.Fatalf("%d entries, want %d", len(feed.Entries), len(want))
	}
	ids := map[string]bool{}
	for i, e := range feed.Entries {
		a := want[i]
		if len(e.Links) != 1 || e.Links[0].Rel != "alternate" || e.Links[0].Href != srv.URL+a.Path || e.Title != a.Title || e.Summary != a.Summary {
			t.Errorf("entry %d: %+v, want %s", i, e, fmtInfo(a))
		}
		pub, err := time.Parse(time.RFC3339, e.Published)
		if err != nil || !pub.Equal(a.PostTime) {
			t.Errorf("entry %d published %q (%v), want %v", i, e.Published, err, a.PostTime)
		}
		if ids[e.ID] || e.ID == "" {
			t.Errorf("entry %d: id %q empty or repeated", i, e.ID)
		}
		ids[e.ID] = true
	}
}

type sitemapIndexDoc struct {
	XMLName  xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
	Sitemaps []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
	} `xml:"sitemap"`
}

type urlsetDoc struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
		News    *struct {
			Name    string `xml:"publication>name"`
			Lang    string `xml:"publication>language"`
			PubDate string `xml:"publication_date"`
			Title   string `xml:"title"`
		} `xml:"http://www.google.com/schemas/sitemap-news/0.9 news"`
	} `xml:"url"`
}

func TestSitemaps(t *testing.T) {
	s, srv := serve(t, Options{Articles: 600, Now: testNow, Seed: 9})
	var index sitemapIndexDoc
	if err := xml.Unmarshal(getOK(t, srv, "/finance/sitemap_index.xml", "application/xml").body, &index); err != nil {
		t.Fatalf("parse sitemap index: %v", err)
	}
	if len(index.Sitemaps) < 3 {
		t.Fatalf("sitemap index lists %d sitemaps, want news + daily ones", len(index.Sitemaps))
	}
	want := byPath(bySection(s.Articles())["finance"])
	seen := map[string]bool{}
	newsCount := 0
	for i, sm := range index.Sitemaps {
		if _, err := time.Parse(time.RFC3339, sm.Lastmod); err != nil {
			t.Errorf("sitemap %s lastmod %q: %v", sm.Loc, sm.Lastmod, err)
		}
		var set urlsetDoc
		if err := xml.Unmarshal(getOK(t, srv, sm.Loc, "application/xml").body, &set); err != nil {
			t.Fatalf("parse %s: %v", sm.Loc, err)
		}
		isNews := strings.HasSuffix(sm.Loc, "/finance/sitemap_news.xml")
		if isNews != (i == 0) {
			t.Errorf("sitemap %d is %s; the news sitemap should come first", i, sm.Loc)
		}
		for _, u := range set.URLs {
			p := pathOf(t, u.Loc)
			a, ok := want[p]
			if !ok || seen[p] {
				t.Errorf("%s: %s unknown or listed twice", sm.Loc, u.Loc)
				continue
			}
			seen[p] = true
			date := u.Lastmod
			if isNews {
				newsCount++
				if u.News == nil || u.News.Name != "演示财经" || u.News.Lang != "zh" || u.News.Title != a.Title {
					t.Errorf("news entry %s: %+v, want %s", u.Loc, u.News, fmtInfo(a))
					continue
				}
				date = u.News.PubDate
				if a.PostTime.Before(testNow.Add(-newsSitemapWindow)) {
					t.Errorf("news sitemap lists %s posted %v, older than two days", p, a.PostTime)
				}
			} else if u.News != nil {
				t.Errorf("daily sitemap %s has a news:news entry", sm.Loc)
			}
			pub, err := time.Parse(time.RFC3339, date)
			if err != nil || !pub.Equal(a.PostTime) || !strings.HasSuffix(date, "+08:00") {
				t.Errorf("%s date %q (%v), want %v in +08:00", p, date, err, a.PostTime)
			}
		}
	}
	if newsCount == 0 {
		t.Error("the news sitemap is empty")
	}
	if len(seen) != len(want) {
		t.Errorf("sitemaps list %d finance articles, want %d", len(seen), len(want))
	}
}

func TestJSONPListAPI(t *testing.T) {
	s, srv := serve(t, Options{Articles: 400, Now: testNow, Seed: 11})
	want := bySection(s.Articles())["news"]
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	var got []apiListItem
	for off := 0; ; off += 20 {
		r := getOK(t, srv, "/api/list/news/"+strconv.Itoa(off)+"-20.html?callback=artiList", "application/javascript")
		items := decodeAPI(t, r.body, "artiList")
		if len(items) == 0 {
			break
		}
		if len(items) > 20 {
			t.Fatalf("offset %d: %d items for limit 20", off, len(items))
		}
		got = append(got, items...)
	}
	if len(got) != len(want) {
		t.Fatalf("API pages hold %d items, want %d", len(got), len(want))
	}
	for i, it := range got {
		a := want[i]
		pt, err := time.ParseInLocation(time.DateTime, it.PTime, shanghai)
		if it.URL != srv.URL+a.Path || it.URL != srv.URL+"/news/article/"+it.DocID+".html" || it.Title != a.Title ||
			it.ReplyCount != a.Comments || it.Source != a.Source || it.Digest != a.Summary ||
			it.ImgSrc != srv.URL+a.Image || err != nil || !pt.Equal(a.PostTime) {
			t.Errorf("item %d: %+v (ptime err %v), want %s", i, it, err, fmtInfo(a))
		}
	}

	// A custom callback, the default callback, and a page past the end.
	r := getOK(t, srv, "/api/list/news/5-2.html?callback=jQuery_123", "application/javascript")
	if items := decodeAPI(t, r.body, "jQuery_123"); len(items) != 2 || items[0].DocID != got[5].DocID {
		t.Errorf("offset 5 limit 2 with callback jQuery_123: %+v", items)
	}
	r = getOK(t, srv, "/api/list/news/0-1.html", "application/javascript")
	if items := decodeAPI(t, r.body, "artiList"); len(items) != 1 {
		t.Errorf("default callback: %d items", len(items))
	}
	r = getOK(t, srv, "/api/list/news/100000-20.html?callback=artiList", "application/javascript")
	if !bytes.Equal(r.body, []byte(`artiList({"BBM54PGAwangning":[]})`)) {
		t.Errorf("past the end: %s", r.body)
	}
	if !json.Valid(stripJSONP(t, r.body, "artiList")) {
		t.Error("invalid JSON")
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

func TestDelay(t *testing.T) {
	const d = 30 * time.Millisecond
	_, srv := serve(t, Options{Articles: 10, Now: testNow, Delay: d})
	start := time.Now()
	getOK(t, srv, "/robots.txt", "text/plain")
	if el := time.Since(start); el < d {
		t.Errorf("response after %v, want at least the %v delay", el, d)
	}
}

func TestWordListsEncodeInGBK(t *testing.T) {
	enc := simplifiedchinese.GBK.NewEncoder()
	for name, list := range words {
		for _, w := range list {
			if _, err := enc.String(w); err != nil {
				t.Errorf("word list %s: %q cannot be encoded in GBK: %v", name, w, err)
			}
		}
	}
	for _, name := range []string{"zh.sentence", "zh.fin_sentence", "en.sentence", "en.sports_sentence"} {
		for _, w := range words[name] {
			for rest := w; strings.Contains(rest, "{"); {
				i, j := strings.Index(rest, "{"), strings.Index(rest, "}")
				if j < i {
					t.Fatalf("%s: unbalanced placeholder in %q", name, w)
				}
				if _, ok := words[name[:2]+"."+rest[i+1:j]]; !ok {
					t.Errorf("%s: %q uses unknown list %s", name, w, rest[i+1:j])
				}
				rest = rest[j+1:]
			}
		}
	}
}

func TestConcurrentRequests(t *testing.T) {
	s, srv := serve(t, Options{Articles: 240, Now: testNow, Seed: 4})
	as := s.Articles()
	errs := make(chan error, 8)
	for w := range 8 {
		go func() {
			for i := w; i < len(as); i += 8 {
				resp, err := srv.Client().Get(srv.URL + as[i].Path)
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("%s: status %d", as[i].Path, resp.StatusCode)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestStoriesPublished: Options.Stories adds one article per copy of the
// labelled stories (StorySet with the site's seed and now), each in a
// UTF-8 section of its language, the copies of one story spread over
// sections; the other articles are those of the site without stories.
func TestStoriesPublished(t *testing.T) {
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	plain := New(Options{Articles: 60, Now: now, Seed: 3})
	site, srv := serve(t, Options{Articles: 60, Now: now, Seed: 3, Stories: 12})
	set := StorySet(3, 12, now)
	copies := map[string][]ArticleInfo{}
	others := 0
	for _, a := range site.Articles() {
		if a.Story == "" {
			others++
			continue
		}
		copies[a.Story] = append(copies[a.Story], a)
		if a.Charset != "utf-8" || (a.Section == "world" || a.Section == "tech" || a.Section == "sports") == isCJKText(a.Title) {
			t.Errorf("copy %q in section %s (%s)", a.Title, a.Section, a.Charset)
		}
	}
	if others != len(plain.Articles()) {
		t.Errorf("%d other articles, want the %d of the site without stories", others, len(plain.Articles()))
	}
	n, spread := 0, 0
	for _, cs := range copies {
		n += len(cs)
		secs := map[string]bool{}
		for _, c := range cs {
			secs[c.Section] = true
		}
		if len(secs) > 1 {
			spread++
		}
	}
	if n != len(set) || len(copies) != 12 || spread == 0 {
		t.Errorf("%d copies of %d stories (%d in several sections), want the set's %d copies of 12", n, len(copies), spread, len(set))
	}
	for _, l := range set {
		found := false
		for _, a := range copies[l.Story] {
			found = found || a.Title == l.Title && a.Summary == l.Summary && a.PostTime.Equal(l.PostTime.Truncate(time.Second))
		}
		if !found {
			t.Errorf("copy %q of %s not published", l.Title, l.Story)
		}
	}
	for _, a := range copies["s0000"] {
		doc := htmlDoc(t, getOK(t, srv, srv.URL+a.Path, "text/html"))
		if got := strings.TrimSpace(doc.Find("h1").First().Text()); got != a.Title {
			t.Errorf("%s: headline %q, want %q", a.Path, got, a.Title)
		}
		if !strings.Contains(doc.Find("body").Text(), a.Summary) {
			t.Errorf("%s: the body does not carry the copy's summary %q", a.Path, a.Summary)
		}
	}
}

func isCJKText(s string) bool {
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}

// TestPairCounts: pairs of one story grouped together count as found,
// pairs grouped across stories (or with an ordinary article) as wrong,
// one story's copies in one language apart as missed; two ordinary
// articles and a story's copies in two languages apart count neither way.
func TestPairCounts(t *testing.T) {
	gs := []Grouped{
		{"s1", "en", "a"}, {"s1", "en", "a"}, {"s1", "en", "b"}, // one found, two missed
		{"s1", "zh", "c"},                // other language, apart: not counted
		{"", "en", "a"},                  // ordinary, grouped with s1: three wrong
		{"", "en", "d"}, {"", "en", "d"}, // two ordinary together: not counted
		{"s2", "en", "e"}, {"s2", "en", "e"}, // one found
	}
	tp, fp, missed := PairCounts(gs)
	if tp != 2 || fp != 2 || len(missed) != 2 || missed[0] != [2]int{0, 2} || missed[1] != [2]int{1, 2} {
		t.Errorf("PairCounts = %d, %d, %v; want 2, 2, [[0 2] [1 2]]", tp, fp, missed)
	}
}
