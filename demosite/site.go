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
	"net/http"
	"slices"
	"time"
	_ "time/tzdata" // the site renders Asia/Shanghai, America/New_York and Europe/Berlin on any host

	"github.com/newsrank/newsrank/internal/clock"
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
	// Clock, when set, makes the site publish over time: an article is
	// shown (listed, in feeds, sitemaps and the list API, and served) only
	// once the clock reaches its post time, and list pages, feeds,
	// sitemaps and the list API send an ETag and Last-Modified and answer
	// conditional requests with 304 Not Modified. Set Now after the
	// clock's start for articles still to come. Nil: every article is
	// shown, no validators are sent.
	Clock clock.Clock
	// FeedItems, when > 0, is how many entries (the newest) the RSS and
	// Atom feeds carry, as real feeds do (WordPress 10, news sites 20 to
	// 50); a crawl then finds the older articles of world and sports
	// only if it read the feeds when they were new. 0: every article, so
	// that one crawl of Sources finds every article.
	FeedItems int
	// DailyRhythm spreads the post times by each section's daily rhythm
	// in its own zone (busy mornings and working days, quiet nights, some
	// sections in bursts of follow-ups minutes apart; the seed varies the
	// shapes) instead of uniformly over the week. The articles are the
	// same otherwise.
	DailyRhythm bool
	// Hub, when set, is the WebSub hub the RSS and Atom feeds announce
	// (a Link rel="hub" header and a hub link in the feed, with the
	// feed's self link): an absolute URL, or a path on the site itself.
	Hub string
	// Upcoming, when > 0 (and with a Clock), is how many articles of the
	// feed sections (world, sports) are posted after Now, one every
	// UpcomingEvery (default a minute): the site publishes them while it
	// runs (Publications says when), as a news site does.
	Upcoming      int
	UpcomingEvery time.Duration
	// Stories, when > 0, is how many events of the labelled coverage set
	// (internal/coverage: events reported by several outlets, each in its
	// own words, in Chinese and English, both halves of the set) the site
	// also publishes, besides the Articles: the Stories events that began
	// last, every report of each (AllStories or any number at least the
	// set's: all of them). Each report is an article of a UTF-8 section in
	// its language, an event's reports spread over those sections
	// (ArticleInfo.Story names the event): its title is the headline, its
	// summary the meta description (and the list pages', feeds' and list
	// API's summary), its lead's paragraphs the body, its outlet the
	// source. Post times keep the distances between the reports and are
	// shifted so that the latest is Now: the whole set spans weeks, more
	// than a one-week window. StoryCopies returns the published part of
	// the set. 0: none.
	Stories int
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
	copies   []*article          // the coverage set's reports, in the set's order
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
	// Story is the event of the labelled coverage set the article reports
	// (Options.Stories); "" for the others.
	Story string
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
	s.public, s.private, s.copies = generate(words, s.sections, opts)
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

// Articles returns the ground truth: every public article, newest first,
// those a clock has not published yet included. Private articles are not
// included (see PrivateArticles).
func (s *Site) Articles() []ArticleInfo {
	return infos(s.public)
}

// PrivateArticles returns the articles under /private/ that some list
// pages link to and robots.txt disallows, newest first.
func (s *Site) PrivateArticles() []ArticleInfo {
	return infos(s.private)
}

// Paragraphs returns the paragraphs of the body of the article page at
// path (ArticleInfo.Path), as the page shows them; nil for no article.
func (s *Site) Paragraphs(path string) []string {
	a, ok := s.byPath[path]
	if !ok {
		return nil
	}
	return bodyOf(words, s.opts.Seed, a)
}

// Now returns the time the site's post times are anchored to.
func (s *Site) Now() time.Time { return s.opts.Now }

func infos(as []*article) []ArticleInfo {
	out := make([]ArticleInfo, len(as))
	for i, a := range as {
		out[i] = ArticleInfo{
			Path: a.path, Section: a.sec.id, Title: a.title, PostTime: a.post,
			Comments: a.comments, Charset: a.sec.charset, Source: a.source,
			Summary: a.summary, Image: a.image, Private: a.private, Story: a.story,
		}
	}
	return out
}
