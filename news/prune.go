package news

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// pruneCmd removes one batch of articles that left the window.
//
//	KEYS[1] -> time: ZSET
//	KEYS[2] -> score: ZSET
//	KEYS[3] -> votes: ZSET
//	KEYS[4] -> groups: SET of group names
//	KEYS[5] -> touched: SET (touchLua)
//	KEYS[4+2i], KEYS[5+2i] -> news:<id_i> HASH, voted:<id_i> HASH, for i = 1..n
//	KEYS[6+2n+3j], KEYS[7+2n+3j], KEYS[8+2n+3j] -> group:<g_j> SET,
//	  cache:score:<g_j> and cache:time:<g_j> ZSETs, for j = 0..m-1
//	ARGV[1] -> cutoff: ids whose post time is below it go (Unix s)
//	ARGV[2] -> n, the number of ids
//	ARGV[2+i] -> id_i
//	ARGV[3+n+j] -> g_j, the group name of KEYS[6+2n+3j]
//	ARGV[3+n+m] (the last) -> "1" with news.rank_by: story: a pruned lead takes its
//	  story with it (unlead)
//
// Each id is checked again (its post time must still be below the cutoff);
// the ids that pass leave time:, score:, votes: and every group (unrank:
// a group that loses a member loses its cached rankings, which list it,
// and leaves groups: when it is empty), their story entries (story:<lead>
// and the storyterms index, story.go) are removed, and their hash and voted:
// key are deleted. With rank_by: story the other members of a pruned
// lead's story (not ranked themselves) go with it: a story lives as long
// as its lead's window. The ids are recorded in touched: while a rebuild
// runs, so its swap drops them too. Returns the number of ranked articles
// removed (members of their stories are not counted).
var pruneCmd = redis.NewScript(touchLua + unrankLua + `
-- unstory removes article id (hash key) from the story index: its story:
-- entry and its story from the lists of the terms of storyterms it was
-- filed under (story.go; the hash's tk field holds them, space-separated;
-- a term whose list empties is deleted: the index has no expiry, the
-- prune empties it), and the index's version (storyterms:v) counts the
-- change (bump); keys under the same {news} tag, built from the time:
-- key's name. Its terms' document frequencies need nothing: they are
-- counted per day (df:<day>), and a day's counts expire with it.
local base = string.sub(KEYS[1], 1, -6)
local cutoff = tonumber(ARGV[1])
-- bump counts a write of the index in its version v (story_plan.go)
local function bump(v)
  redis.call('HINCRBY', v, 'n', 1)
  redis.call('HSET', v, 'by', '')
end
local function unstory(key, id)
  local h = redis.call('HMGET', key, 'tk', 'story')
  if h[2] then redis.call('HDEL', base .. 'story:' .. h[2], id) end
  if h[1] then
    local idx, owner = base .. 'storyterms', h[2] or id
    for f in string.gmatch(h[1], '%S+') do
      local l = redis.call('HGET', idx, f)
      if l then
        local kept, n = {}, 0
        for x in string.gmatch(l, '[^,]+') do
          n = n + 1
          if x ~= owner then kept[#kept + 1] = x end
        end
        if #kept == 0 then
          redis.call('HDEL', idx, f)
          bump(idx .. ':v')
        elseif #kept < n then
          redis.call('HSET', idx, f, table.concat(kept, ','))
          bump(idx .. ':v')
        end
      end
    end
  end
end
-- unlead removes the other members of the story led by id (ranked by
-- story, they are not in time:): their story and index entries, hashes
-- and voted: keys, then the story itself; it returns them, for unrank.
local function unlead(id, out)
  local sk = base .. 'story:' .. id
  for _, m in ipairs(redis.call('HKEYS', sk)) do
    if m ~= id then
      unstory(base .. 'news:' .. m, m)
      redis.call('DEL', base .. 'news:' .. m, base .. 'voted:' .. m)
      out[#out + 1] = m
    end
  end
  redis.call('DEL', sk)
end
local n = tonumber(ARGV[2])
local gone, ranked = {}, 0
for i = 1, n do
  local id = ARGV[2 + i]
  local t = redis.call('ZSCORE', KEYS[1], id)
  if t and tonumber(t) < cutoff then
    gone[#gone + 1] = id
    unstory(KEYS[4 + 2 * i], id)
    redis.call('DEL', KEYS[4 + 2 * i], KEYS[5 + 2 * i])
  end
end
ranked = #gone
if ranked == 0 then
  return 0
end
if ARGV[#ARGV] == '1' then
  for i = 1, ranked do unlead(gone[i], gone) end
end
unrank(gone, KEYS[1], KEYS[3], KEYS[2], KEYS[4], 6 + 2 * n, 3 + n)
touch(KEYS[5], unpack(gone))
return ranked
`)

// PruneOptions configures [Store.Prune]. The zero value is the default: a
// real prune in batches of DefaultPruneBatch.
type PruneOptions struct {
	// Batch is how many articles one call removes, and one read of a dry
	// run lists (default DefaultPruneBatch, at most 5000).
	Batch int
	// DryRun only reports what the prune would remove and changes nothing.
	DryRun bool
	// Sample is how many of the articles a dry run would remove it lists,
	// oldest first, with title and URL.
	Sample int
}

func (o PruneOptions) batch() int {
	if o.Batch > 0 {
		return min(o.Batch, maxBatch)
	}
	return DefaultPruneBatch
}

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
	// Swept is how many group entries and story index entries of
	// articles whose hash had expired the prune's sweep removed
	// (sweep.go).
	Swept int64
	// Journaled is how many entries of the document-frequency journals
	// of story ingests gone quiet the prune added (story_df.go).
	Journaled int
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
// now: an article posted exactly one window ago is kept, as Ingest
// accepts it.
func (s *Store) cutoff(now time.Time) int64 {
	return now.Unix() - int64(s.Window()/time.Second)
}

