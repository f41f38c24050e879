package news

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Switching news.rank_by from story back to article.
//
// With rank_by: story only a story's lead is ranked, its votes: entry
// holds the story's votes, and the other articles carry story and are in
// no ranking. A store ranking by article that finds such stories left
// (the index, storyterms, is there) ranks every article by itself again:
// Ungroup. The daemon runs it when it starts and the rescore job before
// it rebuilds, and every store before its first write (ensureUngrouped:
// a crawl -once, a vote, a prune), so that an operator who changes the
// setting gets every article ranked, the way it would have been had
// stories never been on. Votes cast on a story were kept on its lead: they stay
// the lead's.

// ungroupScanCount is the COUNT of each SCAN of Ungroup for story: keys;
// UngroupChunk is the most stories one script call takes (a few hundred
// µs of Redis time for stories of 2 to 4 articles: no call near 10 ms).
const (
	ungroupScanCount = 500
	UngroupChunk     = 50
)

// ungroupCmd ranks the articles of the stories it is given by
// themselves: for each story:<lead> key, each of its articles whose hash
// is there loses story (and a lead svotes), and is ranked in time:,
// votes: (its own votes: up − down + comments × weight) and score: (the
// formula of those at its post time); the story key is deleted. Every
// group's cached rankings are dropped (a group's articles that were not
// ranked now are). Keys built in the script (news:<id>, story:<lead>,
// cache:*) share the {news} tag of the declared ones.
//
//	KEYS[1..5] -> time:, votes:, score:, groups:, touched:
//	ARGV[1] -> comment weight
//	ARGV[2], ARGV[3] -> formula name and parameter
//	ARGV[4] -> now (Unix s)
//	ARGV[5..] -> the leads
//
// Returns how many articles it ranked.
var ungroupCmd = redis.NewScript(formulaLua + touchLua + `
local cw, formula, param, now = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local base = string.sub(KEYS[1], 1, #KEYS[1] - #'time:')
local ranked = {}
for i = 5, #ARGV do
  local sk = base .. 'story:' .. ARGV[i]
  for _, id in ipairs(redis.call('HKEYS', sk)) do
    local hk = base .. 'news:' .. id
    local h = redis.call('HMGET', hk, 'time', 'up', 'down', 'comments')
    if tonumber(h[1]) then
      local v = (tonumber(h[2]) or 0) - (tonumber(h[3]) or 0) + (tonumber(h[4]) or 0) * cw
      redis.call('HDEL', hk, 'story', 'svotes')
      redis.call('HSET', hk, 'votes', num(v))
      redis.call('ZADD', KEYS[1], h[1], id)
      redis.call('ZADD', KEYS[2], num(v), id)
      redis.call('ZADD', KEYS[3], num(rank(formula, param, tonumber(h[1]), v, now)), id)
      ranked[#ranked + 1] = id
    end
  end
  redis.call('DEL', sk)
end
if #ranked > 0 then
  touch(KEYS[5], unpack(ranked))
  for _, g in ipairs(redis.call('SMEMBERS', KEYS[4])) do
    redis.call('UNLINK', base .. 'cache:score:' .. g, base .. 'cache:time:' .. g)
  end
end
return #ranked
`)

// Ungroup ranks by themselves the articles of the stories left by
// news.rank_by: story, for a store that ranks by article (an error for
// one that ranks by story): it scans the node of the {news} slot for
// story: keys in bounded batches, runs ungroupCmd on each batch, then
// deletes the index and moves its version (an ingest still planning
// stories against it is refused). Nothing is done, at the cost of one
// EXISTS, when no story formed since the last Ungroup began (the
// stories mark, keys.Stories) and there is no index. It returns how
// many articles it ranked (the leads included).
func (s *Store) Ungroup(ctx context.Context) (int64, error) {
	if s.opts.stories() {
		return 0, errors.New("ungroup: the store ranks by story")
	}
	s.ungrouped.mu.Lock()
	defer s.ungrouped.mu.Unlock()
	n, err := s.ungroup(ctx)
	if err == nil {
		s.ungrouped.done.Store(true)
	}
	return n, err
}

// ungroupOnce is the store's memory of its Ungroup: done once one ran
// to its end.
type ungroupOnce struct {
	mu   sync.Mutex
	done atomic.Bool
}

// ensureUngrouped runs Ungroup before the first write of a store that
// ranks by article (an ingest, a refresh, a vote, a post, a prune), once
// per store: so that a crawl -once, a vote or a prune after the setting
// was switched from story never finds a story's article half ranked (a
// refresh or a vote put it in score: and votes: but not time:), whatever
// started it. The daemon's start and the rescore job run Ungroup too;
// after one ran, this costs an atomic load.
func (s *Store) ensureUngrouped(ctx context.Context) error {
	if s.opts.stories() || s.ungrouped.done.Load() {
		return nil
	}
	s.ungrouped.mu.Lock()
	defer s.ungrouped.mu.Unlock()
	if s.ungrouped.done.Load() {
		return nil
	}
	if _, err := s.ungroup(ctx); err != nil {
		return err
	}
	s.ungrouped.done.Store(true)
	return nil
}

// ungroup is Ungroup's work.
func (s *Store) ungroup(ctx context.Context) (int64, error) {
	// stories exist if a story formed since the last Ungroup began, or
	// (a store of an older release, which kept no such mark) an index
	n, err := s.c.Exists(ctx, s.keys.Stories(), s.keys.StoryIndex(), s.keys.legacyShingles()).Result()
	if err != nil || n == 0 {
		return 0, wrapErr("ungroup: look for stories", err)
	}
	// unmarked before the scan: a story that forms while it runs marks
	// the store again, for the next Ungroup
	if err := s.c.Del(ctx, s.keys.Stories()).Err(); err != nil {
		return 0, fmt.Errorf("ungroup: %w", err)
	}
	name, param := s.formula.scriptArgs()
	prefix := s.keys.base + "story:"
	var ranked int64
	err = s.scanSlot(ctx, globEscape(prefix)+"*", ungroupScanCount, func(_ redis.Cmdable, keys []string) error {
		for chunk := range slices.Chunk(keys, UngroupChunk) {
			args := []any{s.opts.CommentWeight, name, param, s.clock.Now().Unix()}
			for _, k := range chunk {
				args = append(args, strings.TrimPrefix(k, prefix))
			}
			c, err := ungroupCmd.Run(ctx, s.c, []string{s.keys.Time(), s.keys.Votes(), s.keys.Score(), s.keys.Groups(), s.keys.Touched()}, args...).Int64()
			if err != nil {
				return fmt.Errorf("%d stories: %w", len(chunk), err)
			}
			ranked += c
		}
		return nil
	})
	if err != nil {
		return ranked, fmt.Errorf("ungroup: %w", err)
	}
	pipe := s.c.TxPipeline()
	pipe.Del(ctx, s.keys.StoryIndex(), s.keys.legacyShingles())
	pipe.HIncrBy(ctx, s.keys.StoryIndexVersion(), "n", 1)
	pipe.HSet(ctx, s.keys.StoryIndexVersion(), "by", "")
	if _, err := pipe.Exec(ctx); err != nil {
		return ranked, fmt.Errorf("ungroup: delete the story index: %w", err)
	}
	s.log.Info("ranked the articles of the stories left by news.rank_by: story by themselves", "articles", ranked)
	return ranked, nil
}

// wrapErr wraps err with what, or returns nil.
func wrapErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
