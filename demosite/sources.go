package demosite

import (
	"fmt"
	"strings"
)

// Source is a crawler source for the site, written the way a
// crawler.sources entry of the configuration is (selectors as text):
// package config translates it (config.DemoSources), tests of the crawler
// compile it. The fields mean what the configuration keys of the same
// names do.
type Source struct {
	Name, Label, Kind string
	URLs, Groups      []string
	MaxPages          int
	LinkSelector      string
	NextSelector      string
	PageTemplate      string
	FirstPage         int
	JSON              JSONList
	Extract           Extract
	TimeLayouts       []string
	TimeZone          string
}

// JSONList reads a JSON or JSONP list API (json.* of a source).
type JSONList struct {
	ItemsPath, URLTemplate string
	Fields                 map[string]string
	Offset                 OffsetPagination
}

// OffsetPagination fills {offset} with Start, Start+Step, ... below Limit.
type OffsetPagination struct {
	Start, Step, Limit int
}

// Extract holds the CSS selectors for the fields of an article page.
type Extract struct {
	Title, PostTime, Source, Comments, Body string
}

// Sources returns one crawler source per section, each using the section's
// own way in, so that together they find every public article exactly once
// (sources are disjoint: each section is listed by one source only):
//
//	guonei   html: /guonei/ and its "下一页" links (next_selector)
//	world    rss:  /world/rss.xml
//	tech     html: /tech/list_1.html, then /tech/list_{page}.html from 2 (page_template)
//	sports   atom: /sports/atom.xml
//	finance  sitemap: /finance/sitemap_index.xml → news sitemap + daily sitemaps
//	news     jsonp: /api/list/news/{offset}-20.html?callback=artiList
//
// baseURL is where the site is served, e.g. an httptest.Server's URL.
// Every source's max_pages (and the jsonp json.offset.limit) equals the
// number of list pages (items) it has, start URL included, so a crawl stops
// at the last page without requesting one past the end (which answers 404,
// or an empty list from the API).
// Extraction rules are set only where the page needs them; the other
// fields are left to the crawler's fallbacks (JSON-LD on tech, OpenGraph
// and article:published_time on world, <time datetime> on sports).
func (s *Site) Sources(baseURL string) []Source {
	base := strings.TrimRight(baseURL, "/")
	out := make([]Source, 0, len(s.sections))
	for _, sec := range s.sections {
		src := Source{
			Name:   sec.id,
			Label:  sec.name,
			URLs:   []string{base + sec.listPath(1)},
			Groups: []string{sec.id},
		}
		switch sec.id {
		case "guonei":
			guoneiSource(&src, sec)
		case "world":
			worldSource(&src, base)
		case "tech":
			techSource(&src, sec, base)
		case "sports":
			sportsSource(&src, base)
		case "finance":
			financeSource(&src, base, len(s.smIndex))
		case "news":
			newsSource(&src, sec, base)
		default:
			panic("demosite: no source for section " + sec.id)
		}
		out = append(out, src)
	}
	return out
}

// HTMLSources returns one html source per section that walks the
// section's HTML list pages through their "next" links, with the same
// extraction rules as Sources. It finds the same articles as Sources, the
// way a plain list-page spider (like the Scrapy benchmark spider) does.
func (s *Site) HTMLSources(baseURL string) []Source {
	base := strings.TrimRight(baseURL, "/")
	out := s.Sources(baseURL)
	for i, sec := range s.sections {
		src := &out[i]
		src.Kind = "html"
		src.URLs = []string{base + sec.listPath(1)}
		src.MaxPages = sec.pages
		src.LinkSelector = listLinkSelector
		src.NextSelector = listNextSelector
		src.PageTemplate = ""
		src.FirstPage = 0
		src.JSON = JSONList{}
		// Without the list item's fields, the news pages' own time and
		// byline are all there is.
	}
	return out
}

// Selectors of the shared list-page template.
const (
	listLinkSelector = "ul.news-list li.news-item a.title"
	listNextSelector = "div.pager a.next"
)

// apiPageSize is the limit Sources asks the JSONP API for per request.
const apiPageSize = 20

