package board

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// pair is a capped and an uncapped Activity on one redis-server (two key
// prefixes), fed the same events.
type pair struct {
	*rig
	k      int
	capped *Activity
	full   *Activity
}

func newPair(t *testing.T, k int) *pair {
	t.Helper()
	r := newRig(t)
	cfg := r.cfg
	full, err := NewActivity(r.rdb, "full:", cfg, WithClock(r.clock))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Cap = k
	capped, err := NewActivity(r.rdb, "capped:", cfg, WithClock(r.clock))
	if err != nil {
		t.Fatal(err)
	}
	return &pair{rig: r, k: k, capped: capped, full: full}
}

// both records ev on both boards; the results must be the same (an
// undo's answer does not depend on the cap).
func (p *pair) both(ev Event) Result {
	p.t.Helper()
	rc, err := p.capped.Record(p.ctx, ev)
	if err != nil {
		p.t.Fatalf("capped Record(%+v): %v", ev, err)
	}
	rf, err := p.full.Record(p.ctx, ev)
	if err != nil {
		p.t.Fatalf("uncapped Record(%+v): %v", ev, err)
	}
	if rc != rf {
		p.t.Fatalf("Record(%+v): capped %+v, uncapped %+v", ev, rc, rf)
	}
	return rc
}

// check compares the boards of period holding date: the capped top is
// the uncapped top's first entries (users, scores, ranks), and every
// user's Rank agrees — for a user the capped board does not keep: not
// ranked, with the true total. It returns how many entries the capped
// board shows and how many the uncapped one has up to k.
func (p *pair) check(step string, per Period, date time.Time, users []string) (shown, want int) {
	p.t.Helper()
	tc, err := p.capped.Top(p.ctx, per, date, MaxN)
	if err != nil {
		p.t.Fatal(err)
	}
	tf, err := p.full.Top(p.ctx, per, date, MaxN)
	if err != nil {
		p.t.Fatal(err)
	}
	if len(tc) > p.k || len(tc) > len(tf) || !slices.Equal(tc, tf[:len(tc)]) {
		p.t.Fatalf("%s, %s board: capped top %+v is not a prefix of the uncapped top %+v (cap %d)", step, per, tc, tf, p.k)
	}
	for _, u := range users {
		ec, okc, err := p.capped.Rank(p.ctx, u, per, date)
		if err != nil {
			p.t.Fatal(err)
		}
		ef, okf, err := p.full.Rank(p.ctx, u, per, date)
		if err != nil {
			p.t.Fatal(err)
		}
		kept := slices.ContainsFunc(tc, func(e Entry) bool { return e.User == u })
		switch {
		case kept && (!okc || ec != ef):
			p.t.Fatalf("%s, %s board: Rank(%s) capped %+v %v, uncapped %+v %v", step, per, u, ec, okc, ef, okf)
		case !kept && (okc || ec.Rank != 0 || ec.Score != ef.Score):
			p.t.Fatalf("%s, %s board: Rank(%s) of a user the capped board does not keep: %+v %v, want not ranked with score %d", step, per, u, ec, okc, ef.Score)
		}
	}
	return len(tc), min(p.k, len(tf))
}

