package demosite

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/newsrank/newsrank/crawler"
	"github.com/temoto/robotstxt"
)

// TestSourceKinds checks that the sources use every kind of source but
// json (config's tests check that they validate).
func TestSourceKinds(t *testing.T) {
	s, srv := serve(t, Options{Articles: 300, Now: testNow})
	kinds := map[string]bool{}
	for _, src := range s.Sources(srv.URL) {
		kinds[src.Kind] = true
	}
	for _, k := range crawler.SourceKinds {
		if k != "json" && !kinds[k] {
			t.Errorf("no source of kind %s", k)
		}
	}
}

// walkSource lists the article URLs a source leads to, the way the
// crawler's producer reads each kind, honouring robots.txt. It also returns
// how many list/API pages it read.
func walkSource(t *testing.T, srv *httptest.Server, robots *robotstxt.RobotsData, src Source) (urls []string, pages int) {
	t.Helper()
	add := func(u string) {
		if robots.TestAgent(pathOf(t, u), "newsrank") {
			urls = append(urls, u)
		}
	}
	switch src.Kind {
	case "html":
		var page string
		for n := 0; src.MaxPages == 0 || n < src.MaxPages; n++ {
			switch {
			case n == 0:
				page = src.URLs[0]
			case src.PageTemplate != "":
				// The start URL is page 1; templated pages count from
				// first_page (0 means 2), as in package crawler.
				first := src.FirstPage
				if first == 0 {
					first = 2
				}
				page = strings.ReplaceAll(src.PageTemplate, "{page}", strconv.Itoa(first+n-1))
			}
			doc := htmlDoc(t, getOK(t, srv, page, "text/html"))
			pages++
			doc.Find(src.LinkSelector).Each(func(_ int, l *goquery.Selection) {
				add(resolve(t, page, l.AttrOr("href", "")))
			})
			if src.NextSelector != "" {
				next, ok := doc.Find(src.NextSelector).Attr("href")
				if !ok {
					break
				}
				page = resolve(t, page, next)
			}
		}
	case "rss":
		var feed rssDoc
		if err := xml.Unmarshal(getOK(t, srv, src.URLs[0], "application/rss+xml").body, &feed); err != nil {
			t.Fatal(err)
		}
		pages++
		for _, it := range feed.Items {
			add(it.Link)
		}
	case "atom":
		var feed atomDoc
		if err := xml.Unmarshal(getOK(t, srv, src.URLs[0], "application/atom+xml").body, &feed); err != nil {
			t.Fatal(err)
		}
		pages++
		for _, e := range feed.Entries {
			add(e.Links[0].Href)
		}
	case "sitemap":
		var index sitemapIndexDoc
		if err := xml.Unmarshal(getOK(t, srv, src.URLs[0], "application/xml").body, &index); err != nil {
			t.Fatal(err)
		}
		pages++
		for _, sm := range index.Sitemaps {
			var set urlsetDoc
			if err := xml.Unmarshal(getOK(t, srv, sm.Loc, "application/xml").body, &set); err != nil {
				t.Fatal(err)
			}
			pages++
			for _, u := range set.URLs {
				add(u.Loc)
			}
		}
	case "jsonp":
		o := src.JSON.Offset
		for off := o.Start; off < o.Limit; off += o.Step {
			u := strings.ReplaceAll(src.URLs[0], "{offset}", strconv.Itoa(off))
			var m map[string][]map[string]any
			if err := json.Unmarshal(stripJSONP(t, getOK(t, srv, u, "application/javascript").body, jsonpCallback), &m); err != nil {
				t.Fatal(err)
			}
			pages++
			for _, item := range m[src.JSON.ItemsPath] {
				add(strings.ReplaceAll(src.JSON.URLTemplate, "{docid}", fmt.Sprint(item["docid"])))
			}
		}
	default:
		t.Fatalf("source %s: kind %s not walked", src.Name, src.Kind)
	}
	return urls, pages
}

// TestSourcesFindEveryArticleOnce walks every source of Sources (and of
// HTMLSources) and checks that together they lead to each public article
// exactly once, never to a private one, within their page limits.
func TestSourcesFindEveryArticleOnce(t *testing.T) {
	for _, n := range []int{7, 120, 2000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			s, srv := serve(t, Options{Articles: n, Now: testNow, Seed: int64(n)})
			robots, err := robotstxt.FromBytes(get(t, srv, "/robots.txt").body)
			if err != nil {
				t.Fatal(err)
			}
			truth := byPath(s.Articles())
			for name, sources := range map[string][]Source{
				"Sources": s.Sources(srv.URL), "HTMLSources": s.HTMLSources(srv.URL),
			} {
				found := map[string]string{}
				for _, src := range sources {
					urls, pages := walkSource(t, srv, robots, src)
					if src.MaxPages > 0 && pages > src.MaxPages {
						t.Errorf("%s %s: read %d pages, max_pages %d", name, src.Name, pages, src.MaxPages)
					}
					for _, u := range urls {
						p := pathOf(t, u)
						a, ok := truth[p]
						switch {
						case !ok:
							t.Errorf("%s %s: %s is not a public article", name, src.Name, u)
						case found[p] != "":
							t.Errorf("%s: %s found by %s and %s", name, p, found[p], src.Name)
						case a.Section != src.Name:
							t.Errorf("%s: %s of section %s found by source %s", name, p, a.Section, src.Name)
						case !strings.HasPrefix(u, srv.URL+"/"):
							t.Errorf("%s: %s is not on the site", name, u)
						}
						found[p] = src.Name
					}
				}
				if len(found) != len(truth) {
					t.Errorf("%s find %d of %d articles", name, len(found), len(truth))
				}
			}
		})
	}
}

