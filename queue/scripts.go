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
