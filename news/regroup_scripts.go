package news

import "github.com/redis/go-redis/v9"

// regroupLua is prepended to the regroup scripts, after formulaLua and
// touchLua. Their KEYS start with
//
//	KEYS[1] -> time: ZSET
//	KEYS[2] -> votes: ZSET
//	KEYS[3] -> score: ZSET
//	KEYS[4] -> touched: SET (touchLua)
//	KEYS[5] -> storyterms HASH (the stories' index)
//	KEYS[6] -> storyterms:v HASH (its version)
//	KEYS[7] -> vote-seq STRING
//
// and the keys built here (news:<id>, story:<lead>, voted:<lead>,
// stories) are under the same {news} hash tag, built from KEYS[1]'s name.
// It defines:
//
// state(lead): the fingerprint of story lead — its lead's post time,
// story, up, down, comments, votes and svotes fields, each member's story
// and votes fields, and every user's vote on it (voted:<lead>), hashed
// (SHA-1) — and its members, sorted ({lead} for an article alone); nil
// when the lead's hash is gone or it is a member of another story (no
// step takes articles into a member, or out of one). A job that read a story's fingerprint
// and finds another one in its write script knows the story changed in
// between: a member came or went, a comment count changed, a user voted.
//
// restory(lead): recomputes story lead after its members changed, as the
// ingest keeps it: a story of one is alone again (its story: key and its
// story, svotes, cv and slast fields deleted; its hash expires at its own
// post time + life); a story of two or more gets svotes, the sum of its
// members' own votes (their votes fields, in id order), and its key and
// its members' hashes expire at the latest member's post time + life. The
// lead is ranked (votes:, score:) with those votes at its own post time;
// it returns them and the score.
//
// filedTerms(lead): the set of the index terms (tk fields) of story
// lead's articles, its lead included (remaining): the terms a story stays
// filed under when one leaves.
//
// refile(terms, old, new): in the index lists of terms (space-separated),
// new takes old's place (old just leaves when new is listed already).
//
// remaining(lead): the articles of story lead, its lead included ({lead}
// when it is alone, its story: key gone): those whose terms keep it in
// the index after an article left it.
//
// caches(g, ids, add): the group SETs KEYS[g], KEYS[g+3], ... to the last
// key, each followed by its cached rankings (cache:score:, cache:time:):
// a group that lists one of ids loses its cached rankings; with add, it
// takes add as a member too.
const regroupLua = `
local base = string.sub(KEYS[1], 1, #KEYS[1] - #'time:')
local function hkey(id) return base .. 'news:' .. id end
local function skey(id) return base .. 'story:' .. id end
local function vkey(id) return base .. 'voted:' .. id end
local function state(lead)
  local h = redis.call('HMGET', hkey(lead), 'time', 'story', 'up', 'down', 'comments', 'votes', 'svotes')
  if not h[1] or (h[2] and h[2] ~= lead) then return nil end
  local parts = {lead}
  for i = 1, 7 do parts[#parts+1] = h[i] or '' end
  local ms = redis.call('HKEYS', skey(lead))
  if #ms == 0 then ms = {lead} end
  table.sort(ms)
  for _, m in ipairs(ms) do
    if m ~= lead then
      local x = redis.call('HMGET', hkey(m), 'story', 'votes')
      parts[#parts+1] = m .. '=' .. (x[1] or '') .. '/' .. (x[2] or '')
    end
  end
  local vs = redis.call('HGETALL', vkey(lead))
  local vl = {}
  for i = 1, #vs, 2 do vl[#vl+1] = vs[i] .. '=' .. vs[i+1] end
  table.sort(vl)
  return redis.sha1hex(table.concat(parts, '\n') .. '\n\n' .. table.concat(vl, '\n')), ms
end
local function restory(lead)
  local lk, sk = hkey(lead), skey(lead)
  local h = redis.call('HMGET', lk, 'time', 'votes')
  local t = tonumber(h[1])
  local ms = redis.call('HKEYS', sk)
  local v
  if #ms <= 1 then
    redis.call('DEL', sk)
    redis.call('HDEL', lk, 'story', 'svotes', 'cv', 'slast')
    v = tonumber(h[2]) or 0
    redis.call('EXPIRE', lk, t + life - now)
  else
    table.sort(ms)
    v = 0
    local last = t
    for _, m in ipairs(ms) do
      local x = redis.call('HMGET', hkey(m), 'votes', 'time')
      v = v + (tonumber(x[1]) or 0)
      local mt = tonumber(x[2])
      if mt and mt > last then last = mt end
    end
    redis.call('HSET', lk, 'svotes', num(v))
    local ttl = last + life - now
    redis.call('EXPIRE', sk, ttl)
    for _, m in ipairs(ms) do redis.call('EXPIRE', hkey(m), ttl) end
  end
  local score = num(rank(formula, param, t, v, now))
  redis.call('ZADD', KEYS[2], num(v), lead)
  redis.call('ZADD', KEYS[3], score, lead)
  return num(v), score
end
local function refile(terms, old, new)
  for t in string.gmatch(terms or '', '%S+') do
    local l = redis.call('HGET', KEYS[5], t)
    if l then
      local out, has, changed = {}, false, false
      for x in string.gmatch(l, '[^,]+') do
        if x == new then has = true end
      end
      for x in string.gmatch(l, '[^,]+') do
        if x == old then
          changed = true
          if not has then
            out[#out+1] = new
            has = true
          end
        else
          out[#out+1] = x
        end
      end
      if changed then redis.call('HSET', KEYS[5], t, table.concat(out, ',')) end
    end
  end
end
local function caches(g, ids, add)
  for k = g, #KEYS, 3 do
    for _, id in ipairs(ids) do
      if redis.call('SISMEMBER', KEYS[k], id) == 1 then
        redis.call('UNLINK', KEYS[k + 1], KEYS[k + 2])
        if add then redis.call('SADD', KEYS[k], add) end
        break
      end
    end
  end
end
local function remaining(lead)
  local ms = redis.call('HKEYS', skey(lead))
  if #ms == 0 then ms = {lead} end
  return ms
end
-- filedTerms: the set of the index terms (tk) of story lead's articles
local function filedTerms(lead)
  local kept = {}
  for _, m in ipairs(remaining(lead)) do
    for t in string.gmatch(redis.call('HGET', hkey(m), 'tk') or '', '%S+') do kept[t] = true end
  end
  return kept
end
local function bump()
  redis.call('HINCRBY', KEYS[6], 'n', 1)
  redis.call('HSET', KEYS[6], 'by', '')
end
`

