package extract

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

// collapsedCount counts the characters of a text as collapse would leave
// it, without building it: the runes that are not white space, and one
// space between words.
type collapsedCount struct {
	runes, words int
	inWord       bool
}

// node counts the text of n's text nodes, in document order (what
// goquery's Text returns).
func (c *collapsedCount) node(n *html.Node) {
	if n.Type == html.TextNode {
		c.text(n.Data)
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.node(ch)
	}
}

func (c *collapsedCount) text(s string) {
	for _, r := range s {
		if isSpace(r) {
			c.inWord = false
			continue
		}
		if !c.inWord {
			c.words++
			c.inWord = true
		}
		c.runes++
	}
}

// isSpace is unicode.IsSpace, sooner for ASCII and for the characters
// past U+3000 (CJK text), none of which is white space.
func isSpace(r rune) bool {
	switch {
	case r < 0x80:
		return r == ' ' || '\t' <= r && r <= '\r'
	case r > 0x3000:
		return false
	}
	return unicode.IsSpace(r)
}

func (c *collapsedCount) len() int { return c.runes + max(c.words-1, 0) }

// collapse trims s and folds runs of white space into one space.
func collapse(s string) string {
	if isCollapsed(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isCollapsed reports whether collapse would return s unchanged: no white
// space but single ' ' between words.
func isCollapsed(s string) bool {
	space := true // at the start, as after a space: a leading one fails
	for _, r := range s {
		if !isSpace(r) {
			space = false
			continue
		}
		if r != ' ' || space {
			return false
		}
		space = true
	}
	return !space || s == ""
}
