package extract

// An article's lead: the first paragraphs of its body, which the story
// grouping compares across outlets. It is taken, in this order, from
//
//   - the source's lead selector: the paragraphs inside its matches (or
//     their text), as the site marks its standfirst or first paragraphs;
//   - the source's body selector: the first paragraphs inside it;
//   - the JSON-LD article's articleBody: its first paragraphs (its lines),
//     the publisher's own text, without the page's furniture; then the
//     page's microdata articleBody element;
//   - the page: the element that holds the most paragraph text, as
//     readability and trafilatura find an article's body (each paragraph
//     counts for its parent, and half for its grandparent), and its
//     paragraphs.
//
// A paragraph is a <p>'s text, or, on pages that write no <p>, a run of
// text in another block element between its block children and <br>s
// (textBlocks). Page furniture is passed over: what is inside <nav>,
// <aside>, <header>, <footer>, <figure> (captions), forms, headings and
// list items, or inside an element whose class or id says byline,
// caption, share, related, newsletter, comments, cookie...; paragraphs
// that read as furniture ("Read more", "Share this", a byline, "责任编辑",
// a short one crediting a photo) or are mostly links. In the page's body,
// short paragraphs before the first real one (a dateline, a kicker) are
// passed over too. The lead holds up to leadParagraphs paragraphs, one a
// line, and leadWidth of text, a CJK character counting twice (about 600
// characters, or 300 Chinese ones), the last one cut at a sentence's end
// (or a word's) when it would run over.

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

const (
	// leadParagraphs and leadWidth bound a lead (see leadWidthOf).
	leadParagraphs = 3
	leadWidth      = 600
	// leadMinWidth is the width of a real paragraph: in the page's body,
	// shorter ones before the first real one are datelines, kickers,
	// bylines.
	leadMinWidth = 40
	// leadMinRoom is the least room worth cutting a paragraph into.
	leadMinRoom = 120
	// leadCaptionWidth: a paragraph shorter than this that credits a
	// photo is a caption.
	leadCaptionWidth = 160
)

var (
	// furnitureTags hold no body text.
	furnitureTags = map[string]bool{"nav": true, "aside": true, "header": true, "footer": true, "figure": true,
		"figcaption": true, "form": true, "button": true, "noscript": true, "template": true, "select": true}
	// furnitureClass is the class or id of page parts that are not body
	// text.
	furnitureClass = regexp.MustCompile(`(?i)byline|author|caption|credit|share|sharing|social|related|recommend|promo|newsletter|subscri|signup|sign-up|advert|sponsor|breadcrumb|crumbs|read-?more|more-?link|copyright|disclaimer|sidebar|widget|footer|teaser|outbrain|taboola|cookie|consent|gdpr|(?:^|[\s_-])(?:ad|ads|tags?|meta|tie|info|editor|comments?|cmt)(?:$|[\s_-])`)
	// furnitureText is how furniture paragraphs start.
	furnitureText = regexp.MustCompile(`(?i)^(?:read (?:more|also|next)|see also|related(?: articles| stories)?:|more:|advertisement|share (?:this|on)|follow us|sign up|subscribe|click here|photo:|image:|credit:|©|copyright|all rights reserved|by [\p{Lu}][\pL.'-]+(?: (?:and )?[\p{Lu}][\pL.'-]+){0,3}$|责任编辑|编辑[:：]|来源[:：]|原标题|图片来源|点击|阅读全文|分享到|关注我们|扫码|版权声明|本文来源|已有\d+人参与)`)
	// captionText is what a short paragraph that credits a photo says.
	captionText = regexp.MustCompile(`(?i)\b(?:photo|foto|bild|image|picture|crédit|credit)s?\s*:|©|getty images|\(ap photo|^图为|摄影[:：]|图片来源`)
	// furnitureStart holds every character a match of furnitureText can
	// start with (each alternative's first, in every case), and
	// mayBeCaption says when captionText may match (each of its
	// alternatives needs one of these): the cheap checks that spare most
	// paragraphs the expressions (lead_filter_test.go holds them to the
	// expressions).
	furnitureStart = "rRsS\u017fmMaAfFcCpPiI©bB责编来原图点阅分关扫版本已"
	// sentenceEnd ends a sentence, in the scripts news is written in.
	sentenceEnd = regexp.MustCompile(`[.!?。！？](?:["'”’」』)]*)?(?:\s|$)|[。！？]`)
)

