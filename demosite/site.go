// Package demosite is a deterministic demo news site served from embedded
// templates: several sections in Chinese and English, each reachable in its
// own way (paginated HTML lists with a next link or numbered pages, an RSS
// 2.0 feed, an Atom feed, a sitemap index with a Google News sitemap, and a
// NetEase-shaped JSONP list API), article pages with varied markup, time
// formats and zones, visible comment counts, and one section served in GBK.
//
// It is the target of the crawler's tests, of `newsrank demo` and of the
// crawl benchmarks. The same (Seed, Now, Articles) always gives the same
// site, byte for byte; Articles reports the ground truth and Sources the
// crawler configuration that finds every article exactly once.
//
// Routes:
//
//	/robots.txt                         allow all but /private/, Crawl-delay 0
//	/                                   home page
//	/guonei/, /guonei/index_N.html      国内 (zh): list pages with a "下一页" link
//	/tech/list_N.html (/tech/ = page 1) Tech (en): numbered list pages; JSON-LD articles
//	/world/rss.xml, /world/page/N/      World (en): RSS 2.0; OpenGraph articles
//	/sports/atom.xml, /sports/page/N/   Sports (en): Atom; <time datetime> articles
//	/finance/sitemap_index.xml          财经 (zh, GBK pages): sitemap index → news + daily sitemaps
//	/api/list/news/{offset}-{limit}.html?callback=artiList
//	                                    要闻 (zh): NetEase-style JSONP list API
//	/private/ID.html                    linked from some 国内 and Tech list pages; disallowed
//	/img/ID.png, /static/...            images and style sheet
//
// Every section also has HTML list pages (see HTMLSources).
package demosite

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"time"
	_ "time/tzdata" // the site renders Asia/Shanghai, America/New_York and Europe/Berlin on any host
)

// Options configures a Site. The zero value gives a small site of
// DefaultArticles articles posted in the week before the current time.
type Options struct {
	// Articles is the number of articles across all sections (not counting
	// the few private ones); <= 0 means DefaultArticles.
	Articles int
	// Now anchors the post times: they are spread over the week before
	// Now, a few up to half a day older than a week (to exercise pruning).
	// Zero means time.Now() when New is called.
	Now time.Time
	// Seed selects the content; the same (Seed, Now, Articles) gives the
	// same site.
	Seed int64
	// Delay is added before every response (respecting the request's
	// context), to simulate a slow site.
	Delay time.Duration
}

// DefaultArticles is the site size when Options.Articles is not set.
const DefaultArticles = 120

// Site is the demo news site; it implements http.Handler and is safe for
// concurrent use. It holds only article metadata; pages are rendered per
// request.
type Site struct {
	opts     Options
	sections []*section
	byID     map[string]*section
	public   []*article          // newest first
	private  []*article          // newest first
	byPath   map[string]*article // article pages, public and private
	images   map[string]bool
	lists    map[string]listRef      // list page path → section and page
	sitemaps map[string]*sitemapFile // finance sitemap path → its articles
	smIndex  []*sitemapFile          // in index order
	mux      *http.ServeMux
}

type listRef struct {
	sec  *section
	page int
}

type sitemapFile struct {
	path     string
	news     bool
	articles []*article // newest first
}

// ArticleInfo is the ground truth about one article, for tests.
type ArticleInfo struct {
	// Path is the article page's path; join it to the site's base URL.
	Path string
	// Section is the section id ("guonei", "world", "tech", "sports",
	// "finance", "news"), which is also the name of its source in Sources.
	Section string
	// Title is the headline as shown on the page.
	Title string
	// PostTime is the publication time (UTC, whole seconds).
	PostTime time.Time
	// Comments is the comment count shown on the page (and in the feeds
	// and list API that carry one).
	Comments int64
	// Charset is the page encoding: "utf-8" or "gbk".
	Charset string
	// Source is the agency or byline the page names.
	Source string
	// Summary is the article's digest (list pages, feeds, meta description).
	Summary string
	// Image is the path of the lead image, "" when the page has none.
	Image string
	// Private articles are linked from list pages but disallowed by
	// robots.txt; a polite crawler never fetches them.
	Private bool
}

