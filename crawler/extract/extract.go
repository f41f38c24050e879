// Package extract reads what the crawler fetched: article pages (the
// source's CSS selectors, then JSON-LD, OpenGraph and the usual <meta>,
// <h1> and <title> fallbacks; the post time with package dates), HTML
// list pages, RSS/Atom/JSON feeds, (news) sitemaps and JSON/JSONP list
// APIs, in whatever charset they come. It parses bytes it is handed and
// fetches nothing: a Rules, compiled once per source from its Config,
// says how to read that source's pages.
//
// Where to look: Extract and its fallbacks here, the selectors in
// selector.go, the fields a page or list item carries in fields.go,
// JSON-LD in jsonld.go, the dates a page's data claim in post_time.go,
// charsets in charset.go, lists in lists.go (HTML lists, sitemaps),
// feeds.go and json_lists.go.
package extract

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/crawler/dates"
)

// Config is how a source's article pages are read: its selectors, the
// layouts and zone of its times, its charset (the extract, time_layouts,
// time_zone and charset keys of a crawler source).
type Config struct {
	// Selectors select the fields of an article page; empty ones fall
	// back to JSON-LD, OpenGraph, article:published_time, <time
	// datetime> and <title>.
	Selectors Selectors
	// TimeLayouts are Go time layouts tried, in order, on post times that
	// are not RFC 3339; TimeZone is the zone of times without an offset
	// (empty: UTC).
	TimeLayouts []string
	TimeZone    string
	// Charset forces a page charset (e.g. "gbk"); empty: detect it.
	Charset string
}

// Rules is the compiled extraction configuration of one source.
type Rules struct {
	sel     Selectors
	times   dates.Reader
	charset string
	noLead  bool // WithoutLead: Page.Lead is not looked for
}

// Decoded returns the rules for a page the fetch has decoded already (a
// forced charset is applied by the fetch, which hands over UTF-8): the
// same rules without the forced charset, so that the page is not decoded
// a second time.
func (r *Rules) Decoded() *Rules {
	d := *r
	d.charset = ""
	return &d
}

// WithoutLead returns the same rules for a reader that has no use for a
// page's lead (a store that does not group stories): Extract leaves
// Page.Lead empty and spends nothing on finding it; every other field is
// read as before.
func (r *Rules) WithoutLead() *Rules {
	d := *r
	d.noLead = true
	return &d
}

// NewRules returns the extraction rules of a source's Config (its
// selectors compiled already). It fails on an unknown time zone.
func NewRules(c Config) (*Rules, error) {
	r := &Rules{sel: c.Selectors, times: dates.Reader{Layouts: c.TimeLayouts, Loc: time.UTC}, charset: c.Charset}
	if c.TimeZone != "" {
		loc, err := time.LoadLocation(c.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("time_zone: %w", err)
		}
		r.times.Loc = loc
	}
	return r, nil
}

// Extract reads an article page. body is the raw response body,
// contentType its Content-Type header (its charset, if any, wins), pageURL
// the URL it was fetched from (relative links resolve against it) and now
// the fetch time (relative post times such as "2 hours ago" are read
// against it). The source's forced charset, if any, wins over both. known
// holds the fields the caller has already (the URL's list item's, or
// zero), which win over the page's fallbacks (Merge): the fallbacks of
// the fields it has are not read (the page's dates when it has a post
// time; <h1> and <title> when it has a title...), so Fallback lacks them.
// Extract never fails on broken HTML; it fails only when the body cannot
// be decoded.
func Extract(body []byte, contentType, pageURL string, r *Rules, now time.Time, known Fields) (Page, error) {
	p, _, err := extract(body, contentType, pageURL, r, now, known)
	return p, err
}

