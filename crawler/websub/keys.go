package websub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The keyspace. Each subscription lives beside its source's crawl keys,
// so that any daemon of a deployment can answer its hub, and the
// deployment keeps one list of them, to find those of sources removed or
// moved.

// feedID names a feed of a source in keys and callback URLs: the first
// 12 hex digits of the SHA-256 of its configured URL.
func feedID(feedURL string) string {
	sum := sha256.Sum256([]byte(feedURL))
	return hex.EncodeToString(sum[:6])
}

// subKey is a subscription: <prefix>{crawl:<source>}:websub:<feed id>, a
// HASH of the fields below.
func (s *Subscriber) subKey(source, fid string) string {
	return s.prefix + "{crawl:" + source + "}:websub:" + fid
}

// indexKey lists the subscriptions: <prefix>websub:subs, a SET of
// "<source>/<feed id>".
func (s *Subscriber) indexKey() string { return s.prefix + "websub:subs" }

// lockKey is the maintenance lock: <prefix>websub:lock, a STRING holding
// its holder's token, expiring unless renewed.
func (s *Subscriber) lockKey() string { return s.prefix + "websub:lock" }

// The fields of a subscription's hash.
const (
	fSource   = "source"
	fFeed     = "feed"     // the configured feed URL
	fTopic    = "topic"    // the topic subscribed to (the feed's self link, else the URL it was read from)
	fHub      = "hub"      // the hub's URL
	fToken    = "token"    // the callback URL's unguessable part
	fSecret   = "secret"   // hub.secret: the key of the pushes' signatures
	fState    = "state"    // see the State constants
	fReason   = "reason"   // why the state is what it is
	fPending  = "pending"  // "subscribe" or "unsubscribe" while the hub is to verify a request, else ""
	fAsked    = "asked"    // when the pending request was sent (Unix ms)
	fVerified = "verified" // when the hub last verified a subscription (Unix ms)
	fLeaseEnd = "lease_end"
	fNext     = "next"   // when to look at the feed again (no hub, a failure: Unix ms)
	fFails    = "fails"  // failures in a row
	fLast     = "last"   // the last valid push (Unix ms)
	fPushes   = "pushes" // valid pushes
	fRejected = "rejected"
	fRenewals = "renewals"
	fMissed   = "missed" // a poll found new articles the hub had not pushed (Unix ms)
)

// States of a subscription.
const (
	// StateNone: the feed announces no hub (looked at again later).
	StateNone = "none"
	// StateRequested: the hub took the request and is to verify it.
	StateRequested = "requested"
	// StateActive: the hub verified the subscription; its lease runs.
	StateActive = "active"
	// StateFailed: discovery, the request or its verification failed;
	// tried again later (Next).
	StateFailed = "failed"
	// StateDenied: the hub refused the subscription; tried again later.
	StateDenied = "denied"
	// StateUnsubscribing: the source or its feed left the configuration;
	// the hub is to verify the unsubscription.
	StateUnsubscribing = "unsubscribing"
)

// verifyCmd answers a hub's verification of intent, atomically with the
// subscription's state.
//
//	KEYS[1] -> the subscription's hash
//	ARGV[1] -> the callback's token
//	ARGV[2] -> hub.mode: subscribe, unsubscribe or denied
//	ARGV[3] -> hub.topic
//	ARGV[4] -> hub.lease_seconds (subscribe), hub.reason (denied)
//	ARGV[5] -> now, Unix ms
//	ARGV[6] -> when to try again after a denial, Unix ms
//
// Returns 1 when the subscribe request pending for that topic is now
// active (its lease counted from now), 2 when the unsubscribe request
// pending for that topic is confirmed (the hash is deleted), 3 when a
// denial of the subscription pending or active for that topic is
// recorded, 0 when this deployment asked for nothing of the sort.
var verifyCmd = redis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'token', 'pending', 'topic', 'state')
if h[1] ~= ARGV[1] or h[3] ~= ARGV[3] then return 0 end
local now = tonumber(ARGV[5])
if ARGV[2] == 'subscribe' then
  local lease = tonumber(ARGV[4])
  if h[2] ~= 'subscribe' or not lease or lease <= 0 then return 0 end
  redis.call('HSET', KEYS[1], 'state', 'active', 'pending', '', 'verified', ARGV[5],
    'lease_end', tostring(now + math.floor(lease * 1000)), 'reason', 'verified by the hub', 'fails', '0')
  return 1
