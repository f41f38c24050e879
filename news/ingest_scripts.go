package news

import "github.com/redis/go-redis/v9"

// ingestCmd creates or refreshes a batch of crawled articles. One script
// call takes many articles, the ZSET updates go out as one ZADD per key
// per call, and each article takes few arguments (the cost of a script
// call grows with its argument count): this keeps ingest within a small
// factor of raw HSET+ZADD.
//
// KEYS[1] -> time: ZSET
// KEYS[2] -> votes: ZSET
// KEYS[3] -> score: ZSET
// KEYS[4] -> groups: SET
// KEYS[5] -> touched: SET (touchLua)
// then, per article: its news:<id> HASH, and per group g of the article
// its group:<g> SET, cache:score:<g> and cache:time:<g> ZSETs.
// ARGV[1] -> comment weight
// ARGV[2], ARGV[3] -> formula name and parameter
// ARGV[4] -> now (Unix s)
// ARGV[5] -> window + grace (s): a new hash expires then after its post time
// ARGV[6] -> "1" with news.rank_by: story: an update of an article of a
// story moves its change of votes to the story (toStory) and ranks the lead
// instead, so a member is never ranked again
// then, per article (ingestCall.args):
//
//	id, canonical URL, title, post time (Unix s), crawl time (Unix s),
//	comments (0 = not known: a re-crawl keeps the stored count), votes
//	and score if the article is new (computed by the caller), number of
//	groups ng, number no of optional hash arguments, the no optional
//	field/value arguments (source, summary, image; empty ones left out),
//	then the ng group names.
//
// Returns per article "created" (the caller knows votes and score), or
// "updated", votes, score (of its story, for an article of a story in
// story mode), or "conflict", the stored URL, "" when the id's hash holds
// another URL.
var ingestCmd = redis.NewScript(formulaLua + touchLua + engageLua + storyLua + ingestHeadLua + `
local k, a, track = 6, 7, false
` + ingestLoopLua + `
return out
`)

// ingestHeadLua reads the arguments ingestCmd and ingestStoryCmd share.
const ingestHeadLua = `
local cw = tonumber(ARGV[1])
local formula, param, now = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local life, stories = tonumber(ARGV[5]), ARGV[6] == '1'
`

// ingestLoopLua is the loop of ingestCmd and ingestStoryCmd over their
// articles, after ingestHeadLua and locals k (the first article's key),
// a (its first argument) and track. It leaves out (the reply so far)
// and, when track is true, made: per article it created, {k, a, f, no,
// ng} (where its keys and arguments are).
const ingestLoopLua = `
local rid
local out, n, made = {}, 0, {}
-- ZADD arguments, collected: members repeat in order, so for an article
-- listed twice the last values win, as they would inline.
local tz, vz, sz, nt, nv, ids = {}, {}, {}, 0, 0, {}
-- cleared: the group SETs whose caches this call unlinked and whose name
-- it added to the groups SET already (nothing in the call recreates a
-- cache, so a group's next new article needs neither again).
local cleared = {}
while ARGV[a] do
  local key, id, url = KEYS[k], ARGV[a], ARGV[a+1]
  rid = id
  local ng, no = tonumber(ARGV[a+8]), tonumber(ARGV[a+9])
  local f = a + 10
  local stored = redis.call('HGET', key, 'url')
  local status, votes, score
  if not stored then
    status, votes, score = 'created', ARGV[a+6], ARGV[a+7]
    redis.call('HSET', key, 'url', url, 'title', ARGV[a+2], 'time', ARGV[a+3], 'crawled', ARGV[a+4],
      'comments', ARGV[a+5], 'up', '0', 'down', '0', 'votes', votes, unpack(ARGV, f, f + no - 1))
    redis.call('EXPIRE', key, tonumber(ARGV[a+3]) + life - now)
    tz[nt+1] = ARGV[a+3]; tz[nt+2] = id; nt = nt + 2
    if track then made[#made+1] = {k, a, f, no, ng} end
  elseif stored == url then
    status = 'updated'
    local h = redis.call('HMGET', key, 'time', 'up', 'down', 'comments', 'story')
    redis.call('HSET', key, 'crawled', ARGV[a+4])
    for i = f, f + no - 2, 2 do
      redis.call('HSETNX', key, ARGV[i], ARGV[i+1])
    end
    votes, score = engage(key, h, ARGV[a+5], cw, formula, param, now)
    if stories and h[5] then
      local was = (tonumber(h[2]) or 0) - (tonumber(h[3]) or 0) + (tonumber(h[4]) or 0) * cw
      local sid, sv, ss = toStory(key, id, h[5], tonumber(votes) - was, formula, param, now)
      rid = sid
      if sid then votes, score = sv, ss end
    end
  else
    status, votes, score = 'conflict', stored, ''
  end
  if status ~= 'conflict' and rid then
    vz[nv+1] = votes; vz[nv+2] = rid
    sz[nv+1] = score; sz[nv+2] = rid
    nv = nv + 2
    ids[#ids+1] = rid
  end
  if status ~= 'conflict' then
    for g = 0, ng - 1 do
      local gk = k + 1 + 3*g
      if redis.call('SADD', KEYS[gk], id) == 1 and not cleared[KEYS[gk]] then
        cleared[KEYS[gk]] = true
        redis.call('UNLINK', KEYS[gk+1], KEYS[gk+2])
        redis.call('SADD', KEYS[4], ARGV[f + no + g])
      end
    end
  end
  if status == 'created' then
    out[n+1] = 'created'; n = n + 1
  else
    out[n+1] = status; out[n+2] = votes; out[n+3] = score; n = n + 3
  end
  k = k + 1 + 3*ng
  a = f + no + ng
end
if nt > 0 then redis.call('ZADD', KEYS[1], unpack(tz)) end
if nv > 0 then
  redis.call('ZADD', KEYS[2], unpack(vz))
  redis.call('ZADD', KEYS[3], unpack(sz))
  touch(KEYS[5], unpack(ids))
end
`