// extract is Extract, and the date evidence (nil when the selectors gave
// the time) for tests.
func extract(body []byte, contentType, pageURL string, r *Rules, now time.Time, known Fields) (Page, *dates.Evidence, error) {
	var (
		text []byte
		name string
		err  error
	)
	if r.charset != "" {
		text, err = DecodeWith(body, r.charset)
		name = r.charset
	} else {
		text, name, err = DecodeHTML(body, contentType)
	}
	if err != nil {
		return Page{}, nil, err
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(text))
	if err != nil {
		return Page{}, nil, fmt.Errorf("parse html: %w", err)
	}
	base, _ := url.Parse(pageURL)
	p := Page{Charset: name}

	p.Rule = Fields{
		Title:   r.sel.Title.text(doc),
		Source:  r.sel.Source.text(doc),
		Summary: r.sel.Summary.text(doc),
		Image:   absURL(base, r.sel.Image.text(doc)),
	}
	p.Rule.setTime(r, now, r.sel.PostTime.text(doc))
	if s := r.sel.Comments.text(doc); s != "" {
		if n, ok := ParseCount(s); ok {
			p.Rule.Comments = &n
		}
	}

	metaNodes, ldNodes := metaAndJSONLD(doc)
	ld := findJSONLD(ldNodes)
	metas := indexMetas(metaNodes)
	p.Fallback = ld.fields()
	p.Fallback.Image = absURL(base, p.Fallback.Image)
	p.Fallback = p.Fallback.or(metaFields(doc, metas, base, p.Rule.or(known).or(p.Fallback)))

	var ev *dates.Evidence
	if p.Rule.PostTime.IsZero() && known.PostTime.IsZero() {
		// The selector's time, then the list item's, win over the page's:
		// none of the page's dates is read when they gave one.
		ev = dates.NewEvidence(doc, dateClaims(ld, metas), pageURL, r.times, now)
		p.Fallback.PostTime, p.timeFrom = ev.Choose()
		if p.Fallback.PostTime.IsZero() {
			p.Fallback.BadTime = ev.Bad()
		}
	}

	p.Canonical = absURL(base, attr(first(doc, canonicalSel), "href"))
	if p.Canonical == "" {
		p.Canonical = absURL(base, metas.get("property=og:url", "name=og:url"))
	}

	ab := &articleBody{doc: doc}
	if !r.noLead {
		p.Lead = lead(doc, r, ld, ab)
	}
	switch {
	case r.sel.Body.css != nil:
		p.BodyLen = textLen(r.sel.Body.selectAll(doc))
	case ld.body != "":
		p.BodyLen = utf8.RuneCountInString(collapse(ld.body))
	default:
		p.BodyLen = fallbackBodyLen(doc, ab)
	}
	return p, ev, nil
}

// Selectors of the fallbacks, compiled once.
var (
	metaSel        = cascadia.MustCompile("meta")
	canonicalSel   = cascadia.MustCompile(`link[rel~="canonical"]`)
	articleH1Sel   = cascadia.MustCompile("article h1")
	h1Sel          = cascadia.MustCompile("h1")
	titleSel       = cascadia.MustCompile("title")
	articleBodySel = cascadia.MustCompile(`[itemprop="articleBody"]`)
	articleSel     = cascadia.MustCompile("article")
	bodyPSel       = cascadia.MustCompile("body p")
	jsonLDSel      = cascadia.MustCompile(`script[type="application/ld+json"]`)
)

// metaFields reads OpenGraph and other common <meta> tags, <h1> and
// <title>, for the fields the source's selectors and JSON-LD did not give
// (have).
func metaFields(doc *goquery.Document, m metas, base *url.URL, have Fields) Fields {
	var f Fields
	if have.Title == "" {
		f.Title = plainTitle(m.get("property=og:title", "name=og:title", "name=twitter:title", "property=twitter:title"))
		for _, sel := range []cascadia.Selector{articleH1Sel, h1Sel, titleSel} {
			if f.Title != "" {
				break
			}
			f.Title = plainTitle(first(doc, sel).Text())
		}
	}
	if have.Summary == "" {
		f.Summary = m.get("property=og:description", "name=og:description", "name=twitter:description", "name=description")
	}
	if have.Image == "" {
		f.Image = absURL(base, m.get("property=og:image", "name=og:image", "property=og:image:url",
			"name=twitter:image", "property=twitter:image"))
	}
	return f
}

// plainTitle decodes the HTML entities left in a title (JSON-LD headlines
// and some <meta> tags carry "Here&#8217;s") and collapses white space.
func plainTitle(s string) string {
	s = collapse(s)
	if strings.Contains(s, "&") {
		s = collapse(html.UnescapeString(s))
	}
	return s
}

