package dates

// Days written in a text: the dates a page's text shows its readers, and
// whether a string writes a given day.

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// ymd is a calendar day; m is 0 when the month was a word not known.
type ymd struct{ y, m, d int }

func dayOf(t time.Time) ymd {
	y, m, d := t.Date()
	return ymd{y, int(m), d}
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