// lead is the page's lead (see the comment above).
func lead(doc *goquery.Document, r *Rules, ld jsonLD, ab *articleBody) string {
	for i, sel := range [...]Selector{r.sel.Lead, r.sel.Body} {
		if sel.css == nil {
			continue
		}
		if l := leadOf(blockTexts(sel.selectAll(doc)), i == 1); l != "" { // a lead selector's paragraphs are all lead
			return l
		}
	}
	if ld.body != "" {
		body := ld.body
		if strings.Contains(body, "&") {
			body = html.UnescapeString(body) // JSON-LD written HTML-escaped
		}
		if l := leadOf(strings.Split(body, "\n"), true); l != "" {
			return l
		}
	}
	if l := leadOf(blockTexts(ab.get()), true); l != "" {
		return l
	}
	if len(doc.Nodes) == 0 {
		return ""
	}
	return leadOf(bodyParagraphs(textBlocks(doc.Nodes[0])), true)
}

// blockTexts are the texts of the text blocks under sel's elements.
func blockTexts(sel *goquery.Selection) []string {
	var out []string
	for _, n := range sel.Nodes {
		for _, b := range textBlocks(n) {
			out = append(out, b.text)
		}
	}
	return out
}

// textBlock is a run of text a reader sees as one paragraph: a <p>'s
// text, or the text of another block element between its block
// children and <br>s (pages that write paragraphs as <div>s or lines).
type textBlock struct {
	text string
	// in is the element the text is in: for a <p>, the <p>; else the
	// element it is written in. A paragraph counts for its parent: the
	// <p>'s parent, or for a run of text, the element it is in.
	in, parent *html.Node
}

// noText are elements whose content is no article text: headings, list
// items and definitions are titles, menus and data.
var noText = map[string]bool{"script": true, "style": true, "noscript": true, "template": true, "svg": true,
	"iframe": true, "object": true, "select": true, "textarea": true, "head": true, "title": true, "button": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "li": true, "th": true, "dt": true,
	"caption": true, "label": true, "pre": true, "code": true}

// inline are the elements that sit inside a paragraph's text.
var inline = map[string]bool{"a": true, "b": true, "i": true, "em": true, "strong": true, "span": true, "font": true,
	"u": true, "small": true, "big": true, "sub": true, "sup": true, "abbr": true, "cite": true, "q": true, "mark": true,
	"time": true, "s": true, "strike": true, "del": true, "ins": true, "img": true, "wbr": true}

// textBlocks lists the text blocks under root in document order, but
// those of noText elements and furniture (see enter) and those mostly
// made of links.
func textBlocks(root *html.Node) []textBlock {
	var out []textBlock
	var walk func(n *html.Node, furniture bool)
	walk = func(n *html.Node, furniture bool) {
		var run strings.Builder
		var all, linked collapsedCount
		flush := func() {
			// all counts run's characters but white space: none, and
			// collapse would leave nothing. A block passed over is not
			// collapsed.
			if !furniture && all.runes > 0 && 2*linked.runes <= all.runes {
				b := textBlock{text: collapse(run.String()), in: n, parent: n}
				if n.Data == "p" && n.Parent != nil {
					b.parent = n.Parent
				}
				out = append(out, b)
			}
			run.Reset()
			all, linked = collapsedCount{}, collapsedCount{}
		}
		// In furniture the text is not gathered (flush passes it over);
		// the block children are still walked, for an article inside.
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				if !furniture {
					run.WriteString(c.Data)
					all.text(c.Data)
				}
			case c.Type != html.ElementNode:
			case c.Data == "br":
				flush()
			case inline[c.Data]:
				if !furniture {
					inlineText(c, c.Data == "a", &run, &all, &linked)
				}
			default:
				flush()
				if f, ok := enter(c, furniture); ok {
					walk(c, f)
				}
			}
		}
		flush()
	}
	walk(root, false) // root itself is taken as it is: a source may select a <header>
	return out
}

