package board

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// MaxList is the most users Movements and Among take in one call.
const MaxList = 500

// Sources of a period's ranking in Moves.
const (
	FromBoard   = "board"   // the live board
	FromArchive = "archive" // the period's archive: its top ArchiveTop
	FromNone    = ""        // neither: no points that period, or expired unarchived
)

// Movement is a user's place on a board and its change since the
// previous period (the day before, the month before).
type Movement struct {
	// User is the user id.
	User string `json:"user"`
	// Rank is the competition rank now, 0 when not ranked (no points, or
	// outside a capped board or an archive's top); Score the points now
	// (the true total for a user outside a capped board).
	Rank  int   `json:"rank"`
	Score int64 `json:"score"`
	// PrevRank is the rank in the previous period, 0 when not ranked
	// there.
	PrevRank int `json:"prev_rank"`
	// Change is PrevRank − Rank when both are ranked: 3 is "↑3", −1 "↓1".
	Change int `json:"change"`
	// New is true for a user ranked now who had no points in the previous
	// period (its live board, or its archive when it holds every user of
	// it, does not have them), or whose previous period is not kept at
	// all (Moves.PrevFrom is FromNone).
	New bool `json:"new,omitempty"`
	// Entered is true for a user ranked now whose previous period is kept
	// only in part (its archive's top, or a capped board) without them:
	// they rose from below that top ("↑ from beyond").
	Entered bool `json:"entered,omitempty"`
}

// Moves is the answer of Movements and TopMovements.
type Moves struct {
	// Date and PrevDate are the period's and the previous period's dates
	// (DayLayout or MonthLayout).
	Date     string `json:"date"`
	PrevDate string `json:"prev_date"`
	// From and PrevFrom say what each period was read from: FromBoard,
	// FromArchive or FromNone.
	From     string     `json:"from"`
	PrevFrom string     `json:"prev_from"`
	Entries  []Movement `json:"entries"`
}

// movesCmd reads the places of users in a period and in the period
// before, each from its board if it exists (its ZSET or, on a capped
// board whose kept members all left, its out HASH), else from its
// archive.
//
//	KEYS[1..3] -> the period's board ZSET, out HASH, archive ZSET
//	KEYS[4..6] -> the previous period's the same
//	ARGV[1]    -> n > 0: the users are the period's top n; 0: ARGV[2..]
//
// Reply: {from, prevFrom, 1 if prevFrom is an archive of every user of
// its period (completeMark) else 0, then per user: user, score ("" none),
// rank (0 not ranked), prevRank, 1 if the previous period has points for
// the user else 0}.
var movesCmd = redis.NewScript(`
local function src(b, o, a)
  if redis.call('EXISTS', b, o) > 0 then return b, 'board' end
  if redis.call('EXISTS', a) == 1 then return a, 'archive' end
  return nil, ''
end
local function place(z, out, u)
  if not z then return nil, 0 end
  local s = redis.call('ZSCORE', z, u)
  if s then return s, redis.call('ZCOUNT', z, '(' .. s, '+inf') + 1 end
  if out then return redis.call('HGET', out, u) or nil, 0 end
  return nil, 0
end
local cur, from = src(KEYS[1], KEYS[2], KEYS[3])
local prev, pfrom = src(KEYS[4], KEYS[5], KEYS[6])
local cout, pout = nil, nil
if from == 'board' then cout = KEYS[2] end
if pfrom == 'board' then pout = KEYS[5] end
local users, n = {}, tonumber(ARGV[1])
if n > 0 then
  if cur then
    for _, u in ipairs(redis.call('ZREVRANGE', cur, 0, n - 1)) do
      if u ~= '' then users[#users + 1] = u end -- completeMark
    end
  end
else
  for i = 2, #ARGV do users[#users + 1] = ARGV[i] end
end
-- an archive of every user of its period (completeMark): who is not in
-- it had no points
local complete = 0
if pfrom == 'archive' and redis.call('ZSCORE', prev, '') then complete = 1 end
local res = {from, pfrom, complete}
for _, u in ipairs(users) do
  local s, r = place(cur, cout, u)
  local ps, pr = place(prev, pout, u)
  local had = 0
  if ps then had = 1 end
  res[#res + 1] = u
  res[#res + 1] = s or ''
  res[#res + 1] = r
  res[#res + 1] = pr
  res[#res + 1] = had
end
return res
`)

// Movements returns the place of each of users on the board of period
// that holds date and their change since the previous period, in the
// order given, in one script call. Each period is read from its board,
// or from its archive once the board has expired. At most MaxList users.
func (a *Activity) Movements(ctx context.Context, period Period, date time.Time, users []string) (Moves, error) {
	if len(users) > MaxList {
		return Moves{}, fmt.Errorf("users: %w: %d, at most %d", ErrBadLimit, len(users), MaxList)
	}
	args := []any{0}
	for _, u := range users {
		if err := checkUser("user", u); err != nil {
			return Moves{}, err
		}
		args = append(args, u)
	}
	return a.moves(ctx, period, date, args)
}

// TopMovements is Top with each listed user's movement: the n highest of
// the board of period that holds date (or of its archive), with their
// ranks in the previous period, in one script call.
func (a *Activity) TopMovements(ctx context.Context, period Period, date time.Time, n int) (Moves, error) {
	if err := checkN("n", n, 1); err != nil {
		return Moves{}, err
	}
	return a.moves(ctx, period, date, []any{n})
}

func (a *Activity) moves(ctx context.Context, period Period, date time.Time, args []any) (Moves, error) {
	cur, err := a.periodKeys(period, date)
	if err != nil {
		return Moves{}, err
	}
	pdate := a.previous(period, date)
	prev, _ := a.periodKeys(period, pdate)
	keys := []string{cur.board, cur.out, cur.archive, prev.board, prev.out, prev.archive}
	vals, err := movesCmd.Run(ctx, a.rdb, keys, args...).Slice()
	if err != nil {
		return Moves{}, fmt.Errorf("movements on %s: %w", cur.board, err)
	}
	m := Moves{Date: a.dateOf(period, date), PrevDate: a.dateOf(period, pdate), Entries: []Movement{}}
	if len(vals) < 3 {
		return Moves{}, fmt.Errorf("movements on %s: short reply %v", cur.board, vals)
	}
	m.From, m.PrevFrom = fmt.Sprint(vals[0]), fmt.Sprint(vals[1])
	complete, _ := vals[2].(int64)
	for i := 3; i+4 < len(vals); i += 5 {
		e := Movement{User: fmt.Sprint(vals[i])}
		if s, _ := vals[i+1].(string); s != "" {
			if e.Score, err = parseScore(s); err != nil {
				return Moves{}, fmt.Errorf("movements on %s: %w", cur.board, err)
			}
		}
		r, _ := vals[i+2].(int64)
		pr, _ := vals[i+3].(int64)
		had, _ := vals[i+4].(int64)
		e.Rank, e.PrevRank = int(r), int(pr)
		switch {
		case e.Rank == 0:
		case e.PrevRank > 0:
			e.Change = e.PrevRank - e.Rank
		case m.PrevFrom == FromNone || (m.PrevFrom == FromBoard || complete == 1) && had == 0:
			e.New = true
		default:
			e.Entered = true
		}
		m.Entries = append(m.Entries, e)
	}
	return m, nil
}

// dateOf formats the date of the period holding date.
func (a *Activity) dateOf(p Period, date time.Time) string {
	if p == Month {
		return date.In(a.loc).Format(MonthLayout)
	}
	return date.In(a.loc).Format(DayLayout)
}
