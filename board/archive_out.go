package board

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/redis/go-redis/v9"
)

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