// regroupStateCmd reads the fingerprints and members of stories
// (regroupLua's state), in one atomic step, for the regroup job to pass
// to its write scripts. It writes nothing.
//
// KEYS[1] -> time: ZSET (for the key base; not read)
// KEYS[2..] -> news:<lead> HASH, one per story
// ARGV -> the leads, in the order of their keys
//
// Returns per lead: its fingerprint ("" when its hash is gone or it is
// another story's member), the number n of its members, then its n
// members, sorted.
var regroupStateCmd = redis.NewScript(`
local formula, param, now, life
` + regroupLua + `
local out = {}
for _, lead in ipairs(ARGV) do
  local fp, ms = state(lead)
  if not fp then
    out[#out+1] = ''
    out[#out+1] = 0
  else
    out[#out+1] = fp
    out[#out+1] = #ms
    for _, m in ipairs(ms) do out[#out+1] = m end
  end
end
return out
`)

// regroupArgs is the head of the regroup write scripts' ARGV.
//
// ARGV[1] -> now (Unix s)
// ARGV[2] -> window (s): a story takes votes and articles while its
// lead's post time is within it
// ARGV[3] -> life (s): window + grace, how long after its post time an
// article's hash lives
// ARGV[4], ARGV[5] -> formula name and parameter
// ARGV[6] -> comment weight
const regroupArgs = `
local now, window, life = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local formula, param, cw = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
`

