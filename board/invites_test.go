package board

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// inviteZ is the board member an inviter with count invitations, the
// latest numbered seq, has: count × 2^32 + (MaxInviteSeq − seq), as the
// Invites doc says.
func inviteZ(user string, count, seq int64) redis.Z {
	return redis.Z{Member: user, Score: float64(count<<32 + (MaxInviteSeq - seq))}
}

// TestInvitesRegisterTopRank: each registration with an invite code gives
// the inviter one point; top N and "my rank".
func TestInvitesRegisterTopRank(t *testing.T) {
	r := newRig(t)
	reg := func(invitee, inviter string) Entry {
		t.Helper()
		e, err := r.inv.Register(r.ctx, invitee, inviter)
		if err != nil {
			t.Fatalf("Register(%s, %s): %v", invitee, inviter, err)
		}
		return e
	}
	reg("n1", "alice")
	reg("n2", "bob")
	reg("n3", "bob")
	if e := reg("n4", "alice"); e != (Entry{Rank: 2, User: "alice", Score: 2}) {
		t.Fatalf("alice after 2 invitations: %+v, want rank 2 (bob reached 2 first)", e)
	}
	reg("n5", "carol")
	top, err := r.inv.Top(r.ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{1, "bob", 2}, {2, "alice", 2}, {3, "carol", 1}}
	if !slices.Equal(top, want) {
		t.Fatalf("Top = %+v, want %+v", top, want)
	}
	if e, ok, err := r.inv.Rank(r.ctx, "alice"); err != nil || !ok || e != want[1] {
		t.Fatalf("Rank(alice) = %+v %v %v", e, ok, err)
	}
	if _, ok, err := r.inv.Rank(r.ctx, "n1"); ok || err != nil {
		t.Fatalf("Rank of a user who invited nobody: %v %v", ok, err)
	}
	if who, ok, err := r.inv.InvitedBy(r.ctx, "n4"); who != "alice" || !ok || err != nil {
		t.Fatalf("InvitedBy(n4) = %q %v %v", who, ok, err)
	}
	if _, ok, err := r.inv.InvitedBy(r.ctx, "stranger"); ok || err != nil {
		t.Fatalf("InvitedBy(stranger) = %v %v", ok, err)
	}

	// A second registration of n1, by anyone, is rejected and changes
	// nothing.
	for _, inviter := range []string{"alice", "carol"} {
		if _, err := r.inv.Register(r.ctx, "n1", inviter); !errors.Is(err, ErrAlreadyRegistered) || IsBadInput(err) {
			t.Fatalf("second Register(n1, %s): %v, want ErrAlreadyRegistered", inviter, err)
		}
	}
	bad := []struct {
		invitee, inviter string
		want             error
	}{
		{"n9", "n9", ErrSelfInvite},
		{"", "alice", ErrEmptyUser},
		{"n9", "", ErrEmptyUser},
		{"n9", "bad\x00id", ErrBadUser},
	}
	for _, b := range bad {
		if _, err := r.inv.Register(r.ctx, b.invitee, b.inviter); !errors.Is(err, b.want) || !IsBadInput(err) {
			t.Fatalf("Register(%q, %q): %v, want %v", b.invitee, b.inviter, err, b.want)
		}
	}
	if _, err := r.inv.Top(r.ctx, 0); !errors.Is(err, ErrBadLimit) {
		t.Fatalf("Top(0): %v", err)
	}
	if top2, _ := r.inv.Top(r.ctx, 10); !slices.Equal(top2, want) {
		t.Fatalf("rejected registrations changed the board: %+v", top2)
	}
}

// seedInviters puts the invitation board in the state that registrations
// would leave: every user in users with count invitations, their latest
// ones numbered by lastSeq, and the sequence at seq. It is how a test gets
// to counts above 10,000 without ten million registrations.
func (r *rig) seedInviters(users []string, count int64, lastSeq []int64, seq int64) {
	r.t.Helper()
	k := r.inv.keys
	pipe := r.rdb.Pipeline()
	for i, u := range users {
		pipe.HSet(r.ctx, k.counts(), u, count)
		pipe.ZAdd(r.ctx, k.board(), inviteZ(u, count, lastSeq[i]))
	}
	pipe.Set(r.ctx, k.seq(), seq, 0)
	if _, err := pipe.Exec(r.ctx); err != nil {
		r.t.Fatal(err)
	}
}

