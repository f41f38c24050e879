package dates

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	dps "github.com/markusmobius/go-dateparser"
	htmldate "github.com/markusmobius/go-htmldate"
)

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

// minPageDate is the earliest date go-htmldate accepts (its own default,
// fixed here rather than in the server's zone).
var minPageDate = time.Date(1995, 1, 1, 0, 0, 0, 0, time.UTC)

// htmldate returns go-htmldate's answer (a port of Python's htmldate):
// the publication date when original, else the latest date on the page.
// It looks at the whole page (URL, <meta>, structured data, date patterns
// in the markup and the text), once per mode.
func (e *Evidence) htmldate(original bool) hdResult {
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
func (e *Evidence) runHTMLDate(original bool) hdResult {
	htmldateRuns.Add(1)
	if e.now.IsZero() || len(e.doc.Nodes) == 0 {
		return hdResult{}
	}
	loc := e.r.Loc
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
