package crawler

// Article-page post times without a selector.
//
// A page carries its date in several places that can disagree: JSON-LD
// (the article's datePublished and dateModified, a video's uploadDate),
// <meta> tags (article:published_time, or a CMS's generic "date", which is
// often the page's last change), <time> elements, the text. The rules
// below were measured on htmldate's public evaluation set (1,000 pages
// from hundreds of sites; TestHTMLDateEvaluation), each kept only when it
// helped on both halves of the set. They follow three ideas:
//
//   - a publication date wins over a modification date;
//   - when the page's data disagree by more than a day, the date its text
//     shows its readers decides (an article re-dated "updated 20 March"
//     is presented as of that date; a video's upload date that appears
//     nowhere is not the article's);
//   - a missing date is better than a wrong one: a claim the page's text
//     contradicts, and go-htmldate's guesses that its own evidence does
//     not support, are declined, and the crawler falls back to the list
//     item's time, then the crawl time.
//
// The costly steps (the page's text, go-htmldate) run only when the cheap
// ones leave a question, and never when the caller has a post time
// already (a list item's wins over the page's fallbacks).

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	dps "github.com/markusmobius/go-dateparser"
	htmldate "github.com/markusmobius/go-htmldate"
	"golang.org/x/net/html"
)

// dateKind is what a page's date claims to be.
type dateKind int

const (
	// datePublished: datePublished, article:published_time, pubdate, a
	// <time itemprop=datePublished>...
	datePublished dateKind = iota
	// dateGeneric: <meta name=date>, dc.date, dcterms.date. CMSs fill them
	// with the publication date as often as with the page's last change.
	dateGeneric
	// dateModified: dateModified, article:modified_time, og:updated_time.
	dateModified
)

// dateCand is one date a page carries.
type dateCand struct {
	t    time.Time
	kind dateKind
	from string // where: "json-ld datePublished", "meta property=article:published_time"...
	raw  string // the text it was read from
	// element is true for the <time> and <abbr> elements' date.
	element bool
}

// dateRule is a rule of the page-date choice. Each can be turned off, so
// TestHTMLDateEvaluation measures what it brings; the figures below are
// the right days it gains and the pages more than a day off it removes
// (negative) on the even and odd halves of htmldate's evaluation set.
type dateRule int

const (
	// ruleOrder: publication dates (of JSON-LD, <meta>, then the
	// article's <time> elements) before generic and modification dates,
	// rather than in the order of the keys. (Even +3/0, odd +1/0.)
	ruleOrder dateRule = 1 << iota
	// ruleShown: when the page's data disagree by more than a day, the
	// date its text shows decides, when it shows only one of them.
	// (+4/−4, +8/−8.)
	ruleShown
	// ruleWeak: a generic or modification date that is the page's only
	// one, while its text shows dates but not this one, is declined: the
	// last resort may find the publication date. (0/−1, −2/−2.)
	ruleWeak
	// ruleEvidence: go-htmldate's answer must be written in the text it
	// read it from, day, month and year (dotted dates day first). It
	// replaces a looser check that the text held a day. (+1/−2, +1/−6.)
	ruleEvidence
	// ruleAgree: go-htmldate's original and latest dates must be the
	// same day; a page that gives it two is one it guesses on. (−2/−5,
	// −1/−1.)
	ruleAgree
	// ruleLists: <time itemprop=datePublished> and <abbr class=published>
	// elements that give several days are a list of other articles, as
	// the generic <time>s already were. (+1/−1, +2/−2.)
	ruleLists

	allDateRules = ruleOrder | ruleShown | ruleWeak | ruleEvidence | ruleAgree | ruleLists
)

// dateRuleNames are the rules' names in test output.
var dateRuleNames = map[dateRule]string{
	ruleOrder: "order", ruleShown: "shown", ruleWeak: "weak", ruleEvidence: "evidence", ruleAgree: "agree",
	ruleLists: "lists",
}

// pageDateCalls and libraryCalls count the costly fallbacks (the
// benchmarks report them per page).
var pageDateCalls, libraryCalls atomic.Int64

// dateEvidence is what a page offers for its post time. The costly parts
// (the dates its text shows, go-htmldate's answers) are read on demand,
// once.
type dateEvidence struct {
	doc     *goquery.Document
	ld      jsonLD
	metas   metas
	pageURL string
	r       *Rules
	now     time.Time
	// costly is false when the caller has a post time already (a list
	// item's): the text and go-htmldate are then not read.
	costly bool
	// cands are the dates of JSON-LD, <meta> and <time> elements, best
	// first (pageDates); bad is the first date text that could not be
	// read.
	cands []dateCand
	bad   string

	shown    map[ymd]bool // the days the text shows, once textRead
	textRead bool
	hd       *[2]*hdResult // go-htmldate's answers: original, latest
}

