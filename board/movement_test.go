package board

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/redistest"
)

// give records a publish of n distinct articles (10 points each by
// default) by user at t.
func (r *rig) give(user string, n int, t time.Time) {
	r.t.Helper()
	for i := range n {
		r.rec(Event{User: user, Action: "publish", Target: fmt.Sprint(user, "-", t.Unix(), "-", i), At: t})
	}
}

func TestMovementsAcrossDays(t *testing.T) {
	r := newRig(t)
	jan30 := at(2024, 1, 30, 12, 0, 0)
	r.clock.Set(jan30)
	r.give("a", 3, jan30)
	r.give("b", 2, jan30)
	r.give("c", 1, jan30)
	jan31 := at(2024, 1, 31, 12, 0, 0)
	r.clock.Set(jan31)
	r.give("c", 4, jan31) // 1st, up from 3rd
	r.give("a", 2, jan31) // 2nd, down from 1st
	r.give("d", 1, jan31) // new
	m, err := r.act.TopMovements(r.ctx, Day, jan31, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Movement{
		{User: "c", Rank: 1, Score: 40, PrevRank: 3, Change: 2},
		{User: "a", Rank: 2, Score: 20, PrevRank: 1, Change: -1},
		{User: "d", Rank: 3, Score: 10, New: true},
	}
	if !slices.Equal(m.Entries, want) || m.From != FromBoard || m.PrevFrom != FromBoard || m.Date != "2024-01-31" || m.PrevDate != "2024-01-30" {
		t.Fatalf("TopMovements = %+v, want %+v", m, want)
	}
	m, err = r.act.Movements(r.ctx, Day, jan31, []string{"b", "d", "zz"})
	if err != nil {
		t.Fatal(err)
	}
	want = []Movement{{User: "b", PrevRank: 2}, {User: "d", Rank: 3, Score: 10, New: true}, {User: "zz"}}
	if !slices.Equal(m.Entries, want) {
		t.Fatalf("Movements = %+v, want %+v", m.Entries, want)
	}
	// Month over month: January against an empty December.
	m, err = r.act.Movements(r.ctx, Month, jan31, []string{"a"})
	if err != nil || m.PrevDate != "2023-12" || m.PrevFrom != FromNone || !m.Entries[0].New || m.Entries[0].Rank != 1 {
		t.Fatalf("month Movements = %+v %v", m, err)
	}
	if _, err := r.act.Movements(r.ctx, Day, jan31, make([]string, MaxList+1)); !errors.Is(err, ErrBadLimit) || !IsBadInput(err) {
		t.Fatalf("too many users: %v", err)
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

func TestStandingAndAmong(t *testing.T) {
	p := newPair(t, 2)
	now := p.clock.Now()
	for i, u := range []string{"a", "b", "c", "d", "e"} {
		for j := range []int{3, 2, 2, 1, 1}[i] {
			p.both(Event{User: u, Action: "publish", Target: fmt.Sprint(u, j)})
		}
	}
	// a 30, b 20, c 20, d 10, e 10: the capped board keeps a and c.
	for _, act := range []*Activity{p.full, p.capped} {
		st, ok, err := act.StandingOf(p.ctx, "d", Day, now)
		want := Standing{User: "d", Score: 10, Rank: 4, Above: 3, Equal: 2, Total: 5}
		if err != nil || !ok || st != want {
			t.Fatalf("StandingOf(d) = %+v %v %v, want %+v", st, ok, err, want)
		}
		st, err = act.StandingOfScore(p.ctx, 25, Day, now)
		want = Standing{Score: 25, Rank: 2, Above: 1, Below: 4, Total: 5, Percentile: 80}
		if err != nil || st != want {
			t.Fatalf("StandingOfScore(25) = %+v %v, want %+v", st, err, want)
		}
		if _, ok, err := act.StandingOf(p.ctx, "nobody", Day, now); err != nil || ok {
			t.Fatalf("StandingOf(nobody) = %v %v", ok, err)
		}
		among, err := act.Among(p.ctx, Day, now, []string{"e", "b", "x", "c", "e"})
		if want := []Entry{{1, "c", 20}, {1, "b", 20}, {3, "e", 10}, {0, "x", 0}}; err != nil || !slices.Equal(among, want) {
			t.Fatalf("Among = %+v %v, want %+v", among, err, want)
		}
	}
	if _, err := p.full.StandingOfScore(p.ctx, -1, Day, now); !errors.Is(err, ErrBadScore) {
		t.Fatalf("negative score: %v", err)
	}
	// On the capped board, b is outside: not ranked, but its movement
	// shows its true total and Among ranks it.
	m, err := p.capped.Movements(p.ctx, Day, now, []string{"b"})
	if err != nil || m.Entries[0] != (Movement{User: "b", Score: 20}) {
		t.Fatalf("capped Movements(b) = %+v %v", m, err)
	}
}

// TestStoryOnCluster runs movement, standing, among and archive on the
// three-master cluster: every key they touch is in the {act} slot.
func TestStoryOnCluster(t *testing.T) {
	cl := redistest.StartCluster(t)
	c := cl.Client()
	r := newRig(t)
	act, err := NewActivity(c, testPrefix, r.cfg, WithClock(r.clock))
	if err != nil {
		t.Fatal(err)
	}
	r.act = act
	jan30 := at(2024, 1, 30, 12, 0, 0)
	r.clock.Set(jan30)
	r.give("a", 2, jan30)
	r.clock.Set(at(2024, 1, 31, 12, 0, 0))
	r.give("b", 3, r.clock.Now())
	r.give("a", 1, r.clock.Now())
	m, err := act.TopMovements(r.ctx, Day, r.clock.Now(), 5)
	if want := []Movement{{User: "b", Rank: 1, Score: 30, New: true}, {User: "a", Rank: 2, Score: 10, PrevRank: 1, Change: -1}}; err != nil || !slices.Equal(m.Entries, want) {
		t.Fatalf("cluster TopMovements = %+v %v", m, err)
	}
	if st, ok, err := act.StandingOf(r.ctx, "a", Day, r.clock.Now()); err != nil || !ok || st.Rank != 2 {
		t.Fatalf("cluster StandingOf = %+v %v %v", st, ok, err)
	}
	if among, err := act.Among(r.ctx, Day, r.clock.Now(), []string{"a", "b"}); err != nil || len(among) != 2 {
		t.Fatalf("cluster Among = %+v %v", among, err)
	}
	r.clock.Set(at(2024, 2, 2, 1, 0, 0))
	if rep, err := act.Archive(r.ctx); err != nil || rep.Archived != 3 {
		t.Fatalf("cluster Archive = %+v %v", rep, err)
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
