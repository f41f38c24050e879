package dates

// Zones: the offsets of zone abbreviations, and the zone a time string
// ends with, which a time read from it must show.
//
// A string that carries an offset or a zone name the parser did not
// apply is not read in the source's zone instead: a time hours off ranks
// an article wrong, so Parse declines it and the caller falls back (the
// page, the crawl time). Parse's exact readers (the configured layouts,
// RFC 3339, ISO 8601) apply the zone they read or fail; the others read
// a date where they find it ("2021-11-19T08:07:06:-0500" holds
// "2021-11-19T08:07:06") or leave a name aside, so what they read is
// held against the string's trailing zone (claimOf, fits).

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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

// zoneClaim is the zone a time string ends with, and the clock time
// written before it.
type zoneClaim struct {
	kind claimKind
	zone *time.Location // claimOffset: the zone the string names
	name string         // claimName: the name
	// h, m, s: the last clock time of the string (h < 0: none; s < 0:
	// no seconds written).
	h, m, s int
}

type claimKind int

const (
	claimNone claimKind = iota
	// claimOffset: a numeric offset, or a name whose offset is known here
	// (loc's, the table's, an IANA zone's).
	claimOffset
	// claimName: a name not known here (ET, PET, MEZ, EST5EDT, "Eastern
	// Time"): only go-dateparser may apply it (libraryZone).
	claimName
)

var (
	// lastClock is a clock time, "08:07", "8:07:06", "08:07:06.0",
	// "15:4:5", with the text after it; claimOf takes the last one.
	lastClock = regexp.MustCompile(`(?:^|[^\d+\-A-SU-Za-z])(\d{1,2})[:：](\d{1,2})(?:[:：](\d{1,2}))?(?:[.,]\d+)?`)
	// meridiem after a clock time: "PM", "p.m.", "am".
	meridiemAfter = regexp.MustCompile(`^(?i)([ap])\.?\s?m\.?(?:\s|$)`)
	// trailingParen is a parenthesis that ends the string:
	// "(China Standard Time)", "(PET)".
	trailingParen = regexp.MustCompile(`\s*\(([^()]*)\)$`)
	// offsetToken is a numeric offset, optionally after GMT, UTC or UT:
	// "-0500", "+05:30", "-05", "GMT+8", "UTC-03:00".
	offsetToken = regexp.MustCompile(`^(?:GMT|UTC|UT)?([+-])(\d{1,2})(?::?(\d{2}))?$`)
	// trailingOffset is a numeric offset that ends the string after a
	// space, wherever the clock time is ("08:07 19.11.2021 -0500").
	trailingOffset = regexp.MustCompile(`\s(?:GMT|UTC|UT)?[+-]\d{2}:?\d{2}$`)
	// zoneLike are names that read as zones though the table lacks them:
	// capitals after a clock time (ET, PET, MEZ), POSIX zones (EST5EDT),
	// IANA names (America/New_York), names ending in Time.
	zoneLike = regexp.MustCompile(`^(?:[A-Z]{2,5}|[A-Z]{3,5}\d{1,2}(?:[A-Z]{3,5})?|[A-Z][A-Za-z_]+/[A-Za-z_/+-]+|(?:[A-Z][a-z]+ ){1,3}Time)$`)
	// glued splits a name from an offset written against it: "EST-05:00".
	glued = regexp.MustCompile(`^([A-Z]{2,5})([+-]\d{1,2}(?::?\d{2})?)$`)
)

// claimOf reads the zone s ends with: what follows its last clock time
// (AM/PM aside) when that holds only a zone (an offset, a zone name or
// both, or a zone in parentheses), else a numeric offset that ends s
// after a space ("08:07 19.11.2021 -0500"). Names are read as zoneOffset
// reads them, IANA names with time.LoadLocation.
func claimOf(s string, loc *time.Location, ref time.Time) zoneClaim {
	c := zoneClaim{h: -1, s: -1}
	var rest string
	if idx := lastClock.FindAllStringSubmatchIndex(s, -1); idx != nil {
		m := idx[len(idx)-1]
		c.h, _ = strconv.Atoi(s[m[2]:m[3]])
		c.m, _ = strconv.Atoi(s[m[4]:m[5]])
		if m[6] >= 0 {
			c.s, _ = strconv.Atoi(s[m[6]:m[7]])
		}
		rest = strings.TrimLeft(s[m[1]:], " :")
		if mm := meridiemAfter.FindStringSubmatch(rest); mm != nil {
			switch pm := strings.EqualFold(mm[1], "p"); {
			case pm && c.h < 12:
				c.h += 12
			case !pm && c.h == 12:
				c.h = 0
			}
			rest = strings.TrimSpace(rest[len(mm[0]):])
		}
	}
	if c.kind, c.zone, c.name = zoneOf(rest, loc, ref); c.kind == claimNone && trailingOffset.MatchString(s) {
		c.kind, c.zone, c.name = zoneOf(s[strings.LastIndexByte(s, ' ')+1:], loc, ref)
	}
	return c
}

