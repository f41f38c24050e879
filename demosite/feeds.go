package demosite

import (
	"net/http"
	"slices"
	"strings"
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
		Title: "Demo News - World", Link: base + sec.listPath(1), Self: base + "/world/rss.xml", Hub: s.announce(w, base, "/world/rss.xml"),
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
		Title: "Demo News - Sports", Link: base + sec.listPath(1), Self: base + "/sports/atom.xml", Hub: s.announce(w, base, "/sports/atom.xml"),
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

// announce sets the Link headers of a feed at path that announce
// Options.Hub (rel="hub") and the feed itself (rel="self"), and returns
// the hub's URL for the feed's own hub link; "" without a hub.
func (s *Site) announce(w http.ResponseWriter, base, path string) string {
	hub := s.opts.Hub
	if hub == "" {
		return ""
	}
	if strings.HasPrefix(hub, "/") {
		hub = base + hub
	}
	w.Header().Add("Link", "<"+hub+`>; rel="hub"`)
	w.Header().Add("Link", "<"+base+path+`>; rel="self"`)
	return hub
}

// FeedPaths are the paths of the site's feeds, by section: the topics a
// hub distributes.
var FeedPaths = map[string]string{"world": "/world/rss.xml", "sports": "/sports/atom.xml"}

// Publication is an article the site publishes after Now.
type Publication struct {
	// At is its post time, when a Clock shows it.
	At time.Time
	// Feed is the path of the feed it appears in (FeedPaths).
	Feed string
	// Title and Path are the article's.
	Title, Path string
}

// Publications are the articles posted after Now (Options.Upcoming), in
// the order they appear: a publisher tells its hub about each at its At.
func (s *Site) Publications() []Publication {
	var out []Publication
	for _, a := range s.public {
		if a.post.After(s.opts.Now) {
			out = append(out, Publication{At: a.post, Feed: FeedPaths[a.sec.id], Title: a.title, Path: a.path})
		}
	}
	slices.SortFunc(out, func(a, b Publication) int { return a.At.Compare(b.At) })
	return out
}
