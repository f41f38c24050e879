// Package board keeps newsrank's user leaderboards in Redis: daily and
// monthly activity boards (seeds 000 and 001) and the invitation board
// (seed 003).
//
// # Activity
//
// [Activity.Record] scores what users do, with the weights of config
// board.weights (seed 000's table by default):
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
// script, atomically: a ledger entry per (user, action, target) — per
// (user, path, day) for a visit — records the points and the day and month
// they went to. A repeat finds the entry and changes nothing; an undo
// takes back exactly those points from exactly those boards, even on a
// later day or in a later month (seed 000 looked for the entry under
// today's date and so could not undo yesterday's like), and deletes the
// entry, so liking again counts again. An undo of something never awarded,
// or already undone, does nothing. Because repeats count nothing, a caller
// may always send an event again after an error.
//
// An undo is read, then compare-and-delete: it reads the ledger entry
// (which names the boards), then runs a script that takes the points back
// only if the entry is unchanged, and reads again if another client got
// there first. So every key a script touches is passed in KEYS. It never
// recreates an expired board, and it removes a user whose score falls to
// 0, so a user with no points is not ranked.
//
// # Expiry
//
// A day board expires board.day_retention (31 days) after it is created
// and a month board board.month_retention (400 days, about 13 months)
// after; the script sets the expiry only when the board has none, i.e.
// when its first write created it. Later writes never push it forward
// (seed 001's own comment explains how the original refreshed it).
//
// The ledger does not grow forever: a like/collect/comment/publish/follow
// entry expires max(day_retention, month_retention) after the award, so
// it outlives the month board it refers to (that board was created at or
// before the award) and an undo within the boards' lifetime always works.
// After that the entry is gone: an undo does nothing (its boards are gone
// too) and a repeat of the same action counts again. A visit entry only
// has to recognise repeats within its day: it expires MaxLateness after
// the end of that day.
//
// Event.At may be up to MaxLateness (24 h) in the past — a late report
// counts on the day it happened — and up to MaxSkew (5 min) in the future;
// outside that it is ErrEventTime.
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
// board.cap = K > 0 keeps only the top K members of every board (seed
// 004's top-N idea). The two families do it differently:
//
//   - Activity boards trim after write: after an award, members beyond
//     the top K are removed (ZREMRANGEBYRANK). Memory and ZSET size stay
//     bounded with no extra state, but a user who falls out loses the
//     points they had on that board: if they earn more later they come
//     back with only the new points, and an undo of points awarded
//     before they fell out changes nothing on that board. Ranks among the
//     kept members are exact; others are "not ranked". Choose K well
//     above the N that is displayed (e.g. 10× Top's n) so that the
//     displayed part is exact in practice.
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
//	<p>{act}:day:<YYYY-MM-DD>              ZSET    user → points that day; expires day_retention after creation
//	<p>{act}:month:<YYYY-MM>               ZSET    user → points that month; expires month_retention after creation
//	<p>{act}:led:<user>:<action>:<target>  STRING  "points|day|month" of one award; expires max(retentions) after it
//	<p>{act}:led:<user>:visit:<day>:<path> STRING  "1|day|month"; expires MaxLateness after the end of the day
//	<p>{inv}:board                         ZSET    inviter → count×2^32 + (2^32−1 − seq)
//	<p>{inv}:counts                        HASH    inviter → count
//	<p>{inv}:invitees                      HASH    invitee → inviter
//	<p>{inv}:seq                           STRING  registrations so far
//
// The user id in a ledger key is query-escaped, so an id holding ':'
// cannot be confused with the parts that follow it. The invitation keys
// do not expire: they are the record of who invited whom.
//
// # Batches
//
// [Activity.RecordMany] applies a list of events in order with the same
// results as Record one by one, sending consecutive awards of one day
// together (up to 50 per script call, 500 per pipeline). The benchmark
// in bench_test.go compares it with the seeds' raw ZINCRBY.
package board