// TestInviteTieBreakExact: 1,000 users at 10,000 invitations each reach
// 10,001 one millisecond apart in a known order; the board ranks them in
// exactly that order. A tie-break folded into a float score, count + (1 −
// ms/1e13), cannot: at that size a float64 has no room for the
// millisecond.
func TestInviteTieBreakExact(t *testing.T) {
	r := newRig(t)
	const n = 1000
	users := make([]string, n)
	for i := range users {
		users[i] = fmt.Sprintf("user%04d", i)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	// Their 10,000th invitations came in some order ...
	prev := rng.Perm(n)
	lastSeq := make([]int64, n)
	for i, p := range prev {
		lastSeq[i] = 9_000_000 + int64(p)
	}
	r.seedInviters(users, 10_000, lastSeq, 10_000_000)
	// ... and their 10,001st in another, known one.
	order := rng.Perm(n)
	floatScores := make(map[string]float64, n)
	for i, idx := range order {
		u := users[idx]
		r.clock.Advance(time.Millisecond)
		e, err := r.inv.Register(r.ctx, fmt.Sprintf("new%04d", i), u)
		if err != nil {
			t.Fatal(err)
		}
		if e.Score != 10_001 || e.Rank != i+1 {
			t.Fatalf("registration %d: %+v, want score 10001 rank %d", i, e, i+1)
		}
		ms := r.clock.Now().UnixMilli()
		floatScores[u] = 10_001*100 + 1 - float64(ms)/1e13 // the float tie-break
	}
	top, err := r.inv.Top(r.ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != n {
		t.Fatalf("Top(%d) has %d entries", n, len(top))
	}
	for i, e := range top {
		if want := (Entry{Rank: i + 1, User: users[order[i]], Score: 10_001}); e != want {
			t.Fatalf("Top[%d] = %+v, want %+v", i, e, want)
		}
	}
	for _, i := range []int{0, 1, 499, 998, 999} {
		e, ok, err := r.inv.Rank(r.ctx, users[order[i]])
		if err != nil || !ok || e.Rank != i+1 || e.Score != 10_001 {
			t.Fatalf("Rank(%s) = %+v %v %v, want %d", users[order[i]], e, ok, err, i+1)
		}
	}

	// The float tie-break collapses these 1,000 scores into a few
	// distinct values, so it cannot tell the order.
	distinct := map[float64]bool{}
	for _, s := range floatScores {
		distinct[s] = true
	}
	if len(distinct) == n {
		t.Fatalf("the float tie-break kept all %d scores distinct; the test does not show its bug", n)
	}
	t.Logf("the float tie-break score + 1 - ms/1e13 gives %d distinct scores for %d users; ours gives %d", len(distinct), n, n)
}

// TestInviteBounds: at the very top of the encoding (count 2^21−1, seq
// near 2^32−1) the order is still exact, and one more is ErrOverflow
// with nothing changed.
func TestInviteBounds(t *testing.T) {
	r := newRig(t)
	r.seedInviters([]string{"a", "b", "c"}, MaxInviteCount-1, []int64{MaxInviteSeq - 10, MaxInviteSeq - 9, MaxInviteSeq - 8}, MaxInviteSeq-5)
	for i, u := range []string{"c", "a", "b"} {
		e, err := r.inv.Register(r.ctx, "x"+u, u)
		if err != nil || e.Score != MaxInviteCount || e.Rank != i+1 {
			t.Fatalf("Register for %s: %+v %v", u, e, err)
		}
	}
	top, _ := r.inv.Top(r.ctx, 3)
	if got := users(top); !slices.Equal(got, []string{"c", "a", "b"}) {
		t.Fatalf("order at the bounds: %v, want [c a b]", got)
	}
	if _, err := r.inv.Register(r.ctx, "y", "a"); !errors.Is(err, ErrOverflow) {
		t.Fatalf("count past the bound: %v, want ErrOverflow", err)
	}
	e, err := r.inv.Register(r.ctx, "y", "d") // seq MaxInviteSeq-1
	if err != nil || e.Rank != 4 {
		t.Fatalf("Register(y, d): %+v %v", e, err)
	}
	r.inv.Register(r.ctx, "z", "d") // seq MaxInviteSeq
	if _, err := r.inv.Register(r.ctx, "w", "d"); !errors.Is(err, ErrOverflow) {
		t.Fatalf("seq past the bound: %v, want ErrOverflow", err)
	}
	if _, ok, _ := r.inv.InvitedBy(r.ctx, "w"); ok {
		t.Fatal("an overflowing registration was stored")
	}
	if e, _, _ := r.inv.Rank(r.ctx, "d"); e.Score != 2 {
		t.Fatalf("d's count %d, want 2", e.Score)
	}
}

// TestInvitesConcurrent: registrations race without a lock and stay exact.
func TestInvitesConcurrent(t *testing.T) {
	r := newRig(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	// 100 inviters claim the same invitee: one wins.
	for g := range 100 {
		wg.Go(func() {
			_, err := r.inv.Register(r.ctx, "popular", fmt.Sprintf("inviter%d", g))
			switch {
			case err == nil:
				mu.Lock()
				wins++
				mu.Unlock()
			case !errors.Is(err, ErrAlreadyRegistered):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d registrations of the same invitee succeeded, want 1", wins)
	}
	// 500 invitees for 5 inviters, concurrently: exact counts, and the
	// board orders them by count, then by who reached it first.
	var entries []Entry
	for g := range 500 {
		wg.Go(func() {
			e, err := r.inv.Register(r.ctx, fmt.Sprintf("n%d", g), fmt.Sprintf("p%d", g%5))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			entries = append(entries, e)
			mu.Unlock()
		})
	}
	wg.Wait()
	top, err := r.inv.Top(r.ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	for _, e := range top {
		total += e.Score
	}
	if total != 501 {
		t.Fatalf("counts sum to %d, want 501: %+v", total, top)
	}
	for i, e := range top[:5] {
		if e.Score != 100 || e.Rank != i+1 {
			t.Fatalf("Top[%d] = %+v, want an inviter with 100", i, e)
		}
	}
	// Every registration saw a distinct count per inviter, 1..100.
	seen := map[Entry]bool{}
	for _, e := range entries {
		e.Rank = 0
		if seen[e] {
			t.Fatalf("two registrations returned %+v", e)
		}
		seen[e] = true
	}
	if seq := r.rdb.Get(r.ctx, r.inv.keys.seq()).Val(); seq != "501" {
		t.Fatalf("seq %s, want 501", seq)
	}
}

// TestInvitesCap: with cap K the board keeps the top K inviters; an
// inviter left out keeps an exact count and enters when it beats the
// K-th (an admission threshold, so nothing is lost).
func TestInvitesCap(t *testing.T) {
	r := newRig(t, func(b *Options) { b.Cap = 2 })
	reg := func(invitee, inviter string) Entry {
		t.Helper()
		e, err := r.inv.Register(r.ctx, invitee, inviter)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	reg("1", "a")
	reg("2", "a")
	reg("3", "b")
	if e := reg("4", "c"); e.Rank != 0 || e.Score != 1 {
		t.Fatalf("c not admitted (ties b, came later): %+v", e)
	}
	if e, ok, _ := r.inv.Rank(r.ctx, "c"); ok || e.Score != 1 {
		t.Fatalf("Rank(c) = %+v %v, want not ranked with count 1", e, ok)
	}
	if e := reg("5", "c"); e.Rank != 2 || e.Score != 2 {
		t.Fatalf("c with 2 is admitted: %+v", e)
	}
	top, _ := r.inv.Top(r.ctx, 10)
	if want := []Entry{{1, "a", 2}, {2, "c", 2}}; !slices.Equal(top, want) {
		t.Fatalf("capped board %+v, want %+v", top, want)
	}
	if n := r.rdb.ZCard(r.ctx, r.inv.keys.board()).Val(); n != 2 {
		t.Fatalf("board holds %d, want 2", n)
	}
	// b, pushed out, comes back with its exact count 1+1 = 2 ... which
	// ties a and c but reached it last: not admitted; with 3 it leads.
	if e := reg("6", "b"); e.Rank != 0 || e.Score != 2 {
		t.Fatalf("b at 2: %+v", e)
	}
	if e := reg("7", "b"); e.Rank != 1 || e.Score != 3 {
		t.Fatalf("b at 3: %+v", e)
	}
}
