package demosite

import (
	"net/http"
	"time"
)

type sitemapFile struct {
	path     string
	news     bool
	articles []*article // newest first
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
	all := s.shown(sec.public)
	if s.notModified(w, r, all) {
		return
	}
	entries := make([]sitemapEntry, 0, len(s.smIndex))
	for _, sm := range s.smIndex {
		as := s.shown(sm.articles)
		if len(as) == 0 && !sm.news && s.opts.Clock != nil {
			continue // a day still to come
		}
		mod := s.opts.Now
		switch {
		case len(as) > 0:
			mod = as[0].post
		case s.opts.Clock != nil:
			mod = s.newest(all)
		}
		entries = append(entries, sitemapEntry{Loc: base + sm.path, Lastmod: sec.timeISO(mod)})
	}
	renderText(w, r, "sitemapindex.xml", ctXML, entries)
}

func (s *Site) sitemap(w http.ResponseWriter, r *http.Request, sm *sitemapFile) {
	base, sec := baseURL(r), s.byID["finance"]
	as := s.shown(sm.articles)
	if s.notModified(w, r, as) {
		return
	}
	entries := make([]sitemapEntry, len(as))
	for i, a := range as {
		entries[i] = sitemapEntry{Loc: base + a.path, Lastmod: sec.timeISO(a.post), Title: a.title}
	}
	name := "sitemap.xml"
	if sm.news {
		name = "newssitemap.xml"
	}
	renderText(w, r, name, ctXML, entries)
}
