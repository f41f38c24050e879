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
// groups: (dropping a group's name from groups: when it empties), and it
// deletes the articles' hashes and voted:<id> keys. No single call does
// more than one batch of work, so Redis never blocks for long. The script
// re-checks every id's post time, so a prune racing with anything else
// removes only what is out of the window. [Rescorer.DryRun] counts and
// lists what a prune would remove and changes nothing.
//
// # Rebuild
//
// [Rescorer.Rebuild] computes the whole ranking into a temporary key
// (<p>{news}:score:rebuild:<token>, a ZSET in the news hash slot), checks
// that it holds exactly the members of time:, and RENAMEs it over score:,
// so a reader sees either the old ranking or the new one, never a part.
//
// For the linear formula everything happens in Redis, in one script:
// ZINTERSTORE tmp 2 time: votes: WEIGHTS 1 <vote_weight> (time: first, so
// Redis inserts in nearly ascending score order — about three times faster
// than ZUNIONSTORE's hash order; an article missing from votes: makes it
// fall back to ZUNIONSTORE with 0 votes), a check, RENAME. It is atomic (no
// vote can slip between the read and the swap) and takes O(N log N) server
// time — one to four seconds per million articles on the benchmark
// machine — during which Redis serves nothing else. That is the price of
// an exact, atomic rebuild; with linear, Ingest and Vote keep score: exact
// anyway, so the weekly rebuild only repairs.
//
// The other formulas (hot, gravity) run news's Formula code in the client:
// it reads time: in post-time order, one bounded ZRANGEBYSCORE per round
// trip (with the ZMSCORE votes: of the previous batch in the same
// pipeline), scores the articles, sorts them by score and writes them to
// the temporary key in pipelined 500-member ZADDs (ascending inserts are
// the cheapest for a skiplist). No call does more than one batch of work.
// It holds up to about two million scored articles (~60 bytes each) before
// writing. The swap script then checks the temporary key against time:
// (ZCARD, and that the 100 oldest and newest articles are there) and, when
// articles were ingested or pruned during the build, repairs it before the
// swap: pruned ids are dropped and new ids take the score their ingest
// gave them (the repair walks time: inside the script, so it blocks Redis
// about as long as the linear rebuild; it runs only when time: changed). A
// vote cast during a client-side build, on an article already read, lands
// in votes: at once but its score: effect is replaced by the rebuilt value
// until that article's next vote or the next rebuild (for gravity that is
// within the staleness the formula has anyway).
package rescore
