package board

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestVersionedEvents: a versioned event applies only when its version is
// newer than the last one applied to its (user, action, target), so
// reports that arrive out of order end in the newest state.
func TestVersionedEvents(t *testing.T) {
	r := newRig(t)
	steps := []struct {
		undo    bool
		version int64
		points  int
		score   int64 // day score afterwards (-1: not ranked)
	}{
		{false, 5, 2, 2},
		{true, 3, 0, 2},  // stale
		{false, 5, 0, 2}, // the same version again
		{true, 7, -2, -1},
		{false, 6, 0, -1}, // stale: 7 said "not liked"
		{true, 8, 0, -1},  // newer, already not liked
		{false, 9, 2, 2},
		{false, 10, 0, 2}, // already liked: only the version moves
		{true, 9, 0, 2},   // stale now
		{true, 11, -2, -1},
	}
	for i, s := range steps {
		res := r.rec(Event{User: "u", Action: "like", Target: "a", Undo: s.undo, Version: s.version})
		if res.Points != s.points || res.Applied != (s.points != 0) {
			t.Fatalf("step %d (undo %v, version %d): %+v, want %d points", i, s.undo, s.version, res, s.points)
		}
		if got := r.score("u", Day, r.clock.Now()); got != s.score {
			t.Fatalf("step %d: score %d, want %d", i, got, s.score)
		}
	}

	// An unversioned undo of a versioned award keeps the version: a
	// stale versioned like arriving after it does not award again.
	r.rec(Event{User: "v", Action: "like", Target: "a", Version: 20})
	if res := r.rec(Event{User: "v", Action: "like", Target: "a", Undo: true}); res.Points != -2 {
		t.Fatalf("unversioned undo: %+v", res)
	}
	if res := r.rec(Event{User: "v", Action: "like", Target: "a", Version: 19}); res.Applied {
		t.Fatalf("stale like after an unversioned undo applied: %+v", res)
	}
	if res := r.rec(Event{User: "v", Action: "like", Target: "a"}); res.Points != 2 {
		t.Fatalf("unversioned like after the undo: %+v", res)
	}

	for _, ev := range []Event{
		{User: "u", Action: "visit", Target: "/", Version: 1},
		{User: "u", Action: "publish", Target: "p", Version: 1},
		{User: "u", Action: "like", Target: "a", Version: -1},
		{User: "u", Action: "like", Target: "a", Version: MaxVersion + 1},
	} {
		if _, err := r.act.Record(r.ctx, ev); !IsBadInput(err) {
			t.Errorf("Record(%+v): err %v, want bad input", ev, err)
		}
	}
	if _, err := r.act.Record(r.ctx, Event{User: "u", Action: "like", Target: "a", Version: -1}); !errors.Is(err, ErrBadVersion) {
		t.Errorf("negative version: %v, want ErrBadVersion", err)
	}
}

