package board

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPointTable walks the default point table: visit +1 once per path
// per day, like and collect +2 (revocable), comment +3 (revocable),
// publish +10, follow +2 (revocable); repeats count once and an undo takes
// back exactly what was given.
func TestPointTable(t *testing.T) {
	r := newRig(t)
	now := r.clock.Now()
	steps := []struct {
		ev      Event
		applied bool
		points  int
		total   int64 // u1's day score afterwards (-1: not ranked)
	}{
		{Event{User: "u1", Action: "visit", Target: "/article/1"}, true, 1, 1},
		{Event{User: "u1", Action: "visit", Target: "/article/1"}, false, 0, 1},
		{Event{User: "u1", Action: "visit", Target: "/article/2"}, true, 1, 2},
		{Event{User: "u1", Action: "like", Target: "1"}, true, 2, 4},
		{Event{User: "u1", Action: "like", Target: "1"}, false, 0, 4},
		{Event{User: "u1", Action: "collect", Target: "1"}, true, 2, 6},
		{Event{User: "u1", Action: "comment", Target: "1"}, true, 3, 9},
		{Event{User: "u1", Action: "publish", Target: "7"}, true, 10, 19},
		{Event{User: "u1", Action: "publish", Target: "7"}, false, 0, 19},
		{Event{User: "u1", Action: "follow", Target: "u2"}, true, 2, 21},
		{Event{User: "u1", Action: "like", Target: "1", Undo: true}, true, -2, 19},
		{Event{User: "u1", Action: "like", Target: "1", Undo: true}, false, 0, 19},
		{Event{User: "u1", Action: "collect", Target: "1", Undo: true}, true, -2, 17},
		{Event{User: "u1", Action: "comment", Target: "1", Undo: true}, true, -3, 14},
		{Event{User: "u1", Action: "follow", Target: "u2", Undo: true}, true, -2, 12},
		{Event{User: "u1", Action: "follow", Target: "u3", Undo: true}, false, 0, 12}, // never followed
		{Event{User: "u1", Action: "like", Target: "1"}, true, 2, 14},                 // like again after unlike
	}
	for i, s := range steps {
		res := r.rec(s.ev)
		if res.Applied != s.applied || res.Points != s.points {
			t.Fatalf("step %d %+v: got %+v, want applied=%v points=%d", i, s.ev, res, s.applied, s.points)
		}
		if got := r.score("u1", Day, now); got != s.total {
			t.Fatalf("step %d %+v: day score %d, want %d", i, s.ev, got, s.total)
		}
		if got := r.score("u1", Month, now); got != s.total {
			t.Fatalf("step %d %+v: month score %d, want %d", i, s.ev, got, s.total)
		}
	}

	// The next day the same path counts again, on the new day's board
	// only; the month board has both.
	r.clock.Advance(24 * time.Hour)
	if res := r.rec(Event{User: "u1", Action: "visit", Target: "/article/1"}); !res.Applied || res.Day != "2024-02-01" || res.Month != "2024-02" {
		t.Fatalf("visit next day: %+v", res)
	}
	if got := r.score("u1", Day, r.clock.Now()); got != 1 {
		t.Fatalf("next day's score %d, want 1", got)
	}
	if got := r.score("u1", Day, now); got != 14 {
		t.Fatalf("previous day's score %d, want 14", got)
	}
}

func TestWeightsFromConfig(t *testing.T) {
	r := newRig(t, func(b *Options) {
		b.Weights = map[string]int{"like": 5, "comment": 0}
	})
	if res := r.rec(Event{User: "u", Action: "like", Target: "a"}); res.Points != 5 {
		t.Fatalf("like with weight 5: %+v", res)
	}
	for _, action := range []string{"comment", "visit"} { // 0 and not listed
		if res := r.rec(Event{User: "u", Action: action, Target: "a"}); res.Applied || res.Points != 0 {
			t.Fatalf("%s with weight 0: %+v", action, res)
		}
	}
	if res := r.rec(Event{User: "u", Action: "comment", Target: "a", Undo: true}); res.Applied {
		t.Fatalf("undo of an unweighted comment: %+v", res)
	}
	if got := r.score("u", Day, r.clock.Now()); got != 5 {
		t.Fatalf("score %d, want 5", got)
	}

	// A weight change does not change what an undo takes back.
	r.cfg.Weights = map[string]int{"like": 1}
	r.build()
	if res := r.rec(Event{User: "u", Action: "like", Target: "a", Undo: true}); res.Points != -5 {
		t.Fatalf("undo after the weight changed: %+v, want -5", res)
	}
	if got := r.score("u", Day, r.clock.Now()); got != -1 {
		t.Fatalf("score %d after undoing everything, want not ranked", got)
	}
}

