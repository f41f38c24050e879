package board

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
)

const testPrefix = "newsrank:"

// shanghai is the zone the tests use, so that day boundaries differ from
// UTC's.
var shanghai = mustZone("Asia/Shanghai")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// rig is what a test works with.
type rig struct {
	t     *testing.T
	ctx   context.Context
	rdb   *redis.Client
	clock *clock.Fake
	cfg   Options
	act   *Activity
	inv   *Invites
}

// newRig starts a redis-server, sets the fake clock to 2024-01-31 10:00
// Shanghai time and builds the boards with cfg changed by edit.
func newRig(t *testing.T, edit ...func(*Options)) *rig {
	t.Helper()
	s := redistest.Start(t)
	r := &rig{t: t, ctx: context.Background(), rdb: s.Client(),
		clock: clock.NewFake(time.Date(2024, 1, 31, 10, 0, 0, 0, shanghai))}
	r.cfg = DefaultOptions()
	r.cfg.Location = shanghai
	for _, f := range edit {
		f(&r.cfg)
	}
	r.build()
	return r
}

func (r *rig) build() {
	r.t.Helper()
	var err error
	if r.act, err = NewActivity(r.rdb, testPrefix, r.cfg, WithClock(r.clock)); err != nil {
		r.t.Fatal(err)
	}
	if r.inv, err = NewInvites(r.rdb, testPrefix, r.cfg, WithClock(r.clock)); err != nil {
		r.t.Fatal(err)
	}
}

// rec records ev and fails the test on error.
func (r *rig) rec(ev Event) Result {
	r.t.Helper()
	res, err := r.act.Record(r.ctx, ev)
	if err != nil {
		r.t.Fatalf("Record(%+v): %v", ev, err)
	}
	return res
}

// score returns user's score on the board of p holding date, or -1 when
// not ranked.
func (r *rig) score(user string, p Period, date time.Time) int64 {
	r.t.Helper()
	e, ok, err := r.act.Rank(r.ctx, user, p, date)
	if err != nil {
		r.t.Fatal(err)
	}
	if !ok {
		return -1
	}
	return e.Score
}

// at returns the given Shanghai wall-clock time.
func at(y int, m time.Month, d, hh, mm, ss int) time.Time {
	return time.Date(y, m, d, hh, mm, ss, 0, shanghai)
}

// keys lists every key of the test server (tests only: SCAN is fine on a
// throwaway server).
func (r *rig) keys() []string {
	r.t.Helper()
	var out []string
	iter := r.rdb.Scan(r.ctx, 0, "*", 100).Iterator()
	for iter.Next(r.ctx) {
		out = append(out, iter.Val())
	}
	if err := iter.Err(); err != nil {
		r.t.Fatal(err)
	}
	return out
}

func (r *rig) pttl(key string) time.Duration {
	r.t.Helper()
	d, err := r.rdb.PTTL(r.ctx, key).Result()
	if err != nil {
		r.t.Fatal(err)
	}
	return d
}

// give records a publish of n distinct articles (10 points each by
// default) by user at t.
func (r *rig) give(user string, n int, t time.Time) {
	r.t.Helper()
	for i := range n {
		r.rec(Event{User: user, Action: "publish", Target: fmt.Sprint(user, "-", t.Unix(), "-", i), At: t})
	}
}
