package dates

import (
	"time"
)

// parseISO reads the ISO 8601 forms most pages' data carry, without
// regular expressions: 2021-11-19, 2021-11-19T08:07, 2021-11-19 08:07:06,
// with fractions and a zone (Z, +08:00, +0800) or none (then in loc).
// Other forms are left to the general path.
func parseISO(s string, loc *time.Location) (time.Time, bool) {
	y, ok1 := digits(s, 0, 4)
	mo, ok2 := digits(s, 5, 2)
	d, ok3 := digits(s, 8, 2)
	if !ok1 || !ok2 || !ok3 || s[4] != '-' || s[7] != '-' || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	var c isoClock
	i := 10
	if i < len(s) && (s[i] == 'T' || s[i] == ' ') {
		var ok bool
		if c, i, ok = parseISOClock(s, i+1); !ok {
			return time.Time{}, false
		}
	}
	zone, ok := parseISOZone(s, i, loc)
	if !ok {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, c.h, c.mi, c.sec, c.nsec, zone)
	if t.Day() != d { // 2021-02-30
		return time.Time{}, false
	}
	return t, true
}

// digits reads the n decimal digits at s[i:].
func digits(s string, i, n int) (int, bool) {
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

// isoClock is the time of day of an ISO 8601 time.
type isoClock struct{ h, mi, sec, nsec int }

// parseISOClock reads "hh:mm[:ss[.fraction]]" at s[i:] and returns the
// index after it.
func parseISOClock(s string, i int) (c isoClock, next int, ok bool) {
	if c.h, ok = digits(s, i, 2); !ok || i+2 >= len(s) || s[i+2] != ':' {
		return c, i, false
	}
	if c.mi, ok = digits(s, i+3, 2); !ok {
		return c, i, false
	}
	i += 5
	if i < len(s) && s[i] == ':' {
		if c.sec, ok = digits(s, i+1, 2); !ok {
			return c, i, false
		}
		i += 3
		if i < len(s) && (s[i] == '.' || s[i] == ',') {
			j, scale := i+1, 100000000
			for ; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
				c.nsec += int(s[j]-'0') * scale
				scale /= 10
			}
			if j == i+1 {
				return c, i, false
			}
			i = j
		}
	}
	if c.h > 23 || c.mi > 59 || c.sec > 59 {
		return c, i, false
	}
	return c, i, true
}

// parseISOZone reads the zone that ends an ISO 8601 time, s[i:]: none
// (loc), "Z", or "±hh:mm", "±hhmm", "±hh".
func parseISOZone(s string, i int, loc *time.Location) (*time.Location, bool) {
	switch rest := s[i:]; {
	case rest == "":
		return loc, true
	case rest == "Z":
		return time.UTC, true
	case len(rest) == 6 && rest[3] == ':' || len(rest) == 5 || len(rest) == 3:
		if rest[0] != '+' && rest[0] != '-' {
			return nil, false
		}
		oh, ok := digits(s, i+1, 2)
		om := 0
		if len(rest) > 3 {
			om, ok = digits(s, len(s)-2, 2)
		}
		if !ok || oh > 14 || om > 59 {
			return nil, false
		}
		off := oh*3600 + om*60
		if rest[0] == '-' {
			off = -off
		}
		return time.FixedZone("", off), true
	}
	return nil, false
}