// enter reports whether the block element n may hold body text (not a
// noText or furnitureTags element), and whether what it holds is
// furniture: inside an element whose class or id furnitureClass matches,
// below the article (<article>, <main>, the articleBody) when the text is
// in one. The article's own classes and those of the elements around it
// ("post tag-politics", <body class="et_show_nav">) are the layout's, not
// the text's.
func enter(n *html.Node, furniture bool) (inFurniture, ok bool) {
	switch {
	case noText[n.Data] || furnitureTags[n.Data]:
		return false, false
	case n.Data == "article" || n.Data == "main" || isArticleBody(n):
		return false, true
	case n.Data == "html" || n.Data == "body":
		return furniture, true
	}
	return furniture || furnitureAttr(n), true
}

// inlineText adds the text under the inline element n to run (a <br>
// inside it as a space), counting what is in links.
func inlineText(n *html.Node, inLink bool, run *strings.Builder, all, linked *collapsedCount) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			run.WriteString(c.Data)
			all.text(c.Data)
			if inLink {
				linked.text(c.Data)
			}
		case c.Type == html.ElementNode && c.Data == "br":
			run.WriteByte(' ')
			all.text(" ")
		case c.Type == html.ElementNode && !noText[c.Data]:
			inlineText(c, inLink || c.Data == "a", run, all, linked)
		}
	}
}

// bodyParagraphs are the texts of the blocks in the element that holds
// the most paragraph text: each block of at least leadMinWidth counts
// for its parent, and half for its grandparent (every block, on a page
// that has none so long).
func bodyParagraphs(blocks []textBlock) []string {
	if out := scoredParagraphs(blocks, leadMinWidth); out != nil {
		return out
	}
	return scoredParagraphs(blocks, 1)
}

func scoredParagraphs(blocks []textBlock, minWidth int) []string {
	score := map[*html.Node]int{}
	var best *html.Node
	for _, b := range blocks {
		w := leadWidthOf(b.text)
		if w < minWidth {
			continue
		}
		score[b.parent] += w
		if gp := b.parent.Parent; gp != nil {
			score[gp] += w / 2
		}
		for _, n := range []*html.Node{b.parent, b.parent.Parent} {
			if n != nil && (best == nil || score[n] > score[best]) {
				best = n
			}
		}
	}
	if best == nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		if within(b.in, best) {
			out = append(out, b.text)
		}
	}
	return out
}

// leadOf makes a lead of paragraphs: those that are not furniture, up to
// leadParagraphs and leadWidth; with skipShort, the short ones before
// the first real paragraph are passed over, unless there is none.
func leadOf(paragraphs []string, skipShort bool) string {
	if l := leadOfPass(paragraphs, skipShort); l != "" || !skipShort {
		return l
	}
	return leadOfPass(paragraphs, false)
}

func leadOfPass(paragraphs []string, skipShort bool) string {
	var b strings.Builder
	n, width := 0, 0
	for _, p := range paragraphs {
		p = collapse(p)
		w := leadWidthOf(p)
		if p == "" || isFurnitureText(p) || w < leadCaptionWidth && mayBeCaption(p) && captionText.MatchString(p) {
			continue
		}
		if skipShort && n == 0 && w < leadMinWidth {
			continue
		}
		if width+w > leadWidth {
			room := leadWidth - width
			if n > 0 && room < leadMinRoom {
				break
			}
			p = cutAt(p, room)
			w = leadWidth
		}
		if n > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p)
		n, width = n+1, width+w
		if n == leadParagraphs || width >= leadWidth {
			break
		}
	}
	return b.String()
}