// regroupMergeCmd merges story from into story into (the older one), in
// one atomic step, if neither changed since the job read their
// fingerprints (regroupStateCmd):
//
//   - votes: every user's vote on from moves to into (voted:<into>, into's
//     up and down), except that a user who voted on both keeps the vote
//     on into: the story they see keeps its id, its place and their vote
//     on it, and the copy they also voted on is gone from the listings.
//     from's lead keeps no user vote (its up and down are 0, its votes
//     its comments' worth) and voted:<from> is deleted. Each voter of from
//     takes a new number from vote-seq, for the activity reports.
//   - members: from's articles (its lead included) join into (story:
//     <into>, their story field); story:<from> is deleted; an article
//     alone that takes a story forms it (story:<into>, its story field,
//     and stories set, as an ingest does).
//   - rankings: from's lead leaves time:, votes: and score:; into's svotes
//     is the sum of all its members' own votes, and into is ranked with
//     it at its lead's post time (restory): the merged story's votes are
//     the two stories' minus the votes of the users who voted on both.
//     Both ids are recorded in touched: while a rebuild runs.
//   - into's lead keeps the merged centroid and latest post time (cv,
//     slast; the job computed them) and from's lead drops its own; the
//     index lists from's members' terms filed from: into takes its place
//     (refile), and the index's version counts the write, so an ingest
//     planned before it plans again.
//   - groups: a group that listed from lists into too (the story stays
//     in the groups it was listed in), and a group listing either loses
//     its cached rankings.
//   - expiries: into's key and members live until its latest member's
//     post time + life (restory); voted:<into> expires at into's post
//     time + life, as the vote script sets it.
//
// KEYS[1] .. KEYS[7] -> those of regroupLua
// KEYS[8] -> news:<into> HASH
// KEYS[9] -> news:<from> HASH
// KEYS[10], KEYS[11], KEYS[12], ... -> group:<g> SET, cache:score:<g> and
// cache:time:<g> ZSETs, for every group of groups:
// ARGV[1] .. ARGV[6] -> regroupArgs
// ARGV[7] -> into, ARGV[8] -> from
// ARGV[9], ARGV[10] -> their fingerprints as the job read them
// ARGV[11] -> into's centroid after the merge (termvec.Vector.String)
// ARGV[12] -> into's latest member's post time after the merge (Unix s)
//
// Returns {"changed"} (a fingerprint differs, or a story is gone: nothing
// written), {"closed"} (into's lead is older than the window: nothing
// written), or {"ok", votes, score, up, down, moved, doubles, poster, then
// per voter of from: user, vote (1 or -1), "1" when it moved to into or
// "0" when the user's vote on into was kept instead, its vote-seq
// number}: into's story votes and score, its lead's up and down after
// the merge, how many votes moved and how many were doubles, and who
// posted into's lead ("" for a crawled one).
var regroupMergeCmd = redis.NewScript(formulaLua + touchLua + regroupArgs + regroupLua + `
local into, from = ARGV[7], ARGV[8]
if state(into) ~= ARGV[9] or state(from) ~= ARGV[10] then return {'changed'} end
local ha = redis.call('HMGET', KEYS[8], 'time', 'up', 'down', 'comments', 'source', 'story', 'user')
local hb = redis.call('HMGET', KEYS[9], 'time', 'up', 'down', 'comments', 'source', 'story')
local ta = tonumber(ha[1])
if now > ta + window then return {'closed'} end
-- the votes
local up, down = tonumber(ha[2]) or 0, tonumber(ha[3]) or 0
local moved, doubles, voters = 0, 0, {}
local bv = redis.call('HGETALL', vkey(from))
for i = 1, #bv, 2 do
  local u, v = bv[i], bv[i + 1]
  local kept = redis.call('HSETNX', vkey(into), u, v)
  if kept == 1 then
    moved = moved + 1
    if v == '1' then up = up + 1 elseif v == '-1' then down = down + 1 end
  else
    doubles = doubles + 1
  end
  voters[#voters + 1] = u
  voters[#voters + 1] = v
  voters[#voters + 1] = tostring(kept)
  voters[#voters + 1] = redis.call('INCR', KEYS[7])
end
if moved > 0 then redis.call('EXPIRE', vkey(into), ta + life - now) end
redis.call('DEL', vkey(from))
redis.call('HSET', KEYS[8], 'up', up, 'down', down, 'votes', num(up - down + (tonumber(ha[4]) or 0) * cw))
redis.call('HSET', KEYS[9], 'up', 0, 'down', 0, 'votes', num((tonumber(hb[4]) or 0) * cw))
-- the members
local sa, sb = skey(into), skey(from)
local bm = redis.call('HGETALL', sb)
if #bm == 0 then bm = {from, hb[5] or ''} end
if not ha[6] then
  redis.call('HSET', sa, into, ha[5] or '')
  redis.call('HSET', KEYS[8], 'story', into)
  redis.call('SET', base .. 'stories', '1')
end
for i = 1, #bm, 2 do
  local m = bm[i]
  redis.call('HSET', sa, m, bm[i + 1])
  redis.call('HSET', hkey(m), 'story', into)
  refile(redis.call('HGET', hkey(m), 'tk'), from, into)
end
redis.call('DEL', sb)
redis.call('HDEL', KEYS[9], 'svotes', 'cv', 'slast')
-- the rankings, the centroid, the groups
for i = 1, 3 do redis.call('ZREM', KEYS[i], from) end
local votes, score = restory(into)
redis.call('HSET', KEYS[8], 'cv', ARGV[11], 'slast', ARGV[12])
bump()
caches(10, {from}, into)
caches(10, {into}, nil)
touch(KEYS[4], into, from)
local out = {'ok', votes, score, up, down, moved, doubles, ha[7] or ''}
for _, x in ipairs(voters) do out[#out + 1] = x end
return out
`)

