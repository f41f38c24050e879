package board

import "github.com/redis/go-redis/v9"

// activityLua is prepended to awardCmd and revokeCmd. Both take the same
// first 8 KEYS and 7 ARGV:
//
//	KEYS[1..4] -> day board: kept ZSET (user → points), out HASH, out:n HASH, out:t ZSET
//	KEYS[5..8] -> month board: the same four
//	ARGV[1] -> day board TTL, ms (set only when a key is created)
//	ARGV[2] -> month board TTL, ms (likewise)
//	ARGV[3] -> cap: 0 keeps every user on the ZSET; K > 0 see add
//	ARGV[4] -> award cutoff YYYYMMDD: an award of an earlier day is forgotten
//	ARGV[5] -> short cutoff YYYYMMDD: a visit or a refusal of an earlier day is forgotten
//	ARGV[6] -> ledger TTL, ms, set when the ledger is refreshed
//	ARGV[7] -> refresh the ledger's TTL (and prune it) when its PTTL is below this, ms
//
// Ledger values are "points|YYYYMMDD" (an award and its day), with
// "|version" appended for versioned entries; points 0 is a refusal (the
// action does not stand as of that version). A visit's field is
// "YYYYMMDD:path" (the only fields that start with a digit) and its
// value the points.
const activityLua = `
local C = {cap = tonumber(ARGV[3]), awardcut = tonumber(ARGV[4]), shortcut = tonumber(ARGV[5]),
  ledttl = ARGV[6], refresh = tonumber(ARGV[7])}

-- parse(v) -> points, day (number or nil), version (number or nil)
local function parse(v)
  local p, d, ver = string.match(v, '^(%d+)|(%d+)|?(%d*)$')
  if not p then return tonumber(v) or 0, nil, nil end
  return tonumber(p), tonumber(d), tonumber(ver)
end

local function dead(field, p, d)
  if string.find(field, '^%d') then
    return (tonumber(string.sub(field, 1, 8)) or 0) < C.shortcut
  end
  if not d then return false end
  if p == 0 then return d < C.shortcut end
  return d < C.awardcut
end

-- prune deletes forgotten fields: one pass over a small (listpack) hash,
-- or up to 4 steps of a large one's walk, resumed from field "~".
local function prune(L)
  local cur = redis.call('HGET', L, '~') or '0'
  for _ = 1, 4 do
    local r = redis.call('HSCAN', L, cur, 'COUNT', 64)
    cur = r[1]
    local kv = r[2]
    for i = 1, #kv, 2 do
      if kv[i] ~= '~' then
        local p, d = parse(kv[i + 1])
        if dead(kv[i], p, d) then redis.call('HDEL', L, kv[i]) end
      end
    end
    if cur == '0' then break end
  end
  if cur == '0' then redis.call('HDEL', L, '~') else redis.call('HSET', L, '~', cur) end
end

-- keep runs after every write to a ledger: about once a day it pushes the
-- ledger's expiry forward and prunes it.
local function keep(L)
  if redis.call('PTTL', L) < C.refresh then
    redis.call('PEXPIRE', L, C.ledttl)
    prune(L)
  end
end

-- The users outside a capped board: out (user → total), out:n (total →
-- how many) and out:t (the totals present, to find the highest).
local function hist(b, s, n)
  local c = redis.call('HINCRBY', KEYS[b + 2], s, n)
  if c <= 0 then
    redis.call('HDEL', KEYS[b + 2], s)
    redis.call('ZREM', KEYS[b + 3], s)
  elseif c == n then
    redis.call('ZADD', KEYS[b + 3], s, s)
  end
end

local function bestOut(b)
  local r = redis.call('ZREVRANGE', KEYS[b + 3], 0, 0)
  return tonumber(r[1])
end

local function leave(b, user, s)
  redis.call('HSET', KEYS[b + 1], user, s)
  hist(b, s, 1)
end

-- trim moves the lowest members of a capped board beyond the cap out, at
-- most 10 per write (more than one only after the cap was lowered).
local function trim(b)
  local n = redis.call('ZCARD', KEYS[b])
  for _ = 1, math.min(n - C.cap, 10) do
    local p = redis.call('ZPOPMIN', KEYS[b])
    leave(b, p[1], tonumber(p[2]))
  end
end

-- add adds delta (not 0) points to user on board b (1: day, 5: month). A
-- take-back (delta < 0) never creates a board or a member, and a user
-- whose points reach 0 leaves. With a cap, the kept ZSET is always the
-- top of the uncapped order (score, then member, as ZREVRANGE), so every
-- comparison of two users is made by Redis: a user who rises is added to
-- the ZSET and the lowest member leaves if the board is over the cap; a
-- user who lands lowest on a board with room stays only with a total
-- above every total outside; a kept member taken to or below the best
-- total outside leaves, with the members below it (tied with it).
local function add(b, user, delta)
  local z = KEYS[b]
  if C.cap == 0 then
    if delta > 0 then
      redis.call('ZINCRBY', z, delta, user)
    elseif redis.call('ZSCORE', z, user) then
      if tonumber(redis.call('ZINCRBY', z, delta, user)) <= 0 then redis.call('ZREM', z, user) end
    end
    return
  end
  local s = redis.call('ZSCORE', z, user)
  if s then
    local new = tonumber(s) + delta
    if new <= 0 then redis.call('ZREM', z, user) return end
    redis.call('ZADD', z, new, user)
    if delta > 0 then trim(b) return end
    local u = bestOut(b)
    if u and new <= u then
      -- user may now be below a user outside: it leaves, with the members
      -- below it (tied with it, ordered by member), so the rest stays a
      -- prefix of the uncapped order.
      local r = redis.call('ZRANK', z, user)
      local low = redis.call('ZRANGE', z, 0, r, 'WITHSCORES')
      redis.call('ZREMRANGEBYRANK', z, 0, r)
      for j = 1, #low, 2 do leave(b, low[j], tonumber(low[j + 1])) end
    end
    return
  end
  local old = tonumber(redis.call('HGET', KEYS[b + 1], user))
  if not old then
    if delta < 0 then return end
    old = 0
  else
    hist(b, old, -1)
  end
  local new = old + delta
  if new <= 0 then redis.call('HDEL', KEYS[b + 1], user) return end
  if delta < 0 then leave(b, user, new) return end
  redis.call('HDEL', KEYS[b + 1], user)
  redis.call('ZADD', z, new, user)
  if redis.call('ZCARD', z) > C.cap then trim(b) return end
  if redis.call('ZRANK', z, user) == 0 then
    local u = bestOut(b)
    if u and new <= u then
      redis.call('ZREM', z, user)
      leave(b, user, new)
    end
  end
end

-- expireNew gives every board key its TTL when a write created it: the
-- board's, when another of its four keys already has one (a capped
-- board's out:n and out:t are deleted when they empty and made again by
-- a later write, and must not outlive the board), else the full one.
local function expireNew()
  local last = 1
  if C.cap > 0 then last = 4 end
  for b = 0, 1 do
    local ttl, new = ARGV[1 + b], {}
    for i = 1, last do
      local k = KEYS[4 * b + i]
      local t = redis.call('PTTL', k)
      if t == -1 then new[#new + 1] = k elseif t > 0 then ttl = t end
    end
    for _, k in ipairs(new) do redis.call('PEXPIRE', k, ttl) end
  end
end
`