// Prune removes every article whose post time is more than the window
// before now, in batches: see the package documentation. It stops early,
// with what it removed so far, when ctx ends. With o.DryRun it only
// reports what it would remove.
func (s *Store) Prune(ctx context.Context, now time.Time, o PruneOptions) (PruneResult, error) {
	if o.DryRun {
		return s.pruneDryRun(ctx, now, o.Sample, o.batch())
	}
	return s.prune(ctx, now, o.batch())
}

func (s *Store) prune(ctx context.Context, now time.Time, size int) (PruneResult, error) {
	cut := s.cutoff(now)
	res := PruneResult{Cutoff: time.Unix(cut, 0)}
	if err := s.ensureUngrouped(ctx); err != nil {
		return res, fmt.Errorf("prune: %w", err)
	}
	if _, err := s.dropLegacy(ctx); err != nil {
		return res, fmt.Errorf("prune: %w", err)
	}
	max := "(" + strconv.FormatInt(cut, 10)
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		batch, err := s.c.ZRangeByScoreWithScores(ctx, s.keys.Time(), &redis.ZRangeBy{
			Min: "-inf", Max: max, Count: int64(size),
		}).Result()
		if err != nil {
			return res, fmt.Errorf("prune: read time: %w", err)
		}
		if len(batch) == 0 {
			break
		}
		groups, err := s.c.SMembers(ctx, s.keys.Groups()).Result()
		if err != nil {
			return res, fmt.Errorf("prune: read groups: %w", err)
		}
		keys := make([]string, 0, 5+2*len(batch)+3*len(groups))
		keys = append(keys, s.keys.Time(), s.keys.Score(), s.keys.Votes(), s.keys.Groups(), s.keys.Touched())
		args := make([]any, 0, 2+len(batch)+len(groups))
		args = append(args, cut, len(batch))
		for _, z := range batch {
			id := z.Member.(string)
			keys = append(keys, s.keys.Article(id), s.keys.Voted(id))
			args = append(args, id)
		}
		for _, g := range groups {
			keys = append(keys, s.keys.GroupWithCaches(g)...)
			args = append(args, g)
		}
		args = append(args, s.opts.storyFlag())
		n, err := pruneCmd.Run(ctx, s.c, keys, args...).Int64()
		if err != nil {
			return res, fmt.Errorf("prune: remove batch: %w", err)
		}
		res.Batches++
		if res.Removed == 0 {
			res.Oldest = time.Unix(int64(batch[0].Score), 0)
		}
		res.Removed += n
		res.Newest = time.Unix(int64(batch[len(batch)-1].Score), 0)
		if len(batch) < size {
			break
		}
	}
	swept, err := s.sweep(ctx)
	res.Swept = swept
	if err != nil {
		return res, fmt.Errorf("prune: %w", err)
	}
	if res.Journaled, err = s.addQuietJournals(ctx, now); err != nil {
		return res, fmt.Errorf("prune: %w", err)
	}
	kept, err := s.c.ZCard(ctx, s.keys.Time()).Result()
	if err != nil {
		return res, fmt.Errorf("prune: count time: %w", err)
	}
	res.Kept = kept
	s.log.Info("prune done", "removed", res.Removed, "batches", res.Batches, "kept", res.Kept, "swept", res.Swept, "journaled", res.Journaled, "cutoff", res.Cutoff)
	return res, nil
}

// pruneDryRun reports what prune(ctx, now, size) would remove, listing up
// to sample articles (oldest first, with title and URL), and changes
// nothing. It reads time: by rank in bounded batches.
func (s *Store) pruneDryRun(ctx context.Context, now time.Time, sample, size int) (PruneResult, error) {
	cut := s.cutoff(now)
	res := PruneResult{Cutoff: time.Unix(cut, 0), DryRun: true}
	max := "(" + strconv.FormatInt(cut, 10)
	var count, total *redis.IntCmd
	var oldest, newest *redis.ZSliceCmd
	_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		count = p.ZCount(ctx, s.keys.Time(), "-inf", max)
		total = p.ZCard(ctx, s.keys.Time())
		oldest = p.ZRangeWithScores(ctx, s.keys.Time(), 0, 0)
		newest = p.ZRevRangeByScoreWithScores(ctx, s.keys.Time(), &redis.ZRangeBy{Max: max, Min: "-inf", Count: 1})
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("prune dry run: %w", err)
	}
	res.Removed, res.Kept = count.Val(), total.Val()-count.Val()
	res.Batches = int((res.Removed + int64(size) - 1) / int64(size))
	if res.Removed > 0 {
		res.Oldest = time.Unix(int64(oldest.Val()[0].Score), 0)
		res.Newest = time.Unix(int64(newest.Val()[0].Score), 0)
	}
	for start := int64(0); start < min(res.Removed, int64(sample)); start += int64(size) {
		stop := min(start+int64(size), res.Removed, int64(sample)) - 1
		zs, err := s.c.ZRangeWithScores(ctx, s.keys.Time(), start, stop).Result()
		if err != nil {
			return res, fmt.Errorf("prune dry run: list: %w", err)
		}
		cmds := make([]*redis.SliceCmd, len(zs))
		_, err = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, z := range zs {
				cmds[i] = p.HMGet(ctx, s.keys.Article(z.Member.(string)), "title", "url")
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
