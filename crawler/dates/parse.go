// Package dates reads post times. The post time is half of an article's
// score, so a time that is read wrong ranks the article wrong; a time that
// cannot be read is reported as such (ok false) and the caller falls back
// (list item, then crawl time), never guesses.
//
// Parse is one parser for feeds, list APIs and article pages. It runs in
// two tiers because of cost:
//
//   - a fast path in plain Go (a few microseconds): the source's own
//     time_layouts, Unix seconds and milliseconds, then the string
//     normalised (zone abbreviations to their offsets, weekday dropped,
//     month names shortened, ordinals, "at" and commas removed, am/pm) and
//     tried against generated ISO 8601, RFC 822/1123/850, ANSIC, US and
//     European numeric layouts, then Chinese dates (2021年11月19日 08:07),
//     then a date inside longer text ("2018-05-10 09:55 来源: 新华社");
//   - github.com/markusmobius/go-dateparser for everything else: other
//     languages, relative times ("3小时前", "2 hours ago", "昨天 08:07",
//     read against the fetch time), unusual orders. It costs 0.1 to 10 ms
//     a call (language detection, large locale tables), a thousand times
//     the fast path, so it only sees strings the fast path could not read,
//     and only with strict parsing (a day, month and year are required:
//     "Nov 2021" is no post time).
//
// Zone abbreviations get their real offsets from a table, never UTC+0
// and never the server's TZ (nothing here reads time.Local). An
// abbreviation that names several zones (CST: US Central or China
// Standard Time; IST: India, Ireland or Israel; BST; AST) means the
// source's time_zone when that zone uses the abbreviation (Asia/Shanghai
// says CST, Europe/Dublin says IST in summer), else the table's entry:
// CST −06:00, IST +05:30, BST +01:00, AST −04:00. A string that ends
// with an offset or a zone name the reader that found its date did not
// apply ("2021-11-19T08:07:06:-0500", "08:07 XYZT") is declined, never
// read in the source's zone (zones.go).
//
// An article page without a selector for its post time offers several
// dates that can disagree; Evidence chooses among them (page.go). The
// package reads strings and parsed pages only: it fetches nothing and
// knows no source configuration but a Reader's layouts and zone.
package dates

import (
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	dps "github.com/markusmobius/go-dateparser"
)

// timeLayouts are tried, in order, on normalised strings. A layout with
// no zone is read in the source's zone.
var timeLayouts = func() []string {
	isoDates := []string{"2006-1-2", "2006/1/2", "2006.1.2"}
	otherDates := []string{
		"1/2/2006", "2/1/2006", "2.1.2006", "2-1-2006",
		"2 Jan 2006", "2 Jan 06", "Jan 2 2006", "2-Jan-2006", "2-Jan-06", "2006 Jan 2", "Jan-2-2006",
	}
	times := []string{"15:04:05", "15:04", "3:04:05 PM", "3:04 PM"}
	zones := []string{"", " Z07:00", " Z0700", "Z07:00", "Z0700", " -07", "-07"}
	var out []string
	add := func(dates, seps []string) {
		for _, d := range dates {
			for _, sep := range seps {
				for _, t := range times {
					for _, z := range zones {
						out = append(out, d+sep+t+z)
					}
				}
			}
		}
	}
	add(isoDates, []string{"T", " "})
	add(otherDates, []string{" "})
	out = append(out,
		"20060102T150405Z0700", "20060102T150405", "20060102T15:04:05Z0700", "20060102T1504Z0700",
		"Jan 2 15:04:05 -0700 2006", "Jan 2 15:04:05 2006", // UnixDate, ANSIC without the weekday
		"2006-01-02T15:04:05.999999999Z07:00",
	)
	out = append(out, isoDates...)
	out = append(out, otherDates...)
	return out
}()

// cjkDate matches a date written the Chinese way: 2018年5月10日 09:55.
var cjkDate = regexp.MustCompile(`(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日\s*(?:(\d{1,2})\s*[:：时]\s*(\d{1,2})(?:\s*[:：分]\s*(\d{1,2}))?)?`)

// embeddedDate finds a date (and time, and offset) inside longer text such
// as "2018-05-10 09:55:47 来源: 新华社".
var embeddedDate = regexp.MustCompile(`\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?: ?Z|\s?[+-]\d{2}:?\d{2})?)?`)

// dateParser reads what the fast path cannot; it is safe for concurrent
// use.
var dateParser = &dps.Parser{}