// TestSourcesExtract reads every article page with its source's
// extraction rules, falling back where a rule is empty to what the page
// carries (JSON-LD, OpenGraph, article:published_time, <time datetime>),
// and compares with the ground truth. It also checks that each section
// really has the markup it stands for.
func TestSourcesExtract(t *testing.T) {
	s, srv := serve(t, Options{Articles: 240, Now: testNow, Seed: 21})
	sources := map[string]Source{}
	for _, src := range s.Sources(srv.URL) {
		sources[src.Name] = src
	}
	checked := map[string]int{}
	for _, a := range s.Articles() {
		src := sources[a.Section]
		r := getOK(t, srv, a.Path, "text/html; charset="+a.Charset)
		doc := htmlDoc(t, r)
		got := extract(t, doc, src)
		if got.title != a.Title || !got.post.Equal(a.PostTime) || got.comments != a.Comments {
			t.Errorf("%s: extracted %q %v %d, want %s", a.Path, got.title, got.post, got.comments, fmtInfo(a))
		}
		if src.Extract.Source != "" && sel(doc, src.Extract.Source) != a.Source {
			t.Errorf("%s: source %q, want %q", a.Path, sel(doc, src.Extract.Source), a.Source)
		}
		body := sel(doc, src.Extract.Body)
		if len(body) < 50 || !strings.Contains(body, strings.TrimSuffix(a.Summary, "...")) {
			t.Errorf("%s: body %q does not hold the summary %q", a.Path, body, a.Summary)
		}
		checkMarkup(t, doc, a)
		checked[a.Section]++
	}
	if len(checked) != 6 {
		t.Errorf("checked sections %v, want 6", checked)
	}
}

type extracted struct {
	title    string
	post     time.Time
	comments int64
}

func extract(t *testing.T, doc *goquery.Document, src Source) extracted {
	t.Helper()
	var e extracted
	var ld map[string]any
	if raw := doc.Find(`script[type="application/ld+json"]`).First().Text(); raw != "" {
		if err := json.Unmarshal([]byte(raw), &ld); err != nil {
			t.Fatalf("JSON-LD: %v in %s", err, raw)
		}
	}
	ldString := func(k string) string { s, _ := ld[k].(string); return s }
	first := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	or := func(selector string) string {
		if selector == "" {
			return ""
		}
		return sel(doc, selector)
	}
	e.title = first(or(src.Extract.Title), ldString("headline"), sel(doc, `meta[property="og:title"]@content`), sel(doc, "title"))
	raw := first(or(src.Extract.PostTime), ldString("datePublished"),
		sel(doc, `meta[property="article:published_time"]@content`), sel(doc, "time@datetime"))
	var err error
	if len(src.TimeLayouts) > 0 {
		loc, lerr := time.LoadLocation(src.TimeZone)
		if lerr != nil {
			t.Fatal(lerr)
		}
		e.post, err = time.ParseInLocation(src.TimeLayouts[0], raw, loc)
	} else {
		e.post, err = time.Parse(time.RFC3339, raw)
	}
	if err != nil {
		t.Errorf("source %s: post time %q: %v", src.Name, raw, err)
	}
	c := or(src.Extract.Comments)
	if e.comments, err = strconv.ParseInt(c, 10, 64); err != nil {
		t.Errorf("source %s: comments %q: %v", src.Name, c, err)
	}
	return e
}

// checkMarkup asserts the features that make each section a distinct
// extraction case.
func checkMarkup(t *testing.T, doc *goquery.Document, a ArticleInfo) {
	t.Helper()
	has := func(s string) bool { return doc.Find(s).Length() > 0 }
	ld := has(`script[type="application/ld+json"]`)
	og := has(`meta[property="og:title"]`) && has(`meta[property="article:published_time"]`)
	tm := has("time[datetime]")
	titleTag := sel(doc, "title")
	switch a.Section {
	case "guonei", "finance", "news":
		if ld || og || tm {
			t.Errorf("%s: plain page has JSON-LD %v, OpenGraph %v, <time> %v", a.Path, ld, og, tm)
		}
		if titleTag == a.Title {
			t.Errorf("%s: <title> is the bare headline; the page should need a title selector", a.Path)
		}
	case "tech":
		if !ld || og || tm {
			t.Errorf("%s: want JSON-LD only, got JSON-LD %v, OpenGraph %v, <time> %v", a.Path, ld, og, tm)
		}
		var v map[string]any
		_ = json.Unmarshal([]byte(doc.Find(`script[type="application/ld+json"]`).Text()), &v)
		if v["@type"] != "NewsArticle" || v["commentCount"] != float64(a.Comments) {
			t.Errorf("%s: JSON-LD %v", a.Path, v)
		}
	case "world":
		if ld || !og || tm {
			t.Errorf("%s: want OpenGraph only, got JSON-LD %v, OpenGraph %v, <time> %v", a.Path, ld, og, tm)
		}
		if sel(doc, `meta[property="og:image"]@content`) == "" {
			t.Errorf("%s: no og:image", a.Path)
		}
	case "sports":
		if ld || og || !tm {
			t.Errorf("%s: want <time datetime> only, got JSON-LD %v, OpenGraph %v, <time> %v", a.Path, ld, og, tm)
		}
		if titleTag == a.Title {
			t.Errorf("%s: <title> is the bare headline", a.Path)
		}
		if dt := sel(doc, "time@datetime"); !strings.HasSuffix(dt, "+01:00") {
			t.Errorf("%s: <time datetime=%q>, want Berlin winter time (+01:00)", a.Path, dt)
		}
	}
	if got := doc.Find("meta[charset]").AttrOr("charset", ""); got != a.Charset {
		t.Errorf("%s: <meta charset=%q>, want %q", a.Path, got, a.Charset)
	}
}
