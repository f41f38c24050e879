package crawler

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

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
