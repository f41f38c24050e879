package news

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// The prune's sweep.
//
// An article's hash expires a day after it leaves the window, and the
// prune runs weekly by default, so it often finds only the id of an
// article in time:. A ranked article's id is all it needs to unrank it;
// but the other keys that name an article are found through its hash or
// its story: a story lead's index lists (the hash's tk) and its
// other articles' group entries (story:<lead>), which expire with it.
// Those stayed forever: index lists naming dead leads (taking the places
// of live stories), and group SETs (so /api/groups) counting articles
// long gone. So the prune ends with a sweep of both, in bounded batches:
// what names an article whose hash is gone goes. It costs one EXISTS per
// group entry and per index list entry, once per prune.

// sweepBatch is how many group entries or index fields one sweep call
// looks at.
const sweepBatch = 500

// sweepGroupCmd removes from a group the ids whose hash is gone.
//
//	KEYS[1..3] -> group:<g> SET, its cache:score and cache:time ZSETs
//	KEYS[4]    -> groups: SET
//	ARGV[1]    -> g; ARGV[2..] -> ids of the group
//
// A group that loses a member loses its cached rankings, and leaves
// groups: when it is empty. Article keys are built from groups:'s name
// (the same {news} tag). Returns how many ids it removed.
var sweepGroupCmd = redis.NewScript(`
local base = string.sub(KEYS[4], 1, #KEYS[4] - #'groups:')
local gone = 0
for i = 2, #ARGV do
  if redis.call('EXISTS', base .. 'news:' .. ARGV[i]) == 0 then
    gone = gone + redis.call('SREM', KEYS[1], ARGV[i])
  end
end
if gone > 0 then
  redis.call('DEL', KEYS[2], KEYS[3])
  if redis.call('SCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[4], ARGV[1]) end
end
return gone
`)

// sweepIndexCmd removes from the story index's lists the leads whose hash
// is gone (a field whose list empties is deleted), and counts the change
// in the index's version (story_plan.go).
//
//	KEYS[1] -> storyterms HASH; KEYS[2] -> storyterms:v
//	ARGV    -> fields of the index
//
// Returns how many list entries it removed.
var sweepIndexCmd = redis.NewScript(`
local base = string.sub(KEYS[1], 1, #KEYS[1] - #'storyterms')
local gone = 0
for i = 1, #ARGV do
  local l = redis.call('HGET', KEYS[1], ARGV[i])
  if l then
    local kept, n = {}, 0
    for x in string.gmatch(l, '[^,]+') do
      n = n + 1
      if redis.call('EXISTS', base .. 'news:' .. x) == 1 then kept[#kept + 1] = x end
    end
    if #kept == 0 then
      redis.call('HDEL', KEYS[1], ARGV[i])
    elseif #kept < n then
      redis.call('HSET', KEYS[1], ARGV[i], table.concat(kept, ','))
    end
    gone = gone + n - #kept
  end
end
if gone > 0 then
  redis.call('HINCRBY', KEYS[2], 'n', 1)
  redis.call('HSET', KEYS[2], 'by', '')
end
return gone
`)

// sweep removes what names articles whose hash is gone: their group
// entries and their index list entries. It returns how many it removed.
func (s *Store) sweep(ctx context.Context) (int64, error) {
	groups, err := s.c.SMembers(ctx, s.keys.Groups()).Result()
	if err != nil {
		return 0, fmt.Errorf("sweep: read groups: %w", err)
	}
	var gone int64
	for _, g := range groups {
		keys := append(s.keys.GroupWithCaches(g), s.keys.Groups())
		n, err := s.sweepScan(ctx, func(cur uint64) ([]string, uint64, error) {
			return s.c.SScan(ctx, s.keys.Group(g), cur, "", sweepBatch).Result()
		}, 1, func(ids []string) *redis.Cmd {
			return sweepGroupCmd.Run(ctx, s.c, keys, append([]any{g}, toAny(ids)...)...)
		})
		gone += n
		if err != nil {
			return gone, fmt.Errorf("sweep group %s: %w", g, err)
		}
	}
	n, err := s.sweepScan(ctx, func(cur uint64) ([]string, uint64, error) {
		return s.c.HScan(ctx, s.keys.StoryIndex(), cur, "", sweepBatch).Result()
	}, 2, func(fields []string) *redis.Cmd {
		return sweepIndexCmd.Run(ctx, s.c, []string{s.keys.StoryIndex(), s.keys.StoryIndexVersion()}, toAny(fields)...)
	})
	gone += n
	if err != nil {
		return gone, fmt.Errorf("sweep the story index: %w", err)
	}
	return gone, nil
}

// sweepScan walks a scan (SSCAN, or HSCAN whose replies alternate field
// and value: step 2 keeps the fields) and runs clean on each batch.
func (s *Store) sweepScan(ctx context.Context, scan func(uint64) ([]string, uint64, error), step int, clean func([]string) *redis.Cmd) (int64, error) {
	var gone int64
	var cur uint64
	for {
		items, next, err := scan(cur)
		if err != nil {
			return gone, err
		}
		var batch []string
		for i := 0; i < len(items); i += step {
			batch = append(batch, items[i])
		}
		if len(batch) > 0 {
			n, err := clean(batch).Int64()
			if err != nil {
				return gone, err
			}
			gone += n
		}
		if cur = next; cur == 0 {
			return gone, nil
		}
	}
}

// toAny returns ss as a slice of any, for script arguments.
func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
