package news

import "github.com/redis/go-redis/v9"

// formulaLua is prepended to the scripts that score an article (here and
// in the rebuild's swap script). It defines rank(formula, param, t, v, now), the
// score of an article posted at t (Unix s) with v net votes, for the
// formula name and parameter Formula.scriptArgs gives, and num(x), a score as a
// string. rank computes exactly what the Go Formula implementations
// compute, bit for bit (exactmath.go; exactmath_test.go checks it on a
// real Redis). Scores leave a script as strings formatted %.17g, which
// round-trip a double exactly (a bare Lua number returned to Redis would
// be truncated to an integer, and one passed to redis.call is formatted
// %.14g).
var formulaLua = exactMathLua + `
local function rank(formula, param, t, v, now)
  if formula == 'linear' then
    return t + param * v
  elseif formula == 'hot' then
    local s = 0
    if v > 0 then s = 1 elseif v < 0 then s = -1 end
    local a = math.abs(v)
    if a < 1 then a = 1 end
    return s * log10(a) + t / param
  end
  local age = (now - t) / 3600
  if age < 0 then age = 0 end
  return v / pow(age + 2, param)
end
local function num(x)
  return string.format('%.17g', x)
end
`

// touchLua is prepended to the scripts that write time:, votes: or
// score:. It defines touch(set, id, ...), which adds the ids to set —
// the Touched key — when it exists, that is while a rebuild of score:
// runs (Store.Rebuild): the rebuild then re-scores those ids before it
// swaps its ranking in, so no write made during it is lost.
const touchLua = `
local function touch(set, ...)
  if redis.call('EXISTS', set) == 1 then redis.call('SADD', set, ...) end
end
`

// engageLua is prepended to the scripts that change a stored article's
// engagement: ingestCmd on a re-crawl and refreshCmd. It is the one place
// that turns a comment count into votes and a score, so a refresh rescores
// exactly as a re-ingest does.
//
// engage(key, h, cs, cw, formula, param, now): h is HMGET key time up down
// comments; cs is the new comment count as a string, where "0" means "not
// known" and keeps the stored count (any other count replaces it, lower
// ones too). It writes comments and votes to the hash and returns votes and
// score, formatted by num. The caller writes them to votes: and score:.
const engageLua = `
local function engage(key, h, cs, cw, formula, param, now)
  local comments = tonumber(cs)
  if comments > 0 then
    redis.call('HSET', key, 'comments', cs)
  else
    comments = tonumber(h[4]) or 0
  end
  local v = (tonumber(h[2]) or 0) - (tonumber(h[3]) or 0) + comments * cw
  local votes = num(v)
  redis.call('HSET', key, 'votes', votes)
  return votes, num(rank(formula, param, tonumber(h[1]), v, now))
end
`

// refreshCmd sets the comment counts a list page carried on articles the
// store already has, and rescores them (engage, as a re-crawl would). It
// never creates an article: an id without a hash, whose hash holds another
// URL, or whose post time is older than the window (a closed article, maybe
// already pruned from the rankings) is left alone. A count equal to the
// stored one changes nothing.
//
// KEYS[1] -> votes: ZSET
// KEYS[2] -> score: ZSET
// KEYS[3] -> touched: SET (touchLua)
// KEYS[3+i] -> news:<id_i> HASH, one per article
// ARGV[1] -> comment weight
// ARGV[2], ARGV[3] -> formula name and parameter
// ARGV[4] -> now (Unix s)
// ARGV[5] -> window (s): an article is refreshed while now <= post time + window
// ARGV[6] -> "1" with news.rank_by: story: an article of a story moves its
// change of votes to the story (toStory), and the lead is ranked instead
// then, per article i, ARGV[7+3(i-1)] .. ARGV[9+3(i-1)]: id, canonical URL,
// comment count (> 0)
//
// Returns {updated, i, ...}: the number of articles whose count changed
// and that were rescored, then the positions (1-based, in this call) of
// the articles that have no hash, so the caller can try their aliases.
var refreshCmd = redis.NewScript(formulaLua + touchLua + engageLua + storyLua + `
local cw = tonumber(ARGV[1])
local formula, param, now = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local window, stories = tonumber(ARGV[5]), ARGV[6] == '1'
local out = {0}
local k, a = 4, 7
while ARGV[a] do
  local key, id, url, cs = KEYS[k], ARGV[a], ARGV[a+1], ARGV[a+2]
  local h = redis.call('HMGET', key, 'time', 'up', 'down', 'comments', 'url', 'story')
  local t = tonumber(h[1])
  if not h[5] then
    out[#out+1] = k - 3
  elseif t and h[5] == url and now <= t + window and tonumber(h[4]) ~= tonumber(cs) then
    local was = (tonumber(h[2]) or 0) - (tonumber(h[3]) or 0) + (tonumber(h[4]) or 0) * cw
    local votes, score = engage(key, h, cs, cw, formula, param, now)
    local rid = id
    if stories and h[6] then
      rid, votes, score = toStory(key, id, h[6], tonumber(votes) - was, formula, param, now)
    end
    if rid then
      redis.call('ZADD', KEYS[1], votes, rid)
      redis.call('ZADD', KEYS[2], score, rid)
      touch(KEYS[3], rid)
    end
    out[1] = out[1] + 1
  end
  k, a = k + 1, a + 3
end
return out
`)