// TestVersionedConcurrent: 200 versioned likes and unlikes of one
// (user, article), sent by 8 goroutines in shuffled order, end in the
// state of the highest version, whatever the interleaving.
func TestVersionedConcurrent(t *testing.T) {
	r := newRig(t)
	want := int64(0)
	for trial := range 10 {
		rng := rand.New(rand.NewPCG(uint64(trial), 7))
		const n = 200
		liked := make([]bool, n+1)
		for v := 1; v <= n; v++ {
			liked[v] = rng.IntN(2) == 0
		}
		order := rng.Perm(n)
		target := fmt.Sprint("article-", trial)
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < n; i += 8 {
					v := order[i] + 1
					if _, err := r.act.Record(r.ctx, Event{User: "u", Action: "like", Target: target, Undo: !liked[v], Version: int64(v)}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if liked[n] {
			want += 2
		}
		if got := max(r.score("u", Day, r.clock.Now()), 0); got != want {
			t.Fatalf("trial %d: score %d, want %d (the newest version's state of every article so far)", trial, got, want)
		}
	}
}

// legacy writes an award in the format of releases before the ledger
// hash: its own key, and the points on its boards.
func (r *rig) legacy(user, action, target string, points int, at time.Time) {
	r.t.Helper()
	day, month := at.In(shanghai).Format(DayLayout), at.In(shanghai).Format(MonthLayout)
	key := r.act.keys.legacyLedger(user, action, target)
	if err := r.rdb.Set(r.ctx, key, fmt.Sprintf("%d|%s|%s", points, day, month), 400*24*time.Hour).Err(); err != nil {
		r.t.Fatal(err)
	}
	r.rdb.ZIncrBy(r.ctx, r.act.keys.day(day), float64(points), user)
	r.rdb.ZIncrBy(r.ctx, r.act.keys.month(month), float64(points), user)
}

// TestLegacyLedger: awards recorded with the per-award keys of earlier
// releases still count once and undo exactly; each is moved into the
// user's ledger hash when touched.
func TestLegacyLedger(t *testing.T) {
	r := newRig(t)
	dec := at(2023, 12, 20, 9, 0, 0)
	r.legacy("u", "like", "a", 2, dec)
	r.legacy("u", "comment", "c", 3, dec)
	r.legacy("u", "follow", "f", 2, dec)
	now := r.clock.Now()

	if res := r.rec(Event{User: "u", Action: "like", Target: "a"}); res.Applied {
		t.Fatalf("repeat of a legacy like applied: %+v", res)
	}
	if n := r.rdb.Exists(r.ctx, r.act.keys.legacyLedger("u", "like", "a")).Val(); n != 0 {
		t.Fatal("the legacy like was not moved into the ledger hash")
	}
	// The moved like undoes from December's boards.
	if res := r.rec(Event{User: "u", Action: "like", Target: "a", Undo: true}); res.Points != -2 || res.Month != "2023-12" {
		t.Fatalf("undo of the moved legacy like: %+v", res)
	}
	// An untouched legacy comment undoes from its boards too.
	if res := r.rec(Event{User: "u", Action: "comment", Target: "c", Undo: true}); res.Points != -3 || res.Day != "2023-12-20" {
		t.Fatalf("undo of a legacy comment: %+v", res)
	}
	if res := r.rec(Event{User: "u", Action: "comment", Target: "c", Undo: true}); res.Applied {
		t.Fatalf("second undo of a legacy comment: %+v", res)
	}
	// A versioned refusal takes a legacy award back, and a stale
	// versioned award after it does nothing.
	if res := r.rec(Event{User: "u", Action: "follow", Target: "f", Undo: true, Version: 4}); res.Points != -2 {
		t.Fatalf("versioned undo of a legacy follow: %+v", res)
	}
	if res := r.rec(Event{User: "u", Action: "follow", Target: "f", Version: 3}); res.Applied {
		t.Fatalf("stale follow applied: %+v", res)
	}
	if got := r.score("u", Month, dec); got != -1 {
		t.Fatalf("December score %d, want not ranked (everything undone)", got)
	}
	if got := r.score("u", Day, now); got != -1 {
		t.Fatalf("today's score %d, want not ranked", got)
	}
	for _, k := range r.keys() {
		if strings.Contains(k, ":led:") {
			t.Errorf("legacy key %s left after everything was touched", k)
		}
	}
}

// TestLedgerForgets: the ledger hash forgets a visit after its day (plus
// MaxLateness) and an award after the retention, by pruning when it is
// written on a later day; forgotten entries never count as present.
func TestLedgerForgets(t *testing.T) {
	r := newRig(t)
	led := r.act.keys.ledger("u")
	r.rec(Event{User: "u", Action: "visit", Target: "/a"})
	r.rec(Event{User: "u", Action: "like", Target: "x"})
	r.rec(Event{User: "u", Action: "like", Target: "y", Undo: true, Version: 3}) // a refusal
	if n := r.rdb.HLen(r.ctx, led).Val(); n != 3 {
		t.Fatalf("ledger has %d fields, want 3", n)
	}
	// Two days pass: on the fake clock, and for the ledger's TTL, which
	// redis-server counts down on its own clock.
	r.clock.Advance(50 * time.Hour)
	r.rdb.PExpire(r.ctx, led, r.pttl(led)-50*time.Hour)
	r.rec(Event{User: "u", Action: "visit", Target: "/b"})
	fields := r.rdb.HKeys(r.ctx, led).Val()
	if len(fields) != 2 || fields[0] != "like:x" || fields[1] != "20240202:/b" {
		t.Fatalf("ledger two days later holds %q, want like:x and today's visit", fields)
	}
	if d, want := r.pttl(led), r.act.ledTTL+ledgerSlack; d < want-time.Minute || d > want {
		t.Fatalf("ledger TTL %s after a write on a new day, want about %s", d, want)
	}

	// Past the retention the like is forgotten: an undo does nothing, a
	// like counts again.
	r.clock.Advance(r.act.ledTTL)
	r.rdb.PExpire(r.ctx, led, ledgerSlack)
	if res := r.rec(Event{User: "u", Action: "like", Target: "x", Undo: true}); res.Applied {
		t.Fatalf("undo of a forgotten like: %+v", res)
	}
	if res := r.rec(Event{User: "u", Action: "like", Target: "x"}); res.Points != 2 {
		t.Fatalf("like after the retention: %+v", res)
	}
	if n := r.rdb.HLen(r.ctx, led).Val(); n != 1 {
		t.Fatalf("ledger holds %v, want only the new like", r.rdb.HGetAll(r.ctx, led).Val())
	}
}

// TestLongTargets: a long target is kept as a digest, so the ledger stays
// compact (listpack); long targets that differ do not meet.
func TestLongTargets(t *testing.T) {
	r := newRig(t)
	long := strings.Repeat("x", MaxTargetLen-1)
	for _, tg := range []string{long + "1", long + "2"} {
		if res := r.rec(Event{User: "u", Action: "follow", Target: tg}); res.Points != 2 {
			t.Fatalf("follow of a long target: %+v", res)
		}
	}
	r.rec(Event{User: "u", Action: "visit", Target: "/" + long})
	if res := r.rec(Event{User: "u", Action: "follow", Target: long + "1"}); res.Applied {
		t.Fatalf("repeat of a long follow applied: %+v", res)
	}
	if res := r.rec(Event{User: "u", Action: "follow", Target: long + "2", Undo: true}); res.Points != -2 {
		t.Fatalf("undo of a long follow: %+v", res)
	}
	if enc := r.rdb.ObjectEncoding(r.ctx, r.act.keys.ledger("u")).Val(); enc != "listpack" {
		t.Fatalf("ledger encoding %q, want listpack", enc)
	}
	if got := r.score("u", Day, r.clock.Now()); got != 3 {
		t.Fatalf("score %d, want 3", got)
	}
}