// shanghaiZone is the time zone of the times on the Chinese sections' pages.
const shanghaiZone = "Asia/Shanghai"

// guoneiSource walks the 国内 list pages through their "下一页" links; the
// plain article pages need a selector for every field.
func guoneiSource(src *Source, sec *section) {
	src.Kind = "html"
	src.MaxPages = sec.pages
	src.LinkSelector = listLinkSelector
	src.NextSelector = listNextSelector
	src.Extract = Extract{
		Title:    "h1.article-title",
		PostTime: "div.article-meta .post-time",
		Source:   "div.article-meta .source-name",
		Comments: "div.article-meta .comment-count em",
		Body:     "div.article-body",
	}
	src.TimeLayouts = []string{"2006-01-02 15:04:05"}
	src.TimeZone = shanghaiZone
}

// worldSource reads the World RSS feed; OpenGraph gives the rest but the
// byline's agency (an outlet, on the pages of the coverage set's reports).
func worldSource(src *Source, base string) {
	src.Kind = "rss"
	src.URLs = []string{base + "/world/rss.xml"}
	src.MaxPages = 1
	src.Extract = Extract{
		Source:   "div.story-meta .source",
		Comments: "span.comment-count",
		Body:     "div.story-body",
	}
}

// techSource walks the numbered Tech list pages by a page template; JSON-LD
// gives the rest.
func techSource(src *Source, sec *section, base string) {
	src.Kind = "html"
	src.MaxPages = sec.pages
	src.LinkSelector = listLinkSelector
	src.PageTemplate = base + "/tech/list_{page}.html"
	src.FirstPage = 2 // the start URL is page 1
	src.Extract = Extract{
		Source:   "p.byline .source",
		Comments: "span.comments-count",
		Body:     "div.article-content",
	}
}

// sportsSource reads the Sports Atom feed; <time datetime> gives the post
// time.
func sportsSource(src *Source, base string) {
	src.Kind = "atom"
	src.URLs = []string{base + "/sports/atom.xml"}
	src.MaxPages = 1
	src.Extract = Extract{
		Title:    "h1.headline",
		Source:   "p.meta .source",
		Comments: "b.n-comments",
		Body:     "div.report-body",
	}
}

// financeSource reads the finance sitemap index and its sitemaps (the
// index lists nSitemaps of them).
func financeSource(src *Source, base string, nSitemaps int) {
	src.Kind = "sitemap"
	src.URLs = []string{base + "/finance/sitemap_index.xml"}
	src.MaxPages = 1 + nSitemaps // the index and its sitemaps
	src.Extract = Extract{
		Title:    "#artTitle",
		PostTime: "#pubtime",
		Source:   "#source",
		Comments: "#cmtCount",
		Body:     "#artContent",
	}
	src.TimeLayouts = []string{"2006年01月02日 15:04:05"}
	src.TimeZone = shanghaiZone
}

// newsSource pages through the 要闻 JSONP list API, apiPageSize items a
// request, taking each item's fields from the list.
func newsSource(src *Source, sec *section, base string) {
	n := len(sec.public)
	src.Kind = "jsonp"
	src.URLs = []string{fmt.Sprintf("%s/api/list/news/{offset}-%d.html?callback=%s", base, apiPageSize, jsonpCallback)}
	src.JSON = JSONList{
		ItemsPath:   jsonpKey,
		URLTemplate: base + "/news/article/{docid}.html",
		Fields: map[string]string{
			"title":     "title",
			"post_time": "ptime",
			"comments":  "replyCount",
			"source":    "source",
			"summary":   "digest",
			"image":     "imgsrc",
		},
		Offset: OffsetPagination{Start: 0, Step: apiPageSize, Limit: max(n, 1)},
	}
	src.MaxPages = max(1, (n+apiPageSize-1)/apiPageSize)
	src.Extract = Extract{
		Title:    "article h1.title",
		PostTime: "div.info .time",
		Source:   "div.info .source",
		Comments: "span.tie-count",
		Body:     "div.content",
	}
	src.TimeLayouts = []string{"2006-01-02 15:04:05"}
	src.TimeZone = shanghaiZone
}
