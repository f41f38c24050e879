package dates

// Article-page post times without a selector.
//
// A page carries its date in several places that can disagree: JSON-LD
// (the article's datePublished and dateModified, a video's uploadDate),
// <meta> tags (article:published_time, or a CMS's generic "date", which is
// often the page's last change), <time> elements, the text. The rules
// below were measured on htmldate's public evaluation set (1,000 pages
// from hundreds of sites; TestHTMLDateEvaluation in package extract), each
// kept only when it helped on both halves of the set. They follow three
// ideas:
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
// ones leave a question.

import (
	"regexp"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// Kind is what a page's date claims to be.
type Kind int

const (
	// Published: datePublished, article:published_time, pubdate, a
	// <time itemprop=datePublished>...
	Published Kind = iota
	// Generic: <meta name=date>, dc.date, dcterms.date. CMSs fill them
	// with the publication date as often as with the page's last change.
	Generic
	// Modified: dateModified, article:modified_time, og:updated_time.
	Modified
)

// Claim is a date text a page's data carry (a JSON-LD key, a <meta> tag),
// in the order the caller read them.
type Claim struct {
	// Text is the date as written.
	Text string
	// From says where: "json-ld datePublished",
	// "meta property=article:published_time"...
	From string
	Kind Kind
}

// dateCand is one date a page carries, read.
type dateCand struct {
	t    time.Time
	kind Kind
	from string // Claim.From, or the element's name
	raw  string // the text it was read from
	// element is true for the <time> and <abbr> elements' date.
	element bool
}

// Rule is a rule of the page-date choice. Evidence.Choose applies them
// all; each can be turned off (Evidence.Under), so TestHTMLDateEvaluation
// measures what it brings. The figures below are the right days it gains
// and the pages more than a day off it removes (negative) on the even and
// odd halves of htmldate's evaluation set.
type Rule int

const (
	// RuleOrder: publication dates (of JSON-LD, <meta>, then the
	// article's <time> elements) before generic and modification dates,
	// rather than in the order of the claims. (Even +3/0, odd +1/0.)
	RuleOrder Rule = 1 << iota
	// RuleShown: when the page's data disagree by more than a day, the
	// date its text shows decides, when it shows only one of them.
	// (+4/−4, +8/−8.)
	RuleShown
	// RuleWeak: a generic or modification date that is the page's only
	// one, while its text shows dates but not this one, is declined: the
	// last resort may find the publication date. (0/−1, −2/−2.)
	RuleWeak
	// RuleEvidence: go-htmldate's answer must be written in the text it
	// read it from, day, month and year (dotted dates day first). It
	// replaces a looser check that the text held a day. (+1/−2, +1/−6.)
	RuleEvidence
	// RuleAgree: go-htmldate's original and latest dates must be the
	// same day; a page that gives it two is one it guesses on. (−2/−5,
	// −1/−1.)
	RuleAgree
	// RuleLists: <time itemprop=datePublished> and <abbr class=published>
	// elements that give several days are a list of other articles, as
	// the generic <time>s already were. (+1/−1, +2/−2.)
	RuleLists

	// AllRules are the rules in force.
	AllRules = RuleOrder | RuleShown | RuleWeak | RuleEvidence | RuleAgree | RuleLists
)

// String names a rule in test output ("order", "shown"...).
func (r Rule) String() string {
	switch r {
	case RuleOrder:
		return "order"
	case RuleShown:
		return "shown"
	case RuleWeak:
		return "weak"
	case RuleEvidence:
		return "evidence"
	case RuleAgree:
		return "agree"
	case RuleLists:
		return "lists"
	}
	return "rules"
}

// Evidence is what a page offers for its post time. The costly parts
// (the dates its text shows, go-htmldate's answers) are read on demand,
// once.
type Evidence struct {
	doc     *goquery.Document
	claims  []Claim
	pageURL string
	r       Reader
	now     time.Time
	rules   Rule
	// cands are the dates of the claims and the <time> elements, best
	// first (candidates); bad is the first date text that could not be
	// read.
	cands []dateCand
	bad   string

	shown    map[ymd]bool // the days the text shows, once textRead
	textRead bool
	hd       *[2]*hdResult // go-htmldate's answers: original, latest
}

// NewEvidence collects the dates of a parsed page: claims are those of
// its data (JSON-LD, <meta>), in the order they were read; its <time> and
// <abbr> elements, its text and go-htmldate are read here, as needed.
// Times are read with r, relative ones against now, the fetch time.
func NewEvidence(doc *goquery.Document, claims []Claim, pageURL string, r Reader, now time.Time) *Evidence {
	e := &Evidence{doc: doc, claims: claims, pageURL: pageURL, r: r, now: now, rules: AllRules, hd: new([2]*hdResult)}
	e.cands, e.bad = e.candidates()
	return e
}

// Bad is the first date text the page carried that could not be read
// (trimmed, at most 100 bytes), "" when there was none.
func (e *Evidence) Bad() string { return e.bad }

// Choose picks the post time; from says where it came from ("" when
// there is none, and t is zero).
func (e *Evidence) Choose() (t time.Time, from string) {
	if len(e.cands) == 0 {
		return e.lastResort(nil)
	}
	pick := &e.cands[0]
	if e.rules&RuleShown != 0 && e.disagree(pick) {
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
	if pick.kind != Published && e.rules&RuleWeak != 0 && !e.isShown(pick.t) && len(e.shown) > 0 {
		return e.lastResort(pick)
	}
	return pick.t, pick.from
}

// disagree reports whether a date of the page's data is more than a day
// from pick.
func (e *Evidence) disagree(pick *dateCand) bool {
	for _, c := range e.cands {
		if !c.element && !near(c.t, pick.t) {
			return true
		}
	}
	return false
}

// Under chooses again with only the given rules; the page's text and
// go-htmldate are not read again.
func (e *Evidence) Under(rules Rule) (time.Time, string) {
	e.isShown(time.Time{})
	o := *e
	o.rules = rules
	o.cands, o.bad = o.candidates()
	return o.Choose()
}

// lastResort asks go-htmldate, when the cheap rules gave no date or only
// weak, a claim they declined.
func (e *Evidence) lastResort(weak *dateCand) (time.Time, string) {
	hd := e.htmldate(true)
	switch {
	case !hd.ok:
		return time.Time{}, ""
	case weak != nil && collapse(weak.raw) == hd.src:
		return time.Time{}, "" // the very <meta> declined above
	case e.rules&RuleEvidence != 0 && !hd.evidenced():
		return time.Time{}, ""
	case e.rules&RuleEvidence == 0 && !dayInText.MatchString(hd.src):
		return time.Time{}, ""
	}
	if e.rules&RuleAgree != 0 {
		if latest := e.htmldate(false); !latest.ok || dayOf(latest.t) != dayOf(hd.t) {
			return time.Time{}, ""
		}
	}
	return hd.t, "htmldate: " + clip(hd.src, 80)
}

// dayInText is the check RuleEvidence replaced: a day somewhere in
// go-htmldate's source text.
var dayInText = regexp.MustCompile(`\d{1,2}\D+\d{1,2}\D+\d{2,4}|\d{4}\D?\d{1,2}\D?\d{1,2}|\d{1,2}\.?\s*\p{L}{3,}|\p{L}{3,}\.?\s*\d{1,2}\b|\d{8}`)

// isShown reports whether the page's visible text shows t's day.
func (e *Evidence) isShown(t time.Time) bool {
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
