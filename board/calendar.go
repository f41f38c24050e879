package board

import "time"

// Days and months are calendar dates in the boards' zone (Options.Location).
// Arithmetic on them is done on the dates themselves (civil), never on a
// local midnight: in some zones midnight does not exist on some days (DST
// begins at 00:00 in America/Santiago and America/Havana), happens twice
// (Havana, where DST ends at 01:00), or a whole day is missing
// (Pacific/Apia skipped 2011-12-30); and days last 23, 24 or 25 hours. A
// date becomes an instant only through civil.start.

// civil is a calendar date, without a zone.
type civil struct {
	year  int
	month time.Month
	day   int
}

// civilOf is the date of t in loc.
func civilOf(t time.Time, loc *time.Location) civil {
	y, m, d := t.In(loc).Date()
	return civil{y, m, d}
}

// midnight is c's midnight in UTC, where every day is 24 hours.
func (c civil) midnight() time.Time {
	return time.Date(c.year, c.month, c.day, 0, 0, 0, 0, time.UTC)
}

// addDays is the date n days after c (before it for n < 0).
func (c civil) addDays(n int) civil {
	return civilOf(c.midnight().AddDate(0, 0, n), time.UTC)
}

// addMonths is the first day of the month n months after c's (before it
// for n < 0), whatever c's day of the month.
func (c civil) addMonths(n int) civil {
	return civilOf(time.Date(c.year, c.month+time.Month(n), 1, 0, 0, 0, 0, time.UTC), time.UTC)
}

// format names the period p that holds c: DayLayout or MonthLayout.
func (c civil) format(p Period) string {
	if p == Month {
		return c.midnight().Format(MonthLayout)
	}
	return c.midnight().Format(DayLayout)
}

// start is the first instant whose wall clock in loc reads c's 00:00 or
// later: c's midnight, the first of two, or the end of the gap that
// skips it; for a date loc skipped, the first instant of the next day.
// It reads loc's periods of constant offset (Time.ZoneBounds) from a day
// and a half before, more than any offset; where ZoneBounds does not move
// on (Go's answer past a zone's last listed transition, in leap years:
// golang/go#81583, from 2040 on in zones with DST, where the walk looped
// for ever), it searches instead (searchStart).
func (c civil) start(loc *time.Location) time.Time {
	wall := c.midnight()
	t := wall.Add(-36 * time.Hour)
	for range 16 { // a zone changes its offset a few times in three days at most
		local := t.In(loc)
		_, off := local.Zone()
		// In this period the wall clock reads instant + off, so its
		// first instant at or after wall is wall − off, or t itself.
		first := wall.Add(-time.Duration(off) * time.Second)
		if first.Before(t) {
			first = t
		}
		_, end := local.ZoneBounds()
		if end.IsZero() || first.Before(end) {
			return first.In(loc)
		}
		if !end.After(t) {
			break
		}
		t = end
	}
	return c.searchStart(loc)
}

// searchStart is start found by halving, to the second, the three days
// about c's midnight (a day and a half each side, more than any offset):
// the first instant whose date in loc is c or later (where a zone set its
// clock back across midnight, one of the two midnights).
func (c civil) searchStart(loc *time.Location) time.Time {
	wall := c.midnight()
	lo, hi := wall.Add(-36*time.Hour), wall.Add(36*time.Hour)
	for hi.Sub(lo) > time.Second {
		mid := lo.Add(hi.Sub(lo) / 2).Truncate(time.Second)
		if civilOf(mid, loc).before(c) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi.In(loc)
}

// before says whether c is an earlier date than d.
func (c civil) before(d civil) bool {
	if c.year != d.year {
		return c.year < d.year
	}
	if c.month != d.month {
		return c.month < d.month
	}
	return c.day < d.day
}

// exists says whether loc has an instant on c.
func (c civil) exists(loc *time.Location) bool {
	return civilOf(c.start(loc), loc) == c
}

// Shift returns the first instant of the period n periods after the one
// that holds date (before it for n < 0), in the boards' zone: of the
// calendar day n days away (23 or 25 hours make a day across a DST
// change; a day the zone skipped is stepped over), or of the first day
// of the calendar month n months away, whatever day of its month date
// is. Shift(p, date, 0) is the start of date's own period.
func (a *Activity) Shift(p Period, date time.Time, n int) time.Time {
	c := civilOf(date, a.loc)
	if p == Month {
		return c.addMonths(n).start(a.loc)
	}
	step := 1
	if n < 0 {
		step = -1
	}
	for ; n != 0; n -= step {
		c = c.addDays(step)
		for skipped := 0; !c.exists(a.loc) && skipped < 3; skipped++ { // a zone skips a day at most
			c = c.addDays(step)
		}
	}
	return c.start(a.loc)
}
