// Package jobs runs newsrank's batch jobs — crawl, prune, rescore and
// archive — on a cron schedule and by hand, never two runs of one job at
// once, and keeps a history of every run.
//
// # One runner at a time
//
// A run first takes the job's lock: a Redis string set with SET NX PX to a
// value holding a random token, the holder (host/pid) and the start time,
// expiring after jobs.lock_ttl. While the job runs, the holder renews the
// expiry every third of the TTL with a compare-and-PEXPIRE script, and at
// the end deletes the lock with a compare-and-DEL script, so only the
// holder can release it. A run that finds the lock taken is recorded as
// "skipped" and returns [ErrLocked]. Because the lock lives in Redis, two
// daemons, or a daemon and a systemd timer, never overlap; a holder killed
// with SIGKILL stops renewing and its lock expires within the TTL. A holder
// that fails to renew for a whole TTL (or finds its token gone) cancels its
// job with [ErrLockLost].
//
// The lock is written here rather than taken from github.com/bsm/redislock.
// That library runs the same compare-and-PEXPIRE and compare-and-DEL
// scripts, so it would replace only three Redis calls: it has no renewal
// loop and no notice of a lost lock, which a job needs and which would stay
// here; it stores its token and metadata as one string, so keeping the
// lock's JSON value (which "newsrank jobs" and /api/jobs read to name the
// holder) means passing the whole JSON as its token; and it takes the lock
// with a Lua script where a plain SET NX PX does, and measured slower.
//
// # History
//
// Each run — start, end, trigger, holder, status (ok, failed, skipped),
// counts, error — is pushed as JSON on a per-job list capped at
// jobs.history entries; the last run that actually ran (ok or failed) is
// also kept on its own, so a burst of skips never hides it.
//
// # Keyspace
//
// Every key starts with redis.key_prefix and the hash tag "{jobs}":
//
//	<p>{jobs}:lock:<job>   STRING  JSON {token, holder, since}; PX lock_ttl
//	<p>{jobs}:runs:<job>   LIST    JSON runs, newest first, capped at jobs.history
//	<p>{jobs}:last:<job>   STRING  JSON of the last run that ran (ok or failed)
//
// # Schedule and catch-up
//
// [Manager.Schedule] runs the enabled jobs on their cron specs
// (github.com/robfig/cron/v3, standard five fields or descriptors such as
// "@every 6h", read in jobs.time_zone). A scheduled run goes ahead only
// when the schedule has fired since the last run started, so two daemons
// whose ticks meet run the job once. At start, with jobs.catch_up, a job
// whose schedule fired while nothing was running (the next scheduled time
// after its last run is in the past) is run once. A job that never ran has
// missed nothing: a fresh install catches nothing up, and runs each job
// first when its schedule fires.
package jobs
