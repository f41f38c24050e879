package news

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
)

// unrankLua is prepended to the scripts that remove articles from the
// rankings (repairCmd here, pruneCmd in prune.go). It
// defines unrank(ids, time, votes, score, groups, g, name): the ids leave
// the ZSETs time, votes and score and the group SETs KEYS[g], KEYS[g+3],
// ... to the last key, each followed by its two cached rankings
// (cache:score:, cache:time:), whose names are ARGV[name], ARGV[name+1],
// ...; a group that loses a member loses its cached rankings (which list
// it), and its name leaves the SET groups when it is empty.
const unrankLua = `
local function unrank(ids, time, votes, score, groups, g, name)
  redis.call('ZREM', time, unpack(ids))
  redis.call('ZREM', votes, unpack(ids))
  redis.call('ZREM', score, unpack(ids))
  for k = g, #KEYS, 3 do
    if redis.call('SREM', KEYS[k], unpack(ids)) > 0 then
      redis.call('UNLINK', KEYS[k + 1], KEYS[k + 2])
      if redis.call('SCARD', KEYS[k]) == 0 then
        redis.call('SREM', groups, ARGV[name + (k - g) / 3])
      end
    end
  end
end
`

// repairCmd repairs ranked ids against their article hashes, the record.
// An id whose article hash is gone (it expired before the prune job ran,
// was deleted or evicted, or was never there) is an orphan: it leaves
// time:, votes:, score: and every group (a group that loses a member loses
// its cached rankings, and its name leaves groups: when it empties), and
// its voted: key is deleted. An article of time: with no votes: entry gets
// the votes its hash records and its score again. An article whose hash
// is there but which is not in time: (it was removed by hand) is ranked
// again from its hash: time:, votes: and score: (its svotes, the story's
// votes, for a story's lead; a story's other members are never ranked,
// story_rank.go). The hash is checked here,
// in the script, so an article stored again meanwhile is never dropped.
//
//	KEYS[1] -> time: ZSET
//	KEYS[2] -> votes: ZSET
//	KEYS[3] -> score: ZSET
//	KEYS[4] -> groups: SET
//	KEYS[5] -> touched: SET (touchLua)
//	KEYS[4+2i], KEYS[5+2i] -> news:<id_i> HASH, voted:<id_i> HASH, for i = 1..n
//	KEYS[6+2n+3j], KEYS[7+2n+3j], KEYS[8+2n+3j] -> group:<g_j> SET,
//	  cache:score:<g_j> and cache:time:<g_j> ZSETs, for j = 0..m-1
//	ARGV[1] -> n, the number of ids
//	ARGV[2] -> comment weight (for a hash without a votes field)
//	ARGV[3], ARGV[4] -> formula name and parameter
//	ARGV[5] -> now (Unix s)
//	ARGV[5+i] -> id_i
//	ARGV[6+n+j] -> g_j, the group name of KEYS[6+2n+3j]
//
// Every id is touched (touchLua), so a rebuild running meanwhile drops or
// re-scores it too. Returns two values per id: "dropped", ""; "votes",
// the votes given; "restored", its votes; or "ok", "" (nothing to
// repair).
var repairCmd = redis.NewScript(formulaLua + touchLua + unrankLua + `
local n, cw = tonumber(ARGV[1]), tonumber(ARGV[2])
local formula, param, now = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local out, gone = {}, {}
for i = 1, n do
  local id, hk = ARGV[5 + i], KEYS[4 + 2 * i]
  local status, v = 'ok', ''
  if redis.call('EXISTS', hk) == 0 then
    gone[#gone + 1] = id
    redis.call('DEL', KEYS[5 + 2 * i])
    status = 'dropped'
  else
    local t = redis.call('ZSCORE', KEYS[1], id)
    local h = redis.call('HMGET', hk, 'time', 'svotes', 'up', 'down', 'comments', 'story', 'votes')
    h[2] = h[2] or h[7]
    v = redis.call('ZSCORE', KEYS[2], id)
    if not t and tonumber(h[1]) and not (h[6] and h[6] ~= id) then
      t, status = h[1], 'restored'
      redis.call('ZADD', KEYS[1], t, id)
    end
    if t and not v then
      v = num(tonumber(h[2]) or ((tonumber(h[3]) or 0) - (tonumber(h[4]) or 0) + (tonumber(h[5]) or 0) * cw))
      redis.call('ZADD', KEYS[2], v, id)
      if status == 'ok' then status = 'votes' end
    end
    if status == 'ok' then
      v = ''
    else
      redis.call('ZADD', KEYS[3], num(rank(formula, param, tonumber(t), tonumber(v), now)), id)
    end
  end
  out[#out + 1] = status; out[#out + 1] = v
end
if #gone > 0 then
  unrank(gone, KEYS[1], KEYS[2], KEYS[3], KEYS[4], 6 + 2 * n, 6 + n)
end
if n > 0 then touch(KEYS[5], unpack(ARGV, 6, 5 + n)) end
return out
`)

