package crawler

// Post times. The post time is half of an article's score, so a time that
// is read wrong ranks the article wrong; a time that cannot be read is
// reported as such (ok false) and the caller falls back (list item, then
// crawl time), never guesses.
//
// ParseTime is one parser for feeds, list APIs and article pages. It runs
// in two tiers because of cost:
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
// CST −06:00, IST +05:30, BST +01:00, AST −04:00.

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	dps "github.com/markusmobius/go-dateparser"
)

// zoneAbbrs maps zone abbreviations to their offsets east of UTC in
// seconds. Ambiguous ones hold the default the package doc names.
var zoneAbbrs = map[string]int{
	"UT": 0, "UTC": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": 1 * 3600, "BST": 1 * 3600, "IST": 5*3600 + 1800,
	"CET": 1 * 3600, "CEST": 2 * 3600, "MET": 1 * 3600, "MEST": 2 * 3600, "EET": 2 * 3600, "EEST": 3 * 3600,
	"MSK": 3 * 3600, "SAST": 2 * 3600, "WAT": 1 * 3600, "EAT": 3 * 3600, "PKT": 5 * 3600, "NPT": 5*3600 + 2700,
	"ICT": 7 * 3600, "WIB": 7 * 3600, "WITA": 8 * 3600, "WIT": 9 * 3600, "SGT": 8 * 3600, "HKT": 8 * 3600,
	"PHT": 8 * 3600, "MYT": 8 * 3600, "AWST": 8 * 3600, "JST": 9 * 3600, "KST": 9 * 3600,
	"ACST": 9*3600 + 1800, "ACDT": 10*3600 + 1800, "AEST": 10 * 3600, "AEDT": 11 * 3600,
	"NZST": 12 * 3600, "NZDT": 13 * 3600,
	"EST": -5 * 3600, "EDT": -4 * 3600, "CST": -6 * 3600, "CDT": -5 * 3600, "MST": -7 * 3600, "MDT": -6 * 3600,
	"PST": -8 * 3600, "PDT": -7 * 3600, "AKST": -9 * 3600, "AKDT": -8 * 3600, "HST": -10 * 3600, "HDT": -9 * 3600,
	"AST": -4 * 3600, "ADT": -3 * 3600, "NST": -3*3600 - 1800, "NDT": -2*3600 - 1800, "BRT": -3 * 3600,
	"ART": -3 * 3600, "CLT": -4 * 3600,
}

// zoneOffset is the offset of abbreviation name for a time written around
// ref: the source's own zone when it uses that name (at ref or half a
// year before, so both its winter and summer names count), else the
// table's.
func zoneOffset(name string, loc *time.Location, ref time.Time) (int, bool) {
	off, ok := zoneAbbrs[name]
	if !ok {
		return 0, false
	}
	for _, t := range [...]time.Time{ref, ref.AddDate(0, -6, 0)} {
		if n, o := t.In(loc).Zone(); n == name {
			return o, true
		}
	}
	return off, true
}

// formatOffset writes an offset as "+0530".
func formatOffset(off int) string {
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	h, m := off/3600, off%3600/60
	return string(sign) + strconv.Itoa(h/10) + strconv.Itoa(h%10) + strconv.Itoa(m/10) + strconv.Itoa(m%10)
}

