package news

import "github.com/redis/go-redis/v9"

// Ranking by story (news.rank_by: story).
//
// Only a story's lead is ranked: ingestStoryCmd takes an article out of time:,
// votes: and score: when it joins a story. The lead's hash carries the
// story's votes in svotes: the sum of its members' own votes (each
// member's votes field: up − down + comments × comment weight), and
// votes: and score: hold svotes and rank(lead's post time, svotes). Every
// script that changes a member's own votes moves the change to svotes
// (toStory): a re-crawl or refresh of a member's comment count
// (ingestCmd, refreshCmd) and a user's vote (storyVoteCmd), which is kept
// on the lead (voted:<lead>, the lead's up and down), so a user has one
// vote per story whichever of its articles they vote on. A story is open
// for votes while its lead is within the window, and the prune removes it
// with its lead (pruneCmd): its members' hashes, voted: keys, group
// entries and index fields go with it. The rebuild (Store.Rebuild) scores
// time: × votes:, which for a lead are its post time and svotes: the
// story's score.

// storyLua is prepended to the scripts that change an article's own
// votes in story mode, after formulaLua. It defines toStory(key, id, sid,
// d, formula, param, now): article id (hash key, a member of story sid,
// the lead itself included) changed its own votes by d; the story's votes
// (svotes on the lead's hash, whose key is built from key under the same
// hash tag) follow. Returns the lead's id, its svotes and its score
// (num), which the caller writes to votes: and score:, or nil when the
// lead's hash is gone (the story closed).
const storyLua = `
local function toStory(key, id, sid, d, formula, param, now)
  local lk = string.sub(key, 1, #key - #id) .. sid
  local h = redis.call('HMGET', lk, 'time', 'svotes', 'votes')
  if not h[1] then return nil end
  local sv = (tonumber(h[2]) or tonumber(h[3]) or 0) + d
  local s = num(sv)
  redis.call('HSET', lk, 'svotes', s)
  return sid, s, num(rank(formula, param, tonumber(h[1]), sv, now))
end
`

// storyVoteCmd records one user's vote on the story of one article
// (news.rank_by: story): the vote is kept on the story's lead (its
// voted:<lead> HASH, its up and down), so one user has one vote per
// story; the story's votes (svotes, or the lead's own votes while it is
// alone) change by the same amount and the lead is rescored with its own
// post time. Voting is open while the lead is within the window.
//
// KEYS[1] -> news:<id> HASH (the article voted on)
// KEYS[2] -> votes: ZSET
// KEYS[3] -> score: ZSET
// KEYS[4] -> touched: SET (touchLua)
// KEYS[5] -> vote-seq STRING
// ARGV[1] -> id
// ARGV[2] -> user
// ARGV[3] -> vote: 1, -1 or 0 (cancel)
// ARGV[4] -> now (Unix s)
// ARGV[5] -> window (s)
// ARGV[6] -> grace (s): voted:<lead> expires at its post time + window + grace
// ARGV[7], ARGV[8] -> formula name and parameter
// ARGV[9] -> comment weight
// ARGV[10] -> key base (prefix + "{news}:"): news:<lead> and voted:<lead>
// are built from it, under the same hash tag
//
// Returns {"ok", up, down, story votes, score, previous vote, version,
// poster, lead} (up and down are the story's, on the lead), {"notfound"}
// or {"closed"} (the lead is older than the window, or gone).
var storyVoteCmd = redis.NewScript(formulaLua + touchLua + `
local id, base = ARGV[1], ARGV[10]
local m = redis.call('HMGET', KEYS[1], 'time', 'story')
if not m[1] then return {'notfound'} end
local sid = m[2] or id
local lk, vk = base .. 'news:' .. sid, base .. 'voted:' .. sid
local h = redis.call('HMGET', lk, 'time', 'up', 'down', 'comments', 'user', 'svotes')
if not h[1] then return {'closed'} end
local t = tonumber(h[1])
local now = tonumber(ARGV[4])
local window = tonumber(ARGV[5])
if now > t + window then return {'closed'} end
local cw = tonumber(ARGV[9])
local up = tonumber(h[2]) or 0
local down = tonumber(h[3]) or 0
local comments = tonumber(h[4]) or 0
local own = up - down + comments * cw
local sv = tonumber(h[6]) or own
local dir = tonumber(ARGV[3])
local prev = tonumber(redis.call('HGET', vk, ARGV[2]) or '0')
local score
if prev == dir then
  score = redis.call('ZSCORE', KEYS[3], sid)
  if not score then
    score = num(rank(ARGV[7], tonumber(ARGV[8]), t, sv, now))
    redis.call('ZADD', KEYS[3], score, sid)
    touch(KEYS[4], sid)
  end
  return {'ok', up, down, num(sv), score, prev, redis.call('INCR', KEYS[5]), h[5] or '', sid}
end
if dir == 0 then
  redis.call('HDEL', vk, ARGV[2])
else
  redis.call('HSET', vk, ARGV[2], ARGV[3])
  redis.call('EXPIRE', vk, t + window + tonumber(ARGV[6]) - now)
end
if prev == 1 then up = up - 1 elseif prev == -1 then down = down - 1 end
if dir == 1 then up = up + 1 elseif dir == -1 then down = down + 1 end
local nown = up - down + comments * cw
sv = sv + (nown - own)
score = num(rank(ARGV[7], tonumber(ARGV[8]), t, sv, now))
redis.call('HSET', lk, 'up', up, 'down', down, 'votes', num(nown))
if h[6] then redis.call('HSET', lk, 'svotes', num(sv)) end
redis.call('ZADD', KEYS[2], num(sv), sid)
redis.call('ZADD', KEYS[3], score, sid)
touch(KEYS[4], sid)
return {'ok', up, down, num(sv), score, prev, redis.call('INCR', KEYS[5]), h[5] or '', sid}
`)
