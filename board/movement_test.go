package board

import (
	"errors"
	"slices"
	"testing"

	"github.com/newsrank/newsrank/internal/redistest"
)

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

// TestMovementStandingArchiveOnCluster runs movement, standing, among and archive on the
// three-master cluster: every key they touch is in the {act} slot.
func TestMovementStandingArchiveOnCluster(t *testing.T) {
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