// Reader is how one source writes its times: the time_layouts it
// configures, tried first, and Loc, the zone of times written without an
// offset (UTC when nil). The zero Reader reads the common forms in UTC.
type Reader struct {
	Layouts []string
	Loc     *time.Location
}

// Parse is Parse(s, r.Layouts, r.Loc, now).
func (r Reader) Parse(s string, now time.Time) (time.Time, bool) {
	return Parse(s, r.Layouts, r.Loc, now)
}

// First reads the first of texts that holds a post time (blank texts are
// passed over). When none does, t is zero and bad is the first text that
// was there but could not be read (trimmed, at most 100 bytes), for the
// caller to report; both are zero when every text was blank.
func (r Reader) First(now time.Time, texts ...string) (t time.Time, bad string) {
	for _, s := range texts {
		if strings.TrimSpace(s) == "" {
			continue
		}
		if t, ok := r.Parse(s, now); ok {
			return t, ""
		}
		if bad == "" {
			bad = clip(strings.TrimSpace(s), 100)
		}
	}
	return time.Time{}, bad
}

// Parse reads a post time: the configured layouts first (in loc when the
// layout has no zone), then the fast path and go-dateparser described in
// the package comment. Times without an offset are in loc (UTC when nil);
// relative times ("2 hours ago") are read against now, the fetch time;
// with a zero now, go-dateparser is not used. It reports false when
// nothing matched.
func Parse(s string, layouts []string, loc *time.Location, now time.Time) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	s = collapse(s)
	if s == "" || len(s) > 200 {
		return time.Time{}, false
	}
	for _, l := range layouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			// (A zone the layout read and nothing here knows: declined.)
			return fixZone(t, loc, now)
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	if t, ok := parseISO(s, loc); ok {
		return t, true
	}
	if t, ok := parseNumeric(s); ok {
		return t, true
	}
	ref := now
	if ref.IsZero() {
		ref = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	// What the readers below read is held against the zone s ends with
	// (zones.go): read once, when a reader has read something.
	var claim *zoneClaim
	fits := func(t time.Time, library string) bool {
		if claim == nil {
			c := claimOf(s, loc, ref)
			claim = &c
		}
		return claim.fits(t, library)
	}
	n := normalizeTime(s, loc, ref)
	// The generated layouts read a whole string, its zone included, but
	// normalizeTime drops a trailing parenthesis: "08:07 (PET)".
	if t, ok := parseLayouts(n, loc); ok && (!strings.HasSuffix(s, ")") || fits(t, "")) {
		return t, true
	}
	if m := cjkDate.FindStringSubmatch(s); m != nil {
		if t, ok := cjkTime(m, loc); !ok || fits(t, "") {
			return t, ok
		}
	} else if m := embeddedDate.FindString(n); m != "" {
		if t, ok := parseLayouts(normalizeDate(m), loc); ok && fits(t, "") {
			return t, true
		}
	}
	if now.IsZero() {
		return time.Time{}, false
	}
	// go-dateparser reads other languages itself: it gets the text with
	// only its zones rewritten.
	text := strings.Join(strings.Fields(normalizeZones(s, loc, ref)), " ")
	t, ok := parseLibrary(text, loc, now)
	if !ok || !fits(t, text) {
		return time.Time{}, false
	}
	return t, true
}

// libraryCalls and htmldateRuns count the costly fallbacks
// (go-dateparser calls, go-htmldate runs) since the program started.
var libraryCalls, htmldateRuns atomic.Int64

// DateParserCalls is how many times go-dateparser was asked since the
// program started, and HTMLDateRuns how many pages go-htmldate read:
// benchmarks and tests report them per page.
func DateParserCalls() int64 { return libraryCalls.Load() }

// HTMLDateRuns: see DateParserCalls.
func HTMLDateRuns() int64 { return htmldateRuns.Load() }

// parseLibrary reads s with go-dateparser, strictly: a day, month and
// year are required.
func parseLibrary(s string, loc *time.Location, now time.Time) (time.Time, bool) {
	libraryCalls.Add(1)
	cfg := &dps.Configuration{
		CurrentTime:         now.In(loc),
		DefaultTimezone:     loc,
		StrictParsing:       true,
		PreferredDateSource: dps.Past,
	}
	d, err := dateParser.Parse(cfg, s)
	if err != nil || d.Time.IsZero() || !holdsDate(s, d.Time) {
		return time.Time{}, false
	}
	return d.Time, true
}

