// Package board keeps newsrank's user leaderboards in Redis: daily and
// monthly activity boards, which rank users by the points of what they do
// (visits, likes, comments, ...), and the invitation board, which ranks
// inviters by how many users they brought.
//
// # Activity
//
// [Activity.Record] scores what users do, with the weights of config
// board.weights (by default as below):
//
//	visit    +1   once per (user, path, day)            cannot be undone
//	like     +2   once per (user, article)              undo: unlike
//	collect  +2   once per (user, article)              undo: uncollect
//	comment  +3   once per (user, target)               undo: delete the comment
//	publish  +10  once per (user, article)              cannot be undone
//	follow   +2   once per (user, followed user)        undo: unfollow
//
// Every award goes to the day board and the month board of the event's
// time, in the configured time zone. Each event is applied by one Lua
// script, atomically, against the user's ledger: one hash per user with
// one field per (action, target) — per (day, path) for a visit — that
// holds the points and the day they went to ("2|20240131"; the month
// follows from the day). A repeat finds the field and changes nothing; an
// undo takes back exactly those points from exactly those boards, even on
// a later day or in a later month (a ledger looked up under today's date
// could not find, and so not undo, yesterday's like), and removes the
// field, so liking again counts again. An undo of something never
// awarded, or already undone, does nothing and says so: Result.Applied is
// true exactly when points changed. Because repeats count nothing, a
// caller may always send an event again after an error.
//
// An undo is read, then compare-and-set: it reads the ledger field (which
// names the boards), then runs a script that takes the points back only
// if the field is unchanged, and reads again if another client got there
// first. So every key a script touches is passed in KEYS. It never
// recreates an expired board, and it removes a user whose score falls to
// 0, so a user with no points is not ranked.
//
// Event.At may be up to MaxLateness (24 h) in the past — a late report
// counts on the day it happened — and up to MaxSkew (5 min) in the future;
// outside that it is ErrEventTime.
//
// # Versioned events
//
// A caller that learns the state of a revocable action with a version
// that only grows passes it in Event.Version: the event then says "the
// action stands (Undo false), or does not (Undo true), as of version V".
// The field keeps the version it was last set at ("2|20240131|57"; a
// refusal, points 0: "0|20240131|58"), and an event whose version is not
// newer changes nothing, so concurrent or reordered reports end in the
// state of the newest whatever the interleaving. Package news reports
// every vote this way (an up-vote earns like points; see its package doc
// for a vote recorded whose report failed). A refusal is remembered
// MaxLateness past its day: a report delayed longer than that may apply
// out of order. An unversioned undo of a versioned award leaves a refusal
// with the award's version.
//
// # Expiry and memory
//
// A day board expires board.day_retention (31 days) after it is created
// and a month board board.month_retention (400 days, about 13 months)
// after; the script sets the expiry only when the board has none, i.e.
// when its first write created it. Later writes never push it forward (an
// expiry set again at each user's first points of a day would move a
// month board's expiry forward every day, and a day board's after a like
// undone and done again).
//
// The ledger forgets an award max(day_retention, month_retention) after
// the end of its day — its boards have expired by then: an undo does
// nothing and a repeat of the action counts again — and a visit or a
// refusal MaxLateness after the end of its day (a visit only has to be
// recognised within its day). A forgotten field counts as absent at
// once; it is deleted by a prune that runs about once a day per user:
// when a write finds the hash's TTL below max(retentions) + 1 day, it
// sets the TTL to max(retentions) + 2 days (so the hash outlives its
// newest field) and walks the hash, all of it when it is small (listpack,
// up to 128 fields), else 4 HSCAN steps a day, resumed from the cursor
// kept in field "~". A user who stops being active is forgotten when the
// hash expires. The hash costs about 150 bytes plus 25–35 per field,
// where a key per award cost about 200 per award (integration
// BenchmarkBoardGrowth: 542 bytes per user-day of 2 visits and 3 likes,
// 2.4 times raw ZINCRBY's 229, against 1,199). A target longer than 40
// bytes is stored as a 128-bit digest, so fields stay short and the hash
// stays in Redis's compact listpack encoding.
//
// Ledgers written by releases before the hash (one key per award,
// led:<user>:<action>:<target>) are still read: an undo that finds no
// field reads the old key and takes back its points, and an award that
// creates a new field checks the old key and, if there is one, moves it
// into the hash and counts a repeat. Old visit entries are not read: a
// visit made just before the upgrade can count once more that day. The
// old keys expire on their own (after max(retentions)).
//
// # Ranks
//
// [Activity.Top], [Activity.Rank] and [Activity.AroundMe] use competition
// ranking: equal scores share a rank and the next rank skips (1, 1, 3).
// The rank of a score s is 1 + ZCOUNT(board, (s, +inf), computed in the
// same script as the score; scores are integers, so the comparison is
// exact. Among equal scores the listing order is Redis's (user ids in
// reverse byte order). A user with no points on a board is not ranked.
//
// # Movement, standing, friends and archives
//
// [Activity.TopMovements] and [Activity.Movements] give each user's rank
// on a board and on the previous period's (the day before, the month
// before) in one script call: Movement.Change is the places gained, New
// marks a user with no points in the previous period (or whose previous
// period is not kept at all), Entered a user absent from a previous
// period known only by its top (its archive, or a capped board).
//
// [Activity.StandingOf] and [Activity.StandingOfScore] count the users
// above, at and below a user's score or any score, the users outside a
// capped board included (from out:n and out:t), so the rank and
// percentile they give are true for every user. They read the live board
// only. [Activity.Among] ranks a list of users (friends) among
// themselves by their true totals.
//
// [Activity.Archive] (the daemon's "archive" job) snapshots the top
// ArchiveTop of every closed period whose board still exists, once the
// period has been closed for MaxLateness, into one ZSET per period that
// expires ArchiveRetention after the period ends. It is idempotent and
// catches up after a pause. Top, the movements and Among read a period's
// board while it exists, then its archive. A snapshot is taken once:
// undos that reach the board later do not change it.
//
// # Invitations
//
// [Invites.Register] records a registered invitee and gives the inviter
// one point, in one script: no external lock. An invitee is registered
// once (ErrAlreadyRegistered after that, whoever the inviter). Ties are
// broken exactly by who reached the count first; see [Invites] for the
// integer encoding and its bounds.
//
// # Huge boards
//
// board.cap = K > 0 keeps only the top K members of every board's ZSET,
// so a board of millions of users costs K entries where it is read. The
// two families do it differently:
//
//   - An activity board keeps the true total of every user it does not
//     keep in a hash beside it (out), and how many users outside have
//     each total (out:n, with out:t to find the highest). A user enters
//     by their true total: when it beats the K-th (the script adds the
//     user and pops the lowest, so Redis compares, ties by member as
//     ZREVRANGE orders them), or, on a board holding fewer than K, when
//     it is above every total outside. An undo takes points from the
//     true total wherever the user is; a kept member taken to or below
//     the highest total outside leaves the ZSET, with the members below it
//     (tied with it, after it in member order).
//
//     Guarantee (TestCapMatchesUncapped, a property test over random
//     streams with undos): the ZSET is always exactly the first entries
//     of the uncapped board — the same users, scores and ranks — and
//     holds min(K, users with points) of them, except after an undo took
//     a kept member to or below a total outside: then it holds only the
//     users above that total until outsiders earn their way back in
//     (each award of an outsider checks). Top shows those entries. Rank
//     is exact for a kept user; a user outside the ZSET is "not ranked"
//     and Rank reports their true total. So choose K above what is
//     displayed (Top's n), with room for undos.
//
//     Memory: the ZSET holds K users; every other user with points on a
//     board costs one hash field instead of a ZSET entry: 124 bytes per
//     user for the day and month boards together, against 213 uncapped
//     (board BenchmarkCapGrowth); the counts hold one entry per distinct
//     total. The ledger is per
//     user, capped or not. Lowering the cap trims a board 10 members per
//     write; raising it, or setting it to 0, takes full effect on boards
//     created after the change (a capped board's outsiders are not merged
//     back).
//
//   - The invitation board uses an admission threshold backed by exact
//     counts: every inviter's count is kept in a hash, and an inviter
//     who is not on the board enters only when their score beats the
//     K-th (who is then removed). Nothing is lost — a returning inviter
//     comes back with the exact count and their tie-break — but the hash
//     grows with the number of inviters; the cap bounds only the ZSET.
//
// # Keyspace
//
// Every key starts with the configured prefix (redis.key_prefix, default
// "newsrank:") and a hash tag, {act} for activity and {inv} for
// invitations, so each family is in one Redis Cluster slot and its scripts
// run on a cluster (the price: one node holds each family).
//
//	<p>{act}:day:<YYYY-MM-DD>      ZSET    user → points that day; expires day_retention after creation
//	<p>{act}:month:<YYYY-MM>       ZSET    user → points that month; expires month_retention after creation
//	<b>:out                        HASH    user → points, the users capped board <b> does not keep
//	<b>:out:n                      HASH    points → how many users outside <b> have them
//	<b>:out:t                      ZSET    points → points, the totals outside <b>
//	<p>{act}:archive:day:<date>    ZSET    a closed day's top archive_top users → points; expires archive_retention after the day
//	<p>{act}:archive:month:<m>     ZSET    the same for a closed month
//	<p>{act}:ledger:<user>         HASH    "action:target" → "points|YYYYMMDD[|version]", "YYYYMMDD:path" → points
//	<p>{act}:led:<user>:<a>:<t>    STRING  legacy per-award entry "points|YYYY-MM-DD|YYYY-MM" (read, never written)
//	<p>{inv}:board                 ZSET    inviter → count×2^32 + (2^32−1 − seq)
//	<p>{inv}:counts                HASH    inviter → count
//	<p>{inv}:invitees              HASH    invitee → inviter
//	<p>{inv}:seq                   STRING  registrations so far
//
// <b> is a board's key; its out keys exist only with a cap and expire
// like it (each from its own creation). The user id in a ledger key is
// query-escaped, so an id holding ':' cannot be confused with the parts
// that follow it. The invitation keys do not expire: they are the record
// of who invited whom.
//
// # Batches
//
// [Activity.RecordMany] applies a list of events in order with the same
// results as Record one by one, sending consecutive awards of one day
// together (up to 50 per script call, 500 per pipeline). The benchmark
// in bench_test.go compares it with a bare pipelined ZINCRBY of the day
// and month boards (no ledger, no undo, no expiry).
package board
