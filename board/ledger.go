package board

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/rdb"
)

// settings returns ARGV[1..7] of awardCmd and revokeCmd (activityLua).
func (a *Activity) settings(now time.Time) []any {
	c := a.cutoffs(now)
	return []any{a.dayTTL.Milliseconds(), a.monthTTL.Milliseconds(), a.cap, c.award, c.short,
		(a.ledTTL + ledgerSlack).Milliseconds(), (a.ledTTL + ledgerRefresh).Milliseconds()}
}

// plan is a validated event with everything its script needs.
type plan struct {
	ev     Event
	points int
	day    string // the award's day board (DayLayout); empty for an undo
	month  string
	ledger string // the user's ledger HASH
	field  string // the event's field in it
	legacy string // its legacy entry's key
}

func (a *Activity) prepare(ev Event, now time.Time) (plan, error) {
	if err := checkUser("user", ev.User); err != nil {
		return plan{}, err
	}
	if !slices.Contains(Actions(), ev.Action) {
		return plan{}, fmt.Errorf("action %q: %w: must be one of %s", ev.Action, ErrUnknownAction, strings.Join(Actions(), ", "))
	}
	if err := checkTarget(ev.Action, ev.Target); err != nil {
		return plan{}, err
	}
	if ev.Version < 0 || ev.Version > MaxVersion {
		return plan{}, fmt.Errorf("version %d: %w: must be between 1 and %d, or 0 for none", ev.Version, ErrBadVersion, int64(MaxVersion))
	}
	if (ev.Undo || ev.Version > 0) && !revocable[ev.Action] {
		what := "undo"
		if !ev.Undo {
			what = "versioned"
		}
		return plan{}, fmt.Errorf("%s %s: %w", what, ev.Action, ErrNotRevocable)
	}
	p := plan{ev: ev, ledger: a.keys.ledger(ev.User)}
	if ev.Undo {
		p.field = ledgerField(ev.Action, ev.Target, "")
		p.legacy = a.keys.legacyLedger(ev.User, ev.Action, ev.Target)
		return p, nil
	}
	at := ev.At
	if at.IsZero() {
		at = now
	}
	if at.After(now.Add(MaxSkew)) {
		return plan{}, fmt.Errorf("at %s: %w: more than %s in the future", at.Format(time.RFC3339), ErrEventTime, MaxSkew)
	}
	if at.Before(now.Add(-MaxLateness)) {
		return plan{}, fmt.Errorf("at %s: %w: more than %s ago", at.Format(time.RFC3339), ErrEventTime, MaxLateness)
	}
	local := at.In(a.loc)
	p.day, p.month = local.Format(DayLayout), local.Format(MonthLayout)
	p.points = a.weights[ev.Action]
	p.field = ledgerField(ev.Action, ev.Target, local.Format(ledgerDay))
	p.legacy = a.keys.legacyLedger(ev.User, ev.Action, ev.Target) // never read for a visit
	return p, nil
}

// value is the ledger value of p's award.
func (p plan) value() string {
	if p.ev.Action == "visit" {
		return strconv.Itoa(p.points)
	}
	return strconv.Itoa(p.points) + "|" + strings.ReplaceAll(p.day, "-", "")
}

func (p plan) result(applied bool) Result {
	r := Result{Applied: applied, Day: p.day, Month: p.month}
	if applied {
		r.Points = p.points
	}
	return r
}

// awardArgs builds awardCmd's keys and arguments for ps, which share a
// day and month.
func (a *Activity) awardArgs(ps []plan, now time.Time) ([]string, []any) {
	keys := make([]string, 0, 8+2*len(ps))
	args := make([]any, 0, 7+4*len(ps))
	keys = append(keys, a.keys.boards(ps[0].day, ps[0].month)...)
	args = append(args, a.settings(now)...)
	for _, p := range ps {
		keys = append(keys, p.ledger, p.legacy)
		ver := ""
		if p.ev.Version > 0 {
			ver = strconv.FormatInt(p.ev.Version, 10)
		}
		args = append(args, p.ev.User, p.field, p.value(), ver)
	}
	return keys, args
}

// Record applies one event atomically: an award adds the action's weight
// to the user's day and month boards once per (user, action, target) — a
// visit once per (user, path, day); an undo takes back exactly the points
// of that award from the boards it went to. Repeats and undos of nothing
// are no-ops (Result.Applied false). See Event.Version for events that
// state a versioned state.
func (a *Activity) Record(ctx context.Context, ev Event) (Result, error) {
	now := a.clock.Now()
	p, err := a.prepare(ev, now)
	if err != nil {
		return Result{}, err
	}
	if ev.Undo {
		return a.revoke(ctx, p, now)
	}
	return a.award(ctx, p, now)
}