// New generates the site for opts.
func New(opts Options) *Site {
	if opts.Articles <= 0 {
		opts.Articles = DefaultArticles
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	opts.Now = opts.Now.Truncate(time.Second)
	opts.Delay = max(opts.Delay, 0)

	s := &Site{
		opts:     opts,
		sections: newSections(),
		byID:     map[string]*section{},
		byPath:   map[string]*article{},
		images:   map[string]bool{},
		lists:    map[string]listRef{},
		sitemaps: map[string]*sitemapFile{},
	}
	s.public, s.private = generate(words, s.sections, opts)
	for _, sec := range s.sections {
		s.byID[sec.id] = sec
		for p := 1; p <= sec.pages; p++ {
			s.lists[sec.listPath(p)] = listRef{sec, p}
		}
	}
	s.lists["/tech/"] = listRef{s.byID["tech"], 1}
	for _, a := range slices.Concat(s.public, s.private) {
		s.byPath[a.path] = a
		if a.image != "" {
			s.images[a.image] = true
		}
	}
	s.buildSitemaps()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /robots.txt", s.robots)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(staticFS)))
	mux.HandleFunc("GET /img/{file}", s.image)
	mux.HandleFunc("GET /{$}", s.home)
	mux.HandleFunc("GET /world/rss.xml", s.rss)
	mux.HandleFunc("GET /sports/atom.xml", s.atom)
	mux.HandleFunc("GET /finance/sitemap_index.xml", s.sitemapIndex)
	mux.HandleFunc("GET /api/list/{channel}/{span}", s.listAPI)
	mux.HandleFunc("GET /", s.page)
	s.mux = mux
	return s
}

// ServeHTTP serves the site. GET and HEAD only.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Per-request behaviour that is not about content (the delay now,
	// injected faults later) goes here, before routing.
	if d := s.opts.Delay; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// Articles returns the ground truth: every public article, newest first.
// Private articles are not included (see PrivateArticles).
func (s *Site) Articles() []ArticleInfo {
	return infos(s.public)
}

// PrivateArticles returns the articles under /private/ that some list
// pages link to and robots.txt disallows, newest first.
func (s *Site) PrivateArticles() []ArticleInfo {
	return infos(s.private)
}

// Now returns the time the site's post times are anchored to.
func (s *Site) Now() time.Time { return s.opts.Now }

func infos(as []*article) []ArticleInfo {
	out := make([]ArticleInfo, len(as))
	for i, a := range as {
		out[i] = ArticleInfo{
			Path: a.path, Section: a.sec.id, Title: a.title, PostTime: a.post,
			Comments: a.comments, Charset: a.sec.charset, Source: a.source,
			Summary: a.summary, Image: a.image, Private: a.private,
		}
	}
	return out
}

// baseURL is the scheme and host the request reached the site at; feeds,
// sitemaps and the API carry absolute URLs built from it.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Site) nav(active *section) []navLink {
	nav := make([]navLink, len(s.sections))
	for i, sec := range s.sections {
		nav[i] = navLink{Name: sec.name, Path: sec.listPath(1), Active: sec == active}
	}
	return nav
}

func (s *Site) robots(w http.ResponseWriter, r *http.Request) {
	renderText(w, "robots.txt", ctText, struct{ Base string }{baseURL(r)})
}

func (s *Site) image(w http.ResponseWriter, r *http.Request) {
	if !s.images[r.URL.Path] {
		s.notFound(w, r)
		return
	}
	data, err := assets.ReadFile("assets/static/placeholder.png")
	if err != nil {
		http.Error(w, "demosite: "+err.Error(), http.StatusInternalServerError)
		return
	}
	write(w, http.StatusOK, ctPNG, data)
}

