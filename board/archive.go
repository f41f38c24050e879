package board

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
)

// A closed period's board is snapshot into its archive key (keys.go) once
// the period has been closed for MaxLateness, so that late events are in
// it: a day MaxLateness after the next day begins (its midnight, or the
// end of a DST gap where midnight does not exist), a month likewise
// after its last day. Undos that reach the board later do not
// change the snapshot; while the board lives, the reads use the board.

// ArchiveReport says what Archive did.
type ArchiveReport struct {
	// Archived counts the snapshots taken.
	Archived int `json:"archived"`
	// Present counts the closed periods already archived.
	Present int `json:"present"`
	// Missing counts the closed periods whose board had no points or had
	// expired without a snapshot.
	Missing int `json:"missing"`
}

// archiveCmd snapshots boards into their archives, each unless the
// archive exists.
//
//	KEYS[3i-2..3i] -> period i's board ZSET, its out HASH, its archive ZSET
//	ARGV[1]   -> how many of the top to keep
//	ARGV[1+i] -> period i's archive TTL, ms
//
// Reply: per period, 1 archived, 0 already archived, -1 no board, -2 a
// capped board that keeps fewer than n users (undos took some out, or
// all): its top is its kept users and the best of its out HASH, which
// archiveOut snapshots. A snapshot of every user of its
// board (ZCARD at most n, nobody outside a cap) holds the member
// completeMark too.
var archiveCmd = redis.NewScript(`
local n, out = tonumber(ARGV[1]), {}
for i = 1, #KEYS / 3 do
  local b, o, a = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  if redis.call('EXISTS', a) == 1 then
    out[i] = 0
  elseif redis.call('EXISTS', b) == 0 then
    out[i] = -1
    if redis.call('EXISTS', o) == 1 then out[i] = -2 end
  elseif redis.call('ZCARD', b) < n and redis.call('EXISTS', o) == 1 then
    out[i] = -2
  else
    local items = redis.call('ZREVRANGE', b, 0, n - 1, 'WITHSCORES')
    local args = {}
    for j = 1, #items, 2 do
      args[#args + 1] = items[j + 1]
      args[#args + 1] = items[j]
    end
    if redis.call('ZCARD', b) <= n and redis.call('EXISTS', o) == 0 then
      args[#args + 1] = '-1'
      args[#args + 1] = ''
    end
    redis.call('ZADD', a, unpack(args))
    redis.call('PEXPIRE', a, ARGV[1 + i])
    out[i] = 1
  end
end
return out
`)

// closedPeriod is a period whose board may still be snapshot.
type closedPeriod struct {
	period Period
	date   string // DayLayout or MonthLayout
	end    time.Time
}

// closedPeriods lists the periods closed for MaxLateness at now whose
// boards may still exist, newest first: the days of the last
// DayRetention and the months of the last MonthRetention. Periods are
// calendar dates (calendar.go), each ending at the first instant of the
// next; a day the zone skipped has no instant and is not listed.
func (a *Activity) closedPeriods(now time.Time) []closedPeriod {
	var out []closedPeriod
	today := civilOf(now, a.loc)
	for d := today.addDays(-1); ; d = d.addDays(-1) {
		end := d.addDays(1).start(a.loc)
		if end.Add(MaxLateness + a.dayTTL).Before(now) {
			break
		}
		if !end.Add(MaxLateness).After(now) && d.exists(a.loc) {
			out = append(out, closedPeriod{Day, d.format(Day), end})
		}
	}
	for m := today.addMonths(-1); ; m = m.addMonths(-1) {
		end := m.addMonths(1).start(a.loc)
		if end.Add(MaxLateness + a.monthTTL).Before(now) {
			break
		}
		if !end.Add(MaxLateness).After(now) {
			out = append(out, closedPeriod{Month, m.format(Month), end})
		}
	}
	return out
}

// Archive snapshots the top ArchiveTop of every closed period (closed
// for MaxLateness) whose board still exists and that has no snapshot
// yet, in one script call. It is idempotent: run it often (the daemon's
// "archive" job, hourly), and a run after a pause catches up on every
// period whose board has not expired. A snapshot expires
// ArchiveRetention after the end of its period. With ArchiveTop 0 it
// does nothing.
func (a *Activity) Archive(ctx context.Context) (ArchiveReport, error) {
	var rep ArchiveReport
	if a.archiveTop <= 0 {
		return rep, nil
	}
	now := a.clock.Now()
	var keys []string
	args := []any{a.archiveTop}
	for _, p := range a.closedPeriods(now) {
		ttl := p.end.Add(a.archiveTTL).Sub(now)
		if ttl <= 0 {
			continue
		}
		b := a.keys.day(p.date)
		if p.period == Month {
			b = a.keys.month(p.date)
		}
		keys = append(keys, b, a.keys.out(b), a.keys.archive(p.period, p.date))
		args = append(args, ttl.Milliseconds())
	}
	if len(keys) == 0 {
		return rep, nil
	}
	res, err := archiveCmd.Run(ctx, a.rdb, keys, args...).Int64Slice()
	if err != nil {
		return rep, fmt.Errorf("archive: %w", err)
	}
	for i, r := range res {
		if r == -2 {
			if r, err = a.archiveOut(ctx, keys[3*i], keys[3*i+1], keys[3*i+2], args[1+i]); err != nil {
				return rep, err
			}
		}
		switch r {
		case 1:
			rep.Archived++
			a.log.Debug("board archived", "key", keys[3*i+2])
		case 0:
			rep.Present++
		default:
			rep.Missing++
		}
	}
	return rep, nil
}

