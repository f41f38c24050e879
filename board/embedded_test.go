package board

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/rdb"
)

// TestEmbeddedRedis runs the core flow on the in-process miniredis that
// `newsrank demo` uses (redis.url: embedded), so the scripts work there
// too.
func TestEmbeddedRedis(t *testing.T) {
	ctx := context.Background()
	ro := rdb.DefaultOptions()
	if ro.Mode() != "embedded" {
		t.Fatalf("default redis mode %q, want embedded", ro.Mode())
	}
	c, err := rdb.Open(ctx, ro, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bo := DefaultOptions()
	bo.Location = shanghai
	clk := clock.NewFake(at(2024, 1, 31, 23, 0, 0))
	act, err := NewActivity(c, c.Prefix, bo, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := NewInvites(c, c.Prefix, bo)
	if err != nil {
		t.Fatal(err)
	}

	record := func(ev Event, want int) {
		t.Helper()
		res, err := act.Record(ctx, ev)
		if err != nil || res.Points != want {
			t.Fatalf("Record(%+v) = %+v %v, want %d points", ev, res, err, want)
		}
	}
	jan := clk.Now()
	record(Event{User: "a", Action: "like", Target: "1"}, 2)
	record(Event{User: "a", Action: "like", Target: "1"}, 0)
	record(Event{User: "a", Action: "visit", Target: "/"}, 1)
	record(Event{User: "a", Action: "visit", Target: "/"}, 0)
	record(Event{User: "b", Action: "comment", Target: "1"}, 3)
	record(Event{User: "c", Action: "comment", Target: "1"}, 3)
	if _, err := act.RecordMany(ctx, []Event{{User: "d", Action: "publish", Target: "9"}, {User: "d", Action: "publish", Target: "9"}}); err != nil {
		t.Fatal(err)
	}
	clk.Set(at(2024, 2, 1, 9, 0, 0)) // undo in the next month
	record(Event{User: "a", Action: "like", Target: "1", Undo: true}, -2)
	record(Event{User: "a", Action: "like", Target: "1", Undo: true}, 0)

	top, err := act.Top(ctx, Month, jan, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{1, "d", 10}, {2, "c", 3}, {2, "b", 3}, {4, "a", 1}}
	if !slices.Equal(top, want) {
		t.Fatalf("January top %+v, want %+v", top, want)
	}
	if e, ok, err := act.Rank(ctx, "b", Day, jan); err != nil || !ok || e.Rank != 2 {
		t.Fatalf("Rank(b) = %+v %v %v", e, ok, err)
	}
	around, err := act.AroundMe(ctx, "b", Day, jan, 1)
	if err != nil || !slices.Equal(around, want[1:4]) {
		t.Fatalf("AroundMe(b) = %+v %v, want %+v", around, err, want[1:4])
	}
	if d := c.PTTL(ctx, act.keys.day("2024-01-31")).Val(); d <= 0 || d > bo.DayRetention {
		t.Fatalf("day board TTL %s", d)
	}

	// Versioned events, and a capped board, on miniredis's Lua too.
	record(Event{User: "e", Action: "like", Target: "1", Version: 2}, 2)
	record(Event{User: "e", Action: "like", Target: "1", Undo: true, Version: 1}, 0)
	capCfg := bo
	capCfg.Cap = 1
	capped, err := NewActivity(c, c.Prefix+"capped:", capCfg, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []Event{{User: "a", Action: "publish", Target: "1"}, {User: "b", Action: "comment", Target: "1"},
		{User: "b", Action: "publish", Target: "2"}, {User: "b", Action: "like", Target: "1"}, {User: "b", Action: "like", Target: "1", Undo: true}} {
		if _, err := capped.Record(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if top, err := capped.Top(ctx, Day, clk.Now(), 5); err != nil || !slices.Equal(top, []Entry{{1, "b", 13}}) {
		t.Fatalf("capped top on miniredis: %+v %v", top, err)
	}
	if e, ok, err := capped.Rank(ctx, "a", Day, clk.Now()); err != nil || ok || e.Score != 10 {
		t.Fatalf("capped Rank(a) on miniredis: %+v %v %v", e, ok, err)
	}

	// Movement, standing, among and archives on miniredis's Lua too.
	if m, err := act.TopMovements(ctx, Month, jan, 2); err != nil || len(m.Entries) != 2 || !m.Entries[0].New {
		t.Fatalf("TopMovements on miniredis: %+v %v", m, err)
	}
	if st, err := act.StandingOfScore(ctx, 3, Month, jan); err != nil || st.Rank != 2 || st.Total != 4 || st.Below != 1 {
		t.Fatalf("StandingOfScore on miniredis: %+v %v", st, err)
	}
	if st, ok, err := capped.StandingOf(ctx, "a", Day, clk.Now()); err != nil || !ok || st.Rank != 2 {
		t.Fatalf("capped StandingOf on miniredis: %+v %v %v", st, ok, err)
	}
	if among, err := act.Among(ctx, Month, jan, []string{"b", "d"}); err != nil || len(among) != 2 || among[0].User != "d" {
		t.Fatalf("Among on miniredis: %+v %v", among, err)
	}
	clk.Set(at(2024, 2, 2, 9, 0, 0))
	if rep, err := act.Archive(ctx); err != nil || rep.Archived == 0 {
		t.Fatalf("Archive on miniredis: %+v %v", rep, err)
	}

	for i := range 5 {
		if _, err := inv.Register(ctx, fmt.Sprint("n", i), fmt.Sprint("p", i%2)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := inv.Register(ctx, "n0", "p1"); !errors.Is(err, ErrAlreadyRegistered) {
		t.Fatalf("second registration: %v", err)
	}
	if _, err := inv.Register(ctx, "n5", "p1"); err != nil { // p1 reaches 3 after p0
		t.Fatal(err)
	}
	itop, err := inv.Top(ctx, 10)
	if err != nil || !slices.Equal(itop, []Entry{{1, "p0", 3}, {2, "p1", 3}}) {
		t.Fatalf("invites top %+v %v", itop, err)
	}
	// Exact at the top of the encoding on miniredis's Lua too.
	k := inv.keys
	for i, u := range []string{"x", "y"} {
		c.HSet(ctx, k.counts(), u, MaxInviteCount-1)
		c.ZAdd(ctx, k.board(), inviteZ(u, MaxInviteCount-1, MaxInviteSeq-100+int64(i)))
	}
	c.Set(ctx, k.seq(), MaxInviteSeq-50, 0)
	inv.Register(ctx, "ny", "y")
	inv.Register(ctx, "nx", "x")
	itop, err = inv.Top(ctx, 2)
	if err != nil || !slices.Equal(itop, []Entry{{1, "y", MaxInviteCount}, {2, "x", MaxInviteCount}}) {
		t.Fatalf("invites top at the bounds %+v %v", itop, err)
	}
}