elseif ARGV[2] == 'unsubscribe' then
  if h[2] ~= 'unsubscribe' then return 0 end
  redis.call('DEL', KEYS[1])
  return 2
elseif ARGV[2] == 'denied' then
  if h[2] ~= 'subscribe' and h[4] ~= 'active' then return 0 end
  redis.call('HSET', KEYS[1], 'state', 'denied', 'pending', '', 'reason', 'the hub denied it: ' .. ARGV[4],
    'next', ARGV[6])
  return 3
end
return 0`)

// countCmd counts a push on its subscription, if the subscription is
// still the one whose callback it came to (a push never creates a hash).
//
//	KEYS[1] -> the subscription's hash
//	ARGV[1] -> the callback's token
//	ARGV[2] -> the field to increment: pushes or rejected
//	ARGV[3] -> now, Unix ms (a valid push's time: last; it clears missed)
//
// Returns 1 when counted, 0 when the subscription is gone or another.
var countCmd = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
if ARGV[2] == 'pushes' then
  redis.call('HSET', KEYS[1], 'last', ARGV[3])
  redis.call('HDEL', KEYS[1], 'missed')
end
return 1`)

// setIfCmd writes fields of a subscription only while its token is the
// caller's (the maintenance pass that read it), so that a write of a pass
// never lands on a subscription made anew meanwhile.
//
//	KEYS[1] -> the subscription's hash
//	ARGV[1] -> the token read ("" : the hash must have no token)
//	ARGV[2..] -> field, value pairs
//
// Returns 1 when written, 0 when the token differs.
var setIfCmd = redis.NewScript(`
local t = redis.call('HGET', KEYS[1], 'token') or ''
if t ~= ARGV[1] then return 0 end
for i = 2, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
return 1`)

// failCmd records a failed request, discovery or verification: the
// fields given, and one more failure in a row (fails), while the token is
// the caller's.
//
//	KEYS[1] -> the subscription's hash
//	ARGV[1] -> the token read
//	ARGV[2..] -> field, value pairs
//
// Returns the failures in a row, 0 when the token differs.
var failCmd = redis.NewScript(`
local t = redis.call('HGET', KEYS[1], 'token') or ''
if t ~= ARGV[1] then return 0 end
for i = 2, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
return redis.call('HINCRBY', KEYS[1], 'fails', 1)`)

// delIfCmd deletes a subscription while its token is the caller's.
//
//	KEYS[1] -> the subscription's hash
//	ARGV[1] -> the token read
//
// Returns 1 when deleted.
var delIfCmd = redis.NewScript(`
if (redis.call('HGET', KEYS[1], 'token') or '') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`)

// The maintenance lock, as the jobs' locks: a token in a key with a TTL,
// renewed while the pass runs, released by its holder only.

// renewLockCmd extends the lock if the caller holds it.
//
//	KEYS[1] -> the lock
//	ARGV[1] -> the holder's token
//	ARGV[2] -> the TTL, ms
//
// Returns 1 when extended, 0 when the lock is gone or another's.
var renewLockCmd = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

// releaseLockCmd deletes the lock if the caller holds it.
//
//	KEYS[1] -> the lock
//	ARGV[1] -> the holder's token
//
// Returns 1 when deleted, 0 when the lock is gone or another's.
var releaseLockCmd = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

// record is a subscription's hash, read.
type record map[string]string

func (r record) ms(field string) time.Time {
	n, err := strconv.ParseInt(r[field], 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(n)
}

func (r record) n(field string) int64 {
	n, _ := strconv.ParseInt(r[field], 10, 64)
	return n
}

func (s *Subscriber) read(ctx context.Context, source, fid string) (record, error) {
	m, err := s.rdb.HGetAll(ctx, s.subKey(source, fid)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("websub: read subscription %s/%s: %w", source, fid, err)
	}
	return record(m), nil
}

func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
