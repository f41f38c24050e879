package queue

import (
	"github.com/redis/go-redis/v9"
)

// ackCmd marks URLs done: removes them from every state, forgets their
// attempts, errors and payloads, and records them in the current generation of the
// done memory, all with one command per key for the whole batch.
//
//	KEYS[1..6] state keys, KEYS[7] the done memory's current generation
//	(HASH)
//	ARGV[1] minutes into the current generation (rounded up), ARGV[2]
//	when the generation expires (unix ms; 0: its expiry is set already),
//	ARGV[3] n, ARGV[4..3+n] the canonical urls, ARGV[4+n..3+2n] their done
//	fields
//
// Reply: how many URLs were new to the current generation.
var ackCmd = redis.NewScript(stateNames + `
local n, minutes = tonumber(ARGV[3]), ARGV[1]
if n == 0 then return 0 end
local last = 3 + n
-- A URL is in one state at most: when all were leased, the others need
-- no look.
if redis.call('ZREM', LEASE, unpack(ARGV, 4, last)) < n then
  redis.call('SREM', PENDING, unpack(ARGV, 4, last))
  redis.call('ZREM', DELAYED, unpack(ARGV, 4, last))
  redis.call('ZREM', DEAD, unpack(ARGV, 4, last))
end
redis.call('HDEL', FAILURES, unpack(ARGV, 4, last))
-- Most queues carry no payloads: one EXISTS spares them an HDEL of n.
if redis.call('EXISTS', PAYLOAD) == 1 then
  redis.call('HDEL', PAYLOAD, unpack(ARGV, 4, last))
end
local done = {}
for i = 1, n do
  done[2 * i - 1] = ARGV[last + i]
  done[2 * i] = minutes
end
local fresh = redis.call('HSET', KEYS[7], unpack(done))
if ARGV[2] ~= '0' then redis.call('PEXPIREAT', KEYS[7], ARGV[2]) end
return fresh
`)

// failCmd records a failed attempt of a leased URL: it goes to delayed
// with an exponential backoff, or to the dead letters.
//
//	KEYS[1..6] state keys
//	ARGV[1] now (unix ms), ARGV[2] url, ARGV[3] "reason\nerror",
//	ARGV[4] retryable (1/0), ARGV[5] minimum delay (ms), ARGV[6] retry
//	base (ms), ARGV[7] retry max (ms), ARGV[8] max attempts, ARGV[9] a
//	random number in [0,1) for the jitter, ARGV[10] dead-letter retention (ms)
//
// The delay is d = min(base*2^(attempts-1), max), then d/2 + r*d/2 (equal
// jitter), then at least the minimum delay.
//
// Reply: {1 dead, 0 delayed, -1 not leased (someone else holds, finished or
// reaped it: only its last error is recorded if it is still queued);
// attempts; retry due (unix ms) or -1}.
var failCmd = redis.NewScript(prelude + `
local now, url, info, retryable = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4] == '1'
local minDelay, base, max, maxAttempts, r, deadRet = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
if redis.call('ZREM', LEASE, url) == 0 then
  local a = failures(url)
  if redis.call('SISMEMBER', PENDING, url) == 1 or redis.call('ZSCORE', DELAYED, url) then
    setFailures(url, a, info)
  end
  return {-1, a, -1}
end
local a = failures(url) + 1
setFailures(url, a, info)
if not retryable or a >= maxAttempts then
  bury(url, now, deadRet)
  return {1, a, -1}
end
local d = base
for _ = 2, a do
  d = d * 2
  if d >= max then break end
end
if d > max then d = max end
d = d / 2 + r * d / 2
if d < minDelay then d = minDelay end
local due = math.floor(now + d)
redis.call('ZADD', DELAYED, num(due), url)
return {0, a, due}
`)

// extendCmd moves the lease deadline of the URLs still leased.
//
//	KEYS[1..6] state keys
//	ARGV[1] new deadline (unix ms), ARGV[2..] urls
//
// Reply: how many URLs were leased (and extended).
var extendCmd = redis.NewScript(prelude + `
local n = 0
for i = 2, #ARGV do
  if redis.call('ZSCORE', LEASE, ARGV[i]) then
    redis.call('ZADD', LEASE, ARGV[1], ARGV[i])
    n = n + 1
  end
end
return n
`)

// releaseCmd hands leased URLs back to pending without counting an
// attempt (a consumer shutting down).
//
//	KEYS[1..6] state keys
//	ARGV[1..] urls
//
// Reply: how many were leased and went back to pending.
var releaseCmd = redis.NewScript(prelude + `
local n = 0
for i = 1, #ARGV do
  if redis.call('ZREM', LEASE, ARGV[i]) == 1 then
    redis.call('SADD', PENDING, ARGV[i])
    n = n + 1
  end
end
return n
`)

// reapCmd returns up to limit expired leases to pending (or the dead
// letters), counting an attempt.
//
//	KEYS[1..6] state keys
//	ARGV[1] now (unix ms), ARGV[2] limit, ARGV[3] max attempts, ARGV[4]
//	dead-letter retention (ms)
//
// Reply: {expired leases handled, of which returned to pending}.
var reapCmd = redis.NewScript(prelude + `
local expired, requeued = reapExpired(tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
return {expired, requeued}
`)

// requeueDeadCmd moves dead letters back to pending with fresh attempts:
// the given URLs, or (no URLs) the oldest up to limit.
//
//	KEYS[1..6] state keys
//	ARGV[1] limit, ARGV[2..] urls (none: the oldest limit dead letters)
//
// Reply: how many URLs went back to pending.
var requeueDeadCmd = redis.NewScript(prelude + `
local urls = {}
for i = 2, #ARGV do urls[#urls + 1] = ARGV[i] end
if #urls == 0 then
  urls = redis.call('ZRANGE', DEAD, 0, tonumber(ARGV[1]) - 1)
end
local n = 0
for _, u in ipairs(urls) do
  if redis.call('ZREM', DEAD, u) == 1 then
    redis.call('HDEL', FAILURES, u)
    redis.call('SADD', PENDING, u)
    n = n + 1
  end
end
return n
`)

// deadCmd lists the newest dead letters.
//
//	KEYS[1..6] state keys
//	ARGV[1] limit
//
// Reply: flat {url, died at (unix ms), "reason\nerror", attempts, ...}.
var deadCmd = redis.NewScript(prelude + `
local rows = redis.call('ZREVRANGE', DEAD, 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #rows, 2 do
  local u = rows[i]
  out[#out + 1] = u
  out[#out + 1] = rows[i + 1]
  local a, info = failures(u)
  out[#out + 1] = info or ''
  out[#out + 1] = num(a)
end
return out
`)
