package board

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
)

// calendarZones are zones whose days are not all 24 hours from a midnight
// that exists once: DST beginning at 00:00 (Santiago, Havana, Sao Paulo,
// Asuncion, Tehran until 2022), ending at 01:00 back to 00:00 (Havana:
// midnight twice), at 02:00 (Berlin), by 30 minutes (Lord Howe), offsets
// of 30 and 45 minutes (Kolkata, Kathmandu) and a day skipped over the
// date line (Apia, 2011-12-30).
var calendarZones = []struct {
	zone string
	from string // first day walked
	days int    // days walked
}{
	{"America/Santiago", "2026-01-01", 366},
	{"America/Havana", "2026-01-01", 366},
	{"America/Sao_Paulo", "2018-10-01", 60},
	{"America/Asuncion", "2024-09-20", 40},
	{"Asia/Tehran", "2022-03-01", 220},
	{"Europe/Berlin", "2026-01-01", 366},
	{"Australia/Lord_Howe", "2026-01-01", 366},
	{"Asia/Kolkata", "2026-01-01", 40},
	{"Asia/Kathmandu", "2026-01-01", 40},
	{"Pacific/Apia", "2011-12-20", 20},
	{"UTC", "2024-02-20", 20},
}

// calendarActivity is an Activity in zone for the pure date functions
// (no Redis needed).
func calendarActivity(t *testing.T, zone string) *Activity {
	t.Helper()
	o := DefaultOptions()
	o.Location = mustZone(zone)
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled
	t.Cleanup(func() { c.Close() })
	a, err := NewActivity(c, testPrefix, o, WithClock(clock.NewFake(time.Date(2026, 9, 6, 12, 0, 0, 0, time.UTC))))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// nextDay is the calendar day after day (DayLayout), in UTC where days
// are all 24 hours.
func nextDay(t *testing.T, day string) string {
	t.Helper()
	d, err := time.Parse(DayLayout, day)
	if err != nil {
		t.Fatal(err)
	}
	return d.AddDate(0, 0, 1).Format(DayLayout)
}

// TestParseDateEveryDay: in every zone, each calendar day parses to the
// first instant of that day (its midnight, or the end of a gap where
// midnight does not exist, or the first of two midnights), and the
// period before it is the day before. A day the zone skipped is a bad
// date. Before the fix, 2026-09-06 in Santiago parsed to 2026-09-05 23:00.
func TestParseDateEveryDay(t *testing.T) {
	for _, z := range calendarZones {
		a := calendarActivity(t, z.zone)
		loc := a.Location()
		prev := ""
		for i, day := 0, z.from; i < z.days; i, day = i+1, nextDay(t, day) {
			d, err := a.ParseDate(Day, day)
			if z.zone == "Pacific/Apia" && day == "2011-12-30" {
				if !errors.Is(err, ErrBadDate) {
					t.Errorf("%s: ParseDate(%s) = %s %v, want ErrBadDate (no such day)", z.zone, day, d, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: ParseDate(%s): %v", z.zone, day, err)
			}
			if got := d.In(loc).Format(DayLayout); got != day {
				t.Errorf("%s: ParseDate(%s) = %s, on %s", z.zone, day, d, got)
			}
			if before := d.Add(-time.Nanosecond).In(loc).Format(DayLayout); before >= day {
				t.Errorf("%s: ParseDate(%s) = %s is not the first instant of the day", z.zone, day, d)
			}
			if got := a.dateOf(Day, a.previous(Day, d)); prev != "" && got != prev {
				t.Errorf("%s: day before %s = %s, want %s", z.zone, day, got, prev)
			}
			prev = day
		}
	}
}

// TestParseDateFirstMidnight: where midnight happens twice (Havana,
// 2026-11-01: 01:00 CDT back to 00:00 CST) the day starts at the first.
func TestParseDateFirstMidnight(t *testing.T) {
	a := calendarActivity(t, "America/Havana")
	d, err := a.ParseDate(Day, "2026-11-01")
	if want := time.Date(2026, 11, 1, 4, 0, 0, 0, time.UTC); err != nil || !d.Equal(want) {
		t.Fatalf("ParseDate(2026-11-01) = %s %v, want %s", d, err, want)
	}
	d, err = a.ParseDate(Day, "2026-09-06")
	if want := time.Date(2026, 9, 6, 4, 0, 0, 0, time.UTC); err != nil || !d.Equal(want) {
		t.Fatalf("ParseDate(2026-09-06) = %s %v, want %s", d, err, want)
	}
	s := calendarActivity(t, "America/Santiago")
	d, err = s.ParseDate(Day, "2026-09-06")
	if want := time.Date(2026, 9, 6, 4, 0, 0, 0, time.UTC); err != nil || !d.Equal(want) {
		t.Fatalf("Santiago ParseDate(2026-09-06) = %s %v, want %s (01:00 -03)", d, err, want)
	}
}

// TestShiftDays: from any instant of a day (its first, its middle, its
// last minute), Shift goes to the first instant of the calendar day after
// or before, in every zone; a skipped day is stepped over.
func TestShiftDays(t *testing.T) {
	for _, z := range calendarZones {
		a := calendarActivity(t, z.zone)
		var days []string // the days the zone has, in order
		for i, day := 0, z.from; i < z.days; i, day = i+1, nextDay(t, day) {
			if z.zone != "Pacific/Apia" || day != "2011-12-30" {
				days = append(days, day)
			}
		}
		for i := 1; i+1 < len(days); i++ {
			start, err := a.ParseDate(Day, days[i])
			if err != nil {
				t.Fatal(err)
			}
			end, _ := a.ParseDate(Day, days[i+1])
			for _, at := range []time.Time{start, start.Add(end.Sub(start) / 2), end.Add(-time.Minute)} {
				if next := a.Shift(Day, at, 1); !next.Equal(end) || a.dateOf(Day, next) != days[i+1] {
					t.Errorf("%s: Shift(%s, +1) = %s, want %s", z.zone, at, next, end)
				}
				if prev := a.dateOf(Day, a.Shift(Day, at, -1)); prev != days[i-1] {
					t.Errorf("%s: Shift(%s, -1) on %s, want %s", z.zone, at, prev, days[i-1])
				}
			}
		}
	}
}

// TestShiftMonths: the month after and before a date are the calendar
// months, whatever its day of the month (before the fix the page stepped
// 2025-03-31 back to 2025-03 and on to 2025-05), and in every zone.
func TestShiftMonths(t *testing.T) {
	for _, c := range []struct{ zone, date, prev, next string }{
		{"UTC", "2025-03-31", "2025-02", "2025-04"},
		{"UTC", "2025-01-31", "2024-12", "2025-02"},
		{"UTC", "2025-01-29", "2024-12", "2025-02"},
		{"UTC", "2024-03-30", "2024-02", "2024-04"},
		{"UTC", "2025-05-31", "2025-04", "2025-06"},
		{"UTC", "2025-12", "2025-11", "2026-01"},
		{"America/Santiago", "2026-09-06", "2026-08", "2026-10"},
		{"America/Santiago", "2026-10-31", "2026-09", "2026-11"},
		{"America/Havana", "2026-03-31", "2026-02", "2026-04"},
		{"Australia/Lord_Howe", "2026-10-31", "2026-09", "2026-11"},
		{"Asia/Kathmandu", "2026-01-31", "2025-12", "2026-02"},
	} {
		a := calendarActivity(t, c.zone)
		d, err := a.ParseDate(Month, c.date)
		if err != nil {
			t.Fatal(err)
		}
		prev, next := a.dateOf(Month, a.Shift(Month, d, -1)), a.dateOf(Month, a.Shift(Month, d, 1))
		if prev != c.prev || next != c.next {
			t.Errorf("%s %s: months %s and %s, want %s and %s", c.zone, c.date, prev, next, c.prev, c.next)
		}
		if p := a.dateOf(Month, a.previous(Month, d)); p != c.prev {
			t.Errorf("%s %s: previous month %s, want %s", c.zone, c.date, p, c.prev)
		}
	}
	a := calendarActivity(t, "America/Santiago")
	d, _ := a.ParseDate(Month, "2026-01")
	for i := range 24 {
		want := time.Date(2026, time.Month(1+i), 1, 0, 0, 0, 0, time.UTC).Format(MonthLayout)
		if got := a.dateOf(Month, d); got != want {
			t.Fatalf("month %d: %s, want %s", i, got, want)
		}
		d = a.Shift(Month, d.Add(27*24*time.Hour), 1) // from a late day of the month
	}
}

// TestDatesPastGoZoneBounds: from 2040 on, in zones with DST, Go's
// Time.ZoneBounds can answer an end that is not after the instant asked
// (golang/go#81583); start walked those bounds and looped for ever on a
// date near a new year, so one GET of /boards?date=2041-01-01 pinned a
// core. Each date now reads as itself and steps to its neighbours. (The
// watchdog only turns a hang into a failure.)
func TestDatesPastGoZoneBounds(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, zone := range []string{"Europe/Berlin", "America/Santiago", "America/New_York", "Australia/Lord_Howe", "UTC"} {
			a := &Activity{loc: mustZone(zone)}
			for _, day := range []string{"2040-12-31", "2041-01-01", "2044-12-31", "2045-01-01", "2100-02-28", "9999-12-31"} {
				d, err := a.ParseDate(Day, day)
				if err != nil || d.In(a.loc).Format(DayLayout) != day {
					t.Errorf("%s: ParseDate(%s) = %v %v", zone, day, d, err)
					continue
				}
				if next := a.Shift(Day, d, 1).In(a.loc); next.Sub(d) < 22*time.Hour || next.Sub(d) > 26*time.Hour {
					t.Errorf("%s: the day after %s starts at %v", zone, day, next)
				}
				if m := a.Shift(Month, d, -1).In(a.loc).Format(DayLayout); m[8:] != "01" {
					t.Errorf("%s: the month before %s starts on %s", zone, day, m)
				}
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("dates past 2040 did not resolve in a minute (the ZoneBounds loop)")
	}
}