var (
	// gmtOffset matches "GMT+8", "UTC+08:00", "GMT-0500" (JavaScript's
	// Date.toString writes "GMT+0800 (China Standard Time)").
	gmtOffset = regexp.MustCompile(`\b(?:GMT|UTC|UT)\s*([+-])(\d{1,2})(?::?(\d{2}))?\b`)
	// zoneName is a run of capitals standing alone: a zone abbreviation
	// when zoneAbbrs has it. (It does not take the space after it, which
	// may be the one before the zone: "06:15 PM IST".)
	zoneName   = regexp.MustCompile(`(^|[\s(\d])([A-Z]{1,5})\b`)
	parenthese = regexp.MustCompile(`\s*\([^()]*\)\s*$`)
	weekday    = regexp.MustCompile(`^(?i)(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s*`)
	// word is a word that may be a month's name (monthWord decides).
	word = regexp.MustCompile(`\pL{3,}\.?`)
	// leadWord is a word before the date: a weekday in any language
	// ("Di.", "jeudi", "Mittwoch,") or a label ("Stand:").
	leadWord = regexp.MustCompile(`^(\pL+)[.,:]?\s+\d`)
	// dayDot is a day written with a dot before its month: "23. Jun".
	dayDot = regexp.MustCompile(`\b(\d{1,2})\.\s*([A-Z][a-z]{2})\b`)
	// timeDash is a dash or bar between a date and its time:
	// "25.01.2022 - 14:45".
	timeDash = regexp.MustCompile(`(\d)\s+[-–|·]\s+(\d{1,2}:\d{2})`)
	ordinal  = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)\b`)
	meridiem = regexp.MustCompile(`(\d)\s*([AaPp])\.?[Mm]\.?(?:$|\s)`)
	atWord   = regexp.MustCompile(`(?i)\s+(?:at|um|à|a las)\s+`)
	// dottedDate is a day-first date written with spaces or a closing
	// dot: "4. 2. 2022.", "19. 11. 2021".
	dottedDate = regexp.MustCompile(`^(\d{1,2})\.\s*(\d{1,2})\.\s*(\d{4})\.?(\s|$)`)
	// dateT is a day-first or US date joined to its time with ISO 8601's
	// T: "06-08-2009T14:12:32+0200".
	dateT = regexp.MustCompile(`^(\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})T(\d)`)
)

// normalizeZones writes zone abbreviations and GMT offsets as numeric
// offsets and drops a trailing parenthesis ("(China Standard Time)").
func normalizeZones(s string, loc *time.Location, ref time.Time) string {
	if !strings.ContainsFunc(s, unicode.IsLetter) {
		return s // nothing to rewrite: skip the expressions (a hot path)
	}
	s = parenthese.ReplaceAllString(s, "")
	s = gmtOffset.ReplaceAllStringFunc(s, func(m string) string {
		sub := gmtOffset.FindStringSubmatch(m)
		h, _ := strconv.Atoi(sub[2])
		mi, _ := strconv.Atoi(sub[3])
		off := h*3600 + mi*60
		if sub[1] == "-" {
			off = -off
		}
		return formatOffset(off)
	})
	s = zoneName.ReplaceAllStringFunc(s, func(m string) string {
		sub := zoneName.FindStringSubmatch(m)
		off, ok := zoneOffset(sub[2], loc, ref)
		if !ok {
			return m
		}
		lead := sub[1]
		if lead == "" {
			lead = " "
		}
		return lead + formatOffset(off) + m[len(sub[1])+len(sub[2]):]
	})
	return s
}

// normalizeTime rewrites a time string for the generated layouts: spaced
// dotted dates close up, a T after a day-first or US date becomes a
// space, zone abbreviations become offsets, the weekday (in any language)
// or a label before the date goes, month names in the languages of
// monthNames become English abbreviations, the dot after a day before its
// month, a dash between date and time, ordinals, commas and "at" go,
// am/pm become AM/PM.
func normalizeTime(s string, loc *time.Location, ref time.Time) string {
	s = dottedDate.ReplaceAllString(normalizeZones(s, loc, ref), "$1.$2.$3$4")
	s = dateT.ReplaceAllString(s, "$1 $2")
	s = timeDash.ReplaceAllString(s, "$1 $2")
	if strings.ContainsFunc(s, unicode.IsLetter) {
		s = weekday.ReplaceAllString(s, "")
		if m := leadWord.FindStringSubmatch(s); m != nil && monthWord(m[1]) == 0 {
			s = s[len(m[0])-1:]
		}
		s = word.ReplaceAllStringFunc(s, func(w string) string {
			if m := monthWord(w); m > 0 {
				return monthAbbr[m-1]
			}
			return w
		})
		s = dayDot.ReplaceAllString(s, "$1 $2")
		s = ordinal.ReplaceAllString(s, "$1")
		s = atWord.ReplaceAllString(s, " ")
		s = meridiem.ReplaceAllStringFunc(s, func(m string) string {
			sub := meridiem.FindStringSubmatch(m)
			return sub[1] + " " + strings.ToUpper(sub[2]) + "M" + m[len(strings.TrimRight(m, " \t")):]
		})
	}
	s = strings.ReplaceAll(s, ",", " ")
	return strings.Join(strings.Fields(s), " ")
}

// monthNames are month names in the languages of most news sites, one
// string per month.
var monthNames = [12]string{
	"january januar janvier enero gennaio janeiro januari styczeń январь",
	"february februar février febrero febbraio fevereiro februari luty февраль",
	"march märz mars marzo março maart marzec март",
	"april avril abril aprile kwiecień апрель",
	"may mai mayo maggio maio mei maj май",
	"june juni juin junio giugno junho czerwiec июнь",
	"july juli juillet julio luglio julho lipiec июль",
	"august août agosto augustus augusti sierpień август",
	"september septembre septiembre settembre setembro wrzesień сентябрь",
	"october oktober octobre octubre ottobre outubro październik октябрь",
	"november novembre noviembre novembro listopad ноябрь",
	"december dezember décembre diciembre dicembre dezembro grudzień декабрь",
}

// monthAbbr are the English abbreviations Go's layouts read.
var monthAbbr = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// monthWord reads a month name or its abbreviation ("Sep.", "Sept",
// "juil", "Juni", "августа"); 0 when the word is no month monthNames
// knows, or could be two ("jui": juin or juillet).
func monthWord(w string) int {
	w = strings.ToLower(strings.TrimSuffix(w, "."))
	if utf8.RuneCountInString(w) < 3 {
		return 0
	}
	found := 0
	for i, names := range monthNames {
		for _, n := range strings.Fields(names) {
			// A prefix of the name ("Sept"), or the name and an ending
			// ("августа", "Januars"), or four letters in common ("juil").
			if strings.HasPrefix(n, w) || strings.HasPrefix(w, n) || commonPrefix(w, n) >= 4 {
				if found != 0 && found != i+1 {
					return 0
				}
				found = i + 1
			}
		}
	}
	return found
}

// commonPrefix is the number of runes a and b start with in common.
func commonPrefix(a, b string) int {
	n := 0
	for a != "" && b != "" {
		ra, sa := utf8.DecodeRuneInString(a)
		rb, sb := utf8.DecodeRuneInString(b)
		if ra != rb {
			break
		}
		n++
		a, b = a[sa:], b[sb:]
	}
	return n
}

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

// ParseTime reads a post time: the configured layouts first (in loc when
// the layout has no zone), then the fast path and go-dateparser described
// in this file's comment. Times without an offset are in loc (UTC when
// nil); relative times ("2 hours ago") are read against now, the fetch
// time; with a zero now, go-dateparser is not used. It reports false when
// nothing matched.
func ParseTime(s string, layouts []string, loc *time.Location, now time.Time) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" || len(s) > 200 {
		return time.Time{}, false
	}
	for _, l := range layouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return fixZone(t, loc, now), true
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
	n := normalizeTime(s, loc, ref)
	if t, ok := parseLayouts(n, loc); ok {
		return t, true
	}
	if m := cjkDate.FindStringSubmatch(s); m != nil {
		return cjkTime(m, loc)
	}
	if m := embeddedDate.FindString(n); m != "" {
		if t, ok := parseLayouts(normalizeDate(m), loc); ok {
			return t, true
		}
	}
	if now.IsZero() {
		return time.Time{}, false
	}
	// go-dateparser reads other languages itself: it gets the text with
	// only its zones rewritten.
	return parseLibrary(strings.Join(strings.Fields(normalizeZones(s, loc, ref)), " "), loc, now)
}

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
// zero offset.
func fixZone(t time.Time, loc *time.Location, now time.Time) time.Time {
	name, off := t.Zone()
	if off != 0 || name == "UTC" || name == "GMT" || name == "" {
		return t
	}
	ref := now
	if ref.IsZero() {
		ref = t
	}
	if real, ok := zoneOffset(name, loc, ref); ok && real != 0 {
		y, mo, d := t.Date()
		h, mi, sec := t.Clock()
		return time.Date(y, mo, d, h, mi, sec, t.Nanosecond(), time.FixedZone(name, real))
	}
	return t
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

// parseISO reads the ISO 8601 forms most pages' data carry, without
// regular expressions: 2021-11-19, 2021-11-19T08:07, 2021-11-19 08:07:06,
// with fractions and a zone (Z, +08:00, +0800) or none (then in loc).
// Other forms are left to the general path.
func parseISO(s string, loc *time.Location) (time.Time, bool) {
	num := func(i, n int) (int, bool) {
		if i+n > len(s) {
			return 0, false
		}
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	if !ok1 || !ok2 || !ok3 || s[4] != '-' || s[7] != '-' || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	var h, mi, sec, nsec int
	i := 10
	if i < len(s) && (s[i] == 'T' || s[i] == ' ') {
		var ok bool
		if h, ok = num(i+1, 2); !ok || i+3 >= len(s) || s[i+3] != ':' {
			return time.Time{}, false
		}
		if mi, ok = num(i+4, 2); !ok {
			return time.Time{}, false
		}
		i += 6
		if i < len(s) && s[i] == ':' {
			if sec, ok = num(i+1, 2); !ok {
				return time.Time{}, false
			}
			i += 3
			if i < len(s) && (s[i] == '.' || s[i] == ',') {
				j, scale := i+1, 100000000
				for ; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
					nsec += int(s[j]-'0') * scale
					scale /= 10
				}
				if j == i+1 {
					return time.Time{}, false
				}
				i = j
			}
		}
		if h > 23 || mi > 59 || sec > 59 {
			return time.Time{}, false
		}
	}
	zone := loc
	switch rest := s[i:]; {
	case rest == "":
	case rest == "Z":
		zone = time.UTC
	case len(rest) == 6 && rest[3] == ':' || len(rest) == 5 || len(rest) == 3:
		if rest[0] != '+' && rest[0] != '-' {
			return time.Time{}, false
		}
		oh, ok := num(i+1, 2)
		om := 0
		if len(rest) > 3 {
			om, ok = num(len(s)-2, 2)
		}
		if !ok || oh > 14 || om > 59 {
			return time.Time{}, false
		}
		off := oh*3600 + om*60
		if rest[0] == '-' {
			off = -off
		}
		zone = time.FixedZone("", off)
	default:
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, nsec, zone)
	if t.Day() != d { // 2021-02-30
		return time.Time{}, false
	}
	return t, true
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