// postCmd creates a user-submitted article with the author's up-vote.
//
// KEYS[1] -> news:<id> HASH
// KEYS[2] -> voted:<id> HASH
// KEYS[3] -> time: ZSET
// KEYS[4] -> votes: ZSET
// KEYS[5] -> score: ZSET
// KEYS[6] -> touched: SET (touchLua)
// ARGV[1] -> id
// ARGV[2] -> canonical URL
// ARGV[3] -> title
// ARGV[4] -> user
// ARGV[5] -> post time = now (Unix s)
// ARGV[6] -> TTL of the hash and voted:<id> (s)
// ARGV[7], ARGV[8] -> formula name and parameter
//
// Returns {"created", votes, score}, {"exists", poster} when the id is
// taken by the same URL (poster: who posted it, "" for a crawled article),
// or {"conflict", stored URL}.
var postCmd = redis.NewScript(formulaLua + touchLua + `
local stored = redis.call('HGET', KEYS[1], 'url')
if stored then
  if stored == ARGV[2] then return {'exists', redis.call('HGET', KEYS[1], 'user') or ''} end
  return {'conflict', stored}
end
local t = tonumber(ARGV[5])
local score = rank(ARGV[7], tonumber(ARGV[8]), t, 1, t)
redis.call('HSET', KEYS[1], 'url', ARGV[2], 'title', ARGV[3], 'user', ARGV[4],
  'time', ARGV[5], 'crawled', ARGV[5], 'comments', '0', 'up', '1', 'down', '0', 'votes', '1')
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('HSET', KEYS[2], ARGV[4], '1')
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
redis.call('ZADD', KEYS[4], '1', ARGV[1])
redis.call('ZADD', KEYS[5], num(score), ARGV[1])
touch(KEYS[6], ARGV[1])
return {'created', '1', num(score)}
`)

