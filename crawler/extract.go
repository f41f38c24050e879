package crawler

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

	"github.com/newsrank/newsrank/crawler/dates"
)

// Rules is the compiled extraction configuration of one source.
type Rules struct {
	title, postTime, source, summary, image, comments, body Selector
	times                                                   dates.Reader
	charset                                                 string
}

// NewRules returns the extraction rules of a source: its selectors
// (compiled already), time layouts and zone, and charset. It fails on an
// unknown time zone.
func NewRules(src Source) (*Rules, error) {
	r := &Rules{times: dates.Reader{Layouts: src.TimeLayouts, Loc: time.UTC}, charset: src.Charset}
	if src.TimeZone != "" {
		loc, err := time.LoadLocation(src.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("source %s: time_zone: %w", src.Name, err)
		}
		r.times.Loc = loc
	}
	x := src.Extract
	r.title, r.postTime, r.source, r.summary = x.Title, x.PostTime, x.Source, x.Summary
	r.image, r.comments, r.body = x.Image, x.Comments, x.Body
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
		Title:   r.title.text(doc),
		Source:  r.source.text(doc),
		Summary: r.summary.text(doc),
		Image:   absURL(base, r.image.text(doc)),
	}
	p.Rule.setTime(r, now, r.postTime.text(doc))
	if s := r.comments.text(doc); s != "" {
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

	switch {
	case r.body.css != nil:
		p.BodyLen = textLen(r.body.selectAll(doc))
	case ld.body != "":
		p.BodyLen = utf8.RuneCountInString(collapse(ld.body))
	default:
		p.BodyLen = fallbackBodyLen(doc)
	}
	return p, ev, nil
}

// text returns the first match's text (whitespace collapsed) or attribute.
func (s Selector) text(doc *goquery.Document) string {
	if s.css == nil {
		return ""
	}
	sel := first(doc, s.css)
	if sel.Length() == 0 {
		return ""
	}
	if s.attr != "" {
		return strings.TrimSpace(attr(sel, s.attr))
	}
	return collapse(sel.Text())
}

// first is the first element of the document that sel matches, in
// document order (doc.FindMatcher(sel).First(), but the walk stops at the
// match and builds no list of every match); an empty selection if none.
func first(doc *goquery.Document, sel cascadia.Matcher) *goquery.Selection {
	// FindMatcher looks at the element children of the document node and
	// their descendants: so does this.
	for _, root := range doc.Nodes {
		for c := root.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			n := c
			if !sel.Match(c) {
				n = cascadia.Query(c, sel)
			}
			if n != nil {
				return &goquery.Selection{Nodes: []*html.Node{n}}
			}
		}
	}
	return &goquery.Selection{}
}

func (s Selector) selectAll(doc *goquery.Document) *goquery.Selection {
	return doc.FindMatcher(s.css)
}

func attr(s *goquery.Selection, name string) string {
	v, _ := s.Attr(name)
	return strings.TrimSpace(v)
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
// articleBody element, else <article>, else the paragraphs of the page.
func fallbackBodyLen(doc *goquery.Document) int {
	for _, sel := range [...]cascadia.Selector{articleBodySel, articleSel} {
		if s := first(doc, sel); s.Length() > 0 {
			return textLen(s)
		}
	}
	return textLen(doc.FindMatcher(bodyPSel))
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

// absURL resolves ref against base; it returns "" for an empty or
// unusable reference and for schemes other than http(s).
func absURL(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return u.String()
}

// countRe finds a count such as "1,234", "1.2万" or "3.4k" inside text.
var countRe = regexp.MustCompile(`(\d[\d,]*(?:\.\d+)?)\s*(万|千|亿|[kKmMwW])?`)

// ParseCount reads a count from text such as "1,234", "评论(56)", "1.2万",
// "3.4k" or a bare number. It reports false when the text holds none.
func ParseCount(s string) (int64, bool) {
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
