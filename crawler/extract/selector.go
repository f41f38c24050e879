package extract

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// Selectors are the selectors for the fields of an article page. Lead
// selects the first paragraphs of the body (a standfirst, or paragraphs
// the site marks); empty, they are found in Body's match, else in the
// page (lead.go).
type Selectors struct {
	Title, PostTime, Source, Summary, Image, Comments, Body, Lead Selector
}

// Selector is a compiled "css" or "css@attr" rule (CompileSelector); the
// zero value selects nothing.
type Selector struct {
	css  cascadia.Selector
	attr string
	src  string
}

// String returns the selector as written.
func (s Selector) String() string { return s.src }

// IsZero reports whether s selects nothing.
func (s Selector) IsZero() bool { return s.css == nil }

var attrName = regexp.MustCompile(`^[A-Za-z_:][-A-Za-z0-9_:.]*$`)

// CompileSelector compiles a "css" or "css@attr" selector ("" gives the
// zero Selector). The error says what is wrong; when both the CSS and the
// attribute name are, it joins both (errors.Join).
func CompileSelector(s string) (Selector, error) {
	if s == "" {
		return Selector{}, nil
	}
	css, attr := SplitSelector(s)
	if css == "" {
		return Selector{}, fmt.Errorf("selector %q has no CSS part before '@'", s)
	}
	var errs []error
	c, err := cascadia.Compile(css)
	if err != nil {
		errs = append(errs, fmt.Errorf("bad CSS selector %q: %v", css, err))
	}
	if strings.Contains(s, "@") && !attrName.MatchString(attr) {
		errs = append(errs, fmt.Errorf("bad attribute name %q after '@' in %q", attr, s))
	}
	if len(errs) > 0 {
		return Selector{}, errors.Join(errs...)
	}
	return Selector{css: c, attr: attr, src: s}, nil
}

// MustCompileSelector is CompileSelector that panics on an error, for
// selectors written in code.
func MustCompileSelector(s string) Selector {
	sel, err := CompileSelector(s)
	if err != nil {
		panic(err)
	}
	return sel
}

// SplitSelector splits an extraction selector "css@attr" into the CSS
// selector and the attribute to read; attr is empty when the text is
// wanted. An '@' inside [...] or quotes belongs to the CSS selector.
func SplitSelector(s string) (css, attr string) {
	depth, quote := 0, rune(0)
	at := -1
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '[' || r == '(':
			depth++
		case r == ']' || r == ')':
			depth--
		case r == '@' && depth == 0:
			at = i
		}
	}
	if at < 0 {
		return strings.TrimSpace(s), ""
	}
	return strings.TrimSpace(s[:at]), strings.TrimSpace(s[at+1:])
}

// text returns the first match's text (whitespace collapsed) or attribute.
func (s Selector) text(doc *goquery.Document) string {
	if s.css == nil {
		return ""
	}
	n := firstNode(doc, s.css)
	if n == nil {
		return ""
	}
	if s.attr != "" {
		v, _ := nodeAttr(n, s.attr)
		return strings.TrimSpace(v)
	}
	return collapse(nodeText(n))
}

// first is the first element of the document that sel matches, in
// document order (doc.FindMatcher(sel).First(), but the walk stops at the
// match and builds no list of every match); an empty selection if none.
func first(doc *goquery.Document, sel cascadia.Matcher) *goquery.Selection {
	if n := firstNode(doc, sel); n != nil {
		return &goquery.Selection{Nodes: []*html.Node{n}}
	}
	return &goquery.Selection{}
}

// firstNode is first's element, or nil: a field's text is read from it
// without a selection made for it.
func firstNode(doc *goquery.Document, sel cascadia.Matcher) *html.Node {
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
				return n
			}
		}
	}
	return nil
}

// nodeText is goquery's Text of n's selection: the data of n's text
// nodes and its descendants', in document order; an element holding one
// text node (a title, a date) gives its data as it is, without a copy.
func nodeText(n *html.Node) string {
	if c := n.FirstChild; c != nil && c.NextSibling == nil && c.Type == html.TextNode && n.Type != html.TextNode {
		return c.Data
	}
	var b strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(n)
	return b.String()
}

func (s Selector) selectAll(doc *goquery.Document) *goquery.Selection {
	return doc.FindMatcher(s.css)
}

func attr(s *goquery.Selection, name string) string {
	v, _ := s.Attr(name)
	return strings.TrimSpace(v)
}
