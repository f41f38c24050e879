package news

import "github.com/redis/go-redis/v9"

// startCmd marks a rebuild as running: from now on every
// script that writes time:, votes: or score: adds its ids to touched:
// (touchLua).
//
//	KEYS[1] -> touched: SET
//	ARGV[1] -> this rebuild's marker member
//	ARGV[2] -> the marker's TTL (ms)
//	ARGV[3] -> -1, or the PTTL at or below which touched: is taken over
//
// When touched: exists, another rebuild holds it. Its heartbeat pushes the
// expiry back to ARGV[2] every half second; if the PTTL has fallen to
// ARGV[3] (the caller passes what it saw two seconds before, less one
// second: nothing refreshed it for at least a second), that rebuild is dead
// and touched: is taken over (deleted, then marked anew). Otherwise the
// reply is the PTTL (>= 0) and nothing changes. Returns -1 when the
// rebuild is marked.
var startCmd = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  local left = redis.call('PTTL', KEYS[1])
  local limit = tonumber(ARGV[3])
  if limit < 0 or left > limit then return left end
  redis.call('DEL', KEYS[1])
end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return -1
`)

// swapCmd re-scores a bounded number of the ids written since the rebuild
// began and, once none is left, checks the rebuilt ranking and swaps it
// in.
//
//	KEYS[1] -> the temporary ZSET
//	KEYS[2] -> time: ZSET
//	KEYS[3] -> votes: ZSET
//	KEYS[4] -> score: ZSET
//	KEYS[5] -> touched: SET
//	ARGV[1] -> this rebuild's marker member of touched:
//	ARGV[2] -> how many touched ids to re-score in this call
//	ARGV[3] -> the marker's TTL (ms)
//	ARGV[4] -> the temporary ZSET's TTL (ms)
//	ARGV[5] -> how many of the oldest and of the newest ids of time: to
//	           look up in the temporary ZSET (the bounded check)
//	ARGV[6], ARGV[7] -> formula name and parameter (Formula.scriptArgs)
//	ARGV[8] -> now (Unix s): the instant the whole ranking is scored at
//
// It pops up to ARGV[2] ids from touched: (putting the marker back): an id
// still in time: gets rank(its post time, its votes: entry, or 0) in the
// temporary ZSET, the same function of the same values the writers and
// the client-side build use (formulaLua); an id no longer in time:
// (pruned, dropped) leaves it. When touched: holds more ids it returns
// {-1, re-scored}: call it again. Otherwise the temporary ZSET must have
// ZCARD(time:) members and hold the sampled ids; if not (something wrote
// time: without touching its ids) it returns {-2, re-scored} and changes
// nothing else. If it does, score: is UNLINKed, the temporary ZSET RENAMEd
// over it and made persistent, touched: deleted (the rebuild is over), and
// it returns {articles, re-scored}. An error reply LOST means touched: no
// longer holds the marker (it expired, or another rebuild took it over), so
// writes made since may not have been recorded.
var swapCmd = redis.NewScript(formulaLua + `
local tmp, tkey, vkey, skey, touched = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local marker = ARGV[1]
if redis.call('SISMEMBER', touched, marker) == 0 then
  return redis.error_reply('LOST the rebuild marker is gone')
end
local formula, param, now = ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8])
local ids = redis.call('SPOP', touched, tonumber(ARGV[2]) + 1)
local add, rem = {}, {}
for _, id in ipairs(ids) do
  if id ~= marker then
    local t = redis.call('ZSCORE', tkey, id)
    if t then
      local v = tonumber(redis.call('ZSCORE', vkey, id) or '0')
      add[#add + 1] = num(rank(formula, param, tonumber(t), v, now))
      add[#add + 1] = id
    else
      rem[#rem + 1] = id
    end
  end
end
redis.call('SADD', touched, marker)
redis.call('PEXPIRE', touched, ARGV[3])
if #add > 0 then
  redis.call('ZADD', tmp, unpack(add))
  redis.call('PEXPIRE', tmp, ARGV[4])
end
if #rem > 0 then redis.call('ZREM', tmp, unpack(rem)) end
local done = #add / 2 + #rem
if redis.call('SCARD', touched) > 1 then return {-1, done} end
local n = redis.call('ZCARD', tkey)
if n == 0 then
  redis.call('UNLINK', tmp, skey, touched)
  return {0, done}
end
if redis.call('ZCARD', tmp) ~= n then return {-2, done} end
local k = tonumber(ARGV[5])
for _, r in ipairs({{0, k - 1}, {-k, -1}}) do
  local sample = redis.call('ZRANGE', tkey, r[1], r[2])
  local s = redis.call('ZMSCORE', tmp, unpack(sample))
  for i = 1, #sample do
    if not s[i] then return {-2, done} end
  end
end
redis.call('UNLINK', skey)
redis.call('RENAME', tmp, skey)
redis.call('PERSIST', skey)
redis.call('UNLINK', touched)
return {n, done}
`)

// endCmd ends a rebuild that failed.
//
//	KEYS[1] -> touched: SET
//	ARGV[1] -> the rebuild's marker member
//
// Deletes touched: when it holds the marker. Returns 1 if it did, else 0.
var endCmd = redis.NewScript(`
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`)
