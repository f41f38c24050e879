package board

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestArchiveAcrossDST: each day's board holds one user named after the
// day and the archive runs hourly (fake clock) across DST changes: at
// midnight (Santiago, Havana), at 02:00 (Berlin), by 30 minutes (Lord
// Howe), and across the day Apia skipped. Every day with points is then
// archived under its own date with its own user, the day of the change
// too; a quiet day is not archived; the archive of a month holds that
// month's users; and the change's day reads back from its archive through
// ParseDate. Before the fix, in Santiago the archive of 2026-09-05 held
// u-2026-09-06, 2026-09-06 was never archived and the quiet day got the
// next day's user (likewise in Havana).
func TestArchiveAcrossDST(t *testing.T) {
	for _, c := range []struct{ zone, from, to, quiet, change string }{
		{"America/Santiago", "2026-08-28", "2026-09-12", "2026-09-01", "2026-09-06"},
		{"America/Santiago", "2026-03-30", "2026-04-09", "2026-04-01", "2026-04-05"},
		{"America/Havana", "2026-02-28", "2026-03-14", "2026-03-03", "2026-03-08"},
		{"America/Havana", "2026-10-26", "2026-11-05", "2026-10-28", "2026-11-01"},
		{"Europe/Berlin", "2026-03-25", "2026-04-03", "2026-03-27", "2026-03-29"},
		{"Australia/Lord_Howe", "2026-09-28", "2026-10-09", "2026-09-30", "2026-10-04"},
		{"Pacific/Apia", "2011-12-24", "2012-01-04", "2011-12-26", "2011-12-31"},
	} {
		t.Run(strings.ReplaceAll(c.zone, "/", "_")+"_"+c.change, func(t *testing.T) {
			loc := mustZone(c.zone)
			r := newRig(t, func(o *Options) { o.Location = loc })
			from, _ := r.act.ParseDate(Day, c.from)
			to, _ := r.act.ParseDate(Day, c.to)
			for now := from.Add(15 * time.Minute); now.Before(to); now = now.Add(time.Hour) {
				r.clock.Set(now)
				if day := now.In(loc).Format(DayLayout); day != c.quiet {
					r.rec(Event{User: "u-" + day, Action: "publish", Target: now.String()})
				}
				if _, err := r.act.Archive(r.ctx); err != nil {
					t.Fatal(err)
				}
			}
			checkDayArchives(t, r, c.from, c.to, c.quiet)
			checkMonthArchives(t, r)
			// The day of the change, from its archive once its board is gone.
			d, err := r.act.ParseDate(Day, c.change)
			if err != nil {
				t.Fatal(err)
			}
			r.rdb.Del(r.ctx, r.act.keys.day(c.change))
			top, err := r.act.Top(r.ctx, Day, d, 10)
			if err != nil || len(top) != 1 || top[0].User != "u-"+c.change {
				t.Fatalf("Top of %s = %+v %v, want u-%s from its archive", c.change, top, err, c.change)
			}
			m, err := r.act.Movements(r.ctx, Day, r.act.Shift(Day, d, 1), []string{"u-" + c.change})
			if err != nil || m.PrevDate != c.change || m.PrevFrom != FromArchive || m.Entries[0].PrevRank != 1 {
				t.Fatalf("Movements the day after %s = %+v %v", c.change, m, err)
			}
		})
	}
}

// checkDayArchives: from first to three days before last (closed for a
// day by then), each day the zone has holds its own user in its archive,
// but quiet, which has no archive.
func checkDayArchives(t *testing.T, r *rig, first, last, quiet string) {
	t.Helper()
	checked := 0
	for day := first; nextDay(t, nextDay(t, nextDay(t, day))) <= last; day = nextDay(t, day) {
		d, err := time.Parse(DayLayout, day)
		if err != nil {
			t.Fatal(err)
		}
		members, err := r.rdb.ZRangeByScore(r.ctx, r.act.keys.archive(Day, day), &redis.ZRangeBy{Min: "0", Max: "+inf"}).Result() // users: not completeMark (-1)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"u-" + day}
		if day == quiet || !civilOf(d, time.UTC).exists(r.act.Location()) {
			want = []string{}
		}
		if !slices.Equal(members, want) {
			t.Errorf("archive of %s holds %v, want %v", day, members, want)
		}
		checked++
	}
	if checked < 5 {
		t.Fatalf("%d days checked from %s to %s", checked, first, last)
	}
}

// checkMonthArchives: every month's archive holds that month's users.
func checkMonthArchives(t *testing.T, r *rig) {
	t.Helper()
	for _, k := range r.keys() {
		i := strings.Index(k, ":archive:month:")
		if i < 0 {
			continue
		}
		month := k[i+len(":archive:month:"):]
		members, err := r.rdb.ZRangeByScore(r.ctx, k, &redis.ZRangeBy{Min: "0", Max: "+inf"}).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range members {
			if !strings.HasPrefix(m, "u-"+month+"-") {
				t.Errorf("archive of %s holds %s", month, m)
			}
		}
	}
}
