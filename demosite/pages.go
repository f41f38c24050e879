package demosite

import (
	"fmt"
	"net/http"
)

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
	renderText(w, r, "robots.txt", ctText, struct{ Base string }{baseURL(r)})
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
		as := s.shown(sec.public)
		for _, a := range as[:min(5, len(as))] {
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
		s.list(w, r, ref.sec, ref.page)
		return
	}
	if sm, ok := s.sitemaps[p]; ok {
		s.sitemap(w, r, sm)
		return
	}
	if a, ok := s.byPath[p]; ok && s.published(a) {
		s.article(w, r, a)
		return
	}
	s.notFound(w, r)
}

func (s *Site) notFound(w http.ResponseWriter, r *http.Request) {
	renderHTML(w, http.StatusNotFound, "notfound.html", utf8Label,
		notFoundView{common: common{Nav: s.nav(nil)}, Path: r.URL.Path})
}

// list serves a list page. With a clock, the pages past the last one
// with published articles are served empty.
func (s *Site) list(w http.ResponseWriter, r *http.Request, sec *section, page int) {
	entries := s.shown(sec.entries)
	if s.notModified(w, r, entries) {
		return
	}
	pages := max(1, (len(entries)+pageSize-1)/pageSize)
	lo := min((page-1)*pageSize, len(entries))
	hi := min(lo+pageSize, len(entries))
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
	for _, a := range entries[lo:hi] {
		v.Items = append(v.Items, sec.listItem(a))
	}
	if page > 1 {
		v.Prev = sec.listPath(page - 1)
	}
	if page < pages {
		v.Next = sec.listPath(page + 1)
	}
	first := max(1, page-4)
	last := min(pages, first+9)
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
