package board

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/clock"
)

// Layouts of the dates in keys, in Result and accepted by ParseDate.
const (
	DayLayout   = "2006-01-02"
	MonthLayout = "2006-01"
)

// Actions that can be undone; the others (visit, publish) cannot.
var revocable = map[string]bool{"like": true, "collect": true, "comment": true, "follow": true}

// Revocable reports whether an undo of action takes points back.
func Revocable(action string) bool { return revocable[action] }

// Period selects the day board or the month board.
type Period string

// The periods.
const (
	Day   Period = "day"
	Month Period = "month"
)

// ParsePeriod parses "day" or "month"; anything else is ErrBadPeriod.
func ParsePeriod(s string) (Period, error) {
	switch p := Period(strings.ToLower(strings.TrimSpace(s))); p {
	case Day, Month:
		return p, nil
	}
	return "", fmt.Errorf("period %q: %w: must be day or month", s, ErrBadPeriod)
}

// Event is one thing a user did.
type Event struct {
	// User is who did it.
	User string `json:"user"`
	// Action is one of config.Actions: visit, like, collect, comment,
	// publish, follow.
	Action string `json:"action"`
	// Target is what it was done to: the page path for a visit, the
	// article for like, collect, comment and publish, the followed user
	// for follow. An action counts once per (user, action, target) — a
	// visit once per day — so pass a comment's own id as the target to
	// count every comment, or the article id to count one per article.
	Target string `json:"target"`
	// Undo takes back the points of an earlier like, collect, comment or
	// follow (unlike, uncollect, delete comment, unfollow).
	Undo bool `json:"undo,omitempty"`
	// At is when it happened; the zero time means now. It picks the day
	// and month boards of an award (an undo takes points back from the
	// boards of the award, whatever At says). It must lie within
	// MaxLateness before and MaxSkew after now.
	At time.Time `json:"at,omitzero"`
}

// Result says what Record did.
type Result struct {
	// Applied is false when the event changed nothing: a repeat of
	// something already counted, an undo of something never counted (or
	// already undone), or an action whose weight is 0.
	Applied bool `json:"applied"`
	// Points is what the event added (negative for an undo).
	Points int `json:"points"`
	// Day and Month name the boards the points went to (for an undo: the
	// boards they were taken from), as DayLayout and MonthLayout. Empty
	// for an undo that was not applied.
	Day   string `json:"day,omitempty"`
	Month string `json:"month,omitempty"`
}

// Activity keeps the daily and monthly activity boards (seeds 000, 001).
// It is safe for concurrent use.
type Activity struct {
	rdb      redis.UniversalClient
	keys     activityKeys
	weights  map[string]int
	loc      *time.Location
	dayTTL   time.Duration
	monthTTL time.Duration
	ledTTL   time.Duration
	cap      int
	clock    clock.Clock
	log      *slog.Logger
}

