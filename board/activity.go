package board

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
)

// Layouts of the dates in keys, in Result and accepted by ParseDate.
const (
	DayLayout   = "2006-01-02"
	MonthLayout = "2006-01"
)

// Actions that can be undone; the others (visit, publish) cannot.
var revocable = map[string]bool{"like": true, "collect": true, "comment": true, "follow": true}

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
	// Action is one of Actions(): visit, like, collect, comment,
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
	// Version, when > 0, makes the event of a revocable action a
	// statement of state as of that version, for a caller that learns the
	// state with a version that only grows (package news: a vote's
	// version): Undo false says the action stands (award it unless it is
	// awarded), Undo true says it does not (take back what it was awarded,
	// if anything). An event whose version is not newer than the last one
	// applied to its (user, action, target) changes nothing, so reports
	// that race or arrive out of order end in the state of the newest.
	// At most MaxVersion.
	Version int64 `json:"version,omitempty"`
}

// Result says what Record did.
type Result struct {
	// Applied is true when the event changed points: false for a repeat
	// of something already counted, an undo of something never counted
	// (or already undone), an action whose weight is 0, and a versioned
	// event that is stale or states what already holds.
	Applied bool `json:"applied"`
	// Points is what the event added (negative for an undo).
	Points int `json:"points"`
	// Day and Month name the boards the points went to (for an undo: the
	// boards they were taken from), as DayLayout and MonthLayout. Empty
	// for an undo that was not applied.
	Day   string `json:"day,omitempty"`
	Month string `json:"month,omitempty"`
}

// Activity keeps the daily and monthly activity boards.
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
	// archiveTop and archiveTTL: Options.ArchiveTop and ArchiveRetention.
	archiveTop int
	archiveTTL time.Duration
	clock      clock.Clock
	log        *slog.Logger
}

// NewActivity returns the activity boards stored under prefix (config
// redis.key_prefix) with the weights, time zone, retentions and cap of o.
func NewActivity(c redis.UniversalClient, prefix string, o Options, opts ...Option) (*Activity, error) {
	if c == nil {
		return nil, errors.New("board: nil redis client")
	}
	set := buildSettings(opts)
	return &Activity{
		rdb:        c,
		keys:       newActivityKeys(prefix),
		weights:    o.weights(),
		loc:        o.location(),
		dayTTL:     o.DayRetention,
		monthTTL:   o.MonthRetention,
		ledTTL:     max(o.DayRetention, o.MonthRetention),
		cap:        o.Cap,
		archiveTop: o.ArchiveTop,
		archiveTTL: o.ArchiveRetention,
		clock:      set.clock,
		log:        set.log,
	}, nil
}

// Weights returns the points of each action (a copy).
func (a *Activity) Weights() map[string]int { return maps.Clone(a.weights) }

// Location is the time zone in which days and months begin.
func (a *Activity) Location() *time.Location { return a.loc }

// ArchiveTop is how many of the top a closed period's archive keeps
// (Options.ArchiveTop; 0: none).
func (a *Activity) ArchiveTop() int { return a.archiveTop }

