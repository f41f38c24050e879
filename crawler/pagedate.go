package crawler

import (
	"regexp"
	"sync/atomic"
	"time"

	"github.com/PuerkitoBio/goquery"
	dps "github.com/markusmobius/go-dateparser"
	htmldate "github.com/markusmobius/go-htmldate"
)

// dayInText finds a day of the month in htmldate's source text: a
// digit group besides the year, or a month name with a number.
var dayInText = regexp.MustCompile(`\d{1,2}\D+\d{1,2}\D+\d{2,4}|\d{4}\D?\d{1,2}\D?\d{1,2}|\d{1,2}\.?\s*\p{L}{3,}|\p{L}{3,}\.?\s*\d{1,2}\b|\d{8}`)

// pageDateCalls and libraryCalls count the costly fallbacks (the
// benchmarks report them per page).
var pageDateCalls, libraryCalls atomic.Int64

// minPageDate is the earliest date pageDate accepts (htmldate's own
// default, fixed here rather than in the server's zone).
var minPageDate = time.Date(1995, 1, 1, 0, 0, 0, 0, time.UTC)

// pageDate is the article-page fallback of last resort: go-htmldate
// (a port of Python's htmldate) looks at the whole page — URL, <meta>,
// structured data, date patterns in the visible text — for the
// publication date. It costs milliseconds (it clones the document and
// calls go-dateparser), so Extract calls it only on pages where the
// selectors, JSON-LD, <meta> and <time> fallbacks found no date. A date
// without a zone is read in loc; no date later than now is taken.
func pageDate(doc *goquery.Document, pageURL string, loc *time.Location, now time.Time) (time.Time, bool) {
	pageDateCalls.Add(1)
	if now.IsZero() || len(doc.Nodes) == 0 {
		return time.Time{}, false
	}
	if loc == nil {
		loc = time.UTC
	}
	res, err := htmldate.FromDocument(doc.Nodes[0], htmldate.Options{
		URL:             pageURL,
		UseOriginalDate: true,
		ExtractTime:     true,
		MinDate:         minPageDate,
		MaxDate:         now.Add(24 * time.Hour),
		DateParserConfig: &dps.Configuration{
			CurrentTime:         now.In(loc),
			DefaultTimezone:     loc,
			StrictParsing:       true,
			PreferredDateSource: dps.Past,
		},
	})
	if err != nil || res.IsZero() || !dayInText.MatchString(res.SrcString) {
		// A bare year or month ("© 2016", "2020-03") is not a post time.
		return time.Time{}, false
	}
	t := res.DateTime
	if !res.HasTimezone {
		y, m, d := t.Date()
		h, mi, s := t.Clock()
		t = time.Date(y, m, d, h, mi, s, 0, loc)
	}
	return t, true
}