// NewActivity returns the activity boards stored under prefix (config
// redis.key_prefix) with the weights, time zone, retentions and cap of cfg.
func NewActivity(c redis.UniversalClient, prefix string, cfg config.Board, opts ...Option) (*Activity, error) {
	if c == nil {
		return nil, errors.New("board: nil redis client")
	}
	loc, err := time.LoadLocation(cfg.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("board.time_zone: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Weights)) {
		if !slices.Contains(config.Actions, k) {
			return nil, fmt.Errorf("board.weights: %w %q", ErrUnknownAction, k)
		}
		if cfg.Weights[k] < 0 {
			return nil, fmt.Errorf("board.weights.%s: must be >= 0, got %d", k, cfg.Weights[k])
		}
	}
	if cfg.DayRetention.D() <= 0 || cfg.MonthRetention.D() <= 0 {
		return nil, fmt.Errorf("board: day_retention and month_retention must be > 0, got %s and %s", cfg.DayRetention, cfg.MonthRetention)
	}
	if cfg.Cap < 0 {
		return nil, fmt.Errorf("board.cap: must be >= 0, got %d", cfg.Cap)
	}
	o := buildOptions(opts)
	return &Activity{
		rdb:      c,
		keys:     newActivityKeys(prefix),
		weights:  maps.Clone(cfg.Weights),
		loc:      loc,
		dayTTL:   cfg.DayRetention.D(),
		monthTTL: cfg.MonthRetention.D(),
		ledTTL:   max(cfg.DayRetention.D(), cfg.MonthRetention.D()),
		cap:      cfg.Cap,
		clock:    o.clock,
		log:      o.log,
	}, nil
}

// Location is the time zone in which days and months begin.
func (a *Activity) Location() *time.Location { return a.loc }

// ParseDate parses the date of a board of period p in the configured time
// zone: "2006-01-02" for a day, "2006-01" (or a day of it) for a month. An
// empty s means now.
func (a *Activity) ParseDate(p Period, s string) (time.Time, error) {
	if _, err := ParsePeriod(string(p)); err != nil {
		return time.Time{}, err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return a.clock.Now().In(a.loc), nil
	}
	layouts := []string{DayLayout}
	if p == Month {
		layouts = []string{MonthLayout, DayLayout}
	}
	for _, l := range layouts {
		if t, err := time.ParseInLocation(l, s, a.loc); err == nil {
			return t, nil
		}
	}
	if p == Month {
		return time.Time{}, fmt.Errorf("date %q: %w: want YYYY-MM", s, ErrBadDate)
	}
	return time.Time{}, fmt.Errorf("date %q: %w: want YYYY-MM-DD", s, ErrBadDate)
}

// boardKey returns the key of the board of period p that holds date.
func (a *Activity) boardKey(p Period, date time.Time) (string, error) {
	switch p {
	case Day:
		return a.keys.day(date.In(a.loc).Format(DayLayout)), nil
	case Month:
		return a.keys.month(date.In(a.loc).Format(MonthLayout)), nil
	}
	return "", fmt.Errorf("period %q: %w: must be day or month", p, ErrBadPeriod)
}

// plan is a validated event with everything its script needs.
type plan struct {
	ev        Event
	points    int
	day       string
	month     string
	ledger    string
	ledgerTTL time.Duration
}

func (a *Activity) prepare(ev Event, now time.Time) (plan, error) {
	if err := checkUser("user", ev.User); err != nil {
		return plan{}, err
	}
	if !slices.Contains(config.Actions, ev.Action) {
		return plan{}, fmt.Errorf("action %q: %w: must be one of %s", ev.Action, ErrUnknownAction, strings.Join(config.Actions, ", "))
	}
	if err := checkTarget(ev.Action, ev.Target); err != nil {
		return plan{}, err
	}
	p := plan{ev: ev}
	if ev.Undo {
		if !revocable[ev.Action] {
			return plan{}, fmt.Errorf("undo %s: %w", ev.Action, ErrNotRevocable)
		}
		p.ledger = a.keys.ledger(ev.User, ev.Action, ev.Target)
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
	if ev.Action == "visit" {
		p.ledger = a.keys.visitLedger(ev.User, p.day, ev.Target)
		y, m, d := local.Date()
		end := time.Date(y, m, d+1, 0, 0, 0, 0, a.loc)
		p.ledgerTTL = max(end.Sub(now)+MaxLateness, time.Minute)
	} else {
		p.ledger = a.keys.ledger(ev.User, ev.Action, ev.Target)
		p.ledgerTTL = a.ledTTL
	}
	return p, nil
}

// awardCmd awards the points of one or more events of the same day, each
// once: an event whose ledger entry exists already is a repeat and changes
// nothing. Record sends one event; RecordMany up to scriptEvents.
//
//	KEYS[1]   -> day board                                      ZSET
//	KEYS[2]   -> month board                                    ZSET
//	KEYS[2+i] -> ledger entry of event i's (user, action, target) STRING
//	ARGV[1]   -> day board TTL, ms (set only when the board is created)
//	ARGV[2]   -> month board TTL, ms (set only when the board is created)
//	ARGV[3]   -> cap: keep only the top cap members of each board; 0 keeps all
//	ARGV[4]   -> ledger value suffix "|day|month"
//	ARGV[5+3(i-1)], ARGV[6+3(i-1)], ARGV[7+3(i-1)] -> event i's user,
//	             points (> 0) and ledger TTL in ms
//
// Reply: one integer per event: 1 when awarded, 0 for a repeat.
var awardCmd = redis.NewScript(`
local out, any = {}, false
for i = 1, #KEYS - 2 do
  local j = 5 + (i - 1) * 3
  local user, pts = ARGV[j], ARGV[j + 1]
  if redis.call('SET', KEYS[i + 2], pts .. ARGV[4], 'NX', 'PX', ARGV[j + 2]) then
    redis.call('ZINCRBY', KEYS[1], pts, user)
    redis.call('ZINCRBY', KEYS[2], pts, user)
    out[i], any = 1, true
  else
    out[i] = 0
  end
end
if any then
  local cap = tonumber(ARGV[3])
  for b = 1, 2 do
    if redis.call('PTTL', KEYS[b]) == -1 then
      redis.call('PEXPIRE', KEYS[b], ARGV[b])
    end
    if cap > 0 then
      local n = redis.call('ZCARD', KEYS[b])
      if n > cap then
        redis.call('ZREMRANGEBYRANK', KEYS[b], 0, n - cap - 1)
      end
    end
  end
end
return out
`)

// scriptEvents is the most events one awardCmd call carries, so that one
// call keeps Redis busy for well under a millisecond.
const scriptEvents = 50

// undoCmd takes back the points of one award from the boards it went to,
// if the ledger entry still holds what the caller read (compare and
// delete). A board that expired meanwhile, or a member a capped board
// dropped, is left alone; a member whose score falls to 0 or below is
// removed, so a user with no points is not ranked.
//
//	KEYS[1] -> ledger entry   STRING
//	KEYS[2] -> day board of the award     ZSET
//	KEYS[3] -> month board of the award   ZSET
//	ARGV[1] -> the ledger value read before, "points|day|month"
//	ARGV[2] -> user
//	ARGV[3] -> points to take back (> 0)
//
// Reply: 1 when taken back, 0 when the ledger entry changed (read again).
var undoCmd = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
for i = 2, 3 do
  if redis.call('ZSCORE', KEYS[i], ARGV[2]) then
    local s = tonumber(redis.call('ZINCRBY', KEYS[i], '-' .. ARGV[3], ARGV[2]))
    if s <= 0 then
      redis.call('ZREM', KEYS[i], ARGV[2])
    end
  end
end
return 1
`)

// awardArgs builds awardCmd's keys and arguments for ps, which share a
// day and month.
func (a *Activity) awardArgs(ps []plan) ([]string, []any) {
	keys := make([]string, 0, 2+len(ps))
	args := make([]any, 0, 4+3*len(ps))
	keys = append(keys, a.keys.day(ps[0].day), a.keys.month(ps[0].month))
	args = append(args, a.dayTTL.Milliseconds(), a.monthTTL.Milliseconds(), a.cap, "|"+ps[0].day+"|"+ps[0].month)
	for _, p := range ps {
		keys = append(keys, p.ledger)
		args = append(args, p.ev.User, p.points, p.ledgerTTL.Milliseconds())
	}
	return keys, args
}

func (p plan) result(applied bool) Result {
	r := Result{Applied: applied, Day: p.day, Month: p.month}
	if applied {
		r.Points = p.points
	}
	return r
}

// Record applies one event atomically (one Lua script per event): an
// award adds the action's weight to the user's day and month boards once
// per (user, action, target) — a visit once per (user, path, day); an undo
// takes back exactly the points of that award from the boards it went to.
// Repeats and undos of nothing are no-ops (Result.Applied false).
func (a *Activity) Record(ctx context.Context, ev Event) (Result, error) {
	p, err := a.prepare(ev, a.clock.Now())
	if err != nil {
		return Result{}, err
	}
	if ev.Undo {
		return a.undo(ctx, p)
	}
	return a.award(ctx, p)
}

func (a *Activity) award(ctx context.Context, p plan) (Result, error) {
	if p.points == 0 {
		return p.result(false), nil
	}
	keys, args := a.awardArgs([]plan{p})
	vals, err := awardCmd.Run(ctx, a.rdb, keys, args...).Int64Slice()
	if err == nil && len(vals) != 1 {
		err = fmt.Errorf("unexpected reply %v", vals)
	}
	if err != nil {
		return Result{}, fmt.Errorf("record %s %s by %s: %w", p.ev.Action, p.ev.Target, p.ev.User, err)
	}
	r := p.result(vals[0] == 1)
	a.log.Debug("activity award", "user", p.ev.User, "action", p.ev.Action, "target", p.ev.Target, "applied", r.Applied, "points", r.Points, "day", r.Day)
	return r, nil
}

// undoAttempts bounds the read → compare-and-delete loop of an undo. Each
// retry means another client changed the same ledger entry in between.
const undoAttempts = 10

func (a *Activity) undo(ctx context.Context, p plan) (Result, error) {
	for range undoAttempts {
		val, err := a.rdb.Get(ctx, p.ledger).Result()
		if errors.Is(err, redis.Nil) {
			return Result{}, nil // never awarded, already undone, or expired
		}
		if err != nil {
			return Result{}, fmt.Errorf("undo %s %s by %s: %w", p.ev.Action, p.ev.Target, p.ev.User, err)
		}
		points, day, month, err := parseLedger(val)
		if err != nil {
			return Result{}, fmt.Errorf("undo %s %s by %s: ledger %s: %w", p.ev.Action, p.ev.Target, p.ev.User, p.ledger, err)
		}
		n, err := undoCmd.Run(ctx, a.rdb, []string{p.ledger, a.keys.day(day), a.keys.month(month)}, val, p.ev.User, points).Int()
		if err != nil {
			return Result{}, fmt.Errorf("undo %s %s by %s: %w", p.ev.Action, p.ev.Target, p.ev.User, err)
		}
		if n == 1 {
			a.log.Debug("activity undo", "user", p.ev.User, "action", p.ev.Action, "target", p.ev.Target, "points", -points, "day", day)
			return Result{Applied: true, Points: -points, Day: day, Month: month}, nil
		}
	}
	return Result{}, fmt.Errorf("undo %s %s by %s: ledger entry changed %d times while undoing", p.ev.Action, p.ev.Target, p.ev.User, undoAttempts)
}

// parseLedger parses "points|day|month".
func parseLedger(v string) (points int, day, month string, err error) {
	parts := strings.Split(v, "|")
	if len(parts) != 3 {
		return 0, "", "", fmt.Errorf("malformed value %q", v)
	}
	points, err = strconv.Atoi(parts[0])
	if err != nil || points <= 0 {
		return 0, "", "", fmt.Errorf("malformed points in %q", v)
	}
	if _, err := time.Parse(DayLayout, parts[1]); err != nil {
		return 0, "", "", fmt.Errorf("malformed day in %q", v)
	}
	if _, err := time.Parse(MonthLayout, parts[2]); err != nil {
		return 0, "", "", fmt.Errorf("malformed month in %q", v)
	}
	return points, parts[1], parts[2], nil
}

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
		rs, err := a.awardBatch(ctx, batch)
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
			r, err := a.undo(ctx, p)
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
// day. Calls the server rejects with NOSCRIPT (script never loaded, or the
// server restarted) did not run, so the script is loaded and they are
// sent again.
func (a *Activity) awardBatch(ctx context.Context, ps []plan) ([]Result, error) {
	out := make([]Result, len(ps))
	type call struct {
		idx []int // indexes into ps
		cmd *redis.Cmd
	}
	var calls []*call
	var cur *call
	for i, p := range ps {
		if p.points == 0 {
			out[i] = p.result(false)
			continue
		}
		if cur == nil || len(cur.idx) == scriptEvents || ps[cur.idx[0]].day != p.day {
			cur = &call{}
			calls = append(calls, cur)
		}
		cur.idx = append(cur.idx, i)
	}
	for attempt := 0; len(calls) > 0; attempt++ {
		pipe := a.rdb.Pipeline()
		for _, c := range calls {
			group := make([]plan, len(c.idx))
			for j, i := range c.idx {
				group[j] = ps[i]
			}
			keys, args := a.awardArgs(group)
			c.cmd = awardCmd.EvalSha(ctx, pipe, keys, args...)
		}
		_, _ = pipe.Exec(ctx) // errors are read per call below
		var again []*call
		for _, c := range calls {
			vals, err := c.cmd.Int64Slice()
			if err == nil && len(vals) != len(c.idx) {
				err = fmt.Errorf("unexpected reply %v", vals)
			}
			switch {
			case err == nil:
				for j, i := range c.idx {
					out[i] = ps[i].result(vals[j] == 1)
				}
			case redis.HasErrorPrefix(err, "NOSCRIPT") && attempt == 0:
				again = append(again, c)
			default:
				return nil, fmt.Errorf("record %d events: %w", len(ps), err)
			}
		}
		if len(again) > 0 {
			if err := awardCmd.Load(ctx, a.rdb).Err(); err != nil {
				return nil, fmt.Errorf("load award script: %w", err)
			}
		}
		calls = again
	}
	return out, nil
}

// Top returns the n highest scores of the board of period that holds date,
// highest first, with competition ranks: equal scores share a rank and the
// next rank skips (1, 1, 3). Among equal scores the order is Redis's
// (reverse lexicographic by user id). An empty or expired board gives an
// empty list.
func (a *Activity) Top(ctx context.Context, period Period, date time.Time, n int) ([]Entry, error) {
	key, err := a.boardKey(period, date)
	if err != nil {
		return nil, err
	}
	if err := checkN("n", n, 1); err != nil {
		return nil, err
	}
	zs, err := a.rdb.ZRevRangeWithScores(ctx, key, 0, int64(n-1)).Result()
	if err != nil {
		return nil, fmt.Errorf("top %d of %s: %w", n, key, err)
	}
	out := make([]Entry, len(zs))
	for i, z := range zs {
		out[i] = Entry{Rank: i + 1, User: fmt.Sprint(z.Member), Score: int64(z.Score)}
		if i > 0 && out[i].Score == out[i-1].Score {
			out[i].Rank = out[i-1].Rank
		}
	}
	return out, nil
}

// rankCmd reads a member's score and how many members score strictly more,
// in one step.
//
//	KEYS[1] -> board   ZSET
//	ARGV[1] -> user
//
// Reply: {} when the user is not on the board, else {score, higher}.
var rankCmd = redis.NewScript(`
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s then return {} end
return {s, redis.call('ZCOUNT', KEYS[1], '(' .. s, '+inf')}
`)

// Rank returns user's place on the board of period that holds date. The
// rank is competition ranking, computed exactly: 1 + the number of users
// with a strictly higher score (scores are integers, so the comparison is
// exact). ok is false when the user has no points on that board.
func (a *Activity) Rank(ctx context.Context, user string, period Period, date time.Time) (e Entry, ok bool, err error) {
	key, err := a.boardKey(period, date)
	if err != nil {
		return Entry{}, false, err
	}
	if err := checkUser("user", user); err != nil {
		return Entry{}, false, err
	}
	vals, err := rankCmd.Run(ctx, a.rdb, []string{key}, user).Slice()
	if err != nil {
		return Entry{}, false, fmt.Errorf("rank of %s on %s: %w", user, key, err)
	}
	if len(vals) != 2 {
		return Entry{}, false, nil
	}
	score, err := parseScore(vals[0])
	if err != nil {
		return Entry{}, false, fmt.Errorf("rank of %s on %s: %w", user, key, err)
	}
	higher, _ := vals[1].(int64)
	return Entry{Rank: int(higher) + 1, User: user, Score: score}, true, nil
}

// aroundCmd reads the members around one member, and the competition rank
// of the first of them, in one step.
//
//	KEYS[1] -> board   ZSET
//	ARGV[1] -> user
//	ARGV[2] -> n: members on each side
//
// Reply: {} when the user is not on the board, else {competition rank of
// the first member returned, its 0-based position, member1, score1,
// member2, score2, ...}, highest first.
var aroundCmd = redis.NewScript(`
local r = redis.call('ZREVRANK', KEYS[1], ARGV[1])
if not r then return {} end
local n = tonumber(ARGV[2])
local lo = r - n
if lo < 0 then lo = 0 end
local items = redis.call('ZREVRANGE', KEYS[1], lo, r + n, 'WITHSCORES')
local out = {redis.call('ZCOUNT', KEYS[1], '(' .. items[2], '+inf') + 1, lo}
for i = 1, #items do out[#out + 1] = items[i] end
return out
`)

// AroundMe returns user's entry with up to n entries above and n below it
// on the board of period that holds date, highest first, with competition
// ranks as in Rank. It returns an empty list when the user is not ranked.
func (a *Activity) AroundMe(ctx context.Context, user string, period Period, date time.Time, n int) ([]Entry, error) {
	key, err := a.boardKey(period, date)
	if err != nil {
		return nil, err
	}
	if err := checkUser("user", user); err != nil {
		return nil, err
	}
	if err := checkN("n", n, 0); err != nil {
		return nil, err
	}
	vals, err := aroundCmd.Run(ctx, a.rdb, []string{key}, user, n).Slice()
	if err != nil {
		return nil, fmt.Errorf("around %s on %s: %w", user, key, err)
	}
	if len(vals) < 4 {
		return []Entry{}, nil
	}
	first, _ := vals[0].(int64)
	lo, _ := vals[1].(int64)
	out := make([]Entry, 0, (len(vals)-2)/2)
	for i := 2; i+1 < len(vals); i += 2 {
		score, err := parseScore(vals[i+1])
		if err != nil {
			return nil, fmt.Errorf("around %s on %s: %w", user, key, err)
		}
		e := Entry{User: fmt.Sprint(vals[i]), Score: score}
		switch j := len(out); {
		case j == 0:
			e.Rank = int(first)
		case score == out[j-1].Score:
			e.Rank = out[j-1].Rank
		default: // everyone before it, in the window or not, scores more
			e.Rank = int(lo) + j + 1
		}
		out = append(out, e)
	}
	return out, nil
}

// parseScore reads a score a script returned as a string (Redis formats
// integer scores exactly).
func parseScore(v any) (int64, error) {
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("unexpected score %v (%T)", v, v)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("unexpected score %q: %w", s, err)
	}
	return int64(f), nil
}
