package dates

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"

	"github.com/newsrank/newsrank/internal/textspace"
)

// Selectors of the date elements, compiled once.
var (
	pubTimeSel     = cascadia.MustCompile(`time[itemprop="datePublished"], time[pubdate], [itemprop="datePublished"]:not(meta)`)
	abbrSel        = cascadia.MustCompile(`abbr.published[title], abbr.dtstart[title], .published[datetime], .post-date[datetime]`)
	articleTimeSel = cascadia.MustCompile("article time[datetime]")
	timeSel        = cascadia.MustCompile("time[datetime]")
)

// candidates reads the claims, in their order; with RuleOrder, the
// publication dates first. The <time> and <abbr> elements of the article
// come last among the publication dates, read only when the claims have
// none (they take no part in settling disagreements). bad is the first
// text that could not be read.
func (e *Evidence) candidates() (cands []dateCand, bad string) {
	for _, c := range e.claims {
		t, ok := e.r.Parse(c.Text, e.now)
		if !ok {
			if bad == "" {
				bad = clip(strings.TrimSpace(c.Text), 100)
			}
			continue
		}
		cands = append(cands, dateCand{t: t, kind: c.Kind, from: c.From, raw: c.Text})
	}
	if e.rules&RuleOrder == 0 {
		if len(cands) == 0 {
			cands = e.appendElementDate(cands, &bad)
		}
		return cands, bad
	}
	pub := make([]dateCand, 0, len(cands)+1)
	for _, c := range cands {
		if c.kind == Published {
			pub = append(pub, c)
		}
	}
	if len(pub) == 0 {
		pub = e.appendElementDate(pub, &bad)
	}
	for _, c := range cands {
		if c.kind != Published {
			pub = append(pub, c)
		}
	}
	return pub, bad
}

// appendElementDate appends the post time of the article's <time> and
// <abbr> elements (not a sidebar's, a comment's or the navigation's): the
// first group of elements that gives one day.
func (e *Evidence) appendElementDate(cands []dateCand, bad *string) []dateCand {
	names := [...]string{"<time itemprop=datePublished>", "<abbr class=published>", "<article> <time>", "<time>"}
	for i, sel := range [...]cascadia.Selector{pubTimeSel, abbrSel, articleTimeSel, timeSel} {
		var found dateCand
		days := map[ymd]bool{}
		e.doc.FindMatcher(sel).EachWithBreak(func(n int, s *goquery.Selection) bool {
			if n >= 20 || i == 3 && inAside(s) { // any <time> on the page
				return n < 20
			}
			v := attr(s, "datetime")
			for _, a := range [...]string{"content", "title"} {
				if v == "" {
					v = attr(s, a)
				}
			}
			if v == "" && i == 0 {
				v = collapse(s.Text())
			}
			if v == "" {
				return true
			}
			t, ok := e.r.Parse(v, e.now)
			if !ok {
				if *bad == "" {
					*bad = clip(v, 100)
				}
				return true
			}
			if found.t.IsZero() {
				found = dateCand{t: t, kind: Published, from: names[i], raw: v, element: true}
			}
			days[dayOf(t)] = true
			// The generic <time>s are all read: they must agree; so must
			// the datePublished and "published" ones with RuleLists.
			return i >= 2 || e.rules&RuleLists != 0
		})
		if len(days) > 1 {
			continue // a list of other articles' dates, not this one's
		}
		if !found.t.IsZero() {
			return append(cands, found)
		}
	}
	return cands
}

// asideRe matches the class or id of page parts that are not the article:
// comments, sidebars, related links, widgets.
var asideRe = regexp.MustCompile(`(?i)comment|sidebar|side-bar|related|widget|footer|reply|teaser|recommend`)

// inAside reports whether s sits in a part of the page that is not the
// article: <aside>, <nav>, <footer>, or an element whose class or id says
// comment, sidebar, related...
func inAside(s *goquery.Selection) bool {
	for _, n := range s.Parents().Nodes {
		switch n.Data {
		case "aside", "nav", "footer":
			return true
		case "article", "main", "body":
			return false
		}
		for _, a := range n.Attr {
			if (a.Key == "class" || a.Key == "id") && asideRe.MatchString(a.Val) {
				return true
			}
		}
	}
	return false
}

// attr is the trimmed value of s's attribute name ("" when it has none).
func attr(s *goquery.Selection, name string) string {
	return strings.TrimSpace(s.AttrOr(name, ""))
}

// collapse trims s and folds runs of white space into one space
// (textspace.Collapse: s itself when it needs no folding).
func collapse(s string) string { return textspace.Collapse(s) }
