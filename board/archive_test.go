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

func TestArchiveKeepsTopAfterBoardExpires(t *testing.T) {
	r := newRig(t, func(o *Options) { o.ArchiveTop = 2 })
	jan30 := at(2024, 1, 30, 12, 0, 0)
	r.clock.Set(jan30)
	r.give("a", 3, jan30)
	r.give("b", 2, jan30)
	r.give("c", 1, jan30)
	// Not yet: Jan 30 closes at midnight and waits MaxLateness.
	r.clock.Set(at(2024, 1, 31, 23, 59, 0))
	if rep, err := r.act.Archive(r.ctx); err != nil || rep.Archived != 0 {
		t.Fatalf("early Archive = %+v %v", rep, err)
	}
	r.clock.Set(at(2024, 2, 1, 0, 0, 0))
	rep, err := r.act.Archive(r.ctx)
	if err != nil || rep.Archived != 1 {
		t.Fatalf("Archive = %+v %v", rep, err)
	}
	if rep, err := r.act.Archive(r.ctx); err != nil || rep.Archived != 0 || rep.Present != 1 {
		t.Fatalf("second Archive = %+v %v (idempotent)", rep, err)
	}
	akey := r.act.keys.archive(Day, "2024-01-30")
	ttl := r.pttl(akey)
	if want := r.cfg.ArchiveRetention - 24*time.Hour; ttl > want || ttl < want-time.Minute {
		t.Fatalf("archive TTL %s, want %s (retention after the end of the day)", ttl, want)
	}
	r.rdb.Del(r.ctx, r.act.keys.day("2024-01-30")) // the board expires
	top, err := r.act.Top(r.ctx, Day, jan30, 10)
	if want := []Entry{{1, "a", 30}, {2, "b", 20}}; err != nil || !slices.Equal(top, want) {
		t.Fatalf("Top from the archive = %+v %v, want %+v", top, err, want)
	}
	// Movement on Jan 31 against the archived Jan 30.
	r.clock.Set(at(2024, 1, 31, 12, 0, 0))
	r.give("c", 5, r.clock.Now())
	r.give("b", 1, r.clock.Now())
	m, err := r.act.Movements(r.ctx, Day, r.clock.Now(), []string{"c", "b"})
	want := []Movement{{User: "c", Rank: 1, Score: 50, Entered: true}, {User: "b", Rank: 2, Score: 10, PrevRank: 2}}
	if err != nil || m.PrevFrom != FromArchive || !slices.Equal(m.Entries, want) {
		t.Fatalf("Movements against the archive = %+v %v, want %+v", m, err, want)
	}
	among, err := r.act.Among(r.ctx, Day, jan30, []string{"c", "b", "a"})
	if want := []Entry{{1, "a", 30}, {2, "b", 20}, {0, "c", 0}}; err != nil || !slices.Equal(among, want) {
		t.Fatalf("Among on the archive = %+v %v, want %+v", among, err, want)
	}
}

func TestArchiveCatchesUpAndSkipsExpired(t *testing.T) {
	r := newRig(t)
	for d := 1; d <= 5; d++ {
		day := at(2024, 1, d, 12, 0, 0)
		r.clock.Set(day)
		r.give("u", d, day)
	}
	r.clock.Set(at(2024, 2, 1, 6, 0, 0))
	r.rdb.Del(r.ctx, r.act.keys.day("2024-01-02")) // expired before any run
	rep, err := r.act.Archive(r.ctx)
	if err != nil || rep.Archived != 4 { // January is not closed for MaxLateness yet
		t.Fatalf("Archive = %+v %v, want 4 archived", rep, err)
	}
	r.clock.Set(at(2024, 2, 2, 1, 0, 0))
	if rep, err = r.act.Archive(r.ctx); err != nil || rep.Archived != 1 || rep.Present != 4 {
		t.Fatalf("Archive a day later = %+v %v, want January archived", rep, err)
	}
	for _, k := range []string{r.act.keys.archive(Day, "2024-01-01"), r.act.keys.archive(Day, "2024-01-05"), r.act.keys.archive(Month, "2024-01")} {
		if n := r.rdb.Exists(r.ctx, k).Val(); n != 1 {
			t.Fatalf("%s missing", k)
		}
	}
	if n := r.rdb.Exists(r.ctx, r.act.keys.archive(Day, "2024-01-02")).Val(); n != 0 {
		t.Fatal("an expired board was archived")
	}
	off := newRig(t, func(o *Options) { o.ArchiveTop = 0 })
	off.give("u", 1, off.clock.Now())
	off.clock.Set(at(2024, 3, 1, 0, 0, 0))
	if rep, err := off.act.Archive(off.ctx); err != nil || rep != (ArchiveReport{}) {
		t.Fatalf("Archive with archive_top 0 = %+v %v", rep, err)
	}
}

// TestArchiveOfEveryUser: the archive of a day whose board held fewer
// users than archive_top holds them all (completeMark), so a user not in
// it had no points that day: New, not Entered ("up from beyond the top",
// which it said before); Top from it lists only users.
func TestArchiveOfEveryUser(t *testing.T) {
	r := newRig(t) // archive_top 100
	jan30 := at(2024, 1, 30, 12, 0, 0)
	r.clock.Set(jan30)
	r.give("a", 2, jan30)
	r.give("b", 1, jan30)
	r.clock.Set(at(2024, 2, 1, 1, 0, 0))
	if rep, err := r.act.Archive(r.ctx); err != nil || rep.Archived < 1 {
		t.Fatalf("Archive = %+v %v", rep, err)
	}
	r.rdb.Del(r.ctx, r.act.keys.day("2024-01-30")) // the board expires
	top, err := r.act.Top(r.ctx, Day, jan30, 10)
	if want := []Entry{{1, "a", 20}, {2, "b", 10}}; err != nil || !slices.Equal(top, want) {
		t.Fatalf("Top from the archive = %+v %v, want %+v", top, err, want)
	}
	jan31 := at(2024, 1, 31, 12, 0, 0)
	r.clock.Set(jan31)
	r.give("c", 3, jan31)
	r.give("b", 1, jan31)
	m, err := r.act.TopMovements(r.ctx, Day, jan31, 10)
	want := []Movement{{User: "c", Rank: 1, Score: 30, New: true}, {User: "b", Rank: 2, Score: 10, PrevRank: 2}}
	if err != nil || m.PrevFrom != FromArchive || !slices.Equal(m.Entries, want) {
		t.Fatalf("TopMovements against a whole archive = %+v %v, want %+v", m, err, want)
	}
}