// RepairChunk is how many ids one repair script call takes.
const RepairChunk = 100

// Repaired reports what Repair did.
type Repaired struct {
	// Dropped are the orphans removed: ids that had no article hash.
	Dropped []string
	// Votes are the articles that had no votes: entry, with the votes
	// their hash records, which they now have again.
	Votes map[string]float64
	// Restored are the articles whose hash was there but which were not
	// in time:: they are ranked again from their hash.
	Restored []string
}

// Repair checks ranked ids against their article hashes: an id whose
// hash is gone is dropped from time:, votes:, score: and every group, an
// article missing from votes: gets back the votes its hash records (and
// its score), and one missing from time: is ranked again from its hash. Listings call it for the ids they find without a hash;
// the rescore job for what its rebuild finds. Ids that need nothing are
// left alone. Work is bounded: RepairChunk ids per script call, in one
// pipeline.
func (s *Store) Repair(ctx context.Context, ids []string) (Repaired, error) {
	res := Repaired{Votes: map[string]float64{}}
	if len(ids) == 0 {
		return res, nil
	}
	// groups: holds group names only (a few per configured source).
	groups, err := s.c.SMembers(ctx, s.keys.Groups()).Result()
	if err != nil {
		return res, fmt.Errorf("repair: read groups: %w", err)
	}
	slices.Sort(groups)
	name, param := s.formula.scriptArgs()
	now := s.clock.Now().Unix()
	k := s.keys
	chunks := (len(ids) + RepairChunk - 1) / RepairChunk
	cmds, err := rdb.EvalEach(ctx, s.c, repairCmd, chunks, func(c int) ([]string, []any) {
		part := ids[c*RepairChunk : min(len(ids), (c+1)*RepairChunk)]
		keys := make([]string, 0, 5+2*len(part)+3*len(groups))
		keys = append(keys, k.Time(), k.Votes(), k.Score(), k.Groups(), k.Touched())
		args := make([]any, 0, 5+len(part)+len(groups))
		args = append(args, len(part), s.opts.CommentWeight, name, param, now)
		for _, id := range part {
			keys = append(keys, k.Article(id), k.Voted(id))
			args = append(args, id)
		}
		for _, g := range groups {
			keys = append(keys, k.GroupWithCaches(g)...)
			args = append(args, g)
		}
		return keys, args
	})
	if err != nil {
		return res, fmt.Errorf("repair %d ids: %w", len(ids), err)
	}
	for c, cmd := range cmds {
		part := ids[c*RepairChunk : min(len(ids), (c+1)*RepairChunk)]
		r, err := cmd.StringSlice()
		if err != nil || len(r) != 2*len(part) {
			return res, fmt.Errorf("repair %d ids: reply %q: %w", len(part), r, err)
		}
		for i, id := range part {
			switch r[2*i] {
			case "dropped":
				res.Dropped = append(res.Dropped, id)
			case "votes":
				res.Votes[id], _ = strconv.ParseFloat(r[2*i+1], 64)
			case "restored":
				res.Restored = append(res.Restored, id)
			}
		}
	}
	return res, nil
}

// maxListRepairs bounds how many times a listing drops orphans and reads
// its page again.
const maxListRepairs = 3

// readFullPage reads a page (readPage); when ids on it have no article
// hash, it drops them from the rankings (Repair) and reads the page
// again, so a page is full while more articles exist.
func (s *Store) readFullPage(ctx context.Context, rr rankRead, page, size int) (Page, error) {
	for try := 0; ; try++ {
		p, orphans, err := s.readPage(ctx, rr, page, size)
		if err != nil || len(orphans) == 0 || try == maxListRepairs {
			return p, err
		}
		start := time.Now()
		r, err := s.Repair(ctx, orphans)
		if err != nil {
			// A read-only replica, say: show what there is.
			s.log.Warn("listing: drop ranked ids without an article", "ids", orphans, "err", err)
			return p, nil
		}
		s.log.Warn("listing: dropped ranked ids without an article", "dropped", r.Dropped, "took", time.Since(start))
	}
}
