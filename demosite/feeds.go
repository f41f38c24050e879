package demosite

import (
	"net/http"
	"time"
)

// feedItems lists a section's public articles for a feed.
func feedItems(base string, sec *section, as []*article, date func(time.Time) string) []feedItem {
	var items []feedItem
	for _, a := range as {
		items = append(items, feedItem{
			Title: a.title, Link: base + a.path, ID: "urn:demonews:article:" + a.id,
			Date: date(a.post), Author: a.author, Category: sec.name, Summary: a.summary,
			Comments: a.comments,
		})
	}
	return items
}

// feedShown is what a feed of as (newest first) carries: the shown
// articles, the newest Options.FeedItems of them when that is set.
func (s *Site) feedShown(as []*article) []*article {
	as = s.shown(as)
	if n := s.opts.FeedItems; n > 0 && len(as) > n {
		return as[:n]
	}
	return as
}

// rss serves the World section as RSS 2.0 (every article, or the newest
// Options.FeedItems, newest first).
func (s *Site) rss(w http.ResponseWriter, r *http.Request) {
	base, sec := baseURL(r), s.byID["world"]
	as := s.feedShown(sec.public)
	if s.notModified(w, r, as) {
		return
	}
	date := func(t time.Time) string { return t.In(sec.zone).Format(time.RFC1123Z) }
	renderText(w, r, "rss.xml", ctRSS, feedView{
		Title: "Demo News - World", Link: base + sec.listPath(1), Self: base + "/world/rss.xml",
		Description: "World news from Demo News", Language: "en-us",
		Updated: date(s.updated(as)), Items: feedItems(base, sec, as, date),
	})
}

// atom serves the Sports section as an Atom feed (every article, or the
// newest Options.FeedItems).
func (s *Site) atom(w http.ResponseWriter, r *http.Request) {
	base, sec := baseURL(r), s.byID["sports"]
	as := s.feedShown(sec.public)
	if s.notModified(w, r, as) {
		return
	}
	date := func(t time.Time) string { return t.In(sec.zone).Format(time.RFC3339) }
	renderText(w, r, "atom.xml", ctAtom, feedView{
		Title: "Demo News - Sports", Link: base + sec.listPath(1), Self: base + "/sports/atom.xml",
		Description: "Match reports and transfer news", Updated: date(s.updated(as)),
		Items: feedItems(base, sec, as, date),
	})
}

// updated is a feed's update time: Options.Now, or with a clock the
// newest shown article's post time (so an unchanged feed stays the same).
func (s *Site) updated(as []*article) time.Time {
	if s.opts.Clock == nil {
		return s.opts.Now
	}
	return s.newest(as)
}
