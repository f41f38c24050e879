package queue

import (
	"github.com/redis/go-redis/v9"
)

// leaseSentinel is the lease set's permanent member (see below).
const leaseSentinel = "~lease-sentinel~keeps-this-zset-in-skiplist-encoding~not-a-url~~~~~~"

// The state scripts share KEYS[1..6] (Queue.stateKeys):
//
//	KEYS[1] pending  SET   url
//	KEYS[2] lease    ZSET  url → lease deadline (unix ms)
//	KEYS[3] delayed  ZSET  url → retry due (unix ms)
//	KEYS[4] failures HASH  url → "attempts\nreason\nerror" (the failure
//	                       empty when only expired leases were counted)
//	KEYS[5] dead     ZSET  url → died at (unix ms)
//	KEYS[6] payload  HASH  url → payload, for URLs pending, leased or
//	                       delayed that were pushed with one
//
// The lease set also holds leaseSentinel with score +inf (added by every
// claim, in the same ZADD): a member longer than Redis'
// zset-max-listpack-value (64 bytes by default) keeps the set in skiplist
// encoding, where adding a lease is O(log n); the set of a busy queue
// hovers around zset-max-listpack-entries (128), where listpack inserts,
// O(n) each, made claims several times slower. It is never a URL (canonurl.Canonical
// gives none starting with '~'), never expires, and Stats does not count
// it.
//
// A URL is in at most one of pending, lease, delayed and dead, and only a
// script moves it, removing it from one state in the same script that adds
// it to the next: a script that fails or whose reply is lost has moved
// either all or nothing. A payload is written by the push that queues its
// URL (or refreshes it), and deleted by the script that acks or buries the
// URL, so it never outlives its URL and is never lost while the URL waits.
//
// stateNames names the state keys; helpers defines the functions that
// fail, reap and bury. A Lua function definition runs (allocates a
// closure) each time the script runs, so the hot scripts, claim and ack,
// leave helpers out of their common path.
const stateNames = `
local PENDING, LEASE, DELAYED, FAILURES, DEAD, PAYLOAD = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local SENTINEL = '` + leaseSentinel + `'
`

const helpers = `
-- num formats a whole number for a command argument without exponent.
local function num(x) return string.format('%.0f', x) end

-- failures returns url's failed attempts (0: none) and its last failure
-- "reason\nerror" (nil: none).
local function failures(url)
  local v = redis.call('HGET', FAILURES, url)
  if not v then return 0, nil end
  local a, info = string.match(v, '^(%d+)\n(.*)$')
  if info == '' then info = nil end
  return tonumber(a) or 0, info
end

-- setFailures records url's failed attempts and last failure.
local function setFailures(url, a, info)
  redis.call('HSET', FAILURES, url, num(a) .. '\n' .. (info or ''))
end

-- bury moves url (already removed from its state) to the dead letters,
-- dropping its payload, and forgets at most 10 dead letters older than
-- deadRet ms.
local function bury(url, now, deadRet)
  redis.call('ZADD', DEAD, num(now), url)
  redis.call('HDEL', PAYLOAD, url)
  local old = redis.call('ZRANGEBYSCORE', DEAD, '-inf', num(now - deadRet), 'LIMIT', 0, 10)
  for _, u in ipairs(old) do
    redis.call('ZREM', DEAD, u)
    redis.call('HDEL', FAILURES, u)
  end
end

-- reapExpired returns up to limit URLs whose lease ended at or before now
-- to pending, counting an attempt; those out of attempts are buried.
-- Returns how many leases had expired, and how many went to pending.
local function reapExpired(now, limit, maxAttempts, deadRet)
  local expired = redis.call('ZRANGEBYSCORE', LEASE, '-inf', num(now), 'LIMIT', 0, limit)
  local requeued = 0
  for _, u in ipairs(expired) do
    redis.call('ZREM', LEASE, u)
    local a, prev = failures(u)
    a = a + 1
    if a >= maxAttempts then
      local msg = 'lease expired: the consumer died or did not extend it in time'
      if prev then
        msg = msg .. '; before that: ' .. string.gsub(prev, '\n', ': ')
      end
      setFailures(u, a, 'lease_expired\n' .. msg)
      bury(u, now, deadRet)
    else
      setFailures(u, a, prev)
      redis.call('SADD', PENDING, u)
      requeued = requeued + 1
    end
  end
  return #expired, requeued
end
`

