package dates

import (
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/corpus"
)

// TestGofeedDateCases reads the dates of gofeed's own date parser tests
// (named zones, numeric offsets, the common layouts) to the instants its
// tests want.
func TestGofeedDateCases(t *testing.T) {
	for _, c := range corpus.GofeedDateCases(t) {
		got, ok := Parse(c.In, nil, time.UTC, testNow)
		if g := got.UTC().Format(time.DateTime); !ok || g != c.WantUTC {
			t.Errorf("Parse(%q) = %s, %v; want %s", c.In, g, ok, c.WantUTC)
		}
	}
}

// TestGofeedLayoutsKeepTheirZone writes one instant with every layout of
// gofeed's date parser that writes a zone, in zones known here (EST, a
// numeric offset), known to go-dateparser only (PET) and to nobody
// (XYZT), and reads it back as a source in Asia/Shanghai (an offset none
// of them has) reads it: each string is read as the instant it writes,
// or not at all, never with its zone left aside
// ("2021-11-19T08:07:06:-0500" read as 08:07:06 in the source's zone).
func TestGofeedLayoutsKeepTheirZone(t *testing.T) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	var n, right, declined int
	for _, zone := range []*time.Location{time.FixedZone("EST", -5*3600), time.FixedZone("", 5*3600+1800),
		time.FixedZone("PET", -5*3600), time.FixedZone("XYZT", 3*3600)} {
		instant := time.Date(2021, 11, 19, 8, 7, 6, 0, zone)
		for _, l := range corpus.GofeedDateLayouts(t) {
			named, numeric := strings.Contains(l, "MST"), strings.ContainsAny(l, "-Z") && strings.Contains(l, "07")
			if !named && !numeric {
				continue // no zone written: read in the source's zone
			}
			s := instant.Format(l)
			// What s writes: its fields, in the zone written (a name as
			// the zone it was written from).
			want, err := time.Parse(l, s)
			if err != nil {
				continue // Go cannot read it back either (an offset where a name goes)
			}
			if !numeric {
				y, m, d := want.Date()
				want = time.Date(y, m, d, want.Hour(), want.Minute(), want.Second(), 0, zone)
			}
			n++
			got, ok := Parse(s, nil, sh, testNow)
			switch {
			case !ok:
				declined++
			case got.Equal(want):
				right++
			default:
				t.Errorf("Parse(%q) = %v, want %v or nothing (layout %q)", s, got, want, l)
			}
		}
	}
	t.Logf("%d strings with a zone: %d read right, %d declined", n, right, declined)
	if n < 150 || right < n*3/4 {
		t.Errorf("%d strings, %d read right: the corpus or the parser changed", n, right)
	}
}

// TestConfiguredLayoutUnknownZone: a configured layout with a zone
// abbreviation reads a name neither the source's zone nor the table
// knows: Go gives it a zero offset, so the time is declined; one the
// source's zone knows is read in it.
func TestConfiguredLayoutUnknownZone(t *testing.T) {
	layouts := []string{"2006-01-02 15:04 MST"}
	if got, ok := Parse("2021-11-19 08:07 XYZ", layouts, time.UTC, testNow); ok {
		t.Errorf("an unknown abbreviation read as %v", got)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	got, ok := Parse("2021-11-19 08:07 CET", layouts, berlin, testNow)
	if want := time.Date(2021, 11, 19, 7, 7, 0, 0, time.UTC); !ok || !got.Equal(want) {
		t.Errorf("CET in Europe/Berlin = %v, %v; want %v", got, ok, want)
	}
}

// TestClaimOf reads the zone a string ends with, and the clock time
// before it; text that is no zone is no claim.
func TestClaimOf(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind claimKind
		off  int // claimOffset: the offset at 2021-11-19
		h, m int
	}{
		{"2021-11-19T08:07:06:-0500", claimOffset, -5 * 3600, 8, 7},
		{"2021-11-19 00:00:00.0 08:07:06.0 -0500", claimOffset, -5 * 3600, 8, 7},
		{"Fri, 19 Nov 2021 8:07 PM EST", claimOffset, -5 * 3600, 20, 7},
		{"Fri, 19 Nov 2021 08:07:06 EST-05:00", claimOffset, -5 * 3600, 8, 7},
		{"Fri Nov 19 2021 08:07:06 GMT+0800 (China Standard Time)", claimOffset, 8 * 3600, 8, 7},
		{"08:07 19.11.2021 -0500", claimOffset, -5 * 3600, 8, 7},
		{"2021-11-19 08:07 America/New_York", claimOffset, -5 * 3600, 8, 7},
		{"2021-11-19 08:07 Z", claimOffset, 0, 8, 7},
		{"Nov. 19, 2021 8:07 a.m. ET", claimName, 0, 8, 7},
		{"2021-11-19 08:07 (PET)", claimName, 0, 8, 7},
		{"2021-11-19 08:07:06 EST5EDT", claimName, 0, 8, 7},
		{"Nov 19, 2021 8:07 PM Eastern Time", claimName, 0, 20, 7},
		{"2021-11-19 08:07 Local Time", claimNone, 0, 8, 7},
		{"19. Oktober 2019, 19:08 Uhr", claimNone, 0, 19, 8},
		{"2018-05-10 09:55:47 来源: 新华社", claimNone, 0, 9, 55},
		{"0807 HRS 19 Nov 2021", claimNone, 0, -1, 0},
		{"2021-11-19", claimNone, 0, -1, 0},
	} {
		c := claimOf(tc.in, time.UTC, testNow)
		off := 0
		if c.zone != nil {
			_, off = time.Date(2021, 11, 19, 8, 7, 0, 0, c.zone).Zone()
		}
		if c.kind != tc.kind || off != tc.off || c.h != tc.h || c.h >= 0 && c.m != tc.m {
			t.Errorf("claimOf(%q) = kind %d offset %d clock %d:%d; want kind %d offset %d clock %d:%d",
				tc.in, c.kind, off, c.h, c.m, tc.kind, tc.off, tc.h, tc.m)
		}
	}
}
