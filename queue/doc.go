// Package queue is newsrank's reliable Redis URL queue: the crawler's
// producer pushes article URLs, consumers claim them under a lease, and
// each URL ends acked (done), retried later, or in the dead letters with
// its last error. No URL is lost when a consumer dies or Redis restarts,
// and none is fetched twice when all goes well.
//
// # States
//
// A URL is in at most one of these, and only a Lua script moves it, taking
// it out of one state in the same script that puts it in the next:
//
//	pending   SET   waiting to be claimed
//	lease     ZSET  claimed; score = lease deadline (unix ms)
//	delayed   ZSET  failed, waiting for its retry; score = due (unix ms)
//	dead      ZSET  failed for good; score = died at (unix ms)
//	done      remembered for DoneRetention after Ack (a push skips it)
//
// beside failures (HASH url → "attempts\nreason\nlast error", one field so
// that an ack forgets both with one HDEL) and payloads (HASH url → bytes
// pushed with the URL by PushEntries, returned by ClaimAnyEntries and
// TryClaimEntries; written and deleted in the same scripts as the URL: an
// ack or a burial drops it, a retry, an expired lease or a Release keeps
// it, and a re-push of a queued URL replaces it with the new payload, if
// one is given). Push queues a URL only if it is in none of them.
// Claim SPOPs up to n pending URLs into the lease set; when pending runs
// short, and about once a second anyway, it also promotes due retries
// and reaps expired leases (both at most 100 per call). Fail moves a
// leased URL to delayed after RetryBase × 2^(attempts-1), capped at
// RetryMax, half of it random (equal jitter) and at least the caller's
// MinDelay (Retry-After), or to the dead letters when it is not retryable
// or has had MaxAttempts. An expired lease counts as an attempt; Release
// hands leases back without one (a consumer shutting down). Extend renews
// leases for slow fetches.
//
// # Keys
//
// Every key starts with the configured prefix and the queue's hash tag, so
// each script (which touches one queue) runs in one Redis Cluster slot:
//
//	<prefix>{q:<name>}:pending     SET
//	<prefix>{q:<name>}:lease       ZSET  (and a +inf sentinel keeping it a skiplist)
//	<prefix>{q:<name>}:delayed     ZSET
//	<prefix>{q:<name>}:failures    HASH
//	<prefix>{q:<name>}:dead        ZSET
//	<prefix>{q:<name>}:payload     HASH
//	<prefix>{q:<name>}:done:<gen>  HASH  12-byte URL hash → minutes into the generation
//	<prefix>{q-wake}:<name>        LIST  wake tokens (one slot for all queues)
//
// # Done memory
//
// The done memory stores no URLs: each done URL is 12 bytes of the
// SHA-256 of its canonical form (a false "done" needs a 96-bit collision:
// about 1e-21 per push at 100 million remembered URLs) and the minute it
// was done, in one hash per generation of DoneRetention/4, so an ack
// writes a whole batch with one HSET. A URL is remembered for the
// retention (at most a minute more): a push reads the 5 or 6 live
// generations, one HMGET each, and compares the stored times with now -
// retention. Once all a generation holds is older than the retention, the
// claims' housekeeping deletes it with UNLINK, which frees it off Redis'
// main thread; its expiry, a generation later, is a safety net for a queue
// nobody claims from any more (Redis frees an expired key in its main
// thread unless lazyfree-lazy-expire is yes: set it for queues of many
// millions of URLs). Memory is thus held for at most 1.25 × the
// retention: per URL a 32-byte hashtable entry, 16 bytes of field, 8 of
// value, and 8 to 24 of bucket array, which doubles at each power of two
// and is moved over a little at each write while both arrays are held
// (BenchmarkDoneMemory measures it against a SET of the URLs). Dead
// letters are kept for DoneRetention too.
//
// # Waiting
//
// An idle consumer does not poll: it BLPOPs the wake lists of its queues
// for up to IdlePoll. Push, RequeueDead and reaping push a token (lists
// capped at 16 tokens, expiring), and a consumer woken by one that leaves
// work behind passes a token on. It looks at a queue again when signalled,
// when a retry or lease there falls due, or every 10 × IdlePoll, so an
// idle consumer makes about one call per IdlePoll, however many queues it
// serves (ClaimAny).
//
// # Failure and restarts
//
// Every step is one script, so an error or a lost reply leaves a URL in
// one state: a claim whose reply was lost leaves URLs leased, and they
// come back after the lease. Ack, Push, Extend and RequeueDead are
// idempotent, so callers retry them after an error; go-redis reconnects
// after a restart and reloads scripts (EVALSHA falls back to EVAL).
//
// # Cost
//
// Reliability costs Redis work: per batch a claim runs SPOP and one ZADD
// (the lease set), an ack one ZREM, one HDEL and one HSET, each inside a
// Lua script; the lean claim script takes only the pending and lease keys
// (and the payloads when the caller wants them), and the housekeeping runs
// in a second script about once a second. Each key, argument and result
// crossing between Lua and Redis costs redis-server about as much as a
// small command, which is most of the gap to a raw SPOP + SADD queue.
// BenchmarkClaimAck measures it against that baseline in batches of 1 to
// 64 (figures in BENCHMARKS.md).
package queue