// voteCmd records one user's vote on one article.
//
// KEYS[1] -> news:<id> HASH
// KEYS[2] -> voted:<id> HASH
// KEYS[3] -> votes: ZSET
// KEYS[4] -> score: ZSET
// KEYS[5] -> touched: SET (touchLua)
// KEYS[6] -> vote-seq STRING: numbers every vote, for the activity report
// ARGV[1] -> id
// ARGV[2] -> user
// ARGV[3] -> vote: 1, -1 or 0 (cancel)
// ARGV[4] -> now (Unix s)
// ARGV[5] -> window (s): voting is open while now <= post time + window
// ARGV[6] -> grace (s): voted:<id> expires at post time + window + grace
// ARGV[7], ARGV[8] -> formula name and parameter
// ARGV[9] -> comment weight
//
// Returns {"ok", up, down, votes, score, previous vote, version, poster},
// {"notfound"} or {"closed"}. version is a new number from vote-seq for
// every vote, a repeat of the current one included (so the state it
// reports is newer than any reported before); poster is who posted the
// article ("" for a crawled one).
var voteCmd = redis.NewScript(formulaLua + touchLua + `
local h = redis.call('HMGET', KEYS[1], 'time', 'up', 'down', 'comments', 'user')
if not h[1] then return {'notfound'} end
local t = tonumber(h[1])
local now = tonumber(ARGV[4])
local window = tonumber(ARGV[5])
if now > t + window then return {'closed'} end
local up = tonumber(h[2]) or 0
local down = tonumber(h[3]) or 0
local comments = tonumber(h[4]) or 0
local dir = tonumber(ARGV[3])
local prev = tonumber(redis.call('HGET', KEYS[2], ARGV[2]) or '0')
local votes = up - down + comments * tonumber(ARGV[9])
local score
if prev == dir then
  score = redis.call('ZSCORE', KEYS[4], ARGV[1])
  if not score then
    score = num(rank(ARGV[7], tonumber(ARGV[8]), t, votes, now))
    redis.call('ZADD', KEYS[4], score, ARGV[1])
    touch(KEYS[5], ARGV[1])
  end
  return {'ok', up, down, num(votes), score, prev, redis.call('INCR', KEYS[6]), h[5] or ''}
end
if dir == 0 then
  redis.call('HDEL', KEYS[2], ARGV[2])
else
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
  redis.call('EXPIRE', KEYS[2], t + window + tonumber(ARGV[6]) - now)
end
if prev == 1 then up = up - 1 elseif prev == -1 then down = down - 1 end
if dir == 1 then up = up + 1 elseif dir == -1 then down = down + 1 end
votes = up - down + comments * tonumber(ARGV[9])
score = num(rank(ARGV[7], tonumber(ARGV[8]), t, votes, now))
redis.call('HSET', KEYS[1], 'up', up, 'down', down, 'votes', num(votes))
redis.call('ZADD', KEYS[3], num(votes), ARGV[1])
redis.call('ZADD', KEYS[4], score, ARGV[1])
touch(KEYS[5], ARGV[1])
return {'ok', up, down, num(votes), score, prev, redis.call('INCR', KEYS[6]), h[5] or ''}
`)

// groupPageCmd returns the ids of a page of a group's ranking, building
// the cached intersection first when it is missing (so the cache cannot
// expire between the build and the read). It reads no article: the
// fields are read by HMGET in the same pipeline (page.go).
//
// KEYS[1] -> cache:<order>:<group> ZSET
// KEYS[2] -> group:<group> SET
// KEYS[3] -> the ranking: time: or score: ZSET
// ARGV[1] -> cache TTL (s)
// ARGV[2], ARGV[3] -> start and stop ranks (0-based, inclusive)
//
// Returns {total, id, id, ...}: the cache's size, then the page's ids,
// highest first.
var groupPageCmd = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  if redis.call('ZINTERSTORE', KEYS[1], 2, KEYS[2], KEYS[3], 'WEIGHTS', 0, 1) > 0 then
    redis.call('EXPIRE', KEYS[1], ARGV[1])
  end
end
local ids = redis.call('ZREVRANGE', KEYS[1], ARGV[2], ARGV[3])
table.insert(ids, 1, redis.call('ZCARD', KEYS[1]))
return ids
`)

// groupsCmd adds an article to groups or removes it from them.
//
// KEYS[1] -> news:<id> HASH
// KEYS[2] -> groups: SET
// KEYS[3+3i], KEYS[4+3i], KEYS[5+3i] -> group:<g_i> SET, cache:score:<g_i>, cache:time:<g_i> ZSETs
// ARGV[1] -> id
// ARGV[2] -> "add" or "remove"
// ARGV[3+i] -> group name g_i
//
// Returns the number of groups whose membership changed, or -1 when
// adding to an article that does not exist.
var groupsCmd = redis.NewScript(`
if ARGV[2] == 'add' and redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local changed = 0
local g = 0
while KEYS[3 + 3*g] do
  local k = KEYS[3 + 3*g]
  local n
  if ARGV[2] == 'add' then
    n = redis.call('SADD', k, ARGV[1])
    if n == 1 then redis.call('SADD', KEYS[2], ARGV[3 + g]) end
  else
    n = redis.call('SREM', k, ARGV[1])
    if n == 1 and redis.call('SCARD', k) == 0 then redis.call('SREM', KEYS[2], ARGV[3 + g]) end
  end
  if n == 1 then
    redis.call('UNLINK', KEYS[4 + 3*g], KEYS[5 + 3*g])
    changed = changed + 1
  end
  g = g + 1
end
return changed
`)