// TestCapComeback: on a capped board (a) users enter a full board by
// their true totals, (b) a user pushed out comes back with its true total
// and an undo takes back exactly what it gave, (c) an undo for a user
// outside the board lowers their true total.
func TestCapComeback(t *testing.T) {
	p := newPair(t, 3)
	now := p.clock.Now()
	all := []string{"a", "b", "c", "d", "e"}
	// (a) A full board (10, 10, 6); d and e earn 3 points at a time and
	// enter by their true totals, 24 and 21.
	p.both(Event{User: "a", Action: "publish", Target: "a1"})
	p.both(Event{User: "b", Action: "publish", Target: "b1"})
	p.both(Event{User: "c", Action: "comment", Target: "c1"})
	p.both(Event{User: "c", Action: "comment", Target: "c2"})
	for i := range 8 {
		p.both(Event{User: "d", Action: "comment", Target: fmt.Sprint("d", i)})
		if i < 7 {
			p.both(Event{User: "e", Action: "comment", Target: fmt.Sprint("e", i)})
		}
		p.check(fmt.Sprint("comment ", i), Day, now, all)
	}
	top, _ := p.capped.Top(p.ctx, Day, now, 10)
	if want := []Entry{{1, "d", 24}, {2, "e", 21}, {3, "b", 10}}; !slices.Equal(top, want) {
		t.Fatalf("(a) capped top %+v, want %+v", top, want)
	}

	// (b) a (10, pushed out) comes back with its true total, and an undo
	// afterwards takes back exactly what it gave.
	p.both(Event{User: "a", Action: "comment", Target: "a2"}) // 13: enters, b leaves
	p.both(Event{User: "a", Action: "like", Target: "a3"})    // 15
	if res := p.both(Event{User: "a", Action: "comment", Target: "a2", Undo: true}); res.Points != -3 {
		t.Fatalf("(b) undo: %+v", res)
	}
	p.check("(b)", Day, now, all)
	if e, ok, _ := p.capped.Rank(p.ctx, "a", Day, now); !ok || e.Score != 12 {
		t.Fatalf("(b) a: %+v ranked %v, want 12 points", e, ok)
	}

	// (c) An undo for a user outside the board is applied (their true
	// total falls) and says so.
	if e, ok, _ := p.capped.Rank(p.ctx, "c", Day, now); ok || e.Score != 6 {
		t.Fatalf("(c) c before: %+v ranked %v, want not ranked with 6", e, ok)
	}
	if res := p.both(Event{User: "c", Action: "comment", Target: "c1", Undo: true}); !res.Applied || res.Points != -3 {
		t.Fatalf("(c) undo of an outsider: %+v", res)
	}
	if e, ok, _ := p.capped.Rank(p.ctx, "c", Day, now); ok || e.Score != 3 {
		t.Fatalf("(c) c after: %+v ranked %v, want not ranked with 3", e, ok)
	}
	p.check("(c)", Month, now, all)
}

// TestCapUndoOfKeptMember: an undo that takes a kept user below a user
// outside makes the board drop it (and those tied below it) rather than
// show a wrong order; the board fills again as users outside earn.
func TestCapUndoOfKeptMember(t *testing.T) {
	p := newPair(t, 2)
	now := p.clock.Now()
	all := []string{"a", "b", "c"}
	p.both(Event{User: "a", Action: "comment", Target: "1"}) // 3
	p.both(Event{User: "a", Action: "like", Target: "1"})    // 5
	p.both(Event{User: "b", Action: "comment", Target: "1"}) // 3
	p.both(Event{User: "b", Action: "like", Target: "1"})    // 5
	p.both(Event{User: "c", Action: "comment", Target: "1"}) // 3: outside
	p.both(Event{User: "a", Action: "comment", Target: "1", Undo: true})
	if shown, _ := p.check("a falls to 2", Day, now, all); shown != 1 {
		t.Fatalf("board shows %d users, want 1 (b): a (2) is below c (3), outside", shown)
	}
	p.both(Event{User: "c", Action: "visit", Target: "/"}) // 4: above every other outsider
	if shown, want := p.check("c earns", Day, now, all); shown != want {
		t.Fatalf("board shows %d users, want %d", shown, want)
	}
}

// TestCapMatchesUncapped is the property of a capped board: over random
// streams of awards of every size, repeats, undos (of awards kept, pushed
// out, and never made) and days passing, the capped board's top is
// always the uncapped board's top (a prefix of it: users, scores,
// ranks), every user's Rank agrees (not ranked, with the true total,
// outside the board), and every event answers the same. In streams
// without undos the capped board always shows the uncapped one's top
// min(K, users).
func TestCapMatchesUncapped(t *testing.T) {
	for _, c := range []struct{ streams, steps, users, k int }{{24, 120, 8, 3}, {8, 200, 16, 6}} {
		t.Run(fmt.Sprintf("%d users, cap %d", c.users, c.k), func(t *testing.T) {
			capProperty(t, c.streams, c.steps, c.users, c.k)
		})
	}
}