func (s *Site) home(w http.ResponseWriter, r *http.Request) {
	v := homeView{common: common{Nav: s.nav(nil)}}
	for _, sec := range s.sections {
		b := homeBlock{ID: sec.id, Name: sec.name, Path: sec.listPath(1)}
		for _, a := range sec.public[:min(5, len(sec.public))] {
			b.Items = append(b.Items, sec.listItem(a))
		}
		v.Blocks = append(v.Blocks, b)
	}
	renderHTML(w, http.StatusOK, "home.html", utf8Label, v)
}

// page serves list pages, finance sitemaps and article pages by path.
func (s *Site) page(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if ref, ok := s.lists[p]; ok {
		s.list(w, ref.sec, ref.page)
		return
	}
	if sm, ok := s.sitemaps[p]; ok {
		s.sitemap(w, r, sm)
		return
	}
	if a, ok := s.byPath[p]; ok {
		s.article(w, r, a)
		return
	}
	s.notFound(w, r)
}

func (s *Site) notFound(w http.ResponseWriter, r *http.Request) {
	renderHTML(w, http.StatusNotFound, "notfound.html", utf8Label,
		notFoundView{common: common{Nav: s.nav(nil)}, Path: r.URL.Path})
}

func (s *Site) list(w http.ResponseWriter, sec *section, page int) {
	lo := (page - 1) * pageSize
	hi := min(lo+pageSize, len(sec.entries))
	v := listView{
		common:  common{Nav: s.nav(sec)},
		Lang:    sec.lang,
		Charset: sec.charset,
		Section: sec.view(),
		Labels:  sec.labels(),
	}
	if sec.lang == "zh" {
		v.Lang = "zh-CN"
		v.PageTitle = fmt.Sprintf("%s新闻_第%d页_演示新闻网", sec.name, page)
	} else {
		v.PageTitle = fmt.Sprintf("%s News - Page %d - Demo News", sec.name, page)
	}
	for _, a := range sec.entries[lo:hi] {
		v.Items = append(v.Items, sec.listItem(a))
	}
	if page > 1 {
		v.Prev = sec.listPath(page - 1)
	}
	if page < sec.pages {
		v.Next = sec.listPath(page + 1)
	}
	first := max(1, page-4)
	last := min(sec.pages, first+9)
	for n := first; n <= last; n++ {
		v.PageLinks = append(v.PageLinks, pageLink{N: n, Path: sec.listPath(n), Current: n == page})
	}
	renderHTML(w, http.StatusOK, "list.html", sec.charset, v)
}

var articleTemplates = map[markup]string{
	markupPlain:   "article_plain.html",
	markupOG:      "article_og.html",
	markupJSONLD:  "article_jsonld.html",
	markupTime:    "article_time.html",
	markupGBK:     "article_gbk.html",
	markupNetEase: "article_netease.html",
}

var editors = []string{"王磊", "李娜", "张伟", "刘洋", "陈静", "赵敏"}

func (s *Site) article(w http.ResponseWriter, r *http.Request, a *article) {
	sec := a.sec
	base := baseURL(r)
	v := articleView{
		common:     common{Nav: s.nav(sec)},
		Section:    sec.view(),
		DocID:      a.id,
		Title:      a.title,
		Source:     a.source,
		Author:     a.author,
		Editor:     editors[a.idx%len(editors)],
		Summary:    a.summary,
		Canonical:  base + a.path,
		TimeText:   sec.timeText(a.post),
		TimeISO:    sec.timeISO(a.post),
		Comments:   a.comments,
		Paragraphs: bodyOf(words, s.opts.Seed, a),
		Private:    a.private,
	}
	if a.image != "" {
		v.Image = base + a.image
	}
	if sec.markup == markupJSONLD {
		ld := newsArticleLD{
			Context: "https://schema.org", Type: "NewsArticle",
			MainEntityOfPage: v.Canonical, Headline: a.title, Description: a.summary,
			DatePublished: v.TimeISO, DateModified: v.TimeISO,
			Author:         []ldName{{Type: "Person", Name: a.author}},
			Publisher:      ldName{Type: "Organization", Name: "Demo News"},
			ArticleSection: sec.name, CommentCount: a.comments,
		}
		if v.Image != "" {
			ld.Image = []string{v.Image}
		}
		v.LD = ld
	}
	renderHTML(w, http.StatusOK, articleTemplates[sec.markup], sec.charset, v)
}

