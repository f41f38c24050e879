package dates

// The fast path's normalisation: zone abbreviations to their offsets, month
// names shortened, weekdays, ordinals and labels dropped (Parse).

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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
