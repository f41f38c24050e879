package news

import "github.com/redis/go-redis/v9"

// ingestPlanCmd is ingestCmd with news.rank_by: story (ARGV[6] "1") and
// the stories planned in Go (story_plan.go): the same ingest of a batch
// of articles, then, in the same call, each article it created joins the
// story planned for it, and the rankings rank by story: an article that
// joins a story leaves time:, votes: and score: (only leads are ranked),
// its votes are added to the story's votes (svotes on the lead's hash;
// set to the lead's own votes when the story forms) and the lead is
// rescored with them and its own post time. Keys built in the script
// (news:<c>, story:<lead>, df:<day>) are under the same {news} hash tag
// as the declared ones, so they are in the same cluster slot.
//
// The store read the index, its version, the document frequencies and
// the candidate stories, and decided each created article's story, the
// index's new lists and the stories' new centroids. The script checks
// the version before any write: when it is not the plan's (another
// ingest or a prune wrote the index since it was read), it writes
// nothing and returns "stale", and the store plans again. Otherwise it
// ingests, joins each planned article to its story (not when the lead is
// gone, has joined another story, or was posted before the cutoff since
// the plan was made: the article is then alone), writes the joined
// stories' centroids and the planned lists, appends the document
// frequencies its created articles count (per day, their terms and how
// many of them have each) to the store's journal, which the store adds
// to the df:<day> hashes in bulk later (story_df.go), and increments
// the version. Its work is bounded by its arguments: one HSET for the
// lists, one per story, one RPUSH for the journal, and per created
// article its hash and its story's writes.
//
// KEYS -> those of ingestCmd, then the storyterms HASH (the index), then
// storyterms:v (its version)
// ARGV[1] .. ARGV[6] -> those of ingestCmd
// ARGV[7] -> cutoff (Unix s): leads posted before it take no member
// ARGV[8] -> the version's count the plan was made against (n)
// ARGV[9] -> the version's last writer the plan expects (by): "" for the
// first chunk of a batch, which expects n only; then the chunk before
// it, so that a chunk whose chunk before was refused is refused too
// ARGV[10] -> this chunk's name, its by when it writes
// ARGV[11] -> np, the planned joins; ARGV[12] -> nf, the planned lists;
// ARGV[13] -> ns, the planned stories; ARGV[14] -> nd, the journal
// entries
// then np pairs (article id, its story's lead), nf pairs (index term,
// the list it holds after the call), ns triples (lead, its centroid, its
// latest member's post time), the store's writer name (its journal is
// dfj:<writer>, listed in dfj) and the journal's TTL (s), nd journal
// entries ("<day> term count term count ..."), then per article those
// of ingestCmd, whose optional fields end with tv, tk (and tf, cjk when
// set): the article's vector, index terms, title facts, language.
//
// Returns "stale", or the reply of ingestCmd followed, per created
// article, by its story id ("" when it is alone so far).
var ingestPlanCmd = redis.NewScript(formulaLua + touchLua + engageLua + storyLua + ingestHeadLua + `
local cutoff, count = tonumber(ARGV[7]), tonumber(ARGV[8])
local np, nf, ns, nd = tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13]), tonumber(ARGV[14])
local v = redis.call('HMGET', KEYS[#KEYS], 'n', 'by')
if (tonumber(v[1]) or 0) ~= count or (ARGV[9] ~= '' and v[2] ~= ARGV[9]) then return {'stale'} end
local plan, cents = {}, {}
local at = 15
for i = at, at + 2*np - 1, 2 do plan[ARGV[i]] = ARGV[i+1] end
at = at + 2*np
local lists = at
at = at + 2*nf
for i = at, at + 3*ns - 1, 3 do cents[ARGV[i]] = {ARGV[i+1], ARGV[i+2]} end
at = at + 3*ns
local writer, jttl, journal = ARGV[at], ARGV[at+1], at + 2
at = at + 2 + nd
local k, a, track = 6, at, true
` + ingestLoopLua + storyJoinLua + `
for _, m in ipairs(made) do
  local art = artOf(m)
  local best = plan[art.id]
  if best then
    local lk = base .. 'news:' .. best
    local lh = redis.call('HMGET', lk, 'url', 'time', 'votes', 'svotes', 'source', 'story')
    if lh[1] and tonumber(lh[2]) and tonumber(lh[2]) >= cutoff and (not lh[6] or lh[6] == best) then
      join(art, best, lk, lh)
      local c = cents[best]
      if c then redis.call('HSET', lk, 'cv', c[1], 'slast', c[2]) end
    else
      best = nil
    end
  end
  out[#out+1] = best or ''
end
if nd > 0 then
  local jk = base .. 'dfj:' .. writer
  redis.call('RPUSH', jk, unpack(ARGV, journal, journal + nd - 1))
  redis.call('EXPIRE', jk, jttl)
  redis.call('ZADD', base .. 'dfj', now, writer)
end
if nf > 0 then redis.call('HSET', index, unpack(ARGV, lists, lists + 2*nf - 1)) end
redis.call('HSET', version, 'n', count + 1, 'by', ARGV[10])
` + storyRankLua + `
return out
`)

