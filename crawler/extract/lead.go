package extract

import (
	"strings"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// The lead is the start of an article's body that story grouping reads
// besides the title and summary (news.Article.Lead): the first
// LeadParagraphs paragraphs, LeadMax characters at most. Reports of one
// event in their own words share few words in their titles; their first
// paragraphs name the same people, places and figures.
const (
	LeadParagraphs = 3
	LeadMax        = 1000
)

var pSel = cascadia.MustCompile("p")

// readLead returns the lead of a page: the paragraphs of the source's
// body selector's elements (each element's <p>, or its whole text when it
// has none), else of the JSON-LD articleBody (its lines), else of the
// [itemprop=articleBody] or <article> element, else the page's <p>.
func readLead(doc *goquery.Document, body Selector, ldBody string) string {
	var l lead
	switch {
	case body.css != nil:
		for _, n := range body.selectAll(doc).Nodes {
			l.element(n)
		}
	case ldBody != "":
		for _, line := range strings.Split(ldBody, "\n") {
			l.add(line)
		}
	default:
		for _, sel := range [...]cascadia.Selector{articleBodySel, articleSel} {
			if s := first(doc, sel); s.Length() > 0 {
				l.element(s.Nodes[0])
				return l.String()
			}
		}
		for _, n := range doc.FindMatcher(bodyPSel).Nodes {
			l.add((&goquery.Selection{Nodes: []*html.Node{n}}).Text())
		}
	}
	return l.String()
}

// lead collects paragraphs up to LeadParagraphs and LeadMax characters.
type lead struct {
	b     strings.Builder
	paras int
	runes int
}

// element adds the paragraphs of n: its <p> elements, or its text when
// it has none.
func (l *lead) element(n *html.Node) {
	ps := cascadia.QueryAll(n, pSel)
	if len(ps) == 0 {
		l.add((&goquery.Selection{Nodes: []*html.Node{n}}).Text())
		return
	}
	for _, p := range ps {
		l.add((&goquery.Selection{Nodes: []*html.Node{p}}).Text())
	}
}

// add adds one paragraph, white space collapsed; empty ones are skipped,
// and nothing once the lead is full. The paragraph that reaches LeadMax
// is cut there.
func (l *lead) add(text string) {
	if l.paras == LeadParagraphs || l.runes >= LeadMax {
		return
	}
	text = collapse(text)
	if text == "" {
		return
	}
	if n := utf8.RuneCountInString(text); l.runes+n > LeadMax {
		text = string([]rune(text)[:LeadMax-l.runes])
	}
	if l.paras > 0 {
		l.b.WriteString("\n\n")
	}
	l.b.WriteString(text)
	l.paras++
	l.runes += utf8.RuneCountInString(text)
}

func (l *lead) String() string { return l.b.String() }