// newDateEvidence collects the dates of a parsed page.
func newDateEvidence(doc *goquery.Document, ld jsonLD, m metas, pageURL string, r *Rules, now time.Time, costly bool) *dateEvidence {
	e := &dateEvidence{doc: doc, ld: ld, metas: m, pageURL: pageURL, r: r, now: now, costly: costly, hd: new([2]*hdResult)}
	e.cands, e.bad = pageDates(doc, ld, m, r, now)
	return e
}

// choose picks the post time; from says where it came from ("" when
// there is none).
func (e *dateEvidence) choose() (t time.Time, from string) {
	rules := e.r.dateRules
	if len(e.cands) == 0 {
		return e.lastResort(nil)
	}
	pick := &e.cands[0]
	if rules&ruleShown != 0 && e.costly && e.disagree(pick) {
		// The <time> elements take no part: the page shows them all.
		var shown *dateCand
		for i := range e.cands {
			c := &e.cands[i]
			if c.element || !e.isShown(c.t) {
				continue
			}
			if shown != nil && !near(shown.t, c.t) {
				shown = nil // several are shown: no decision here
				break
			}
			if shown == nil {
				shown = c
			}
		}
		if shown != nil {
			return shown.t, shown.from + ", shown on the page"
		}
	}
	if pick.kind != datePublished && rules&ruleWeak != 0 && e.costly && !e.isShown(pick.t) && len(e.shown) > 0 {
		return e.lastResort(pick)
	}
	return pick.t, pick.from
}

// disagree reports whether a date of the page's data is more than a day
// from pick.
func (e *dateEvidence) disagree(pick *dateCand) bool {
	for _, c := range e.cands {
		if !c.element && !near(c.t, pick.t) {
			return true
		}
	}
	return false
}

// under chooses again with other rules (TestHTMLDateEvaluation measures
// each rule so); the page's text and go-htmldate are not read again.
func (e *dateEvidence) under(rules dateRule) (time.Time, string) {
	r := *e.r
	r.dateRules = rules
	e.isShown(time.Time{})
	o := *e
	o.r = &r
	o.cands, o.bad = pageDates(e.doc, e.ld, e.metas, &r, e.now)
	return o.choose()
}

// lastResort asks go-htmldate, when the cheap rules gave no date or only
// weak, a claim they declined.
func (e *dateEvidence) lastResort(weak *dateCand) (time.Time, string) {
	rules := e.r.dateRules
	if !e.costly {
		return time.Time{}, ""
	}
	hd := e.htmldate(true)
	switch {
	case !hd.ok:
		return time.Time{}, ""
	case weak != nil && collapse(weak.raw) == hd.src:
		return time.Time{}, "" // the very <meta> declined above
	case rules&ruleEvidence != 0 && !hd.evidenced():
		return time.Time{}, ""
	case rules&ruleEvidence == 0 && !dayInText.MatchString(hd.src):
		return time.Time{}, ""
	}
	if rules&ruleAgree != 0 {
		if latest := e.htmldate(false); !latest.ok || dayOf(latest.t) != dayOf(hd.t) {
			return time.Time{}, ""
		}
	}
	return hd.t, "htmldate: " + clip(hd.src, 80)
}

// dayInText is the check ruleEvidence replaced: a day somewhere in
// go-htmldate's source text.
var dayInText = regexp.MustCompile(`\d{1,2}\D+\d{1,2}\D+\d{2,4}|\d{4}\D?\d{1,2}\D?\d{1,2}|\d{1,2}\.?\s*\p{L}{3,}|\p{L}{3,}\.?\s*\d{1,2}\b|\d{8}`)

// isShown reports whether the page's visible text shows t's day.
func (e *dateEvidence) isShown(t time.Time) bool {
	if !e.textRead {
		e.textRead = true
		e.shown = map[ymd]bool{}
		for _, d := range datesNearYears(visibleText(e.doc)) {
			if d.m != 0 {
				e.shown[d] = true
			}
		}
	}
	return e.shown[dayOf(t)]
}

// ymd is a calendar day; m is 0 when the month was a word not known.
type ymd struct{ y, m, d int }

func dayOf(t time.Time) ymd {
	y, m, d := t.Date()
	return ymd{y, int(m), d}
}

// near reports whether two times fall on days at most one apart (each in
// its own zone): the same date read in two zones.
func near(a, b time.Time) bool {
	d := dayNumber(a) - dayNumber(b)
	return d >= -1 && d <= 1
}