// TestTopAndRank: the top 30 and "my rank", with competition ranking for
// ties.
func TestTopAndRank(t *testing.T) {
	r := newRig(t)
	now := r.clock.Now()
	// u00 publishes 40 articles, u01 39, ... u39 1; then u10 and u11 tie
	// u09 by extra comments.
	for i := range 40 {
		for j := range 40 - i {
			r.rec(Event{User: fmt.Sprintf("u%02d", i), Action: "publish", Target: fmt.Sprint(j)})
		}
	}
	r.rec(Event{User: "u10", Action: "visit", Target: "/x"})
	for k := range 3 {
		r.rec(Event{User: "u10", Action: "comment", Target: fmt.Sprint(k)}) // 300+1+9 = 310 = u09's score
		r.rec(Event{User: "u11", Action: "comment", Target: fmt.Sprint(k)})
	}
	r.rec(Event{User: "u11", Action: "visit", Target: "/x"})
	for k := range 3 {
		r.rec(Event{User: "u11", Action: "like", Target: fmt.Sprint(k)}) // 290+9+1+6... = 306
	}
	r.rec(Event{User: "u11", Action: "follow", Target: "a"})
	r.rec(Event{User: "u11", Action: "follow", Target: "b"}) // 290+9+1+6+4 = 310

	top, err := r.act.Top(r.ctx, Day, now, 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != 30 {
		t.Fatalf("top 30 has %d entries", len(top))
	}
	for i := 0; i < 9; i++ {
		if want := (Entry{Rank: i + 1, User: fmt.Sprintf("u%02d", i), Score: int64(400 - 10*i)}); top[i] != want {
			t.Fatalf("top[%d] = %+v, want %+v", i, top[i], want)
		}
	}
	// u09, u10, u11 all have 310: rank 10, then 13.
	for i := 9; i < 12; i++ {
		if top[i].Rank != 10 || top[i].Score != 310 {
			t.Fatalf("top[%d] = %+v, want rank 10 score 310", i, top[i])
		}
	}
	if top[12] != (Entry{Rank: 13, User: "u12", Score: 280}) {
		t.Fatalf("top[12] = %+v, want rank 13", top[12])
	}
	for _, u := range []string{"u09", "u10", "u11"} {
		e, ok, err := r.act.Rank(r.ctx, u, Day, now)
		if err != nil || !ok || e.Rank != 10 || e.Score != 310 {
			t.Fatalf("Rank(%s) = %+v %v %v, want rank 10", u, e, ok, err)
		}
	}
	e, ok, err := r.act.Rank(r.ctx, "u39", Month, now)
	if err != nil || !ok || e != (Entry{Rank: 40, User: "u39", Score: 10}) {
		t.Fatalf("Rank(u39) = %+v %v %v", e, ok, err)
	}
	if _, ok, err := r.act.Rank(r.ctx, "nobody", Day, now); ok || err != nil {
		t.Fatalf("Rank(nobody) = %v %v, want not ranked", ok, err)
	}
	// Another day's board is empty.
	if top, err := r.act.Top(r.ctx, Day, now.AddDate(0, 0, -1), 30); err != nil || len(top) != 0 {
		t.Fatalf("yesterday's top: %v %v", top, err)
	}
}

func TestTies(t *testing.T) {
	r := newRig(t)
	now := r.clock.Now()
	// a: 5, b, c and d: 3, e: 1 → ranks 1, 2, 2, 2, 5.
	r.rec(Event{User: "a", Action: "like", Target: "x"})
	r.rec(Event{User: "a", Action: "comment", Target: "x"})
	for _, u := range []string{"b", "c", "d"} {
		r.rec(Event{User: u, Action: "comment", Target: "x"})
	}
	r.rec(Event{User: "e", Action: "visit", Target: "/"})
	want := map[string]int{"a": 1, "b": 2, "c": 2, "d": 2, "e": 5}

	top, err := r.act.Top(r.ctx, Day, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	var ranks []int
	for _, e := range top {
		ranks = append(ranks, e.Rank)
		if want[e.User] != e.Rank {
			t.Errorf("Top: %s rank %d, want %d", e.User, e.Rank, want[e.User])
		}
	}
	if !slices.Equal(ranks, []int{1, 2, 2, 2, 5}) {
		t.Errorf("Top ranks %v, want [1 2 2 2 5]", ranks)
	}
	// Top(3) cuts inside the tie and still ranks right.
	if top, _ := r.act.Top(r.ctx, Day, now, 3); top[2].Rank != 2 {
		t.Errorf("Top(3) = %+v", top)
	}
	for u, w := range want {
		if e, ok, err := r.act.Rank(r.ctx, u, Day, now); err != nil || !ok || e.Rank != w {
			t.Errorf("Rank(%s) = %+v %v %v, want %d", u, e, ok, err, w)
		}
	}
	// Redis orders a tie by user id, reverse: a, d, c, b, e. A window
	// that starts inside the tie still ranks its first entry by the
	// scores above it.
	for u, wantUsers := range map[string][]string{"b": {"c", "b", "e"}, "c": {"d", "c", "b"}, "d": {"a", "d", "c"}, "a": {"a", "d"}, "e": {"b", "e"}} {
		around, err := r.act.AroundMe(r.ctx, u, Day, now, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := users(around); !slices.Equal(got, wantUsers) {
			t.Errorf("AroundMe(%s) = %v, want %v", u, got, wantUsers)
		}
		for _, e := range around {
			if want[e.User] != e.Rank {
				t.Errorf("AroundMe(%s): %s rank %d, want %d", u, e.User, e.Rank, want[e.User])
			}
		}
	}
	if around, _ := r.act.AroundMe(r.ctx, "c", Day, now, 0); len(around) != 1 || around[0].Rank != 2 {
		t.Errorf("AroundMe(c, 0) = %+v", around)
	}
}

func TestAroundMe(t *testing.T) {
	r := newRig(t)
	now := r.clock.Now()
	// u0 has 20 comments (60), u1 19 (57), ..., u19 1 (3).
	var evs []Event
	for i := range 20 {
		for j := range 20 - i {
			evs = append(evs, Event{User: fmt.Sprintf("u%d", i), Action: "comment", Target: fmt.Sprint(j)})
		}
	}
	if _, err := r.act.RecordMany(r.ctx, evs); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		user  string
		n     int
		users []string
	}{
		{"u5", 2, []string{"u3", "u4", "u5", "u6", "u7"}},
		{"u0", 2, []string{"u0", "u1", "u2"}},
		{"u19", 3, []string{"u16", "u17", "u18", "u19"}},
		{"u7", 0, []string{"u7"}},
		{"nobody", 3, nil},
	}
	for _, c := range cases {
		got, err := r.act.AroundMe(r.ctx, c.user, Day, now, c.n)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.users) {
			t.Fatalf("AroundMe(%s, %d) = %+v, want %v", c.user, c.n, got, c.users)
		}
		for i, e := range got {
			var k int
			fmt.Sscanf(e.User, "u%d", &k)
			if e.User != c.users[i] || e.Rank != k+1 || e.Score != int64(3*(20-k)) {
				t.Fatalf("AroundMe(%s, %d)[%d] = %+v, want %s rank %d score %d", c.user, c.n, i, e, c.users[i], k+1, 3*(20-k))
			}
		}
	}
}

// TestConcurrentSameEvent: 100 goroutines send the same event; it counts
// once.
func TestConcurrentSameEvent(t *testing.T) {
	r := newRig(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	applied := 0
	for range 100 {
		wg.Go(func() {
			res, err := r.act.Record(r.ctx, Event{User: "u", Action: "like", Target: "a"})
			if err != nil {
				t.Error(err)
				return
			}
			if res.Applied {
				mu.Lock()
				applied++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if applied != 1 {
		t.Fatalf("%d of 100 identical events applied, want 1", applied)
	}
	if got := r.score("u", Day, r.clock.Now()); got != 2 {
		t.Fatalf("day score %d, want 2", got)
	}
	if got := r.score("u", Month, r.clock.Now()); got != 2 {
		t.Fatalf("month score %d, want 2", got)
	}
}

// TestConcurrentLikeUnlike: 100 goroutines like and unlike the same
// article at random; the score ends as exactly 2 × whether it is liked,
// and the applied results alternate +2, -2 consistently.
func TestConcurrentLikeUnlike(t *testing.T) {
	r := newRig(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	sum := 0
	for g := range 100 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 20 {
				res, err := r.act.Record(r.ctx, Event{User: "u", Action: "like", Target: "a", Undo: rng.IntN(2) == 0})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				sum += res.Points
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	liked := int64(0)
	if v, _ := r.rdb.HGet(r.ctx, r.act.keys.ledger("u"), "like:a").Result(); strings.HasPrefix(v, "2|") {
		liked = 1
	}
	want := int64(-1)
	if liked == 1 {
		want = 2
	}
	if got := r.score("u", Day, r.clock.Now()); got != want {
		t.Fatalf("score %d, want %d (liked=%d)", got, want, liked)
	}
	if sum != int(2*liked) {
		t.Fatalf("sum of applied points %d, want %d", sum, 2*liked)
	}
}

// TestUndoAcrossMidnight: a like at 23:59:59 undone at 00:00:01 takes the
// points back from yesterday's board, not today's.
func TestUndoAcrossMidnight(t *testing.T) {
	r := newRig(t)
	r.clock.Set(at(2024, 1, 30, 23, 59, 59))
	yesterday := r.clock.Now()
	r.rec(Event{User: "u", Action: "like", Target: "a"})
	r.rec(Event{User: "u", Action: "visit", Target: "/a"})

	r.clock.Set(at(2024, 1, 31, 0, 0, 1))
	today := r.clock.Now()
	r.rec(Event{User: "u", Action: "comment", Target: "a"})
	res := r.rec(Event{User: "u", Action: "like", Target: "a", Undo: true})
	if want := (Result{Applied: true, Points: -2, Day: "2024-01-30", Month: "2024-01"}); res != want {
		t.Fatalf("undo: %+v, want %+v", res, want)
	}
	if got := r.score("u", Day, yesterday); got != 1 {
		t.Fatalf("yesterday's score %d, want 1 (the visit)", got)
	}
	if got := r.score("u", Day, today); got != 3 {
		t.Fatalf("today's score %d, want 3 (the comment)", got)
	}
	if got := r.score("u", Month, today); got != 4 {
		t.Fatalf("month score %d, want 4", got)
	}
}

// TestUndoAcrossMonth: a like on January 31 undone on February 1 takes
// the points from January's boards; February's are untouched.
func TestUndoAcrossMonth(t *testing.T) {
	r := newRig(t)
	r.clock.Set(at(2024, 1, 31, 23, 30, 0))
	jan := r.clock.Now()
	r.rec(Event{User: "u", Action: "like", Target: "a"})
	r.rec(Event{User: "v", Action: "like", Target: "a"})

	r.clock.Set(at(2024, 2, 1, 8, 0, 0))
	feb := r.clock.Now()
	r.rec(Event{User: "u", Action: "publish", Target: "p"})
	res := r.rec(Event{User: "u", Action: "like", Target: "a", Undo: true})
	if want := (Result{Applied: true, Points: -2, Day: "2024-01-31", Month: "2024-01"}); res != want {
		t.Fatalf("undo: %+v, want %+v", res, want)
	}
	for _, c := range []struct {
		p    Period
		date time.Time
		want int64
	}{{Day, jan, -1}, {Month, jan, -1}, {Day, feb, 10}, {Month, feb, 10}} {
		if got := r.score("u", c.p, c.date); got != c.want {
			t.Errorf("%s board of %s: score %d, want %d", c.p, c.date.Format(DayLayout), got, c.want)
		}
	}
	if got := r.score("v", Month, jan); got != 2 {
		t.Errorf("v's January score %d, want 2", got)
	}
	// Liking again in February counts in February.
	if res := r.rec(Event{User: "u", Action: "like", Target: "a"}); res.Month != "2024-02" || !res.Applied {
		t.Fatalf("like again: %+v", res)
	}
}

// TestUndoAfterBoardExpired: an undo whose day board has expired takes
// the points from the month board only and does not create a board
// without expiry.
func TestUndoAfterBoardExpired(t *testing.T) {
	r := newRig(t)
	r.rec(Event{User: "u", Action: "like", Target: "a"})
	r.rec(Event{User: "u", Action: "comment", Target: "a"})
	dayKey := r.act.keys.day("2024-01-31")
	r.rdb.Del(r.ctx, dayKey) // as if it had expired
	if res := r.rec(Event{User: "u", Action: "like", Target: "a", Undo: true}); !res.Applied {
		t.Fatalf("undo: %+v", res)
	}
	if n := r.rdb.Exists(r.ctx, dayKey).Val(); n != 0 {
		t.Fatal("undo recreated the expired day board")
	}
	if got := r.score("u", Month, r.clock.Now()); got != 3 {
		t.Fatalf("month score %d, want 3", got)
	}
}

// TestLateEvent: an event reported late goes to the day it happened on;
// At outside the accepted window is an error.
func TestLateEvent(t *testing.T) {
	r := newRig(t)
	r.clock.Set(at(2024, 2, 1, 0, 30, 0))
	res := r.rec(Event{User: "u", Action: "visit", Target: "/", At: at(2024, 1, 31, 23, 50, 0)})
	if res.Day != "2024-01-31" || res.Month != "2024-01" {
		t.Fatalf("late visit went to %s/%s", res.Day, res.Month)
	}
	// The repeat of that late visit is recognised, also a day later.
	r.clock.Set(at(2024, 2, 1, 23, 0, 0))
	if res := r.rec(Event{User: "u", Action: "visit", Target: "/", At: at(2024, 1, 31, 23, 50, 0)}); res.Applied {
		t.Fatalf("repeat of a late visit applied: %+v", res)
	}
	for _, a := range []time.Time{r.clock.Now().Add(MaxSkew + time.Second), r.clock.Now().Add(-MaxLateness - time.Second)} {
		_, err := r.act.Record(r.ctx, Event{User: "u", Action: "like", Target: "x", At: a})
		if !errors.Is(err, ErrEventTime) || !IsBadInput(err) {
			t.Fatalf("At %s: err %v, want ErrEventTime", a, err)
		}
	}
	// The time zone decides the day: 16:30 UTC on Jan 31 is Feb 1 in Shanghai.
	r.clock.Set(time.Date(2024, 1, 31, 16, 30, 0, 0, time.UTC))
	if res := r.rec(Event{User: "w", Action: "like", Target: "x"}); res.Day != "2024-02-01" {
		t.Fatalf("16:30 UTC went to %s, want 2024-02-01 (Shanghai)", res.Day)
	}
}

// TestTTLSetOnce: a board's expiry is set when it is created and later
// writes do not push it forward; ledger entries expire too.
func TestTTLSetOnce(t *testing.T) {
	r := newRig(t)
	r.rec(Event{User: "u", Action: "like", Target: "a"})
	dayKey, monthKey := r.act.keys.day("2024-01-31"), r.act.keys.month("2024-01")
	checkNear := func(what string, got, want time.Duration) {
		t.Helper()
		if got > want || got < want-time.Minute {
			t.Fatalf("%s TTL %s, want about %s", what, got, want)
		}
	}
	checkNear("day board", r.pttl(dayKey), r.cfg.DayRetention)
	checkNear("month board", r.pttl(monthKey), r.cfg.MonthRetention)
	checkNear("ledger", r.pttl(r.act.keys.ledger("u")), r.cfg.MonthRetention+ledgerSlack)

	// Shorten the expiries to one hour, as if the boards were old: later
	// writes, by the same and other users, an undo, and a board that
	// empties and is created again must not push them forward.
	r.rdb.PExpire(r.ctx, dayKey, time.Hour)
	r.rdb.PExpire(r.ctx, monthKey, time.Hour)
	r.clock.Advance(time.Hour)
	r.rec(Event{User: "u", Action: "comment", Target: "a"})
	r.rec(Event{User: "v", Action: "publish", Target: "b"})
	r.rec(Event{User: "u", Action: "like", Target: "a", Undo: true})
	r.rec(Event{User: "w", Action: "follow", Target: "u"})
	for _, k := range []string{dayKey, monthKey} {
		if d := r.pttl(k); d > time.Hour || d <= 0 {
			t.Fatalf("%s TTL %s after more writes, want <= 1h (set once)", k, d)
		}
	}

	// No key is left without an expiry except the invitation board's.
	for _, k := range r.keys() {
		if d := r.pttl(k); d < 0 {
			t.Errorf("key %s has no expiry (%s)", k, d)
		}
	}
}

func users(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.User)
	}
	return out
}

func TestBadInput(t *testing.T) {
	r := newRig(t)
	now := r.clock.Now()
	cases := []struct {
		ev   Event
		want error
	}{
		{Event{User: "", Action: "like", Target: "a"}, ErrEmptyUser},
		{Event{User: "  ", Action: "like", Target: "a"}, ErrEmptyUser},
		{Event{User: strings.Repeat("x", MaxIDLen+1), Action: "like", Target: "a"}, ErrBadUser},
		{Event{User: "a\nb", Action: "like", Target: "a"}, ErrBadUser},
		{Event{User: "u", Action: "dance", Target: "a"}, ErrUnknownAction},
		{Event{User: "u", Action: "", Target: "a"}, ErrUnknownAction},
		{Event{User: "u", Action: "like", Target: ""}, ErrBadTarget},
		{Event{User: "u", Action: "visit", Target: strings.Repeat("/", MaxTargetLen+1)}, ErrBadTarget},
		{Event{User: "u", Action: "visit", Target: "/", Undo: true}, ErrNotRevocable},
		{Event{User: "u", Action: "publish", Target: "1", Undo: true}, ErrNotRevocable},
	}
	for _, c := range cases {
		_, err := r.act.Record(r.ctx, c.ev)
		if !errors.Is(err, c.want) || !IsBadInput(err) {
			t.Errorf("Record(%+v): %v, want %v", c.ev, err, c.want)
		}
	}
	// RecordMany validates everything first: one bad event, nothing stored.
	_, err := r.act.RecordMany(r.ctx, []Event{{User: "u", Action: "like", Target: "a"}, {User: "u", Action: "nope", Target: "a"}})
	if !errors.Is(err, ErrUnknownAction) || !strings.Contains(err.Error(), "event 1") {
		t.Errorf("RecordMany with a bad event: %v", err)
	}
	if _, err := r.act.Top(r.ctx, "week", now, 10); !errors.Is(err, ErrBadPeriod) {
		t.Errorf("Top(week): %v", err)
	}
	for _, n := range []int{0, -1, MaxN + 1} {
		if _, err := r.act.Top(r.ctx, Day, now, n); !errors.Is(err, ErrBadLimit) || !IsBadInput(err) {
			t.Errorf("Top(n=%d): %v", n, err)
		}
	}
	if _, err := r.act.AroundMe(r.ctx, "u", Day, now, -1); !errors.Is(err, ErrBadLimit) {
		t.Errorf("AroundMe(n=-1): %v", err)
	}
	if _, _, err := r.act.Rank(r.ctx, "", Day, now); !errors.Is(err, ErrEmptyUser) {
		t.Errorf("Rank(''): %v", err)
	}
	if keys := r.keys(); len(keys) != 0 {
		t.Errorf("bad input stored keys %v", keys)
	}
}

func TestParsePeriodAndDate(t *testing.T) {
	r := newRig(t)
	for _, s := range []string{"day", "DAY", " month "} {
		if _, err := ParsePeriod(s); err != nil {
			t.Errorf("ParsePeriod(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "week", "days"} {
		if _, err := ParsePeriod(s); !errors.Is(err, ErrBadPeriod) || !IsBadInput(err) {
			t.Errorf("ParsePeriod(%q): %v", s, err)
		}
	}
	good := []struct {
		p    Period
		s    string
		want string
	}{
		{Day, "2024-01-05", "2024-01-05"},
		{Day, "", "2024-01-31"},
		{Month, "2023-12", "2023-12-01"},
		{Month, "2023-12-24", "2023-12-24"},
	}
	for _, g := range good {
		d, err := r.act.ParseDate(g.p, g.s)
		if err != nil || d.Format(DayLayout) != g.want || d.Location().String() != "Asia/Shanghai" {
			t.Errorf("ParseDate(%s, %q) = %s %v, want %s in Shanghai", g.p, g.s, d, err, g.want)
		}
	}
	for _, b := range []struct {
		p Period
		s string
	}{{Day, "2024-01"}, {Day, "31/01/2024"}, {Month, "2024-13"}, {Day, "2024-02-30"}, {Month, "yesterday"}} {
		if _, err := r.act.ParseDate(b.p, b.s); !errors.Is(err, ErrBadDate) || !IsBadInput(err) {
			t.Errorf("ParseDate(%s, %q): %v, want ErrBadDate", b.p, b.s, err)
		}
	}
	if _, err := r.act.ParseDate("year", "2024"); !errors.Is(err, ErrBadPeriod) {
		t.Errorf("ParseDate(year): %v", err)
	}
}

// TestRecordMany: a batch gives the same results as one by one, in
// order, and survives a server that forgot its scripts.
func TestRecordMany(t *testing.T) {
	r := newRig(t)
	evs := []Event{
		{User: "u", Action: "like", Target: "a"},
		{User: "u", Action: "like", Target: "a"},
		{User: "u", Action: "like", Target: "a", Undo: true},
		{User: "u", Action: "like", Target: "a"},
		{User: "u", Action: "comment", Target: "a"},
		{User: "u", Action: "comment", Target: "a", Undo: true},
		{User: "v", Action: "visit", Target: "/"},
	}
	for range 2 * MaxBatch {
		evs = append(evs, Event{User: "w", Action: "visit", Target: "/same"})
	}
	if err := r.rdb.ScriptFlush(r.ctx).Err(); err != nil {
		t.Fatal(err)
	}
	res, err := r.act.RecordMany(r.ctx, evs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(evs) {
		t.Fatalf("%d results for %d events", len(res), len(evs))
	}
	wantPoints := []int{2, 0, -2, 2, 3, -3, 1, 1}
	for i, w := range wantPoints {
		if res[i].Points != w {
			t.Errorf("result %d (%+v) = %+v, want %d points", i, evs[i], res[i], w)
		}
	}
	for i := len(wantPoints); i < len(res); i++ {
		if res[i].Applied {
			t.Fatalf("repeat visit %d applied", i)
		}
	}
	now := r.clock.Now()
	for u, want := range map[string]int64{"u": 2, "v": 1, "w": 1} {
		if got := r.score(u, Day, now); got != want {
			t.Errorf("%s: %d, want %d", u, got, want)
		}
	}

	// Late events of yesterday mixed with today's go to their own days,
	// and a repeat across them still counts once.
	r.clock.Set(at(2024, 2, 1, 0, 10, 0))
	late := at(2024, 1, 31, 23, 55, 0)
	res, err = r.act.RecordMany(r.ctx, []Event{
		{User: "x", Action: "comment", Target: "1", At: late},
		{User: "x", Action: "comment", Target: "2"},
		{User: "x", Action: "comment", Target: "3", At: late},
		{User: "x", Action: "comment", Target: "1"},
		{User: "x", Action: "visit", Target: "/", At: late},
		{User: "x", Action: "visit", Target: "/"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var days []string
	for _, rs := range res {
		days = append(days, fmt.Sprintf("%d %s", rs.Points, rs.Day))
	}
	if want := []string{"3 2024-01-31", "3 2024-02-01", "3 2024-01-31", "0 2024-02-01", "1 2024-01-31", "1 2024-02-01"}; !slices.Equal(days, want) {
		t.Fatalf("mixed days: %v, want %v", days, want)
	}
	if got := r.score("x", Day, late); got != 7 {
		t.Fatalf("x on Jan 31: %d, want 7", got)
	}
	if got := r.score("x", Month, r.clock.Now()); got != 4 {
		t.Fatalf("x in February: %d, want 4", got)
	}
}

// TestKeys: every key carries the prefix and its family's hash tag, and
// user ids with ':' cannot collide in the ledger.
func TestKeys(t *testing.T) {
	r := newRig(t)
	if !r.rec(Event{User: "x:like", Action: "like", Target: "y"}).Applied ||
		!r.rec(Event{User: "x", Action: "like", Target: "like:y"}).Applied {
		t.Fatal("two different likes collided in the ledger")
	}
	r.rec(Event{User: "x", Action: "visit", Target: "/a:b"})
	if _, err := r.inv.Register(r.ctx, "new", "x"); err != nil {
		t.Fatal(err)
	}
	for _, k := range r.keys() {
		if !strings.HasPrefix(k, testPrefix+ActivityTag+":") && !strings.HasPrefix(k, testPrefix+InvitesTag+":") {
			t.Errorf("key %q lacks the prefix and hash tag", k)
		}
	}
}