// prelude is stateNames and helpers.
const prelude = stateNames + helpers

// pushCmd queues the URLs that are in no state and not done within the
// retention, with their payloads. A URL already pending, leased or
// delayed gets the payload it is pushed with now, if any (the newest
// listing wins); a URL pushed without one keeps its own. A dead or done
// URL gets none. Each check is one command for the whole batch.
//
//	KEYS[1..6] state keys, KEYS[7..] the live generations of the done
//	memory (HASH), oldest first
//	ARGV[1] now (unix ms), ARGV[2] start of the oldest live generation
//	(unix ms), ARGV[3] generation length (ms), ARGV[4] retention (ms),
//	ARGV[5] values per URL (2 or 3), then per URL: canonical url, done
//	field, and with 3 its payload ("": none)
//
// Reply: how many URLs were added to pending.
var pushCmd = redis.NewScript(prelude + `
local now, oldestStart, genMs, ret, stride = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local urls, fields, payloads = {}, {}, {}
for i = 6, #ARGV, stride do
  urls[#urls + 1] = ARGV[i]
  fields[#fields + 1] = ARGV[i + 1]
  payloads[#payloads + 1] = stride == 3 and ARGV[i + 2] or ''
end
-- refresh collects {url, payload, ...} of queued URLs pushed with one.
local refresh = {}
-- keep drops the URLs (and their fields) a check found; queued says
-- the check was for a state whose payload is refreshed.
local function keep(found, queued)
  local u, f, p = {}, {}, {}
  for i = 1, #urls do
    if not found(i) then
      u[#u + 1] = urls[i]
      f[#f + 1] = fields[i]
      p[#p + 1] = payloads[i]
    elseif queued and payloads[i] ~= '' then
      refresh[#refresh + 1] = urls[i]
      refresh[#refresh + 1] = payloads[i]
    end
  end
  urls, fields, payloads = u, f, p
end
-- filter leaves the URLs to add.
local function filter()
  if #urls == 0 then return end
  local p = redis.call('SMISMEMBER', PENDING, unpack(urls))
  keep(function(i) return p[i] == 1 end, true)
  for _, key in ipairs({LEASE, DELAYED, DEAD}) do
    if #urls == 0 then return end
    local s = redis.call('ZMSCORE', key, unpack(urls))
    keep(function(i) return s[i] end, key ~= DEAD)
  end
  for k = 7, #KEYS do
    if #urls == 0 then return end
    local v = redis.call('HMGET', KEYS[k], unpack(fields))
    local start = oldestStart + (k - 7) * genMs
    keep(function(i) return v[i] and start + tonumber(v[i]) * 60000 > now - ret end, false)
  end
end
filter()
for i = 1, #urls do
  if payloads[i] ~= '' then
    refresh[#refresh + 1] = urls[i]
    refresh[#refresh + 1] = payloads[i]
  end
end
if #refresh > 0 then redis.call('HSET', PAYLOAD, unpack(refresh)) end
if #urls == 0 then return 0 end
return redis.call('SADD', PENDING, unpack(urls))
`)

// claimFastCmd moves up to n random pending URLs into the lease set: the
// claim of a busy queue. It leaves the housekeeping to claimCmd, which
// Queue.claimOnce calls instead about once a second, and when pending runs
// short. Every key and argument handed to a Lua script costs about a
// thousand instructions, as much as a small command, so this one takes
// only what it needs, and returns the URLs as one string (one bulk reply
// costs less than one per URL; a canonical URL never holds a newline).
//
//	KEYS[1] pending SET, KEYS[2] lease ZSET, KEYS[3] (optional) payload
//	HASH: return the claimed URLs' payloads
//	ARGV[1] n, ARGV[2] lease deadline (unix ms)
//
// Reply: the claimed urls joined by "\n" ("" for none); with KEYS[3],
// {joined urls, their payloads (nil: none)}.
var claimFastCmd = redis.NewScript(`
local urls = redis.call('SPOP', KEYS[1], ARGV[1])
local k = #urls
if k > 0 then
  local args, deadline = {'+inf', '` + leaseSentinel + `'}, ARGV[2]
  for i = 1, k do
    args[2 * i + 1] = deadline
    args[2 * i + 2] = urls[i]
  end
  redis.call('ZADD', KEYS[2], unpack(args))
end
if KEYS[3] then
  local p = {}
  if k > 0 then p = redis.call('HMGET', KEYS[3], unpack(urls)) end
  return {table.concat(urls, '\n'), p}
end
return table.concat(urls, '\n')
`)