// dayNumber counts the calendar days (in t's own zone) from 1970-01-01.
func dayNumber(t time.Time) int64 {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// hdResult is one go-htmldate answer.
type hdResult struct {
	t   time.Time
	src string // the text it read the date from
	ok  bool
}

// evidenced reports whether the text go-htmldate read its date from
// holds that day (day, month and year; a month written as a word is taken
// as read). go-htmldate falls back to a bare year ("© 2020" gives 1
// January), a year and month in a link ("/2010/06/"), a date inside a
// word (an image's name): none of them is a post time. Dotted dates are
// read day first (4. 2. 2022 is 4 February), as in every language that
// writes them.
func (h hdResult) evidenced() bool {
	if len(h.src) == 10 {
		if n, err := strconv.ParseInt(h.src, 10, 64); err == nil && dayOf(time.Unix(n, 0).In(h.t.Location())) == dayOf(h.t) {
			return true // a Unix time
		}
	}
	return writesDay(h.src, h.t)
}

// writesDay reports whether s writes t's day: its year, month (a month
// word datesIn does not know counts) and day, in a form datesIn reads.
func writesDay(s string, t time.Time) bool {
	want := dayOf(t)
	for _, d := range datesIn(s) {
		if d.y == want.y && d.d == want.d && (d.m == want.m || d.m == 0) {
			return true
		}
	}
	return false
}

// minPageDate is the earliest date go-htmldate accepts (its own default,
// fixed here rather than in the server's zone).
var minPageDate = time.Date(1995, 1, 1, 0, 0, 0, 0, time.UTC)

// htmldate returns go-htmldate's answer (a port of Python's htmldate):
// the publication date when original, else the latest date on the page.
// It looks at the whole page (URL, <meta>, structured data, date patterns
// in the markup and the text), once per mode.
func (e *dateEvidence) htmldate(original bool) hdResult {
	i := 0
	if !original {
		i = 1
	}
	if e.hd[i] == nil {
		res := e.runHTMLDate(original)
		e.hd[i] = &res
	}
	return *e.hd[i]
}

// runHTMLDate runs go-htmldate in its fast mode, then, when that finds
// nothing, with its extensive search of the text, which calls
// go-dateparser on every date-like string (milliseconds a page); the two
// give the same answers on the evaluation set, the fast one at a fraction
// of the cost. go-dateparser reads in the page's declared language and
// English. A date without a zone is read in the source's zone; no date
// later than now is taken.
func (e *dateEvidence) runHTMLDate(original bool) hdResult {
	pageDateCalls.Add(1)
	if e.now.IsZero() || len(e.doc.Nodes) == 0 {
		return hdResult{}
	}
	loc := e.r.loc
	if loc == nil {
		loc = time.UTC
	}
	opts := htmldate.Options{
		URL:                 e.pageURL,
		UseOriginalDate:     original,
		ExtractTime:         true,
		MinDate:             minPageDate,
		MaxDate:             e.now.Add(24 * time.Hour),
		SkipExtensiveSearch: true,
		DateParserConfig: &dps.Configuration{
			Languages:           pageLanguages(e.doc),
			CurrentTime:         e.now.In(loc),
			DefaultTimezone:     loc,
			StrictParsing:       true,
			PreferredDateSource: dps.Past,
		},
	}
	res, err := htmldate.FromDocument(e.doc.Nodes[0], opts)
	if err == nil && res.IsZero() {
		opts.SkipExtensiveSearch = false
		res, err = htmldate.FromDocument(e.doc.Nodes[0], opts)
	}
	if err != nil || res.IsZero() {
		return hdResult{}
	}
	t := res.DateTime
	if !res.HasTimezone {
		y, m, d := t.Date()
		h, mi, s := t.Clock()
		t = time.Date(y, m, d, h, mi, s, 0, loc)
	}
	return hdResult{t: t, src: res.SrcString, ok: true}
}

// knownLanguages caches which language codes go-dateparser knows.
var knownLanguages sync.Map // string → bool

var (
	htmlSel      = cascadia.MustCompile("html[lang]")
	httpEquivSel = cascadia.MustCompile("meta[http-equiv]")
)

// pageLanguages are the languages go-dateparser reads the page's dates
// in: the page's declared language (<html lang>, else the
// Content-Language <meta>) and English, or nil (all of its languages,
// ten times slower) when the page declares none it knows.
func pageLanguages(doc *goquery.Document) []string {
	lang := attr(doc.FindMatcher(htmlSel).First(), "lang")
	if lang == "" {
		doc.FindMatcher(httpEquivSel).EachWithBreak(func(_ int, s *goquery.Selection) bool {
			if strings.EqualFold(attr(s, "http-equiv"), "content-language") {
				lang = attr(s, "content")
			}
			return lang == ""
		})
	}
	lang = strings.ToLower(lang)
	if i := strings.IndexAny(lang, "-_,; "); i >= 0 {
		lang = lang[:i]
	}
	if lang == "" {
		return nil
	}
	known, ok := knownLanguages.Load(lang)
	if !ok {
		_, err := dateParser.Parse(&dps.Configuration{Languages: []string{lang}}, "2020-01-02")
		known = err == nil || !strings.Contains(err.Error(), "unknown language")
		knownLanguages.Store(lang, known)
	}
	switch {
	case !known.(bool):
		return nil
	case lang == "en":
		return []string{"en"}
	}
	return []string{lang, "en"}
}

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