// regroupMoveCmd moves article id from story from (not its lead) to
// story into, in one atomic step, if neither story changed since the job
// read their fingerprints (regroupStateCmd) and id is still from's:
//
//   - members: id leaves story:<from> and joins story:<into> (its story
//     field); an article alone that takes it forms a story (as an ingest
//     does), and a story left with its lead alone is no story any more.
//   - rankings: both leads are ranked again with their stories' votes
//     (restory: svotes, the sum of the members' own votes; a lead alone
//     by its own votes), and recorded in touched: while a rebuild runs.
//     User votes stay where they are: on the leads (a member holds none).
//   - both leads keep their new centroids and latest post times (cv,
//     slast; the job computed them; a lead left alone drops them); in the
//     index lists of id's terms (its tk field) into is filed (first, when
//     it was not listed: perkey stories a term at most), and from leaves
//     the lists of the terms none of its remaining articles has (its lead
//     included, alone or not); the index's version counts the write.
//   - groups: a group listing either lead loses its cached rankings.
//   - expiries: each story's key and members live until its latest
//     member's post time + life (restory).
//
// KEYS[1] .. KEYS[7] -> those of regroupLua
// KEYS[8] -> news:<into> HASH
// KEYS[9] -> news:<from> HASH
// KEYS[10] -> news:<id> HASH
// KEYS[11], KEYS[12], KEYS[13], ... -> group:<g> SET, cache:score:<g> and
// cache:time:<g> ZSETs, for every group of groups:
// ARGV[1] .. ARGV[6] -> regroupArgs
// ARGV[7] -> into, ARGV[8] -> from, ARGV[9] -> id
// ARGV[10], ARGV[11] -> into's and from's fingerprints as the job read
// them
// ARGV[12], ARGV[13] -> into's centroid and latest member's post time
// after the move
// ARGV[14], ARGV[15] -> from's (the centroid "" when its lead is left
// alone)
// ARGV[16] -> perkey: how many stories an index term lists at most
// (grouping.Params.PerKey)
//
// Returns {"changed"} (a fingerprint differs, a story is gone, or id is
// not from's: nothing written), {"closed"} (into's lead is older than the
// window: nothing written), or {"ok", into's votes, into's score, from's
// votes, from's score}.
var regroupMoveCmd = redis.NewScript(formulaLua + touchLua + regroupArgs + regroupLua + `
local into, from, id = ARGV[7], ARGV[8], ARGV[9]
if id == from or state(into) ~= ARGV[10] or state(from) ~= ARGV[11] then return {'changed'} end
local hx = redis.call('HMGET', KEYS[10], 'story', 'source', 'tk')
if hx[1] ~= from then return {'changed'} end
local ha = redis.call('HMGET', KEYS[8], 'time', 'source', 'story')
if now > tonumber(ha[1]) + window then return {'closed'} end
-- the members
redis.call('HDEL', skey(from), id)
if not ha[3] then
  redis.call('HSET', skey(into), into, ha[2] or '')
  redis.call('HSET', KEYS[8], 'story', into)
  redis.call('SET', base .. 'stories', '1')
end
redis.call('HSET', skey(into), id, hx[2] or '')
redis.call('HSET', KEYS[10], 'story', into)
-- the rankings and the centroids
local iv, is = restory(into)
local fv, fs = restory(from)
redis.call('HSET', KEYS[8], 'cv', ARGV[12], 'slast', ARGV[13])
if ARGV[14] ~= '' then redis.call('HSET', KEYS[9], 'cv', ARGV[14], 'slast', ARGV[15]) end
-- the index: into filed under id's terms, from left under those no
-- member of it has any more
local kept = filedTerms(from)
local perkey = tonumber(ARGV[16])
for t in string.gmatch(hx[3] or '', '%S+') do
  local l = redis.call('HGET', KEYS[5], t)
  local out, has = {}, false
  for x in string.gmatch(l or '', '[^,]+') do
    if x == into then has = true end
  end
  if not has then out[1] = into end
  for x in string.gmatch(l or '', '[^,]+') do
    if (x ~= from or kept[t]) and #out < perkey then out[#out + 1] = x end
  end
  redis.call('HSET', KEYS[5], t, table.concat(out, ','))
end
bump()
caches(11, {into, from}, nil)
touch(KEYS[4], into, from)
return {'ok', iv, is, fv, fs}
`)