// claimCmd moves up to n random pending URLs into the lease set. When
// asked to (about once a second per process), or when pending had fewer
// than n, it first does the housekeeping: it promotes due retries to
// pending and reaps expired leases (both bounded), unlinks the done
// memory's generations older than the retention (UNLINK frees them off
// the main thread) and sets the current generation's expiry (acks set it
// once per process and generation); then it tops the claim up from
// pending.
//
//	KEYS[1..6] state keys, KEYS[7..8] the two done memory generations
//	before the oldest live one (HASH), KEYS[9] the current one (HASH)
//	ARGV[1] now (unix ms), ARGV[2] n, ARGV[3] lease deadline (unix ms),
//	ARGV[4] max attempts, ARGV[5] housekeeping limit (URLs promoted or
//	reaped per call), ARGV[6] dead-letter retention (ms), ARGV[7] 1: do
//	the housekeeping, ARGV[8] 1: count the pending URLs left, ARGV[9]
//	when the current generation expires (unix ms), ARGV[10] 1: return
//	the claimed URLs' payloads
//
// Reply: {claimed urls, pending left (-1: not counted; counted when asked
// or when housekeeping moved URLs to pending), when none was claimed the
// earliest retry due or lease deadline (unix ms, -1: none or some
// claimed), 1 if housekeeping hit its limit else 0, URLs promoted or
// reaped into pending, the claimed URLs' payloads (nil: none; empty
// unless asked)}.
var claimCmd = redis.NewScript(stateNames + `
local n = tonumber(ARGV[2])
local urls = redis.call('SPOP', PENDING, n)
local k = #urls
local promoted, more = 0, 0
if ARGV[7] == '1' or k < n then
` + helpers + `
  local now, maxAttempts, limit, deadRet = tonumber(ARGV[1]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
  local due = redis.call('ZRANGEBYSCORE', DELAYED, '-inf', ARGV[1], 'LIMIT', 0, limit)
  if #due > 0 then
    redis.call('ZREM', DELAYED, unpack(due))
    redis.call('SADD', PENDING, unpack(due))
  end
  local expired, requeued = reapExpired(now, limit, maxAttempts, deadRet)
  promoted = #due + requeued
  if #due >= limit or expired >= limit then more = 1 end
  redis.call('UNLINK', KEYS[7], KEYS[8])
  redis.call('PEXPIREAT', KEYS[9], ARGV[9])
  if k < n and promoted > 0 then
    for _, u in ipairs(redis.call('SPOP', PENDING, n - k)) do
      k = k + 1
      urls[k] = u
    end
  end
end
local nextDue = -1
if k > 0 then
  local args, deadline = {'+inf', SENTINEL}, ARGV[3]
  for i = 1, k do
    args[2 * i + 1] = deadline
    args[2 * i + 2] = urls[i]
  end
  redis.call('ZADD', LEASE, unpack(args))
else
  local d = redis.call('ZRANGE', DELAYED, 0, 0, 'WITHSCORES')
  if d[2] then nextDue = tonumber(d[2]) end
  local l = redis.call('ZRANGE', LEASE, 0, 0, 'WITHSCORES')
  if l[2] and l[1] ~= SENTINEL and (nextDue < 0 or tonumber(l[2]) < nextDue) then nextDue = tonumber(l[2]) end
end
local left = -1
if ARGV[8] == '1' or promoted > 0 then left = redis.call('SCARD', PENDING) end
local payloads = {}
if ARGV[10] == '1' and k > 0 then payloads = redis.call('HMGET', PAYLOAD, unpack(urls)) end
return {urls, left, nextDue, more, promoted, payloads}
`)

// wakeCmd signals the idle consumers of a queue.
//
//	KEYS[1] wake LIST
//	ARGV[1] token (the queue name), ARGV[2] most tokens kept, ARGV[3] TTL (ms)
//
// Reply: the list's length.
var wakeCmd = redis.NewScript(`
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return redis.call('LLEN', KEYS[1])
`)

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