// awardCmd awards one or more events of the same day, each once per
// ledger field: a field that holds a live award is a repeat. A versioned
// event (like from a vote) states that the action stands as of its
// version: one not newer than the field's version changes nothing, and
// on a standing award only the version moves. A field missing from the
// ledger hash is looked up in its legacy key, which is moved into the
// hash (and so counts as a repeat). Record sends one event; RecordMany up
// to scriptEvents.
//
//	KEYS[1..8], ARGV[1..7] -> the boards and settings (activityLua)
//	KEYS[7+2i], KEYS[8+2i] -> event i's ledger HASH and legacy STRING key
//	ARGV[8+4(i-1)] .. ARGV[11+4(i-1)] -> event i's user, ledger field,
//	             value ("points|YYYYMMDD", or "points" for a visit) and
//	             version ("" for none)
//
// Reply: one integer per event: 1 when awarded, 0 when not.
var awardCmd = redis.NewScript(activityLua + `
-- migrate moves the legacy entry G into field f of L; returns its value.
-- A visit's is not looked up: it is forgotten a day later anyway.
local function migrate(L, G, f)
  if string.find(f, '^%d') then return nil end
  local old = redis.call('GET', G)
  if not old then return nil end
  local p, y, m, d = string.match(old, '^(%d+)|(%d%d%d%d)%-(%d%d)%-(%d%d)|')
  local v = p .. '|' .. y .. m .. d
  redis.call('HSET', L, f, v)
  redis.call('DEL', G)
  return v
end

-- award returns 1 when it awards v, 0 when not, and whether it wrote L.
local function award(L, G, f, v, ver)
  if ver == '' then
    if redis.call('HSETNX', L, f, v) == 1 then
      if migrate(L, G, f) then return 0, true end
      return 1, true
    end
    local p, d, old = parse(redis.call('HGET', L, f))
    if p > 0 and not dead(f, p, d) then return 0, false end
    if old and p == 0 and not dead(f, p, d) then v = v .. '|' .. old end
    redis.call('HSET', L, f, v)
    return 1, true
  end
  local cur, moved = redis.call('HGET', L, f), false
  if not cur then
    cur = migrate(L, G, f)
    moved = cur ~= nil
  end
  if cur then
    local p, d, old = parse(cur)
    if not dead(f, p, d) then
      if old and old >= tonumber(ver) then return 0, moved end
      if p > 0 then
        redis.call('HSET', L, f, p .. '|' .. d .. '|' .. ver)
        return 0, true
      end
    end
  end
  redis.call('HSET', L, f, v .. '|' .. ver)
  return 1, true
end

local out, any, kept = {}, false, {}
local i = 1
while KEYS[7 + 2 * i] do
  local L, G = KEYS[7 + 2 * i], KEYS[8 + 2 * i]
  local a = 8 + 4 * (i - 1)
  local user, f, v = ARGV[a], ARGV[a + 1], ARGV[a + 2]
  local wrote
  out[i], wrote = award(L, G, f, v, ARGV[a + 3])
  if out[i] == 1 then
    local pts = parse(v)
    add(1, user, pts)
    add(5, user, pts)
    any = true
  end
  if wrote and not kept[L] then
    keep(L)
    kept[L] = true
  end
  i = i + 1
end
if any then expireNew() end
return out
`)