// zoneOf reads text that holds a zone and nothing else: an offset
// ("-0500", "GMT+8"), a name ("EST", "PET", "America/New_York", "Eastern
// Time"), both ("EST -0500", "EST-05:00", the offset decides), or a zone
// in parentheses; a parenthesis after a zone is a comment ("GMT+0800
// (China Standard Time)"). "Local time" is no zone: it is loc.
func zoneOf(text string, loc *time.Location, ref time.Time) (claimKind, *time.Location, string) {
	paren := ""
	if m := trailingParen.FindStringSubmatchIndex(text); m != nil {
		paren, text = text[m[2]:m[3]], text[:m[0]]
	}
	if text == "" {
		text = paren
	}
	if text == "" || strings.EqualFold(text, "local time") {
		return claimNone, nil, ""
	}
	var name, offset string
	if zoneLike.MatchString(text) {
		name = text // a name of several words
	} else {
		for _, tok := range strings.Fields(text) {
			m := glued.FindStringSubmatch(tok)
			switch {
			case m != nil:
				name, offset = m[1], m[2]
			case offsetToken.MatchString(tok):
				offset = tok
			case name == "" && isZoneName(tok):
				name = tok
			default:
				return claimNone, nil, "" // not a zone: "Uhr", "来源: 新华社"
			}
		}
	}
	if m := offsetToken.FindStringSubmatch(offset); m != nil {
		h, _ := strconv.Atoi(m[2])
		mi, _ := strconv.Atoi(m[3])
		off := h*3600 + mi*60
		if m[1] == "-" {
			off = -off
		}
		return claimOffset, time.FixedZone("", off), ""
	}
	if off, ok := zoneOffset(name, loc, ref); ok {
		return claimOffset, time.FixedZone(name, off), name
	}
	if strings.Contains(name, "/") {
		if z, err := time.LoadLocation(name); err == nil {
			return claimOffset, z, name
		}
	}
	return claimName, nil, name
}

// isZoneName reports whether a word names a zone: the table's
// abbreviations and zoneLike's names ("HRS" is hours).
func isZoneName(w string) bool {
	_, ok := zoneAbbrs[w]
	return ok || w != "HRS" && zoneLike.MatchString(w)
}

// fits reports whether t, read from the string, shows its claim: the
// clock time written before the zone, and the claimed zone's offset at
// t; for a name not known here, only when go-dateparser read it from
// library (the text it was given) and knows that name.
func (c zoneClaim) fits(t time.Time, library string) bool {
	if c.kind == claimNone {
		return true
	}
	if c.h >= 0 && (t.Hour() != c.h || t.Minute() != c.m || c.s >= 0 && t.Second() != c.s) {
		return false
	}
	if c.kind == claimName {
		return strings.Contains(library, c.name) && libraryZone(c.name)
	}
	_, off := t.Zone()
	_, want := t.In(c.zone).Zone()
	return off == want
}

// libraryZones caches libraryZone's answers (at most maxLibraryZones).
var (
	libraryZones   sync.Map // name → bool
	libraryZoneLen atomic.Int64
)

const maxLibraryZones = 1024

// probeZone is a zone no place uses: a time go-dateparser reads in it
// had no zone of its own applied.
var probeZone = time.FixedZone("probe", 13*3600+59*60)

// libraryZone reports whether go-dateparser applies the zone name: it
// reads a time written with it in another zone than its default.
func libraryZone(name string) bool {
	if v, ok := libraryZones.Load(name); ok {
		return v.(bool)
	}
	d, err := dateParser.Parse(&dps.Configuration{DefaultTimezone: probeZone, StrictParsing: true,
		CurrentTime: time.Date(2020, 1, 2, 0, 0, 0, 0, probeZone)}, "2020-01-02 10:00 "+name)
	known := false
	if err == nil && !d.Time.IsZero() {
		_, off := d.Time.Zone()
		known = off != 13*3600+59*60
	}
	if libraryZoneLen.Add(1) <= maxLibraryZones {
		libraryZones.Store(name, known)
	}
	return known
}