// isFurnitureText reports whether p starts as furniture paragraphs do.
func isFurnitureText(p string) bool {
	r, _ := utf8.DecodeRuneInString(p)
	return strings.ContainsRune(furnitureStart, r) && furnitureText.MatchString(p)
}

// mayBeCaption is false for a text captionText cannot match: one with no
// colon (photo:, credits:...), ©, 'y' (getty images) or '(' ((ap photo),
// that holds neither 摄影 nor 图片来源 and does not start with 图为.
func mayBeCaption(p string) bool {
	return strings.ContainsAny(p, ":©yY(") || strings.Contains(p, "摄影") || strings.Contains(p, "图片来源") ||
		strings.HasPrefix(p, "图为")
}

// leadWidthOf is a text's width: its characters, a CJK one counting
// twice (it says as much as a short word).
func leadWidthOf(s string) int {
	w := 0
	for _, r := range s {
		w++
		if isWide(r) {
			w++
		}
	}
	return w
}

func isWide(r rune) bool {
	return r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef)
}

// cutAt cuts p to at most width: at the last sentence's end that leaves
// at least half of it, else at the last space, else at a character.
func cutAt(p string, width int) string {
	end, w := 0, 0 // byte offset and width of the longest prefix that fits
	for i, r := range p {
		cw := 1
		if isWide(r) {
			cw = 2
		}
		if w+cw > width {
			break
		}
		w += cw
		end = i + utf8.RuneLen(r)
	}
	head := p[:end]
	if end == len(p) {
		return head
	}
	if locs := sentenceEnd.FindAllStringIndex(head, -1); locs != nil {
		if cut := locs[len(locs)-1][1]; leadWidthOf(head[:cut]) >= width/2 {
			return strings.TrimSpace(head[:cut])
		}
	}
	if i := strings.LastIndexByte(head, ' '); i > 0 && leadWidthOf(head[:i]) >= width/2 {
		return head[:i]
	}
	return head
}

// furnitureAttr reports whether n's class or id says furniture.
func furnitureAttr(n *html.Node) bool {
	for _, at := range n.Attr {
		if (at.Key == "class" || at.Key == "id") && furnitureValue(at.Val) {
			return true
		}
	}
	return false
}

// furnitureMemo remembers furnitureClass's answer for the class and id
// values furnitureASCII does not answer (not ASCII, or wide): a site's
// pages repeat the same values, element after element and page after
// page, and the expression, many alternatives under (?i), costs
// microseconds a value where a look-up costs tens of nanoseconds. It keeps about furnitureMemoMax values (a few more when
// pages are read at once) of at most furnitureMemoWidth bytes: others
// are matched each time, as before.
var (
	furnitureMemo    sync.Map // string -> bool
	furnitureMemoLen atomic.Int64
)

const (
	furnitureMemoMax   = 1 << 14
	furnitureMemoWidth = 128
)

// furnitureValue reports whether a class or id value names page
// furniture (furnitureClass).
func furnitureValue(v string) bool {
	if f, ok := furnitureASCII(v); ok {
		return f
	}
	if f, ok := furnitureMemo.Load(v); ok {
		return f.(bool)
	}
	f := furnitureClass.MatchString(v)
	if len(v) <= furnitureMemoWidth && furnitureMemoLen.Load() < furnitureMemoMax {
		if _, loaded := furnitureMemo.LoadOrStore(strings.Clone(v), f); !loaded {
			furnitureMemoLen.Add(1)
		}
	}
	return f
}

func isArticleBody(n *html.Node) bool {
	for _, at := range n.Attr {
		if at.Key == "itemprop" && strings.EqualFold(at.Val, "articleBody") {
			return true
		}
	}
	return false
}

// within reports whether n is inside (or is) root.
func within(n, root *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == root {
			return true
		}
	}
	return false
}