// feedItems lists a section's public articles for a feed.
func feedItems(base string, sec *section, date func(time.Time) string) []feedItem {
	var items []feedItem
	for _, a := range sec.public {
		items = append(items, feedItem{
			Title: a.title, Link: base + a.path, ID: "urn:demonews:article:" + a.id,
			Date: date(a.post), Author: a.author, Category: sec.name, Summary: a.summary,
			Comments: a.comments,
		})
	}
	return items
}

// rss serves the World section as RSS 2.0 (every article, newest first).
func (s *Site) rss(w http.ResponseWriter, r *http.Request) {
	base, sec := baseURL(r), s.byID["world"]
	date := func(t time.Time) string { return t.In(sec.zone).Format(time.RFC1123Z) }
	renderText(w, "rss.xml", ctRSS, feedView{
		Title: "Demo News - World", Link: base + sec.listPath(1), Self: base + "/world/rss.xml",
		Description: "World news from Demo News", Language: "en-us",
		Updated: date(s.opts.Now), Items: feedItems(base, sec, date),
	})
}

// atom serves the Sports section as an Atom feed (every article).
func (s *Site) atom(w http.ResponseWriter, r *http.Request) {
	base, sec := baseURL(r), s.byID["sports"]
	date := func(t time.Time) string { return t.In(sec.zone).Format(time.RFC3339) }
	renderText(w, "atom.xml", ctAtom, feedView{
		Title: "Demo News - Sports", Link: base + sec.listPath(1), Self: base + "/sports/atom.xml",
		Description: "Match reports and transfer news", Updated: date(s.opts.Now),
		Items: feedItems(base, sec, date),
	})
}

// newsSitemapWindow is how recent an article must be to be listed in the
// Google News sitemap rather than in its day's sitemap.
const newsSitemapWindow = 48 * time.Hour

// buildSitemaps splits the finance articles into the news sitemap (the
// last two days) and one sitemap per older day (Asia/Shanghai), so each
// article is listed exactly once.
func (s *Site) buildSitemaps() {
	sec := s.byID["finance"]
	news := &sitemapFile{path: "/finance/sitemap_news.xml", news: true}
	s.smIndex = append(s.smIndex, news)
	s.sitemaps[news.path] = news
	cutoff := s.opts.Now.Add(-newsSitemapWindow)
	for _, a := range sec.public { // newest first, so days come in order
		if !a.post.Before(cutoff) {
			news.articles = append(news.articles, a)
			continue
		}
		p := "/finance/sitemap_" + a.post.In(sec.zone).Format(time.DateOnly) + ".xml"
		sm, ok := s.sitemaps[p]
		if !ok {
			sm = &sitemapFile{path: p}
			s.sitemaps[p] = sm
			s.smIndex = append(s.smIndex, sm)
		}
		sm.articles = append(sm.articles, a)
	}
}

func (s *Site) sitemapIndex(w http.ResponseWriter, r *http.Request) {
	base, sec := baseURL(r), s.byID["finance"]
	entries := make([]sitemapEntry, 0, len(s.smIndex))
	for _, sm := range s.smIndex {
		mod := s.opts.Now
		if len(sm.articles) > 0 {
			mod = sm.articles[0].post
		}
		entries = append(entries, sitemapEntry{Loc: base + sm.path, Lastmod: sec.timeISO(mod)})
	}
	renderText(w, "sitemapindex.xml", ctXML, entries)
}

