package news

import (
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/minhash"
)

// ingestStoryCmd, the ingest script that also groups stories: the
// "Stories" comment in story.go says what it does.

// ingestStoryCmd is ingestCmd with news.rank_by: story (ARGV[6] "1"):
// the same ingest of a batch of articles, then, in the same call, each
// article it created is filed in the near-duplicate index and given a
// story, and the rankings rank by story: an article that joins a story
// leaves time:, votes: and score: (only leads are ranked), its votes are
// added to the story's votes (svotes on the lead's hash; set to the
// lead's own votes when the story forms) and the lead is rescored with
// them and its own post time. Keys built in the script (news:<c>,
// story:<lead>) are under the same {news} hash tag as the declared ones,
// so they are in the same cluster slot. A lead posted before the cutoff
// (its story is closed) takes no new member.
//
// The index is read once for the whole call (one HMGET of every key of
// every created article) and written once at its end (one HSET; a later
// article's key overwrites an earlier one's); an article sees the ones
// before it in the call through the script's own table. The rankings'
// changes go out at the end of the call too, one command per key, not
// one per article. Per created article there is one HSET of its hash,
// one HMGET per candidate story (at most minhash.IndexKeys /
// minhash.MinSharedKeys) and
// the story's writes when it joins one.
//
// Every call that writes the index counts in its version (shingles:v:
// n, and by "", no plan's chunk), so that ingestPlanCmd's plans made
// against an older one are refused.
//
// KEYS -> those of ingestCmd, then the shingles: HASH (the index), then
// shingles:v (its version: a counter)
// ARGV[1] .. ARGV[6] -> those of ingestCmd
// ARGV[7] -> least overlap (news.story.min_similarity)
// ARGV[8] -> cutoff (Unix s): leads posted before it take no member
// ARGV[9] -> hashes per sketch at most (minhash.K)
// ARGV[10] -> keys a candidate story shares with an article at least
// (minhash.MinSharedKeys; all of the article's when it has fewer)
// ARGV[11] -> least overlap of the titles (StoryMinTitleOverlap)
// ARGV[12] -> stories an index key lists at most (StoriesPerKey)
// then, per article, those of ingestCmd, whose optional fields end with
// mt, mh and mhkeys (sketchFields) when its text has shingles: the ingest
// writes them with the new hash, and the story work reads them here.
//
// Returns the reply of ingestCmd, then per created article its story id
// ("" when it is alone so far).
var ingestStoryCmd = redis.NewScript(formulaLua + touchLua + engageLua + storyLua + ingestHeadLua + `
local minsim, cutoff, kmax = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local minshared, mintitle = tonumber(ARGV[10]), tonumber(ARGV[11])
local perkey, maxcand = tonumber(ARGV[12]), tonumber(ARGV[13])
local k, a, track = 6, 14, true
` + ingestLoopLua + storyJoinLua + storyLoopLua + storyRankLua + `
return out
`)

// ingestPlanCmd is ingestStoryCmd with the stories planned in Go
// (storyPlanner, story_plan.go): the store read the index, its version
// and the candidate leads, compared the sketches and decided each
// created article's story and the index's new lists, as ingestStoryCmd
// would have. The script checks the version before any write: when it
// is not the plan's (another ingest or a prune wrote the index since it
// was read), it writes nothing and returns "stale", and the store plans
// again. Otherwise it ingests, joins each planned article to its story
// (not when the lead is gone or was posted before the cutoff since the
// plan was made: the article is then alone), writes the planned lists
// and increments the version. The work of comparing sketches, the most
// of ingestStoryCmd's time, is done in Go, where it costs a fraction.
//
// KEYS -> those of ingestStoryCmd
// ARGV[1] .. ARGV[6] -> those of ingestCmd
// ARGV[7] -> cutoff (Unix s): leads posted before it take no member
// ARGV[8] -> the version's count the plan was made against (n)
// ARGV[9] -> the version's last writer the plan expects (by): "" for the
// first chunk of a batch, which expects n only; then the chunk before
// it, so that a chunk whose chunk before was refused is refused too
// ARGV[10] -> this chunk's name, its by when it writes
// ARGV[11] -> np, the planned joins; ARGV[12] -> nf, the planned lists
// then np pairs (article id, its story's lead), nf pairs (index key, the
// list it holds after the call), then per article those of
// ingestStoryCmd.
//
// Returns "stale", or the reply of ingestStoryCmd.
var ingestPlanCmd = redis.NewScript(formulaLua + touchLua + engageLua + storyLua + ingestHeadLua + `
local cutoff, count, np, nf = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[11]), tonumber(ARGV[12])
local v = redis.call('HMGET', KEYS[#KEYS], 'n', 'by')
if (tonumber(v[1]) or 0) ~= count or (ARGV[9] ~= '' and v[2] ~= ARGV[9]) then return {'stale'} end
local plan = {}
for i = 13, 12 + 2*np, 2 do plan[ARGV[i]] = ARGV[i+1] end
local k, a, track = 6, 13 + 2*np + 2*nf, true
` + ingestLoopLua + storyJoinLua + `
for _, m in ipairs(made) do
  local art = artOf(m)
  local best = plan[art.id]
  if best then
    local lk = base .. 'news:' .. best
    local lh = redis.call('HMGET', lk, 'url', 'time', 'votes', 'svotes', 'source', 'story')
    if lh[1] and tonumber(lh[2]) and tonumber(lh[2]) >= cutoff and (not lh[6] or lh[6] == best) then
      join(art, best, lk, lh)
    else
      best = nil
    end
  end
  out[#out+1] = best or ''
end
if nf > 0 then redis.call('HSET', index, unpack(ARGV, 13 + 2*np, 12 + 2*np + 2*nf)) end
-- (count: ingestLoopLua's n is its reply's length)
redis.call('HSET', version, 'n', count + 1, 'by', ARGV[10])
` + storyRankLua + `
return out
`)

