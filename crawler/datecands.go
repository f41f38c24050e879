package crawler

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// Selectors of the date elements, compiled once.
var (
	pubTimeSel     = cascadia.MustCompile(`time[itemprop="datePublished"], time[pubdate], [itemprop="datePublished"]:not(meta)`)
	abbrSel        = cascadia.MustCompile(`abbr.published[title], abbr.dtstart[title], .published[datetime], .post-date[datetime]`)
	articleTimeSel = cascadia.MustCompile("article time[datetime]")
	timeSel        = cascadia.MustCompile("time[datetime]")
)

// metaDateKeys are the <meta> keys that carry a date, in the order they
// are read, and what kind of date they carry.
var metaDateKeys = [...]struct {
	key  string
	kind dateKind
}{
	{"property=article:published_time", datePublished}, {"name=article:published_time", datePublished},
	{"property=og:article:published_time", datePublished}, {"itemprop=datepublished", datePublished},
	{"property=og:published_time", datePublished}, {"name=og:published_time", datePublished},
	{"name=pubdate", datePublished}, {"name=publishdate", datePublished}, {"name=publish-date", datePublished},
	{"name=publish_date", datePublished}, {"name=publication_date", datePublished},
	{"property=publication_date", datePublished}, {"name=date", dateGeneric}, {"name=dc.date", dateGeneric},
	{"name=dc.date.issued", datePublished}, {"name=dc.date.created", datePublished},
	{"name=dcterms.created", datePublished}, {"name=dcterms.issued", datePublished},
	{"name=dcterms.date", dateGeneric}, {"name=citation_publication_date", datePublished},
	{"name=citation_date", datePublished}, {"name=sailthru.date", datePublished},
	{"name=parsely-pub-date", datePublished}, {"name=article.published", datePublished},
	{"name=article_date_original", datePublished}, {"name=original-publish-date", datePublished},
	{"name=pub_date", datePublished}, {"name=date_published", datePublished},
	{"itemprop=datecreated", datePublished}, {"name=created", datePublished},
	{"property=article:modified_time", dateModified}, {"property=og:updated_time", dateModified},
	{"name=og:updated_time", dateModified}, {"itemprop=datemodified", dateModified},
	{"name=last-modified", dateModified}, {"name=dcterms.modified", dateModified},
}

// ldDateKeys are the JSON-LD keys of a date, in the order they are read.
var ldDateKeys = [...]struct {
	key  string
	kind dateKind
}{
	{"datePublished", datePublished}, {"dateCreated", datePublished}, {"uploadDate", datePublished},
	{"startDate", datePublished}, {"dateModified", dateModified},
}

// pageDates collects the dates of a page's data: the JSON-LD article's,
// another JSON-LD object's (a WebPage, a video), the <meta> tags', in the
// order of their keys; with ruleOrder, the publication dates first. The
// <time> and <abbr> elements of the article come last among the
// publication dates, read only when the data have none (they take no part
// in settling disagreements).
func pageDates(doc *goquery.Document, ld jsonLD, m metas, r *Rules, now time.Time) (cands []dateCand, bad string) {
	add := func(raw, from string, kind dateKind) {
		t, ok := r.ParseTime(raw, now)
		if !ok {
			if bad == "" {
				bad = clip(strings.TrimSpace(raw), 100)
			}
			return
		}
		cands = append(cands, dateCand{t: t, kind: kind, from: from, raw: raw})
	}
	for _, o := range [...]struct {
		obj  map[string]any
		from string
	}{{ld.obj, "json-ld"}, {ld.dated, "json-ld " + typeName(ld.dated)}} {
		for _, k := range ldDateKeys {
			if v := str(o.obj[k.key]); v != "" {
				add(v, o.from+" "+k.key, k.kind)
			}
		}
	}
	for _, k := range metaDateKeys {
		if v := m[k.key]; v != "" {
			add(v, "meta "+k.key, k.kind)
		}
	}
	if r.dateRules&ruleOrder == 0 {
		if len(cands) == 0 {
			cands = appendElementDate(cands, doc, r, now, &bad)
		}
		return cands, bad
	}
	pub := make([]dateCand, 0, len(cands)+1)
	for _, c := range cands {
		if c.kind == datePublished {
			pub = append(pub, c)
		}
	}
	if len(pub) == 0 {
		pub = appendElementDate(pub, doc, r, now, &bad)
	}
	for _, c := range cands {
		if c.kind != datePublished {
			pub = append(pub, c)
		}
	}
	return pub, bad
}

// typeName is a JSON-LD object's @type, for where a date came from.
func typeName(o map[string]any) string {
	if s := str(o["@type"]); s != "" {
		return s
	}
	return "object"
}