// fallbackBodyLen measures the body text without a selector: the
// articleBody element (ab), else <article>, else the paragraphs of the
// page.
func fallbackBodyLen(doc *goquery.Document, ab *articleBody) int {
	if s := ab.get(); s.Length() > 0 {
		return textLen(s)
	}
	if s := first(doc, articleSel); s.Length() > 0 {
		return textLen(s)
	}
	return textLen(doc.FindMatcher(bodyPSel))
}

// articleBody is a page's first itemprop=articleBody element, looked
// for once: the lead and the body's length both read it, and the look
// walks the whole page when there is none.
type articleBody struct {
	doc    *goquery.Document
	looked bool
	sel    *goquery.Selection
}

// get returns the element, as first(doc, articleBodySel).
func (a *articleBody) get() *goquery.Selection {
	if !a.looked {
		a.sel, a.looked = first(a.doc, articleBodySel), true
	}
	return a.sel
}

// textLen is the length in characters of the selection's text with runs
// of whitespace counted as one space.
func textLen(s *goquery.Selection) int {
	n := 0
	for _, e := range s.Nodes {
		if n > 0 {
			n++
		}
		var c collapsedCount
		c.node(e)
		n += c.len()
	}
	return n
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// absURL resolves ref against base: canonurl.Resolve.
func absURL(base *url.URL, ref string) string { return canonurl.Resolve(base, ref) }

// countRe finds a count such as "1,234", "1.2万" or "3.4k" inside text.
var countRe = regexp.MustCompile(`(\d[\d,]*(?:\.\d+)?)\s*(万|千|亿|[kKmMwW])?`)

// ParseCount reads a count from text such as "1,234", "评论(56)", "1.2万",
// "3.4k" or a bare number. It reports false when the text holds none.
func ParseCount(s string) (int64, bool) {
	if n, ok := plainCount(s); ok {
		return n, true
	}
	return countIn(s)
}

// countIn is ParseCount by countRe.
func countIn(s string) (int64, bool) {
	m := countRe.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	num := strings.ReplaceAll(m[1], ",", "")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	switch m[2] {
	case "万", "w", "W":
		v *= 1e4
	case "千", "k", "K":
		v *= 1e3
	case "m", "M":
		v *= 1e6
	case "亿":
		v *= 1e8
	}
	if v > 1e15 {
		return 0, false
	}
	return int64(v + 0.5), true
}

// plainCount reads a count of 1 to 15 ASCII digits and nothing else (as
// list APIs give them), which ParseCount reads so too, without the
// expression: exactly, as float64 holds every integer below 1e15.
func plainCount(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 15 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// metas indexes a page's <meta> tags in one walk: "property=og:title",
// "name=description", "itemprop=datepublished" (names lower-cased) → the
// first non-empty content.
type metas map[string]string

func indexMetas(nodes []*html.Node) metas {
	m := metas{}
	for _, n := range nodes {
		content, _ := nodeAttr(n, "content")
		if content = strings.TrimSpace(content); content == "" {
			continue
		}
		for _, a := range [...]string{"property", "name", "itemprop"} {
			if v, ok := nodeAttr(n, a); ok {
				k := a + "=" + strings.ToLower(strings.TrimSpace(v))
				if _, dup := m[k]; !dup {
					m[k] = content
				}
			}
		}
	}
	return m
}

// metaAndJSONLD returns the page's <meta> elements and its JSON-LD
// scripts, each in document order (what FindMatcher finds with metaSel
// and jsonLDSel), in one walk of the tree.
func metaAndJSONLD(doc *goquery.Document) (meta, ld []*html.Node) {
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue // text, comments and the doctype have no elements inside
			}
			switch {
			case metaSel.Match(c):
				meta = append(meta, c)
			case jsonLDSel.Match(c):
				ld = append(ld, c)
			}
			walk(c)
		}
	}
	for _, root := range doc.Nodes {
		walk(root)
	}
	return meta, ld
}

// nodeAttr is the value of n's first attribute called name
// (goquery.Selection.Attr of one node).
func nodeAttr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

// get returns the content of the first key present.
func (m metas) get(keys ...string) string {
	for _, k := range keys {
		if v := m[k]; v != "" {
			return v
		}
	}
	return ""
}