// SetLike records whether user likes article as of version (> 0): liked
// awards the like points unless they are awarded, !liked takes them back
// if they are; a version not newer than the last one applied to (user,
// article) changes nothing. Package news calls it after each vote with
// the vote's version (news.Activity).
func (a *Activity) SetLike(ctx context.Context, user, article string, liked bool, version int64) error {
	_, err := a.Record(ctx, Event{User: user, Action: "like", Target: article, Undo: !liked, Version: version})
	return err
}

// Publish awards user's publication of article (once per article).
func (a *Activity) Publish(ctx context.Context, user, article string) error {
	_, err := a.Record(ctx, Event{User: user, Action: "publish", Target: article})
	return err
}

// Visit awards user's visit of the page at path (once per day).
func (a *Activity) Visit(ctx context.Context, user, path string) error {
	_, err := a.Record(ctx, Event{User: user, Action: "visit", Target: path})
	return err
}

func (a *Activity) award(ctx context.Context, p plan, now time.Time) (Result, error) {
	rs, err := a.awardBatch(ctx, []plan{p}, now)
	if err != nil {
		return Result{}, err
	}
	a.log.Debug("activity award", "user", p.ev.User, "action", p.ev.Action, "target", p.ev.Target, "version", p.ev.Version,
		"applied", rs[0].Applied, "points", rs[0].Points, "day", rs[0].Day)
	return rs[0], nil
}

// undoAttempts bounds the read → compare-and-set loop of an undo. Each
// retry means another client changed the same ledger field in between
// (so that client made progress); between attempts the undo backs off
// for a random time up to undoBackoff(i), so that clients that keep
// colliding on one field (a like toggled from many tabs at once) spread
// out instead of failing: with 100 goroutines toggling one like, 10
// attempts without a pause failed about once in 15 runs.
const undoAttempts = 40

// undoBackoff is the longest pause before attempt i+1 of an undo: 1 ms
// doubling up to 32 ms (at most ~1 s over all attempts).
func undoBackoff(i int) time.Duration {
	return time.Millisecond << min(i, 5)
}

// revoke applies an undo, or a versioned event saying the action does
// not stand: it reads the ledger field (and, when the field is missing,
// the legacy entry), decides, and writes with revokeCmd if what it read
// is unchanged, reading again if another client got there first.
func (a *Activity) revoke(ctx context.Context, p plan, now time.Time) (Result, error) {
	fail := func(err error) (Result, error) {
		return Result{}, fmt.Errorf("undo %s %s by %s: %w", p.ev.Action, p.ev.Target, p.ev.User, err)
	}
	c := a.cutoffs(now)
	today := now.In(a.loc).Format(ledgerDay)
	for i := range undoAttempts {
		if i > 0 {
			if err := clock.Sleep(ctx, rand.N(undoBackoff(i-1))); err != nil {
				return fail(err)
			}
		}
		cur, err := a.rdb.HGet(ctx, p.ledger, p.field).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return fail(err)
		}
		var e entry
		var legacy string
		have := false
		if cur != "" {
			if e, err = parseEntry(cur); err != nil {
				return fail(fmt.Errorf("ledger %s field %q: %w", p.ledger, p.field, err))
			}
			have = e.live(c)
		} else {
			legacy, err = a.rdb.Get(ctx, p.legacy).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				return fail(err)
			}
			if legacy != "" {
				if e, err = parseLegacy(legacy); err != nil {
					return fail(fmt.Errorf("legacy ledger %s: %w", p.legacy, err))
				}
				have = true
			}
		}
		take, next := 0, ""
		if have && e.points > 0 {
			take = e.points
		}
		switch {
		case p.ev.Version > 0 && have && e.version >= p.ev.Version:
			return Result{}, nil // stale: a newer state was applied
		case p.ev.Version > 0:
			next = entry{day: today, version: p.ev.Version}.String()
		case take == 0:
			return Result{}, nil // never awarded, already undone, or forgotten
		case e.version > 0:
			next = entry{day: today, version: e.version}.String() // keep the version
		}
		day, month := now.In(a.loc).Format(DayLayout), now.In(a.loc).Format(MonthLayout)
		if take > 0 {
			day, month = e.boards()
		}
		keys := append(a.keys.boards(day, month), p.ledger, p.legacy)
		args := append(a.settings(now), p.ev.User, p.field, cur, legacy, take, next)
		n, err := revokeCmd.Run(ctx, a.rdb, keys, args...).Int()
		if err != nil {
			return fail(err)
		}
		if n == 1 {
			if take == 0 {
				return Result{}, nil
			}
			a.log.Debug("activity undo", "user", p.ev.User, "action", p.ev.Action, "target", p.ev.Target, "version", p.ev.Version, "points", -take, "day", day)
			return Result{Applied: true, Points: -take, Day: day, Month: month}, nil
		}
	}
	return fail(fmt.Errorf("ledger field changed %d times while undoing", undoAttempts))
}