// appendElementDate appends the post time of the article's <time> and
// <abbr> elements (not a sidebar's, a comment's or the navigation's): the
// first group of elements that gives one day.
func appendElementDate(cands []dateCand, doc *goquery.Document, r *Rules, now time.Time, bad *string) []dateCand {
	names := [...]string{"<time itemprop=datePublished>", "<abbr class=published>", "<article> <time>", "<time>"}
	for i, sel := range [...]cascadia.Selector{pubTimeSel, abbrSel, articleTimeSel, timeSel} {
		var found dateCand
		days := map[ymd]bool{}
		doc.FindMatcher(sel).EachWithBreak(func(n int, s *goquery.Selection) bool {
			if n >= 20 || i == 3 && inAside(s) { // any <time> on the page
				return n < 20
			}
			v := firstNonEmpty(attr(s, "datetime"), attr(s, "content"), attr(s, "title"))
			if v == "" && i == 0 {
				v = collapse(s.Text())
			}
			if v == "" {
				return true
			}
			t, ok := r.ParseTime(v, now)
			if !ok {
				if *bad == "" {
					*bad = clip(v, 100)
				}
				return true
			}
			if found.t.IsZero() {
				found = dateCand{t: t, kind: datePublished, from: names[i], raw: v, element: true}
			}
			days[dayOf(t)] = true
			// The generic <time>s are all read: they must agree; so must
			// the datePublished and "published" ones with ruleLists.
			return i >= 2 || r.dateRules&ruleLists != 0
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

// visibleText is the text a reader sees: the body without scripts,
// styles and templates, its text nodes separated by spaces.
func visibleText(doc *goquery.Document) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			b.WriteByte(' ')
			return
		case html.ElementNode:
			switch n.Data {
			case "script", "style", "noscript", "template", "head", "svg":
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range doc.Nodes {
		walk(n)
	}
	return b.String()
}

// datesNearYears is datesIn for long texts, fast: it reads the text
// around each four- or eight-digit number (a year, a compact date), so it
// misses only dates written with a two-digit year.
func datesNearYears(text string) []ymd {
	var out []ymd
	from, to := 0, 0 // the window being gathered
	flush := func() {
		if to > from {
			out = append(out, datesIn(text[from:to])...)
		}
	}
	for i := 0; i < len(text); {
		if !isDigit(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isDigit(text[j]) {
			j++
		}
		if n := j - i; n == 4 || n == 8 {
			// Day and month precede the year by a few words at most
			// ("19 de septiembre de 2021", "19. сентября 2021"), or follow
			// it ("2021年11月19日").
			a, b := max(i-48, 0), min(j+16, len(text))
			for a > 0 && (isDigit(text[a-1]) || !utf8.RuneStart(text[a])) {
				a--
			}
			for b < len(text) && (isDigit(text[b]) || !utf8.RuneStart(text[b])) {
				b++
			}
			if a > to {
				flush()
				from = a
			}
			to = b
		}
		i = j
	}
	flush()
	return out
}

// dateInText finds the dates written in a text: 2021-11-19, 2021/11/19,
// 2021年11月19日, 20211119 (standing alone), 19.11.2021 and 19-11-2021
// (day first), 11/19/2021 (either order), 19. November 2021, 19 de
// noviembre de 2021, November 19th, 2021.
var dateInText = regexp.MustCompile(`(?i)` +
	`(?:^|[^\d])(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})(?:[^\d]|$)` + // 1-3: y m d
	`|(?:^|[^\pL\d])(\d{4})(\d{2})(\d{2})(?:[^\pL\d]|$)` + // 4-6: ymd
	`|(?:^|[^\d])(\d{1,2})\s*\.\s*(\d{1,2})\s*\.\s*(\d{4}|\d{2})(?:[^\d]|$)` + // 7-9: d m y
	`|(?:^|[^\d])(\d{1,2})-(\d{1,2})-(\d{4})(?:[^\d]|$)` + // 10-12: d m y
	`|(?:^|[^\d])(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})(?:[^\d]|$)` + // 13-15: either
	`|(?:^|[^\d])(\d{1,2})(?:st|nd|rd|th)?\.?\s*(?:de\s+)?(\pL{3,})\.?,?\s*(?:de\s+)?(\d{4})(?:[^\d]|$)` + // 16-18: d word y
	`|(?:^|[^\pL])(\pL{3,})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?:[^\d]|$)`) // 19-21: word d y

// datesIn returns the dates dateInText finds in s; a month written as a
// word monthWord does not know has month 0. A slashed date gives both
// readings (11/12/2021 is 11 December or November 12).
func datesIn(s string) []ymd {
	var out []ymd
	num := func(v string) int { n, _ := strconv.Atoi(v); return n }
	year := func(v string) int {
		y := num(v)
		if len(v) == 2 { // POSIX's pivot: 69 is 2069, 70 is 1970
			y += 1900
			if y < 1970 {
				y += 100
			}
		}
		return y
	}
	add := func(y, m, d int) {
		if d >= 1 && d <= 31 && m >= 0 && m <= 12 && y >= 1900 {
			out = append(out, ymd{y, m, d})
		}
	}
	for _, g := range dateInText.FindAllStringSubmatch(s, -1) {
		switch {
		case g[1] != "":
			add(num(g[1]), num(g[2]), num(g[3]))
		case g[4] != "":
			if m := num(g[5]); m >= 1 {
				add(num(g[4]), m, num(g[6]))
			}
		case g[7] != "":
			add(year(g[9]), num(g[8]), num(g[7]))
		case g[10] != "":
			add(num(g[12]), num(g[11]), num(g[10]))
		case g[13] != "":
			add(year(g[15]), num(g[14]), num(g[13]))
			add(year(g[15]), num(g[13]), num(g[14]))
		case g[16] != "":
			add(num(g[18]), monthWord(g[17]), num(g[16]))
		case g[19] != "":
			add(num(g[21]), monthWord(g[19]), num(g[20]))
		}
	}
	return out
}
