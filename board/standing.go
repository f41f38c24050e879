package board

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Standing is where a score, or a user's score, stands among every user
// with points on a live board.
type Standing struct {
	// User is the user asked about; empty for a score.
	User string `json:"user,omitempty"`
	// Score is the user's points (their true total on a capped board), or
	// the score asked about.
	Score int64 `json:"score"`
	// Rank is the competition rank of Score: 1 + Above. It counts the
	// users outside a capped board too, so it is a user's true rank even
	// where Rank says "not ranked".
	Rank int `json:"rank"`
	// Above, Equal and Below count the users with points whose score is
	// higher than, equal to and lower than Score; Total is all of them.
	Above int64 `json:"above"`
	Equal int64 `json:"equal"`
	Below int64 `json:"below"`
	Total int64 `json:"total"`
	// Percentile is 100 × Below / Total: the share of users Score beats
	// (agoragames' percentile_for, with ties not counted as beaten, and
	// not rounded); 0 when Total is 0.
	Percentile float64 `json:"percentile"`
}

// standingCmd counts the users above and at a score on a board, the users
// outside a capped board included.
//
//	KEYS[1..4] -> the board ZSET, its out HASH, out:n HASH, out:t ZSET
//	ARGV[1]    -> "user" or "score"
//	ARGV[2]    -> the user, or the score
//
// Reply: {} for a user with no points, else {score, above, equal, total};
// a board whose ZSET and out HASH are both gone (expired) has nobody (its
// out:n and out:t, were they left, are not counted).
var standingCmd = redis.NewScript(`
if redis.call('EXISTS', KEYS[1], KEYS[2]) == 0 then
  if ARGV[1] == 'user' then return {} end
  return {ARGV[2], 0, 0, 0}
end
local s = ARGV[2]
if ARGV[1] == 'user' then
  s = redis.call('ZSCORE', KEYS[1], ARGV[2]) or redis.call('HGET', KEYS[2], ARGV[2])
  if not s then return {} end
end
local above = redis.call('ZCOUNT', KEYS[1], '(' .. s, '+inf')
local equal = redis.call('ZCOUNT', KEYS[1], s, s)
local total = redis.call('ZCARD', KEYS[1]) + redis.call('HLEN', KEYS[2])
for _, t in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '(' .. s, '+inf')) do
  above = above + (tonumber(redis.call('HGET', KEYS[3], t)) or 0)
end
equal = equal + (tonumber(redis.call('HGET', KEYS[3], s)) or 0)
return {s, above, equal, total}
`)

// StandingOf returns where user's points stand on the board of period
// that holds date: their true rank and percentile among every user with
// points, also when a capped board does not keep them. ok is false when
// the user has no points there. It reads the live board only: once the
// board has expired (its archive holds only the top) every user is "no
// points". Cost: one script, O(log N) plus, on a capped board, one step
// per distinct total outside above the user's.
func (a *Activity) StandingOf(ctx context.Context, user string, period Period, date time.Time) (Standing, bool, error) {
	if err := checkUser("user", user); err != nil {
		return Standing{}, false, err
	}
	st, ok, err := a.standing(ctx, period, date, "user", user)
	st.User = user
	return st, ok, err
}

// StandingOfScore returns where score would stand on the board of period
// that holds date (the live board, as StandingOf): the rank a user with
// that score has or would have, how many users score more ("rank of a
// score"), and its percentile.
func (a *Activity) StandingOfScore(ctx context.Context, score int64, period Period, date time.Time) (Standing, error) {
	if score < 0 || score > MaxScore {
		return Standing{}, fmt.Errorf("score: %w: %d, must be between 0 and %d", ErrBadScore, score, int64(MaxScore))
	}
	st, _, err := a.standing(ctx, period, date, "score", strconv.FormatInt(score, 10))
	return st, err
}