// scriptEvents is the most events one awardCmd call carries, so that one
// call keeps Redis busy for well under a millisecond.
const scriptEvents = 50

// RecordMany applies events in order, with the same effect and results
// as Record one by one, in fewer round trips: consecutive awards of the
// same day go to Redis together, up to scriptEvents per script call and
// MaxBatch per pipeline (each event is still applied atomically and
// exactly once); an undo is sent on its own, after the awards before it.
// All events are validated first: if one is bad, the error names its index
// and nothing is recorded. On a Redis error the results cover the events
// recorded before the failed pipeline; sending the rest again is safe,
// since a repeat counts nothing.
func (a *Activity) RecordMany(ctx context.Context, evs []Event) ([]Result, error) {
	now := a.clock.Now()
	plans := make([]plan, len(evs))
	for i, ev := range evs {
		p, err := a.prepare(ev, now)
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		plans[i] = p
	}
	results := make([]Result, 0, len(evs))
	var batch []plan
	flush := func() error {
		rs, err := a.awardBatch(ctx, batch, now)
		if err != nil {
			return err
		}
		results = append(results, rs...)
		batch = batch[:0]
		return nil
	}
	for _, p := range plans {
		if p.ev.Undo {
			if err := flush(); err != nil {
				return results, err
			}
			r, err := a.revoke(ctx, p, now)
			if err != nil {
				return results, err
			}
			results = append(results, r)
			continue
		}
		batch = append(batch, p)
		if len(batch) == MaxBatch {
			if err := flush(); err != nil {
				return results, err
			}
		}
	}
	if err := flush(); err != nil {
		return results, err
	}
	return results, nil
}

// awardBatch awards ps, in order, in one pipeline of awardCmd calls by
// EVALSHA, each call carrying up to scriptEvents consecutive events of one
// day (rdb.Pipelined loads the script when the server does not know it).
func (a *Activity) awardBatch(ctx context.Context, ps []plan, now time.Time) ([]Result, error) {
	out := make([]Result, len(ps))
	var calls [][]int // indexes into ps, per call
	for i, p := range ps {
		if p.points == 0 {
			out[i] = p.result(false)
			continue
		}
		if n := len(calls); n == 0 || len(calls[n-1]) == scriptEvents || ps[calls[n-1][0]].day != p.day {
			calls = append(calls, nil)
		}
		calls[len(calls)-1] = append(calls[len(calls)-1], i)
	}
	if len(calls) == 0 {
		return out, nil
	}
	cmds, err := rdb.EvalEach(ctx, a.rdb, awardCmd, len(calls), func(c int) ([]string, []any) {
		group := make([]plan, len(calls[c]))
		for j, i := range calls[c] {
			group[j] = ps[i]
		}
		return a.awardArgs(group, now)
	})
	if err != nil {
		return nil, fmt.Errorf("record %d events: %w", len(ps), err)
	}
	for c, cmd := range cmds {
		vals, err := cmd.Int64Slice()
		if err == nil && len(vals) != len(calls[c]) {
			err = fmt.Errorf("unexpected reply %v", vals)
		}
		if err != nil {
			return nil, fmt.Errorf("record %d events: %w", len(ps), err)
		}
		for j, i := range calls[c] {
			out[i] = ps[i].result(vals[j] == 1)
		}
	}
	return out, nil
}

// The ledger: one hash per user whose fields are the actions it has taken
// (ledgerField) and whose values are what each earned (entry).

// ledgerDay is the layout of the days in ledger values (compact: the
// ledger holds one per award).
const ledgerDay = "20060102"