// revokeCmd writes what the caller decided for one ledger field (undo,
// or a versioned refusal) if the field, and the legacy entry it read,
// still hold what it read (compare and set), and takes back the points
// it found from the boards of the award, which only the ledger names.
//
//	KEYS[1..8], ARGV[1..7] -> the award's boards and the settings (activityLua)
//	KEYS[9]  -> the ledger   HASH
//	KEYS[10] -> the legacy entry   STRING
//	ARGV[8]  -> user
//	ARGV[9]  -> ledger field
//	ARGV[10] -> the field's value read before ("" when absent)
//	ARGV[11] -> the legacy entry read before ("" when not read or absent)
//	ARGV[12] -> points to take back (0: none)
//	ARGV[13] -> the field's new value ("" deletes it)
//
// Reply: 1 when done, 0 when the field or the legacy entry changed in
// between (read again).
var revokeCmd = redis.NewScript(activityLua + `
local L, G, user, f = KEYS[9], KEYS[10], ARGV[8], ARGV[9]
if (redis.call('HGET', L, f) or '') ~= ARGV[10] then return 0 end
if ARGV[11] ~= '' then
  if redis.call('GET', G) ~= ARGV[11] then return 0 end
  redis.call('DEL', G)
end
local pts = tonumber(ARGV[12])
if pts > 0 then
  add(1, user, -pts)
  add(5, user, -pts)
  expireNew()
end
if ARGV[13] == '' then
  redis.call('HDEL', L, f)
else
  redis.call('HSET', L, f, ARGV[13])
  keep(L)
end
return 1
`)