func capProperty(t *testing.T, streams, steps, nusers, k int) {
	var users []string
	for i := range nusers {
		users = append(users, fmt.Sprintf("%c%d", 'a'+i%26, i))
	}
	actions := []string{"visit", "like", "collect", "comment", "publish", "follow", "comment", "like"}
	rng := rand.New(rand.NewPCG(uint64(nusers), uint64(k)))
	p := newPair(t, k)
	short, total := 0, 0
	for s := range streams {
		if err := p.rdb.FlushDB(p.ctx).Err(); err != nil {
			t.Fatal(err)
		}
		p.clock.Set(at(2024, 1, 31, 10, 0, 0))
		undos := s%3 != 0
		var done []Event
		for i := range steps {
			ev := Event{User: users[rng.IntN(len(users))], Action: actions[rng.IntN(len(actions))], Target: fmt.Sprint(rng.IntN(4))}
			if undos && len(done) > 0 && rng.IntN(3) == 0 {
				ev = done[rng.IntN(len(done))]
				ev.Undo = true
			} else if undos && rng.IntN(12) == 0 {
				ev.Action, ev.Undo = "comment", true // maybe never awarded
			}
			if r := p.both(ev); r.Applied && !ev.Undo && revocable[ev.Action] {
				done = append(done, ev)
			}
			if rng.IntN(15) == 0 {
				p.clock.Advance(5 * time.Hour) // crosses days and, from Jan 31, the month
			}
			step := fmt.Sprintf("stream %d step %d (%+v)", s, i, ev)
			for _, per := range []Period{Day, Month} {
				check := users[:0:0]
				if i%10 == 9 {
					check = users
				}
				shown, want := p.check(step, per, p.clock.Now(), check)
				total++
				if shown < want {
					short++
					if !undos {
						t.Fatalf("%s, %s board: shows %d users, want %d (no undo in this stream)", step, per, shown, want)
					}
				}
			}
		}
	}
	t.Logf("%d checks, %d with the capped board showing fewer than min(K, users) after an undo", total, short)
}

// TestCapLowered: a board filled with no cap (every user has 5 points)
// is trimmed to the new cap a few members per write and stays exact
// meanwhile: the lowest leave, and keep their totals.
func TestCapLowered(t *testing.T) {
	r := newRig(t)
	for i := range 30 {
		r.rec(Event{User: fmt.Sprintf("u%02d", i), Action: "comment", Target: fmt.Sprint(i % 4)})
		r.rec(Event{User: fmt.Sprintf("u%02d", i), Action: "like", Target: fmt.Sprint(i % 3)})
	}
	now := r.clock.Now()
	r.cfg.Cap = 5
	r.build()
	key := r.act.keys.day(now.In(shanghai).Format(DayLayout))
	for i := range 3 {
		r.rec(Event{User: "u00", Action: "visit", Target: fmt.Sprint("/", i)})
		if n, want := r.rdb.ZCard(r.ctx, key).Val(), max(30-10*int64(i+1), 5); n != want {
			t.Fatalf("after %d writes the board has %d members, want %d", i+1, n, want)
		}
	}
	top, _ := r.act.Top(r.ctx, Day, now, MaxN)
	if want := []Entry{{1, "u00", 8}, {2, "u29", 5}, {2, "u28", 5}, {2, "u27", 5}, {2, "u26", 5}}; !slices.Equal(top, want) {
		t.Fatalf("trimmed board %+v, want %+v", top, want)
	}
	if e, ok, _ := r.act.Rank(r.ctx, "u10", Day, now); ok || e.Score != 5 {
		t.Fatalf("a trimmed user: %+v %v, want not ranked with 5", e, ok)
	}
}

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
