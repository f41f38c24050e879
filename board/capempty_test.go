package board

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestCappedBoardEmptied: on a capped board whose every kept member left
// by undos, the users outside still have their true totals: Among,
// Movements and StandingOf answer as on the uncapped board, and the
// archive job snapshots the top from the out HASH, as the uncapped
// board's (before, the board counted as gone: everyone 0, the day
// "missing").
func TestCappedBoardEmptied(t *testing.T) {
	p := newPair(t, 1)
	p.cfg.ArchiveTop = 2
	for _, act := range []*Activity{p.capped, p.full} {
		act.archiveTop = 2
	}
	now := p.clock.Now()
	for _, ev := range []Event{
		{User: "a", Action: "comment", Target: "c1"},
		{User: "a", Action: "comment", Target: "c2"}, // a 6, kept
		{User: "b", Action: "comment", Target: "c3"}, // b 3
		{User: "c", Action: "like", Target: "x"},     // c 2
		{User: "d", Action: "like", Target: "y"},     // d 2
		{User: "a", Action: "comment", Target: "c1", Undo: true},
		{User: "a", Action: "comment", Target: "c2", Undo: true}, // a 0: nobody kept
	} {
		p.both(ev)
	}
	if n := p.rdb.Exists(p.ctx, p.capped.keys.day(p.capped.dateOf(Day, now))).Val(); n != 0 {
		t.Fatal("the capped board's ZSET should be empty (gone) for this test")
	}
	users := []string{"d", "a", "b", "c"}
	for _, per := range []Period{Day, Month} {
		ac, err := p.capped.Among(p.ctx, per, now, users)
		af, err2 := p.full.Among(p.ctx, per, now, users)
		want := []Entry{{1, "b", 3}, {2, "d", 2}, {2, "c", 2}, {0, "a", 0}}
		if err != nil || err2 != nil || !slices.Equal(ac, want) || !slices.Equal(af, want) {
			t.Fatalf("%s Among: capped %+v %v, uncapped %+v %v, want %+v", per, ac, err, af, err2, want)
		}
		m, err := p.capped.Movements(p.ctx, per, now, []string{"b"})
		if err != nil || m.From != FromBoard || m.Entries[0].Score != 3 {
			t.Fatalf("%s capped Movements(b) = %+v %v, want score 3 from the board", per, m, err)
		}
		for _, act := range []*Activity{p.capped, p.full} {
			st, ok, err := act.StandingOf(p.ctx, "c", per, now)
			if want := (Standing{User: "c", Score: 2, Rank: 2, Above: 1, Equal: 2, Total: 3}); err != nil || !ok || st != want {
				t.Fatalf("%s StandingOf(c) = %+v %v %v, want %+v", per, st, ok, err, want)
			}
		}
	}
	// The day and the month close: every archive holds b and d
	// (ZREVRANGE's order: the user ids descending among equal scores).
	p.clock.Set(now.AddDate(0, 0, 1).Add(MaxLateness + time.Hour))
	for _, act := range []*Activity{p.capped, p.full} {
		rep, err := act.Archive(p.ctx)
		if err != nil || rep.Archived != 2 {
			t.Fatalf("Archive = %+v %v, want the day and the month archived", rep, err)
		}
		for _, per := range []Period{Day, Month} {
			z, err := p.rdb.ZRevRangeWithScores(p.ctx, act.keys.archive(per, act.dateOf(per, now)), 0, -1).Result()
			if err != nil || len(z) != 2 || z[0].Member != "b" || z[0].Score != 3 || z[1].Member != "d" || z[1].Score != 2 {
				t.Fatalf("%s archive = %+v %v, want b 3, d 2", per, z, err)
			}
		}
	}
	// While the board lives, Top reads it, as movement does (it read the
	// archive: the page's two lists disagreed).
	top, err := p.capped.Top(p.ctx, Day, now, 10)
	m, err2 := p.capped.TopMovements(p.ctx, Day, now, 10)
	if err != nil || err2 != nil || len(top) != len(m.Entries) || m.From != FromBoard {
		t.Fatalf("capped Top = %+v %v, TopMovements = %+v %v: want the same, from the board", top, err, m, err2)
	}
}