func (s *Site) sitemap(w http.ResponseWriter, r *http.Request, sm *sitemapFile) {
	base, sec := baseURL(r), s.byID["finance"]
	entries := make([]sitemapEntry, len(sm.articles))
	for i, a := range sm.articles {
		entries[i] = sitemapEntry{Loc: base + a.path, Lastmod: sec.timeISO(a.post), Title: a.title}
	}
	name := "sitemap.xml"
	if sm.news {
		name = "newssitemap.xml"
	}
	renderText(w, name, ctXML, entries)
}

// apiItem is one item of the NetEase-style list API.
type apiItem struct {
	DocID      string `json:"docid"`
	Title      string `json:"title"`
	Digest     string `json:"digest"`
	URL        string `json:"url"`
	SkipURL    string `json:"skipURL"`
	ImgSrc     string `json:"imgsrc"`
	PTime      string `json:"ptime"`
	LModify    string `json:"lmodify"`
	Source     string `json:"source"`
	ReplyCount int64  `json:"replyCount"`
	VoteCount  int64  `json:"votecount"`
	CommentID  string `json:"commentid"`
	BoardID    string `json:"boardid"`
	HasImg     int    `json:"hasImg"`
	Priority   int    `json:"priority"`
	Template   string `json:"template"`
}

var (
	apiSpan     = regexp.MustCompile(`^(\d{1,7})-(\d{1,4})\.html$`)
	apiCallback = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$.]{0,63}$`)
)

// listAPI serves /api/list/news/{offset}-{limit}.html?callback=artiList:
// artiList({"BBM54PGAwangning":[...]}), newest first; an offset past the
// end gives an empty array, as NetEase's API does.
func (s *Site) listAPI(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("channel") != "news" {
		s.notFound(w, r)
		return
	}
	m := apiSpan.FindStringSubmatch(r.PathValue("span"))
	if m == nil {
		http.Error(w, "bad list range: want {offset}-{limit}.html", http.StatusBadRequest)
		return
	}
	offset, _ := strconv.Atoi(m[1]) // digits only: cannot fail
	limit, _ := strconv.Atoi(m[2])
	if limit < 1 || limit > jsonpMaxLimit {
		http.Error(w, fmt.Sprintf("bad limit %d: want 1..%d", limit, jsonpMaxLimit), http.StatusBadRequest)
		return
	}
	cb := r.URL.Query().Get("callback")
	if cb == "" {
		cb = jsonpCallback
	}
	if !apiCallback.MatchString(cb) {
		http.Error(w, "bad callback name", http.StatusBadRequest)
		return
	}
	base, sec := baseURL(r), s.byID["news"]
	items := []apiItem{}
	for _, a := range sec.public[min(offset, len(sec.public)):min(offset+limit, len(sec.public))] {
		ptime := sec.timeText(a.post)
		items = append(items, apiItem{
			DocID: a.id, Title: a.title, Digest: a.summary, URL: base + a.path,
			ImgSrc: base + a.image, PTime: ptime, LModify: ptime, Source: a.source,
			ReplyCount: a.comments, VoteCount: a.comments / 7, CommentID: a.id,
			BoardID: "news2_bbs", HasImg: 1, Priority: 70 + a.idx%30, Template: "normal1",
		})
	}
	data, err := json.Marshal(map[string][]apiItem{jsonpKey: items})
	if err != nil {
		http.Error(w, "demosite: "+err.Error(), http.StatusInternalServerError)
		return
	}
	body := make([]byte, 0, len(cb)+len(data)+2)
	body = append(append(append(append(body, cb...), '('), data...), ')')
	write(w, http.StatusOK, ctJSONP, body)
}
