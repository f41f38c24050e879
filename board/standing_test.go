package board

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

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