// MaxVersion is the largest Event.Version accepted: the scripts compare
// versions as Lua numbers (doubles), exact below 2^53.
const MaxVersion = 1<<53 - 1

// maxFieldTarget is the longest target kept as it is in a ledger field;
// a longer one is replaced by a digest, so that every field stays below
// Redis's hash-max-listpack-value (64) and the user's ledger in the
// compact listpack encoding.
const maxFieldTarget = 40

// ledgerField is the field of the ledger hash that records user's action
// on target: "action:target", or "YYYYMMDD:path" for a visit (every
// action starts with a letter, a visit's field with a digit). A
// target longer than maxFieldTarget bytes is "\x01" and 32 hex digits of
// its SHA-256 (targets hold no control characters, so the two forms
// cannot meet).
func ledgerField(action, target, day8 string) string {
	if len(target) > maxFieldTarget {
		sum := sha256.Sum256([]byte(target))
		target = "\x01" + hex.EncodeToString(sum[:16])
	}
	if action == "visit" {
		return day8 + ":" + target
	}
	return action + ":" + target
}

// entry is a ledger value, "points|YYYYMMDD" or "points|YYYYMMDD|version":
// the points an award gave and its day, or, with points 0, a refusal (the
// action does not stand as of version). Visits keep only their points:
// they cannot be undone.
type entry struct {
	points  int
	day     string // ledgerDay
	version int64  // 0: none
}

func (e entry) String() string {
	s := strconv.Itoa(e.points) + "|" + e.day
	if e.version > 0 {
		s += "|" + strconv.FormatInt(e.version, 10)
	}
	return s
}

func parseEntry(v string) (entry, error) {
	parts := strings.Split(v, "|")
	if len(parts) < 2 || len(parts) > 3 {
		return entry{}, fmt.Errorf("malformed ledger value %q", v)
	}
	var e entry
	var err error
	if e.points, err = strconv.Atoi(parts[0]); err != nil || e.points < 0 {
		return entry{}, fmt.Errorf("malformed points in %q", v)
	}
	if _, err := time.Parse(ledgerDay, parts[1]); err != nil {
		return entry{}, fmt.Errorf("malformed day in %q", v)
	}
	e.day = parts[1]
	if len(parts) == 3 {
		if e.version, err = strconv.ParseInt(parts[2], 10, 64); err != nil || e.version <= 0 {
			return entry{}, fmt.Errorf("malformed version in %q", v)
		}
	}
	return e, nil
}

// parseLegacy parses a legacy per-award entry, "points|YYYY-MM-DD|YYYY-MM".
func parseLegacy(v string) (entry, error) {
	parts := strings.Split(v, "|")
	if len(parts) != 3 {
		return entry{}, fmt.Errorf("malformed legacy ledger value %q", v)
	}
	points, err := strconv.Atoi(parts[0])
	if err != nil || points <= 0 {
		return entry{}, fmt.Errorf("malformed points in %q", v)
	}
	d, err := time.Parse(DayLayout, parts[1])
	if err != nil {
		return entry{}, fmt.Errorf("malformed day in %q", v)
	}
	return entry{points: points, day: d.Format(ledgerDay)}, nil
}

// boards returns the day and month (DayLayout, MonthLayout) of the
// entry's award.
func (e entry) boards() (day, month string) {
	d, _ := time.Parse(ledgerDay, e.day) // checked by parseEntry
	return d.Format(DayLayout), d.Format(MonthLayout)
}

// cutoffs are the oldest days whose entries the ledger still remembers:
// an award of a day before award is forgotten (its boards have expired),
// a refusal or a visit of a day before short likewise (MaxLateness has
// passed). Must agree with dead() in activityLua.
type cutoffs struct{ award, short string }

func (a *Activity) cutoffs(now time.Time) cutoffs {
	return cutoffs{
		award: now.Add(-a.ledTTL).In(a.loc).Format(ledgerDay),
		short: now.Add(-MaxLateness).In(a.loc).Format(ledgerDay),
	}
}

func (e entry) live(c cutoffs) bool {
	if e.points == 0 {
		return e.day >= c.short
	}
	return e.day >= c.award
}

// The ledger hash expires ledgerSlack after its last refresh, which comes
// when a write finds less than ledTTL + ledgerRefresh left: so it always
// outlives its entries (an award of today is forgotten ledTTL after the
// end of today).
const (
	ledgerSlack   = 48 * time.Hour
	ledgerRefresh = 24 * time.Hour
)
