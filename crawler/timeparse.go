package crawler

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// zonedLayouts carry their own offset; they parse the same in any zone.
var zonedLayouts = []string{
	time.RFC3339Nano,
	time.RFC3339,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05 -0700 MST",
	time.RFC1123Z,
	time.RFC1123,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700",
	time.RFC822Z,
	time.RFC822,
	time.RFC850,
	time.ANSIC,
}

// localLayouts have no offset; they are read in the source's time zone.
var localLayouts = []string{
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02 15:04:05",
	"2006/01/02 15:04",
	"2006/01/02",
	"2006.01.02 15:04:05",
	"2006.01.02 15:04",
	"2006.01.02",
	"01/02/2006 15:04:05",
	"01/02/2006 15:04",
	"01/02/2006",
	"Jan 2, 2006 15:04",
	"Jan 2, 2006",
	"January 2, 2006 15:04",
	"January 2, 2006",
	"2 January 2006",
	"2 Jan 2006",
}

// cjkDate matches a date written the Chinese way: 2018年5月10日 09:55.
var cjkDate = regexp.MustCompile(`(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日\s*(?:(\d{1,2})\s*[:：时]\s*(\d{1,2})(?:\s*[:：分]\s*(\d{1,2}))?)?`)

// embeddedDate finds a date (and time) inside longer text such as
// "2018-05-10 09:55:47 来源: 新华社".
var embeddedDate = regexp.MustCompile(`\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?`)

// ParseTime reads a post time. It tries the configured layouts first (in
// loc when the layout has no zone), then common zoned and local layouts,
// Unix seconds or milliseconds, Chinese dates (2018年5月10日 09:55), and
// finally a date embedded in longer text. Times without an offset are in
// loc (UTC when nil). It reports false when nothing matched.
func ParseTime(s string, layouts []string, loc *time.Location) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return time.Time{}, false
	}
	for _, l := range layouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, true
		}
	}
	if t, ok := parseNumeric(s); ok {
		return t, true
	}
	if t, ok := parseLayouts(s, loc); ok {
		return t, true
	}
	if m := cjkDate.FindStringSubmatch(s); m != nil {
		return cjkTime(m, loc)
	}
	if m := embeddedDate.FindString(s); m != "" {
		if t, ok := parseLayouts(normalizeDate(m), loc); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

func parseLayouts(s string, loc *time.Location) (time.Time, bool) {
	for _, l := range zonedLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	for _, l := range localLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

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