// holdsDate reports whether a string of numbers holds t's day. A string
// with words (other than ISO 8601's T and Z) may be relative ("3 days
// ago") and is taken as go-dateparser read it; numbers must hold the day
// they are read as: go-dateparser makes 2024-03-03 of "2021-13-45T10:00".
func holdsDate(s string, t time.Time) bool {
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) && !strings.ContainsRune("TZtz", r) }) {
		return true
	}
	return writesDay(s, t)
}

// fixZone corrects a time parsed with a configured layout holding a zone
// abbreviation (MST): Go gives an abbreviation it does not know in loc a
// zero offset. It reports false for an abbreviation neither loc nor the
// table knows: the layout read a zone it cannot apply.
func fixZone(t time.Time, loc *time.Location, now time.Time) (time.Time, bool) {
	name, off := t.Zone()
	if off != 0 || name == "UTC" || name == "GMT" || name == "" {
		return t, true
	}
	ref := now
	if ref.IsZero() {
		ref = t
	}
	real, ok := zoneOffset(name, loc, ref)
	switch {
	case !ok:
		return time.Time{}, false
	case real != 0:
		y, mo, d := t.Date()
		h, mi, sec := t.Clock()
		return time.Date(y, mo, d, h, mi, sec, t.Nanosecond(), time.FixedZone(name, real)), true
	}
	return t, true
}

// layoutKey buckets layouts and strings by shape, so a string is tried
// only against layouts that could read it: whether it starts with letters
// or digits, how many digits (1-2, 4, 8), the character after them, and
// whether it holds a clock time ("2006-1-2 15:04" and "2021-11-19 08:07"
// are both "d4-:").
func layoutKey(s string) string {
	if s == "" {
		return ""
	}
	k := make([]byte, 0, 4)
	i := 0
	if isDigit(s[0]) {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		switch i {
		case 1, 2:
			k = append(k, 'd', '1')
		case 4, 8:
			k = append(k, 'd', byte('0'+i))
		default:
			k = append(k, 'd', 'n')
		}
	} else {
		for i < len(s) && !isDigit(s[i]) && s[i] != ' ' && s[i] != '-' && s[i] != '/' && s[i] != '.' {
			i++
		}
		k = append(k, 'a', '-')
	}
	if i < len(s) {
		k = append(k, s[i])
	}
	if strings.Contains(s, ":") {
		k = append(k, ':')
	}
	return string(k)
}

var layoutsByKey = func() map[string][]string {
	b := map[string][]string{}
	for _, l := range timeLayouts {
		k := layoutKey(l)
		b[k] = append(b[k], l)
	}
	return b
}()

func parseLayouts(s string, loc *time.Location) (time.Time, bool) {
	for _, l := range layoutsByKey[layoutKey(s)] {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// parseNumeric reads Unix seconds (10 digits) or milliseconds (13 digits).
func parseNumeric(s string) (time.Time, bool) {
	if len(s) != 10 && len(s) != 13 {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false
	}
	if len(s) == 13 {
		return time.UnixMilli(n).UTC(), true
	}
	return time.Unix(n, 0).UTC(), true
}

// normalizeDate rewrites "2018/5/1 9:05" as "2018-05-01 09:05".
func normalizeDate(s string) string {
	date, rest := s, ""
	if i := strings.IndexAny(s, " T"); i >= 0 {
		date, rest = s[:i], s[i:]
	}
	parts := strings.FieldsFunc(date, func(r rune) bool { return r == '-' || r == '/' || r == '.' })
	if len(parts) != 3 {
		return s
	}
	for i := 1; i < 3; i++ {
		if len(parts[i]) == 1 {
			parts[i] = "0" + parts[i]
		}
	}
	if len(rest) > 2 && rest[2] == ':' { // " 9:05" → " 09:05"
		rest = rest[:1] + "0" + rest[1:]
	}
	return strings.Join(parts, "-") + rest
}

func cjkTime(m []string, loc *time.Location) (time.Time, bool) {
	n := make([]int, 6)
	for i := range n {
		if m[i+1] != "" {
			n[i], _ = strconv.Atoi(m[i+1])
		}
	}
	if n[1] < 1 || n[1] > 12 || n[2] < 1 || n[2] > 31 || n[3] > 23 || n[4] > 59 || n[5] > 59 {
		return time.Time{}, false
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], 0, loc)
	if t.Day() != n[2] { // 2月30日 normalised into March
		return time.Time{}, false
	}
	return t, true
}

// clip cuts s to at most n bytes, at the start of a character.
func clip(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