// TestCappedSideKeysKeepBoardTTL: a capped board's out:n and out:t are
// deleted when they empty and made again by a later undo; they take the
// board's remaining TTL, not a new full one, so they never outlive it,
// and a board whose ZSET and out HASH are gone has no standing even if
// they were left.
func TestCappedSideKeysKeepBoardTTL(t *testing.T) {
	r := newRig(t, func(o *Options) { o.Cap = 1 })
	now := r.clock.Now()
	r.rec(Event{User: "carol", Action: "publish", Target: "p1"}) // 10, kept
	r.rec(Event{User: "bob", Action: "comment", Target: "c1"})
	r.rec(Event{User: "bob", Action: "like", Target: "y"}) // 5, outside
	var side []string
	for _, b := range []string{r.act.keys.day(r.act.dateOf(Day, now)), r.act.keys.month(r.act.dateOf(Month, now))} {
		for _, k := range []string{b, r.act.keys.out(b), r.act.keys.outCount(b), r.act.keys.outTotals(b)} {
			if err := r.rdb.PExpire(r.ctx, k, 5*time.Second).Err(); err != nil {
				t.Fatal(err)
			}
		}
		side = append(side, r.act.keys.outCount(b), r.act.keys.outTotals(b))
	}
	r.rec(Event{User: "bob", Action: "like", Target: "y", Undo: true}) // 5 → 3: the total 5 empties, 3 is new
	for _, k := range side {
		if d := r.pttl(k); d <= 0 || d > 5*time.Second {
			t.Errorf("%s TTL %s after the undo, want the board's (5 s at most)", k, d)
		}
	}
	// the board expires, its side keys left behind
	for _, b := range []string{r.act.keys.day(r.act.dateOf(Day, now)), r.act.keys.month(r.act.dateOf(Month, now))} {
		r.rdb.Del(r.ctx, b, r.act.keys.out(b))
		r.rdb.HSet(r.ctx, r.act.keys.outCount(b), "3", 1)
		r.rdb.ZAdd(r.ctx, r.act.keys.outTotals(b), redis.Z{Member: "3", Score: 3})
	}
	st, err := r.act.StandingOfScore(r.ctx, 1, Month, now)
	if want := (Standing{Score: 1, Rank: 1}); err != nil || st != want {
		t.Fatalf("StandingOfScore on an expired board = %+v %v, want %+v", st, err, want)
	}
	if _, ok, err := r.act.StandingOf(r.ctx, "bob", Day, now); err != nil || ok {
		t.Fatalf("StandingOf(bob) on an expired board = %v %v, want no points", ok, err)
	}
}

func TestScoreBounds(t *testing.T) {
	r := newRig(t)
	for _, s := range []int64{-1, MaxScore + 1, 1<<63 - 1} {
		if _, err := r.act.StandingOfScore(r.ctx, s, Day, r.clock.Now()); !errors.Is(err, ErrBadScore) || !IsBadInput(err) {
			t.Errorf("StandingOfScore(%d) = %v, want ErrBadScore", s, err)
		}
	}
	if st, err := r.act.StandingOfScore(r.ctx, MaxScore, Day, r.clock.Now()); err != nil || st.Score != MaxScore {
		t.Errorf("StandingOfScore(MaxScore) = %+v %v", st, err)
	}
	// read from Redis (an older release's unbounded weights): saturated,
	// never wrapped to a negative score, and no client error
	for v, want := range map[string]int64{"9223372036854775807": math.MaxInt64, "1e300": math.MaxInt64, "-1e300": math.MinInt64, "9007199254740993": 1 << 53} {
		if got, err := parseScore(v); err != nil || got != want {
			t.Errorf("parseScore(%s) = %d %v, want %d", v, got, err, want)
		}
	}
}

// TestCappedArchiveTopAfterUndos: a capped board whose kept users an undo
// cut below archive_top is archived with its true top: the kept users and
// the best outside (it kept the kept users only, leaving out the third of
// the uncapped board's top 3).
func TestCappedArchiveTopAfterUndos(t *testing.T) {
	p := newPair(t, 3)
	for _, act := range []*Activity{p.capped, p.full} {
		act.archiveTop = 3
	}
	now := p.clock.Now()
	for _, ev := range []Event{
		{User: "a", Action: "publish", Target: "p1"}, // 10
		{User: "b", Action: "comment", Target: "b1"},
		{User: "b", Action: "comment", Target: "b2"},
		{User: "b", Action: "comment", Target: "b3"}, // 9
		{User: "c", Action: "comment", Target: "c1"},
		{User: "c", Action: "comment", Target: "c2"},
		{User: "c", Action: "like", Target: "c3"}, // 8: a, b, c kept
		{User: "d", Action: "comment", Target: "d1"},
		{User: "d", Action: "comment", Target: "d2"}, // 6, outside
		{User: "e", Action: "like", Target: "e1"},
		{User: "e", Action: "like", Target: "e2"}, // 4, outside
		{User: "c", Action: "comment", Target: "c1", Undo: true},
		{User: "c", Action: "comment", Target: "c2", Undo: true}, // c 2: leaves; a, b kept
	} {
		p.both(ev)
	}
	p.clock.Set(now.AddDate(0, 0, 1).Add(MaxLateness + time.Hour))
	for _, act := range []*Activity{p.full, p.capped} {
		if _, err := act.Archive(p.ctx); err != nil {
			t.Fatal(err)
		}
		z, err := p.rdb.ZRevRangeWithScores(p.ctx, act.keys.archive(Day, act.dateOf(Day, now)), 0, -1).Result()
		var got []string
		for _, m := range z {
			got = append(got, fmt.Sprint(m.Member, "=", m.Score))
		}
		if want := []string{"a=10", "b=9", "d=6"}; err != nil || !slices.Equal(got, want) {
			t.Errorf("archive (cap %t) = %v %v, want %v", act == p.capped, got, err, want)
		}
	}
}