// ParseDate parses the date of a board of period p in the configured time
// zone: "2006-01-02" for a day, "2006-01" (or a day of it) for a month. It
// returns the first instant of that day (of the month's first day) in the
// zone, which is not always 00:00: where DST begins at midnight
// (America/Santiago) the day begins at 01:00. A day the zone skipped
// (Pacific/Apia, 2011-12-30) is ErrBadDate. An empty s means now.
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
		if t, err := time.Parse(l, s); err == nil {
			c := civilOf(t, time.UTC)
			if !c.exists(a.loc) {
				return time.Time{}, fmt.Errorf("date %q: %w: no such day in %s", s, ErrBadDate, a.loc)
			}
			return c.start(a.loc), nil
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

// topCmd reads the top of a board, or of its archive when the board is
// gone (its ZSET and, on a capped board, its out HASH: a capped board
// that keeps nobody after undos is still there, as movement reads it).
//
//	KEYS[1] -> board   ZSET
//	KEYS[2] -> its out HASH
//	KEYS[3] -> archive ZSET
//	ARGV[1] -> n
//
// Reply: member1, score1, member2, score2, ... highest first.
var topCmd = redis.NewScript(`
local k = KEYS[1]
if redis.call('EXISTS', k, KEYS[2]) == 0 then k = KEYS[3] end
return redis.call('ZREVRANGE', k, 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
`)

// Top returns the n highest scores of the board of period that holds date,
// highest first, with competition ranks: equal scores share a rank and the
// next rank skips (1, 1, 3). Among equal scores the order is Redis's
// (reverse lexicographic by user id). When the board has expired it reads
// the period's archive (Archive), which holds its top ArchiveTop. An empty
// or expired board without an archive gives an empty list.
func (a *Activity) Top(ctx context.Context, period Period, date time.Time, n int) ([]Entry, error) {
	k, err := a.periodKeys(period, date)
	if err != nil {
		return nil, err
	}
	if err := checkN("n", n, 1); err != nil {
		return nil, err
	}
	vals, err := topCmd.Run(ctx, a.rdb, []string{k.board, k.out, k.archive}, n).Slice()
	if err != nil {
		return nil, fmt.Errorf("top %d of %s: %w", n, k.board, err)
	}
	out := make([]Entry, 0, len(vals)/2)
	for i := 0; i+1 < len(vals); i += 2 {
		if vals[i] == completeMark {
			continue
		}
		score, err := parseScore(vals[i+1])
		if err != nil {
			return nil, fmt.Errorf("top %d of %s: %w", n, k.board, err)
		}
		e := Entry{Rank: len(out) + 1, User: fmt.Sprint(vals[i]), Score: score}
		if j := len(out); j > 0 && e.Score == out[j-1].Score {
			e.Rank = out[j-1].Rank
		}
		out = append(out, e)
	}
	return out, nil
}

// rankCmd reads a member's score and how many members score strictly more,
// in one step; for a user a capped board does not keep, their total.
//
//	KEYS[1] -> board   ZSET
//	KEYS[2] -> the board's out HASH (capped boards; absent otherwise)
//	ARGV[1] -> user
//
// Reply: {score, higher} when the user is on the board, {total} when a
// capped board does not keep them, {} when they have no points there.
var rankCmd = redis.NewScript(`
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s then
  local t = redis.call('HGET', KEYS[2], ARGV[1])
  if t then return {t} end
  return {}
end
return {s, redis.call('ZCOUNT', KEYS[1], '(' .. s, '+inf')}
`)

// Rank returns user's place on the board of period that holds date. The
// rank is competition ranking, computed exactly: 1 + the number of users
// with a strictly higher score (scores are integers, so the comparison is
// exact). ok is false when the user is not ranked: they have no points on
// that board, or a capped board (board.cap) does not keep them; then
// e.Score is their true total (0 for no points) and e.Rank 0.
func (a *Activity) Rank(ctx context.Context, user string, period Period, date time.Time) (e Entry, ok bool, err error) {
	key, err := a.boardKey(period, date)
	if err != nil {
		return Entry{}, false, err
	}
	if err := checkUser("user", user); err != nil {
		return Entry{}, false, err
	}
	vals, err := rankCmd.Run(ctx, a.rdb, []string{key, a.keys.out(key)}, user).Slice()
	if err != nil {
		return Entry{}, false, fmt.Errorf("rank of %s on %s: %w", user, key, err)
	}
	if len(vals) == 0 {
		return Entry{}, false, nil
	}
	score, err := parseScore(vals[0])
	if err != nil {
		return Entry{}, false, fmt.Errorf("rank of %s on %s: %w", user, key, err)
	}
	if len(vals) == 1 {
		return Entry{User: user, Score: score}, false, nil
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
	// a score beyond 2^53 (left by an older release, whose weights were
	// not bounded) is read as near as an int64 holds it, never wrapped
	// round to a negative one, and never blamed on the client
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64, nil
	case f <= math.MinInt64:
		return math.MinInt64, nil
	}
	return int64(f), nil
}
