package board

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
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
