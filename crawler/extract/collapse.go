package extract

import (
	"golang.org/x/net/html"

	"github.com/newsrank/newsrank/internal/textspace"
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

// isSpace is unicode.IsSpace, sooner (textspace.IsSpace).
func isSpace(r rune) bool { return textspace.IsSpace(r) }

func (c *collapsedCount) len() int { return c.runes + max(c.words-1, 0) }

// collapse trims s and folds runs of white space into one space
// (textspace.Collapse).
func collapse(s string) string { return textspace.Collapse(s) }