// regroupSplitCmd takes article id out of story from (not its lead) and
// makes it the lead of a story of its own, in one atomic step, if from
// did not change since the job read its fingerprint (regroupStateCmd)
// and id is still from's: the first article of a story the replay found
// among other stories' articles (the others then move to it).
//
//   - members: id leaves story:<from> and loses its story field; a story
//     left with its lead alone is no story any more.
//   - rankings: id is ranked alone (time: at its post time, votes: and
//     score: with its own votes, restory), from's lead again with its
//     story's votes; both recorded in touched: while a rebuild runs. User
//     votes stay where they are: on the leads (a member holds none).
//   - from's lead keeps its new centroid and latest post time (cv, slast;
//     the job computed them; a lead left alone drops them); in the index
//     lists of id's terms (its tk field) id is filed first (perkey
//     stories a term at most), and from leaves the lists of the terms
//     none of its remaining articles has (its lead included, alone or
//     not); the index's version counts the write.
//   - groups: a group listing either loses its cached rankings.
//   - expiries: id's hash lives until its post time + life; from's key
//     and members until its latest member's post time + life (restory).
//
// KEYS[1] .. KEYS[7] -> those of regroupLua
// KEYS[8] -> news:<from> HASH
// KEYS[9] -> news:<id> HASH
// KEYS[10], KEYS[11], KEYS[12], ... -> group:<g> SET, cache:score:<g> and
// cache:time:<g> ZSETs, for every group of groups:
// ARGV[1] .. ARGV[6] -> regroupArgs
// ARGV[7] -> from, ARGV[8] -> id
// ARGV[9] -> from's fingerprint as the job read it
// ARGV[10], ARGV[11] -> from's centroid ("" when its lead is left alone)
// and latest member's post time after the split
// ARGV[12] -> perkey: how many stories an index term lists at most
// (grouping.Params.PerKey)
//
// Returns {"changed"} (the fingerprint differs, from is gone, or id is
// not from's: nothing written), {"closed"} (id is older than the window:
// nothing written), or {"ok", id's votes, id's score, from's votes,
// from's score}.
var regroupSplitCmd = redis.NewScript(formulaLua + touchLua + regroupArgs + regroupLua + `
local from, id = ARGV[7], ARGV[8]
if id == from or state(from) ~= ARGV[9] then return {'changed'} end
local hx = redis.call('HMGET', KEYS[9], 'story', 'time', 'tk')
if hx[1] ~= from then return {'changed'} end
if now > tonumber(hx[2]) + window then return {'closed'} end
-- the members
redis.call('HDEL', skey(from), id)
redis.call('HDEL', KEYS[9], 'story')
-- the rankings and the centroids
redis.call('ZADD', KEYS[1], hx[2], id)
local iv, is = restory(id)
local fv, fs = restory(from)
if ARGV[10] ~= '' then redis.call('HSET', KEYS[8], 'cv', ARGV[10], 'slast', ARGV[11]) end
-- the index: id filed under its terms, from left under those no member
-- of it has any more
local kept = filedTerms(from)
local perkey = tonumber(ARGV[12])
for t in string.gmatch(hx[3] or '', '%S+') do
  local l = redis.call('HGET', KEYS[5], t)
  local out = {id}
  for x in string.gmatch(l or '', '[^,]+') do
    if x ~= id and (x ~= from or kept[t]) and #out < perkey then out[#out + 1] = x end
  end
  redis.call('HSET', KEYS[5], t, table.concat(out, ','))
end
bump()
caches(10, {from, id}, nil)
touch(KEYS[4], id, from)
return {'ok', iv, is, fv, fs}
`)
