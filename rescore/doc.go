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
// ZUNIONSTORE tmp 2 time: votes: WEIGHTS 1 <vote_weight>, a check, RENAME.
// It is atomic (no vote can slip between the read and the swap) and takes
// O(N log N) server time: about a second for a million articles, during
// which Redis serves nothing else.
//
// The other formulas (hot, gravity) run news's Formula code in the client:
// a pipeline per batch reads the next ZSCAN batch of time: with its votes
// (one read-only script) and writes the previous batch's scores to the
// temporary key, so Redis never does more than one batch of work per call.
// The swap script then checks the temporary key against time: (ZCARD, and
// that the oldest and newest articles are there) and, when articles were
// ingested or pruned during the build, repairs it before the swap: pruned
// ids are dropped and new ids take the score their ingest gave them. A
// vote cast during a client-side build, on an article whose batch was
// already read, lands in votes: at once but its score: effect is replaced
// by the rebuilt value until that article's next vote or the next rebuild
// (for gravity that is within the staleness the formula has anyway).
package rescore