// periodKeys are the keys the reads of a board of period that holds
// date use: its board, the board's out hash and its archive.
type periodKeys struct{ board, out, archive string }

func (a *Activity) periodKeys(p Period, date time.Time) (periodKeys, error) {
	b, err := a.boardKey(p, date)
	if err != nil {
		return periodKeys{}, err
	}
	layout := DayLayout
	if p == Month {
		layout = MonthLayout
	}
	return periodKeys{b, a.keys.out(b), a.keys.archive(p, date.In(a.loc).Format(layout))}, nil
}

// previous returns the first instant of the period before the one
// holding date.
func (a *Activity) previous(p Period, date time.Time) time.Time {
	return a.Shift(p, date, -1)
}

// completeMark is the member a snapshot that holds every user of its
// board has, with score -1 (below every user's): a user not in it had no
// points that period (Movement.New), where one not in a partial snapshot
// may have had some below its top (Movement.Entered). No user id is
// empty (checkUser), and the readers leave it out.
const completeMark = ""

// archiveSetCmd writes a snapshot unless the archive exists.
//
//	KEYS[1] -> the archive ZSET
//	ARGV[1] -> its TTL, ms; ARGV[2..] -> score, user pairs (at least one)
//
// Reply: 1 written, 0 the archive existed.
var archiveSetCmd = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('ZADD', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`)

// archiveOut snapshots the top archiveTop of a capped board that keeps
// fewer (undos took kept users out, or all of them): its kept users
// (board, at most its cap) and the best of its out HASH (user → true
// total), walked with HSCAN so that a large one does not block Redis, in
// the ZSET's order (score, then user, descending). It returns
// archiveCmd's reply: 1 archived, 0 archived meanwhile, -1 nobody left.
func (a *Activity) archiveOut(ctx context.Context, board, out, archive string, ttl any) (int64, error) {
	kept, err := a.rdb.ZRangeWithScores(ctx, board, 0, -1).Result()
	if err != nil {
		return 0, fmt.Errorf("archive %s from %s: %w", archive, board, err)
	}
	top := make([]Entry, 0, len(kept))
	for _, z := range kept {
		top = append(top, Entry{User: fmt.Sprint(z.Member), Score: int64(z.Score)})
	}
	read := len(top) // users read (a field HSCAN returns twice counts twice)
	var cursor uint64
	for {
		kv, next, err := a.rdb.HScan(ctx, out, cursor, "", 1000).Result()
		if err != nil {
			return 0, fmt.Errorf("archive %s from %s: %w", archive, out, err)
		}
		for i := 0; i+1 < len(kv); i += 2 {
			s, err := parseScore(kv[i+1])
			if err != nil {
				return 0, fmt.Errorf("archive %s from %s: %w", archive, out, err)
			}
			top = append(top, Entry{User: kv[i], Score: s})
			read++
		}
		// keep the best archiveTop so far: memory stays bounded
		if len(top) > 4*a.archiveTop {
			top = bestEntries(top, a.archiveTop)
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	all := read <= a.archiveTop // every user outside, so every user
	top = bestEntries(top, a.archiveTop)
	if len(top) == 0 {
		return -1, nil
	}
	args := []any{ttl}
	for _, e := range top {
		args = append(args, e.Score, e.User)
	}
	if all {
		args = append(args, -1, completeMark)
	}
	r, err := archiveSetCmd.Run(ctx, a.rdb, []string{archive}, args...).Int64()
	if err != nil {
		return 0, fmt.Errorf("archive %s: %w", archive, err)
	}
	return r, nil
}

// bestEntries returns the n best of es (by score, then user, descending,
// as ZREVRANGE orders them), deduplicated by user (HSCAN may return a
// field twice).
func bestEntries(es []Entry, n int) []Entry {
	slices.SortFunc(es, func(x, y Entry) int {
		return cmp.Or(cmp.Compare(y.Score, x.Score), cmp.Compare(y.User, x.User))
	})
	seen := make(map[string]bool, len(es))
	out := es[:0]
	for _, e := range es {
		if !seen[e.User] && len(out) < n {
			seen[e.User] = true
			out = append(out, e)
		}
	}
	return out
}