// storyJoinLua is ingestPlanCmd's, after ingestLoopLua: the keys, artOf
// and join.
const storyJoinLua = `
local base = string.sub(KEYS[1], 1, #KEYS[1] - #'time:')
local index, version = KEYS[#KEYS - 1], KEYS[#KEYS]
-- artOf is the created article m describes (made's {k, a, f, no, ng}):
-- its key, id, post time, source, groups and own votes
local function artOf(m)
  local mf, no = m[3], m[4]
  local src = ''
  if no > 0 and ARGV[mf] == 'source' then src = ARGV[mf+1] end
  return {k = m[1], id = ARGV[m[2]], t = tonumber(ARGV[m[2]+3]), src = src, ng = m[5],
    own = tonumber(ARGV[m[2]+6]), mf = mf, no = no, ks = {}}
end
-- join makes art a member of the story led by best, whose hash lk holds
-- lh = HMGET(lk, _, 'time', 'votes', 'svotes', 'source', 'story'): the
-- story's votes, its members, the article's story field; the article
-- leaves the rankings (unrank, expired) and the lead is rescored
-- (rescored, leads) at the end (storyRankLua).
local expired, unrank, rescored, leads = {}, {}, {}, {}
local function join(art, best, lk, lh)
  local id, key, exp = art.id, KEYS[art.k], art.t + life - now
  local sk = base .. 'story:' .. best
  local sv = (tonumber(lh[4]) or tonumber(lh[3]) or 0) + art.own
  -- cur: how long the story lives so far (its key's TTL, or its lead's
  -- when it forms)
  local cur = math.max(redis.call('TTL', lk), redis.call('TTL', sk))
  if not lh[6] then
    -- the story forms: lead and member (and the store has stories)
    redis.call('SET', base .. 'stories', '1')
    redis.call('HSET', lk, 'story', best, 'svotes', num(sv))
    redis.call('HSET', sk, best, lh[5] or '', id, art.src)
  else
    redis.call('HSET', lk, 'svotes', num(sv))
    redis.call('HSET', sk, id, art.src)
  end
  redis.call('HSET', key, 'story', best)
  -- a story's articles and its key live as long as the longest-lived of
  -- them (an article expires a day after its own window), so that none
  -- is listed in "also" after it expired and no member outlives its lead
  if exp > cur then
    redis.call('EXPIRE', sk, exp)
    for _, m in ipairs(redis.call('HKEYS', sk)) do
      if m ~= id then redis.call('EXPIRE', base .. 'news:' .. m, exp, 'GT') end
    end
  else
    redis.call('EXPIRE', sk, cur)
    redis.call('EXPIRE', key, cur)
  end
  unrank[#unrank+1] = id
  if not rescored[best] then leads[#leads+1] = best end
  rescored[best] = {num(sv), num(rank(formula, param, tonumber(lh[2]), sv, now))}
  for g = 0, art.ng - 1 do
    expired[#expired+1] = KEYS[art.k + 2 + 3*g]
    expired[#expired+1] = KEYS[art.k + 3 + 3*g]
  end
end
`

// storyRankLua ends ingestPlanCmd: the members that
// joined a story leave time:, votes: and score:, the leads are rescored,
// and the joined articles' group caches are dropped.
const storyRankLua = `
if #unrank > 0 then
  for i = 1, 3 do redis.call('ZREM', KEYS[i], unpack(unrank)) end
  local vz, sz = {}, {}
  for _, l in ipairs(leads) do
    vz[#vz+1] = rescored[l][1]; vz[#vz+1] = l
    sz[#sz+1] = rescored[l][2]; sz[#sz+1] = l
    unrank[#unrank+1] = l
  end
  redis.call('ZADD', KEYS[2], unpack(vz))
  redis.call('ZADD', KEYS[3], unpack(sz))
  touch(KEYS[5], unpack(unrank))
end
if #expired > 0 then redis.call('UNLINK', unpack(expired)) end
`