// storyJoinLua is what ingestStoryCmd and ingestPlanCmd share, after
// ingestLoopLua: the keys, artOf and join.
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

// storyRankLua ends ingestStoryCmd and ingestPlanCmd: the members that
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

// storyLoopLua is the story part of ingestStoryCmd, after ingestLoopLua
// and storyJoinLua: it reads made and appends to out.
var storyLoopLua = weekdaysLua() + `
-- hashes unpacks a sketch (4 bytes a hash, big-endian) into numbers: in
-- one call of struct.unpack on redis-server, 4 bytes at a time where
-- there is no struct library (the embedded Redis: miniredis's gopher-lua,
-- which also raises an error on reading an unknown global, hence pcall).
local formats, hasStruct = {}, pcall(function() return struct.unpack end)
local function hashes(s)
  local n = #s / 4
  if hasStruct then
    if not formats[n] then formats[n] = '>' .. string.rep('I4', n) end
    return {struct.unpack(formats[n], s)}, n
  end
  local t = {}
  for i = 1, n do
    local b1, b2, b3, b4 = string.byte(s, 4*i - 3, 4*i)
    t[i] = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
  end
  return t, n
end
-- overlap is the overlap estimate of two sketches (minhash.Overlap): of
-- the least kmax hashes of their union, those in both, and those in the
-- one with fewer.
local function overlap(a, na, b, nb)
  local i, j, union, both = 1, 1, 0, 0
  while union < kmax and (i <= na or j <= nb) do
    if j > nb or (i <= na and a[i] < b[j]) then
      i = i + 1
    elseif i > na or b[j] < a[i] then
      j = j + 1
    else
      i, j, both = i + 1, j + 1, both + 1
    end
    union = union + 1
  end
  return both, math.min(i - 1, j - 1)
end
-- titled tells whether the title sketch mt of a story's lead overlaps the
-- article's by at least mintitle (a text that shares a summary, a site's
-- boilerplate description, but not its title is another story) and,
-- when both titles have figures, shares one of them.
-- agree tells whether sketches a and b (of na and nb hashes) that both
-- have hashes of a kind (is) share one of them; true when either has none
local function agree(a, na, b, nb, is)
  local i, j, fa, fb, fboth = 1, 1, 0, 0, 0
  while i <= na or j <= nb do
    -- (a table of struct.unpack ends with one more value: not a hash)
    local x, y = i <= na and a[i] or nil, j <= nb and b[j] or nil
    if y == nil or (x ~= nil and x < y) then
      if is(x) then fa = fa + 1 end
      i = i + 1
    elseif x == nil or y < x then
      if is(y) then fb = fb + 1 end
      j = j + 1
    else
      if is(x) then fa, fb, fboth = fa + 1, fb + 1, fboth + 1 end
      i, j = i + 1, j + 1
    end
  end
  return fboth > 0 or fa == 0 or fb == 0
end
local function weekday(x) return weekdays[x] == true end
local function figure(x) return x % 8 == 7 and not weekdays[x] end
local function titled(art, mt)
  if not mt or mt == '' or not art.mt or art.mt == '' then return true end
  if not art.ts then art.ts, art.nt = hashes(art.mt) end
  local theirs, ntheirs = hashes(mt)
  local b, u = overlap(art.ts, art.nt, theirs, ntheirs)
  if b < mintitle * u - 1e-9 then return false end
  -- figures (hashes ending in binary 111 that are no weekday's,
  -- minhash.Figure), and weekdays (minhash.Weekday): titles that both
  -- have some and share none tell of other events (another score,
  -- another day's close)
  return agree(art.ts, art.nt, theirs, ntheirs, figure) and agree(art.ts, art.nt, theirs, ntheirs, weekday)
end
-- each created article and its index keys
local arts, fields, filed = {}, {}, {}
for _, m in ipairs(made) do
  local art = artOf(m)
  local mf, no = art.mf, art.no
  if no >= 6 and ARGV[mf + no - 4] == 'mh' then
    art.mt, art.mh, art.keys = ARGV[mf + no - 5], ARGV[mf + no - 3], ARGV[mf + no - 1]
    for i = 1, #art.keys, 8 do
      local f = string.sub(art.keys, i, i + 7)
      art.ks[#art.ks+1] = f
      fields[#fields+1] = f
    end
  end
  arts[#arts+1] = art
end
-- filed: per key read or filed in this call, its list (a table of ids);
-- a key listing no story has none
if #fields > 0 then
  local vals = redis.call('HMGET', index, unpack(fields))
  for i, f in ipairs(fields) do
    if vals[i] and not filed[f] then
      local ls = {}
      for x in string.gmatch(vals[i], '[^,]+') do ls[#ls+1] = x end
      filed[f] = ls
    end
  end
end
local filings, changed = {}, {}
for _, art in ipairs(arts) do
  local id, ks = art.id, art.ks
  local best, bestb, bestu, lh = nil, 0, 1, nil
  -- per story listed under the article's keys: shared, how many of the
  -- keys list it; weight, the sum over them of 1/n^2 for a key listing n
  -- stories (a key of a word pair that many stories have, whose list is
  -- full, says little); met, the stories in the order first met
  local shared, weight, met, need = {}, {}, {}, math.min(minshared, #ks)
  for _, f in ipairs(ks) do
    local ls = filed[f]
    if ls then
      local w = 1 / (#ls * #ls)
      for _, lead in ipairs(ls) do
        if not shared[lead] then shared[lead], weight[lead], met[#met+1] = 0, 0, lead end
        shared[lead] = shared[lead] + 1
        weight[lead] = weight[lead] + w
      end
    end
  end
  -- the candidates: the stories sharing need keys, the maxcand of them
  -- of most weight compared
  local cands, pos = {}, {}
  for i, lead in ipairs(met) do
    pos[lead] = i
    if lead ~= id and shared[lead] >= need then cands[#cands+1] = lead end
  end
  table.sort(cands, function(x, y)
    if weight[x] ~= weight[y] then return weight[x] > weight[y] end
    return pos[x] < pos[y]
  end)
  for c = 1, math.min(#cands, maxcand) do
    local lead = cands[c]
    local h = redis.call('HMGET', base .. 'news:' .. lead, 'mh', 'time', 'votes', 'svotes', 'source', 'story', 'mt')
    if h[1] and tonumber(h[2]) and tonumber(h[2]) >= cutoff then
      if not art.hs then art.hs, art.nh = hashes(art.mh) end
      local theirs, ntheirs = hashes(h[1])
      local b, u = overlap(art.hs, art.nh, theirs, ntheirs)
      -- b/u >= minsim, and above the best so far (b/u > bestb/bestu);
      -- then the titles (a lead stored without mt is not checked)
      if b >= minsim * u - 1e-9 and b * bestu > bestb * u and titled(art, h[7]) then
        best, bestb, bestu, lh = lead, b, u, h
      end
    end
  end
  -- file the article's story first under each of its keys, before the
  -- perkey - 1 most recent others
  local owner = best or id
  for _, f in ipairs(ks) do
    local ls = filed[f]
    if not ls or ls[1] ~= owner then
      local nl = {owner}
      for _, x in ipairs(ls or {}) do
        if x ~= owner and #nl < perkey then nl[#nl+1] = x end
      end
      filed[f] = nl
      changed[f] = true
    end
  end
  if best then
    join(art, best, base .. 'news:' .. best, lh)
    out[#out+1] = best
  else
    out[#out+1] = ''
  end
end
for f in pairs(changed) do
  filings[#filings+1] = f
  filings[#filings+1] = table.concat(filed[f], ',')
end
if #filings > 0 then
  redis.call('HSET', index, unpack(filings))
  redis.call('HINCRBY', version, 'n', 1)
  redis.call('HSET', version, 'by', '')
end
`

// weekdaysLua defines the script's weekdays: the sketch values of the
// weekdays (minhash.Weekday), a set.
func weekdaysLua() string {
	var b strings.Builder
	b.WriteString("local weekdays = {")
	for i, v := range minhash.WeekdayValues() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%d]=true", v)
	}
	b.WriteString("}\n")
	return b.String()
}
