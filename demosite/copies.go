package demosite

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/newsrank/newsrank/internal/coverage"
)

// AllStories, as Options.Stories, publishes every event of the labelled
// coverage set.
const AllStories = math.MaxInt

// coverageSet is the labelled coverage set, loaded once. It is embedded
// and checked by its package's tests: an error is a broken build.
var coverageSet = sync.OnceValue(func() *coverage.Set {
	s, err := coverage.Load()
	if err != nil {
		panic("demosite: " + err.Error())
	}
	return s
})

// storyCopy is one report of the coverage set the site publishes.
type storyCopy struct {
	coverage.Article
	// post is the time the site shows (also set as Published): the
	// report's publication shifted so that the latest published report
	// is the site's Now.
	post time.Time
	// nth is the report's number among its event's reports in its
	// language (in the set's order).
	nth int
	// event is the event's number among the published events.
	event int
}

// chooseCopies returns the reports of the n events of set that began
// last (by their first report; ties by event id), in the set's order,
// with their post times shifted so that the latest of them is now.
func chooseCopies(set *coverage.Set, n int, now time.Time) []storyCopy {
	if n <= 0 {
		return nil
	}
	began := map[string]time.Time{}
	for _, a := range set.Articles {
		if t, ok := began[a.Event]; !ok || a.Published.Before(t) {
			began[a.Event] = a.Published
		}
	}
	events := make([]string, 0, len(began))
	for e := range began {
		events = append(events, e)
	}
	slices.SortFunc(events, func(a, b string) int {
		return cmp.Or(began[b].Compare(began[a]), strings.Compare(a, b))
	})
	events = events[:min(n, len(events))]
	number := map[string]int{}
	for i, e := range events {
		number[e] = i
	}
	var out []storyCopy
	var last time.Time
	nth := map[[2]string]int{}
	for _, a := range set.Articles {
		i, ok := number[a.Event]
		if !ok {
			continue
		}
		k := [2]string{a.Event, a.Lang}
		out = append(out, storyCopy{Article: a, nth: nth[k], event: i})
		nth[k]++
		if a.Published.After(last) {
			last = a.Published
		}
	}
	shift := now.Sub(last)
	for i := range out {
		out[i].post = out[i].Published.Add(shift).Truncate(time.Second).UTC()
		out[i].Published = out[i].post
	}
	return out
}

// storyCopies makes the articles that publish the reports of
// Options.Stories events of the coverage set (chooseCopies), from index
// idx on: each report an article of a UTF-8 section in its language, an
// event's reports in one language spread over those sections, its title,
// summary, outlet and shifted post time those of the report, its lead's
// paragraphs the body.
func (g *generator) storyCopies(secs []*section, idx int) []*article {
	cs := chooseCopies(coverageSet(), g.opts.Stories, g.opts.Now)
	if len(cs) == 0 {
		return nil
	}
	byLang := map[string][]*section{}
	for _, sec := range secs {
		if sec.charset == utf8Label {
			byLang[sec.lang] = append(byLang[sec.lang], sec)
		}
	}
	out := make([]*article, len(cs))
	for i, c := range cs {
		cands := byLang[c.Lang]
		sec := cands[(c.event+c.nth)%len(cands)]
		a := g.article(idx+i, sec, false)
		a.title, a.summary, a.source, a.story = c.Title, c.Summary, c.Outlet, c.Event
		a.post = c.post
		a.report = &c.Article
		if sec.lang == "en" {
			a.slug = slugify(a.title) + "-" + strings.ToLower(a.id[:6])
		}
		a.path = sec.artPath(a)
		out[i] = a
	}
	return out
}

// paragraphs splits a lead into its paragraphs (blank-line separated),
// each trimmed, the empty ones dropped.
func paragraphs(lead string) []string {
	var out []string
	for _, p := range strings.Split(lead, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// StoryCopies returns the part of the labelled coverage set the site
// publishes (Options.Stories): its reports in the set's order, each with
// the post time the site shows as Published, and the look-alike pairs of
// two published events; paths[i] is the page of report i.
func (s *Site) StoryCopies() (set *coverage.Set, paths []string) {
	set = &coverage.Set{Files: coverageSet().Files}
	events := map[string]bool{}
	for _, a := range s.copies {
		set.Articles = append(set.Articles, *a.report)
		paths = append(paths, a.path)
		events[a.story] = true
	}
	for _, l := range coverageSet().LookAlikes {
		if events[l.A] && events[l.B] {
			set.LookAlikes = append(set.LookAlikes, l)
		}
	}
	return set, paths
}
