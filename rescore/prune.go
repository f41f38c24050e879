package rescore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/news"
)

// pruneCmd removes one batch of articles that left the window.
//
//	KEYS[1] -> time: ZSET
//	KEYS[2] -> score: ZSET
//	KEYS[3] -> votes: ZSET
//	KEYS[4] -> groups: SET of group names
//	KEYS[5] -> touched: SET (news.TouchLua)
//	KEYS[4+2i], KEYS[5+2i] -> news:<id_i> HASH, voted:<id_i> HASH, for i = 1..n
//	KEYS[6+2n+3j], KEYS[7+2n+3j], KEYS[8+2n+3j] -> group:<g_j> SET,
//	  cache:score:<g_j> and cache:time:<g_j> ZSETs, for j = 0..m-1
//	ARGV[1] -> cutoff: ids whose post time is below it go (Unix s)
//	ARGV[2] -> n, the number of ids
//	ARGV[2+i] -> id_i
//	ARGV[3+n+j] -> g_j, the group name of KEYS[6+2n+3j]
//
// Each id is checked again (its post time must still be below the cutoff);
// the ids that pass leave time:, score:, votes: and every group (unrank:
// a group that loses a member loses its cached rankings, which list it,
// and leaves groups: when it is empty), and their hash and voted: key are
// deleted. The ids are recorded in touched: while a rebuild runs, so its swap drops
// them too. Returns the number of articles removed.
var pruneCmd = redis.NewScript(news.TouchLua + news.UnrankLua + `
local cutoff = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local gone = {}
for i = 1, n do
  local id = ARGV[2 + i]
  local t = redis.call('ZSCORE', KEYS[1], id)
  if t and tonumber(t) < cutoff then
    gone[#gone + 1] = id
    redis.call('DEL', KEYS[4 + 2 * i], KEYS[5 + 2 * i])
  end
end
if #gone == 0 then
  return 0
end
unrank(gone, KEYS[1], KEYS[3], KEYS[2], KEYS[4], 6 + 2 * n, 3 + n)
touch(KEYS[5], unpack(gone))
return #gone
`)

// PruneResult reports a prune or a dry run.
type PruneResult struct {
	// Cutoff is the oldest post time kept: now − window.
	Cutoff time.Time
	// Removed is how many articles were removed (or, for a dry run, would
	// be).
	Removed int64
	// Batches is how many batches the prune took.
	Batches int
	// Oldest and Newest are the post times of the oldest and newest
	// article removed (zero when none).
	Oldest, Newest time.Time
	// Kept is how many articles time: holds afterwards (for a dry run:
	// would hold).
	Kept int64
	// DryRun is set for a dry run, which changed nothing.
	DryRun bool
	// Sample lists up to the requested number of the articles a dry run
	// would remove, oldest first.
	Sample []Expired
}

// Expired is an article out of the window.
type Expired struct {
	ID       string
	PostTime time.Time
	Title    string
	URL      string
}

// cutoff returns the first post time (Unix s) still inside the window at
// now: an article posted exactly one window ago is kept, as news.Ingest
// accepts it.
func (r *Rescorer) cutoff(now time.Time) int64 {
	return now.Unix() - int64(r.window/time.Second)
}

