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
//	pending   SET   waiting to be claimed (the original's waiting:)
//	lease     ZSET  claimed; score = lease deadline (unix ms)
//	delayed   ZSET  failed, waiting for its retry; score = due (unix ms)
//	dead      ZSET  failed for good; score = died at (unix ms)
//	done      remembered for done_retention after Ack (the original's done:)
//
// beside attempts (HASH url → failed attempts) and errors (HASH url →
// "reason\nlast error"). Push queues a URL only if it is in none of them.
// Claim promotes due retries and reaps expired leases (both at most 100
// per call) before it SPOPs up to n pending URLs into the lease set. Fail
// moves a leased URL to delayed after retry_base × 2^(attempts-1), capped
// at retry_max, half of it random (equal jitter) and at least the caller's
// MinDelay (Retry-After), or to the dead letters when it is not retryable
// or has had max_attempts. An expired lease counts as an attempt; Release
// hands leases back without one (a consumer shutting down). Extend renews
// leases for slow fetches.
//
// # Keys
//
// Every key starts with the configured prefix and the queue's hash tag, so
// each script (which touches one queue) runs in one Redis Cluster slot:
//
//	<prefix>{q:<name>}:pending         SET
//	<prefix>{q:<name>}:lease           ZSET  (and a +inf sentinel keeping it a skiplist)
//	<prefix>{q:<name>}:delayed         ZSET
//	<prefix>{q:<name>}:attempts        HASH
//	<prefix>{q:<name>}:errors          HASH
//	<prefix>{q:<name>}:dead            ZSET
//	<prefix>{q:<name>}:done:<gen>:<b>  HASH  8-byte URL hash → seconds into generation; "t" → 1
//	<prefix>{q:<name>}:donen:<gen>     STRING URLs done in the generation
//	<prefix>{q-wake}:<name>            LIST  wake tokens (one slot for all queues)
//
// # Done memory
//
// The done memory stores no URLs: each done URL is 8 bytes of the SHA-256
// of its canonical form (a false "done" needs a 64-bit collision within
// one bucket: about 2e-17 per push) and its done time, in hash buckets
// sized by done_capacity to hold about 64 entries each, well under Redis'
// default hash-max-listpack-entries (128) and hash-max-listpack-value (64
// bytes), so they keep the compact listpack encoding: about 15 bytes of
// data plus a share of the per-key overhead, about 20 bytes per URL in all.
// The memory is cut into generations of done_retention/4; each
// generation's buckets expire once all they hold is older than the
// retention, so memory never grows forever, while the stored times make
// the retention exact. A lookup (Push) reads the 5 or 6 live generations;
// an Ack writes one field to the current one. At 1,000,000 URLs this is
// about 19 bytes per URL against about 104 for a SET of the URLs
// (BenchmarkDoneMemory). Dead letters are kept for done_retention too.
//
// # Waiting
//
// An idle consumer does not poll: it BLPOPs the wake lists of its queues
// for up to idle_poll. Push, RequeueDead and reaping push a token (lists
// capped at 16 tokens, expiring), and a consumer woken by one that leaves
// work behind passes a token on. It looks at a queue again when signalled,
// when a retry or lease there falls due, or every 10 × idle_poll, so an
// idle consumer makes about one call per idle_poll, however many queues it
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
// Reliability costs Redis work: a claim and an ack run SPOP, a ZADD and a
// ZREM per batch and one HSET per URL inside two scripts, about 6 µs of
// redis-server CPU per URL against about 1.7 µs for the original's SPOP +
// SADD (BenchmarkClaimAck), which still leaves room for tens of thousands
// of URLs per second, far beyond what polite crawling fetches.
package queue
