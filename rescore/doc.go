// Package rescore is the batch half of the hot-news ranking (seed 004): it
// prunes articles that left the window and rebuilds score: from time: and
// votes: with the configured formula, without the original's bugs (it
// emptied score: first, parsed members as numbers, and was never
// scheduled). The jobs package runs it on a schedule; newsrank prune and
// newsrank rescore run it by hand.
//
// # Prune
//
// [Rescorer.Prune] walks time: from the oldest article, a bounded batch
// (ZRANGEBYSCORE -inf (cutoff LIMIT 0 n) at a time, and removes each batch
// with one script: from time:, score:, votes: and every group listed in
// groups: (news.UnrankLua: a group that loses a member loses its cached
// rankings, and its name leaves groups: when it empties), and it deletes
// the articles' hashes and voted:<id> keys. No single call does more than
// one batch of work, so Redis never blocks for long. The script re-checks
// every id's post time, so a prune racing with anything else removes only
// what is out of the window. [Rescorer.DryRun] counts and lists what a
// prune would remove and changes nothing.
//
// # Rebuild
//
// [Rescorer.Rebuild] computes the whole ranking into a temporary key
// (<p>{news}:score:rebuild:<token>, a ZSET in the news hash slot) and
// RENAMEs it over score:, so a reader sees either the old ranking or the
// new one, never a part of each.
//
// Walk and repair. Every rebuild first walks time: in post-time order,
// one bounded ZRANGEBYSCORE per round trip (a keyset cursor: the last post
// time read and how many ids at exactly that time were read, so an ingest
// or a prune elsewhere in time: shifts nothing); the same round trip
// carries, for the previous batch, one multi-key EXISTS of the batch's
// article hashes and (hot, gravity) ZMSCORE votes:. The hash is the
// record: when a batch has
// an id with no votes: entry or fewer hashes than ids, its ids go through
// news.Store.Repair, which gives an article the votes its hash records
// and drops an id without a hash (an orphan) from time:, votes:, score:
// and every group. When score: and time: differ in size (the scripts keep
// them equal), score: is scanned for ids not in time: too: without a hash
// they are dropped, with one they are ranked again. What was repaired is
// counted in [RebuildResult] and logged, with the first ids of each kind.
// The listings drop orphans they meet the same way (news.Store.List).
//
// Linear: after the walk, one script does the rest inside Redis:
// ZINTERSTORE tmp 2 time: votes: WEIGHTS 1 <vote_weight> (time: first, so
// Redis inserts in nearly ascending score order), a check, RENAME. When
// the intersection is short (an article has no votes: entry) the script
// refuses rather than score it as 0 votes; the walk then runs again with
// ZMSCORE votes:, repairs, and the script runs once more. It is
// atomic — no write can slip between its read and its swap — and takes
// O(N log N) server time, about a second per million articles on the
// benchmark machine, during which Redis serves nothing else. With linear,
// Ingest and Vote keep score: exact anyway, so the weekly rebuild only
// repairs.
//
// Hot and gravity are computed here, in bounded steps, and writes made
// while they are computed are kept:
//
//  1. Mark. One script creates touched: (news.Keys.Touched), a SET holding
//     this rebuild's marker member, with a one-minute expiry that a
//     heartbeat goroutine pushes back every half second. While it exists,
//     every script that writes time:, votes: or score: — vote, ingest,
//     refresh, post, repair, prune — adds its ids to it (news.TouchLua).
//     A second rebuild that finds it waits two seconds: if the heartbeat
//     went on, it fails with [ErrRebuildRunning]; if not, the holder died
//     (a killed process, a Redis restart under it) and the marker is
//     taken over. A holder that was only stalled then finds its marker
//     gone and fails with [ErrMarkerLost], leaving score: alone.
//  2. Build. The walk above scores each article with the formula at one
//     instant (the rescorer's clock), holding up to about two million
//     scores (~60 bytes each) before writing them, sorted by score, in
//     pipelined 500-member ZADDs in MULTI/EXEC round trips that also push
//     the expiry of tmp back (ascending inserts are the cheapest for a
//     skiplist; tmp never exists without an expiry).
//  3. Swap. The swap script pops up to 1,000 ids from touched: per call
//     and gives each the score the formula gives its current time: and
//     votes: entries (news.FormulaLua's rank, at the same instant), or
//     removes it from tmp when it left time:; the caller calls again
//     while ids remain. The call that finds none left checks tmp against
//     time: (ZCARD, and that the 100 oldest and newest articles are
//     there), RENAMEs it over score: and deletes touched:, in the same
//     atomic step: a write after it goes to the new score: directly, a
//     write before it was recorded and re-scored. Nothing is lost and no
//     call does more than a bounded amount of work.
//  4. Reconcile, if the check fails (something wrote time: without
//     recording its ids: an older binary, an operator): time: and tmp are
//     scanned in bounded batches and the ids one lacks go through
//     news.Store.Repair, which repairs or drops them and records them in
//     touched:; then the swap is tried again. [RebuildResult].Repaired
//     says it happened.
//
// The score a script writes and the one this package computes are the same
// double, bit for bit: news.Formula.Score and news.FormulaLua compute the
// logarithm and power with the same IEEE operations (news/exactmath.go),
// since Go's math and the C library Redis's Lua calls differ in the last
// bit for a quarter to 40 % of the inputs.
//
// A failed or cancelled rebuild leaves score: as it was; it deletes tmp
// and its marker (tmp and touched: expire anyway if the process dies).
// The steps do not depend on the formula, so the linear rebuild can move
// to them when it must run in bounded steps too.
package rescore