// Prune removes every article whose post time is more than the window
// before now, in batches: see the package documentation. It stops early,
// with what it removed so far, when ctx ends.
func (r *Rescorer) Prune(ctx context.Context, now time.Time) (PruneResult, error) {
	cut := r.cutoff(now)
	res := PruneResult{Cutoff: time.Unix(cut, 0)}
	max := "(" + strconv.FormatInt(cut, 10)
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		batch, err := r.c.ZRangeByScoreWithScores(ctx, r.keys.Time(), &redis.ZRangeBy{
			Min: "-inf", Max: max, Count: int64(r.batch),
		}).Result()
		if err != nil {
			return res, fmt.Errorf("prune: read time: %w", err)
		}
		if len(batch) == 0 {
			break
		}
		groups, err := r.c.SMembers(ctx, r.keys.Groups()).Result()
		if err != nil {
			return res, fmt.Errorf("prune: read groups: %w", err)
		}
		keys := make([]string, 0, 5+2*len(batch)+3*len(groups))
		keys = append(keys, r.keys.Time(), r.keys.Score(), r.keys.Votes(), r.keys.Groups(), r.keys.Touched())
		args := make([]any, 0, 2+len(batch)+len(groups))
		args = append(args, cut, len(batch))
		for _, z := range batch {
			id := z.Member.(string)
			keys = append(keys, r.keys.Article(id), r.keys.Voted(id))
			args = append(args, id)
		}
		for _, g := range groups {
			keys = append(keys, r.keys.GroupWithCaches(g)...)
			args = append(args, g)
		}
		n, err := pruneCmd.Run(ctx, r.c, keys, args...).Int64()
		if err != nil {
			return res, fmt.Errorf("prune: remove batch: %w", err)
		}
		res.Batches++
		if res.Removed == 0 {
			res.Oldest = time.Unix(int64(batch[0].Score), 0)
		}
		res.Removed += n
		res.Newest = time.Unix(int64(batch[len(batch)-1].Score), 0)
		if len(batch) < r.batch {
			break
		}
	}
	kept, err := r.c.ZCard(ctx, r.keys.Time()).Result()
	if err != nil {
		return res, fmt.Errorf("prune: count time: %w", err)
	}
	res.Kept = kept
	r.log.Info("prune done", "removed", res.Removed, "batches", res.Batches, "kept", res.Kept, "cutoff", res.Cutoff)
	return res, nil
}

// DryRun reports what Prune(ctx, now) would remove, listing up to sample
// articles (oldest first, with title and URL), and changes nothing. It
// reads time: by rank in bounded batches.
func (r *Rescorer) DryRun(ctx context.Context, now time.Time, sample int) (PruneResult, error) {
	cut := r.cutoff(now)
	res := PruneResult{Cutoff: time.Unix(cut, 0), DryRun: true}
	max := "(" + strconv.FormatInt(cut, 10)
	var count, total *redis.IntCmd
	var oldest, newest *redis.ZSliceCmd
	_, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		count = p.ZCount(ctx, r.keys.Time(), "-inf", max)
		total = p.ZCard(ctx, r.keys.Time())
		oldest = p.ZRangeWithScores(ctx, r.keys.Time(), 0, 0)
		newest = p.ZRevRangeByScoreWithScores(ctx, r.keys.Time(), &redis.ZRangeBy{Max: max, Min: "-inf", Count: 1})
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("prune dry run: %w", err)
	}
	res.Removed, res.Kept = count.Val(), total.Val()-count.Val()
	res.Batches = int((res.Removed + int64(r.batch) - 1) / int64(r.batch))
	if res.Removed > 0 {
		res.Oldest = time.Unix(int64(oldest.Val()[0].Score), 0)
		res.Newest = time.Unix(int64(newest.Val()[0].Score), 0)
	}
	for start := int64(0); start < min(res.Removed, int64(sample)); start += int64(r.batch) {
		stop := min(start+int64(r.batch), res.Removed, int64(sample)) - 1
		zs, err := r.c.ZRangeWithScores(ctx, r.keys.Time(), start, stop).Result()
		if err != nil {
			return res, fmt.Errorf("prune dry run: list: %w", err)
		}
		cmds := make([]*redis.SliceCmd, len(zs))
		_, err = r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, z := range zs {
				cmds[i] = p.HMGet(ctx, r.keys.Article(z.Member.(string)), "title", "url")
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return res, fmt.Errorf("prune dry run: read articles: %w", err)
		}
		for i, z := range zs {
			if int64(z.Score) >= cut {
				break
			}
			e := Expired{ID: z.Member.(string), PostTime: time.Unix(int64(z.Score), 0)}
			if v := cmds[i].Val(); len(v) == 2 {
				e.Title, _ = v[0].(string)
				e.URL, _ = v[1].(string)
			}
			res.Sample = append(res.Sample, e)
		}
	}
	return res, nil
}