func (a *Activity) standing(ctx context.Context, period Period, date time.Time, mode, arg string) (Standing, bool, error) {
	key, err := a.boardKey(period, date)
	if err != nil {
		return Standing{}, false, err
	}
	keys := []string{key, a.keys.out(key), a.keys.outCount(key), a.keys.outTotals(key)}
	vals, err := standingCmd.Run(ctx, a.rdb, keys, mode, arg).Slice()
	if err != nil {
		return Standing{}, false, fmt.Errorf("standing on %s: %w", key, err)
	}
	if len(vals) < 4 {
		return Standing{}, false, nil
	}
	score, err := parseScore(vals[0])
	if err != nil {
		return Standing{}, false, fmt.Errorf("standing on %s: %w", key, err)
	}
	st := Standing{Score: score}
	st.Above, _ = vals[1].(int64)
	st.Equal, _ = vals[2].(int64)
	st.Total, _ = vals[3].(int64)
	st.Below = max(st.Total-st.Above-st.Equal, 0)
	st.Rank = int(st.Above) + 1
	if st.Total > 0 {
		st.Percentile = 100 * float64(st.Below) / float64(st.Total)
	}
	return st, true, nil
}

// scoresCmd reads users' scores on a board (their true totals outside a
// capped board), or on its archive when the board is gone: when neither
// its ZSET nor its out HASH exists (a capped board whose every kept
// member left, by undos, still has its users outside).
//
//	KEYS[1..3] -> the board ZSET, its out HASH, its archive ZSET
//	ARGV       -> the users
//
// Reply: {from, then per user its score or "" for none}.
var scoresCmd = redis.NewScript(`
local z, from, out = KEYS[1], 'board', KEYS[2]
if redis.call('EXISTS', z, out) == 0 then
  z, from, out = KEYS[3], 'archive', nil
  if redis.call('EXISTS', z) == 0 then from = '' end
end
local res = {from}
for i = 1, #ARGV do
  local s = redis.call('ZSCORE', z, ARGV[i])
  if not s and out then s = redis.call('HGET', out, ARGV[i]) end
  res[#res + 1] = s or ''
end
return res
`)

// Among ranks users among themselves (friends) on the board of period
// that holds date, in one script call: the users with points, highest
// score first (equal scores in Redis's order, user ids in reverse byte
// order) with competition ranks within the list (1, 1, 3), then the
// users without points with Rank 0 in the order given. Repeated ids count
// once. Scores are true totals, also for users outside a capped board.
// Once the board has expired it reads the archive, where only the
// archived top have points. At most MaxList users.
func (a *Activity) Among(ctx context.Context, period Period, date time.Time, users []string) ([]Entry, error) {
	if len(users) > MaxList {
		return nil, fmt.Errorf("users: %w: %d, at most %d", ErrBadLimit, len(users), MaxList)
	}
	k, err := a.periodKeys(period, date)
	if err != nil {
		return nil, err
	}
	var args []any
	seen := make(map[string]bool, len(users))
	for _, u := range users {
		if err := checkUser("user", u); err != nil {
			return nil, err
		}
		if !seen[u] {
			seen[u] = true
			args = append(args, u)
		}
	}
	out := []Entry{}
	if len(args) == 0 {
		return out, nil
	}
	vals, err := scoresCmd.Run(ctx, a.rdb, []string{k.board, k.out, k.archive}, args...).Slice()
	if err != nil {
		return nil, fmt.Errorf("among on %s: %w", k.board, err)
	}
	var none []Entry
	for i, v := range vals[1:] {
		e := Entry{User: args[i].(string)}
		if s, _ := v.(string); s != "" {
			if e.Score, err = parseScore(s); err != nil {
				return nil, fmt.Errorf("among on %s: %w", k.board, err)
			}
		}
		if e.Score > 0 {
			out = append(out, e)
		} else {
			none = append(none, e)
		}
	}
	slices.SortFunc(out, func(x, y Entry) int {
		return cmp.Or(cmp.Compare(y.Score, x.Score), cmp.Compare(y.User, x.User))
	})
	for i := range out {
		out[i].Rank = i + 1
		if i > 0 && out[i].Score == out[i-1].Score {
			out[i].Rank = out[i-1].Rank
		}
	}
	return append(out, none...), nil
}
