// Package news is newsrank's article store and ranking: crawled and posted
// articles, one vote per user per article, the week's hot-news ranking
// (by default post time + 432 s per net vote), with pages by score or
// time and groups.
//
// # Keyspace
//
// Every key starts with the configured prefix (redis.key_prefix, default
// "newsrank:") followed by the hash tag "{news}", so all of them live in one
// Redis Cluster slot and every script, multi-key command (ZINTERSTORE) and
// pipeline (a page: the ranking and each article's hash) runs on one node
// of a cluster. The
// price is that the news data sits on one cluster node: a week of news is
// small (BenchmarkMemoryPerArticle measures it; BENCHMARKS.md), so that is
// the trade taken for atomic scripts. This package is the only one that
// reads or writes these keys; their names are the methods of keys.go:
//
//	<p>{news}:news:<id>         HASH   one article (fields below); expires Grace after its window ends
//	<p>{news}:time:             ZSET   id → post time, Unix seconds
//	<p>{news}:votes:            ZSET   id → net votes (see below)
//	<p>{news}:score:            ZSET   id → ranking score (the configured Formula)
//	<p>{news}:voted:<id>        HASH   user → 1 (up) or -1 (down); expires with the article
//	<p>{news}:vote-seq          STRING the number of the last vote (each vote's version); never expires
//	<p>{news}:group:<name>      SET    ids in the group
//	<p>{news}:groups:           SET    names of the groups that have members
//	<p>{news}:cache:<o>:<name>  ZSET   a group's ranking by score or time (ZINTERSTORE), kept news.group_cache_ttl
//	<p>{news}:alias:<id>        STRING the URL an article is stored under, for another URL of it (id = ID of that URL); expires window + Grace after it is written
//	<p>{news}:touched:          SET    only while a rebuild of score: runs: its marker and the ids written since it began (touched:, see Rebuild below)
//	<p>{news}:storyterms        HASH   rank_by story: the stories' inverted index, term → leads of the recent stories filed under it, latest first, comma-separated (story.go); emptied by the prune
//	<p>{news}:storyterms:v      HASH   rank_by story: the index's version: n (the count of its writes, by every ingest and prune that writes it) and by (the planned chunk that wrote it last; story_plan.go); never expires
//	<p>{news}:storyterms:lock   STRING rank_by story: held by an ingest planning under the lock after stale plans (story_plan.go); expires
//	<p>{news}:df:<day>          HASH   rank_by story: term → articles posted that day (Unix days) that have it, "*" → articles; expires when the day leaves the window
//	<p>{news}:dfj:<name>        LIST   rank_by story: document-frequency counts not yet added to df:<day>, one entry per chunk and day (story_df.go): a store's live journal (<writer>) or one being added (<writer>.<n>); deleted once added, expires a window after its last entry
//	<p>{news}:dfj               ZSET   rank_by story: journal name → Unix time of its last entry or its freezing (the prune adds those gone quiet)
//	<p>{news}:dfjp              HASH   rank_by story: frozen journal name → parts of it added so far
//	<p>{news}:bands-dropped     STRING "1" once a prune has deleted the band: ZSETs of the earlier story index (bands.go)
//	<p>{news}:shingles-dropped  STRING "1" once a prune has deleted the MinHash index (shingles, shingles:v) of the earlier story grouping (bands.go)
//	<p>{news}:story:<lead>      HASH   rank_by story: id → source, the articles of a story of two or more; expires with its newest
//
// The article hash holds title, url, source, summary, image, user (who
// posted it; empty for crawled articles), time (post time, Unix seconds),
// crawled (crawl time, Unix seconds), comments, up, down and votes; with
// rank_by story also tv, tk, tf, cjk, tn, ta and to (its term vector, its
// index terms, its title's figures and weekdays with its kinds of event
// and its later mark (termvec.Doc.Facts), "1" when it is in CJK,
// its title's names, the name its title puts first and the one after),
// on an article that started a story td (when the day it tells of
// begins, Unix seconds, when it states one: grouping.TellsOf), on a
// story's lead cv and slast (the story's centroid and latest member's
// post time),
// story (its story's lead) and, on a lead, svotes (the story's votes:
// story_rank.go). With rank_by story, votes: and score: of a lead hold its
// story's votes and score, and a story's other articles are not ranked.
//
// # Ids and ingest
//
// An article's id is derived from its canonical URL: the first 8 bytes of
// SHA-256(url) in hex ([ID]). The id is therefore the URL index: the same
// URL always maps to the same id, with no extra key and no lookup, so
// ingest is idempotent and every key an ingest touches is known before the
// script runs. The hash keeps the URL and the scripts compare it, so a hash
// collision is an error, never a silent merge.
//
// Ingest creates the article on first sight and, on a re-crawl, refreshes
// its engagement (the comment count; 0 means "not known" and keeps the
// stored count), fills optional fields it lacked, and rescores that
// article only; the post time is kept. An article whose post time is older
// than the window is skipped (counted in metrics.Articles{result="too_old"});
// a post time after the crawl time is clamped to the crawl time; a missing
// post time means the crawl time. IngestBatch sends up to IngestChunk
// articles per script call and all calls in one pipeline.
//
// Refresh applies comment counts a list page carried (a feed's
// slash:comments, a list API's replyCount) to articles already stored,
// without their pages: the crawler's producer calls it for each list page,
// since the queue does not fetch a known URL again for a while. It never
// creates an article, leaves alone those older than the window, and
// changes nothing when the count is the stored one or 0 ("not known"); a
// different count, lower ones included, replaces the stored one, as on a
// re-crawl. The refresh and the re-crawl share one Lua function (engage),
// so both rescore with the same code and formula. An article whose page
// declared another canonical URL than its list gave (or redirected) is
// stored under that URL; the crawler passes the list's URL as an alias
// (Article.Aliases) and Refresh follows alias:<id> for a URL it has no
// article under.
//
// # Votes and scores
//
// votes = up − down + comments × news.comment_weight: crawled comments count
// as votes, and a user's vote moves votes by one. The vote
// script keeps up, down, votes in the hash, votes: and score: consistent in
// one atomic step, records the user's vote in voted:<id>, and checks the
// voting window against the time passed in by the caller's clock.
//
// Every article has an entry in votes: (0 included), so the rebuild below
// covers every article in time:.
//
// The formulas ([Formula]) are linear (post time + vote_weight × votes, the
// default: 432 s per vote, a day per 200 votes), Reddit's hot and Hacker News's
// gravity. Ingest and Vote apply them to the one article they change, in
// Lua (formulaLua, scripts.go); [Store.Rebuild] applies them in Go. Both
// compute the same double, bit for bit: the logarithm and power are written with
// the same IEEE operations on both sides (exactmath.go), because Go's math
// package and the C library's log10 and pow that Lua calls disagree in
// the last bit for a quarter to 40 % of the inputs.
// Linear and hot depend only on post time and votes, so an incremental
// score stays exact. Gravity decays with age: a stored gravity score is
// correct when it was written, and the rescore job ([Store.Rebuild])
// refreshes all of them from time: and votes:.
//
// # Activity points
//
// The store applies the rules of what earns activity points and reports
// them to an [Activity] (package board; WithActivity): a vote reports
// whether the voter now likes the article (up, and not their own post),
// a post gives its author publish points, View counts a visit. Every
// client of the store gets the same rules.
//
// The boards are in another hash tag ({act}, another cluster slot), so a
// vote and its like points cannot be one script. They are kept in step
// by versions instead: the vote script takes a new number from vote-seq
// for every vote, a repeat of the current vote included, and returns it
// with the vote; the store then tells the boards "user likes article:
// yes/no, as of version V", and the boards apply it only if V is newer
// than the version they hold for (user, article). Whatever the
// interleaving of concurrent votes and reports, both end in the state of
// the last vote whose report arrived — the last vote, once every report
// has (TestConcurrentVotesKeepLikePointsInStep in package web: 100 trials
// of 4 simultaneous up/none votes through the HTTP API).
//
// If the report fails (the boards' Redis is down, or the process dies
// between the two steps), the vote stands and the like points lag: Vote
// returns the result with an error wrapping ErrActivity. The next vote of
// that user on that article, the same vote again included, carries a
// newer version and brings the points in step; there is no background
// repair. A crash leaves the lag until that user votes on that article
// again (or the article closes; the like points then stay as they were).
// Post reports the same way: posting the same link again by the same
// user gives the publish points (once) before answering ErrDuplicate. A
// visit that cannot be recorded is logged; View still returns the
// article.
//
// # Pages
//
// A page is ZREVRANGE of the ranking and ZCARD (for the number of pages),
// HMGET of each article's fields and, by time, ZMSCORE score: for the
// scores — plain commands in pipelines, no script: a Lua script that
// read a page of 25 (27 redis.call) took several times the server time
// of the same commands sent directly (measured on Redis 7.0). The ids come before the
// fields, so a first read takes two round trips; the store remembers the
// ids each page held (up to 512 pages) and reads them again with the
// ranking, so a page read again takes one round trip while it holds the
// same articles, in any order (page.go). A group's page is the same with
// a small script in place of ZREVRANGE that first builds the group's
// cached ranking when it is missing. VotesOf reads one user's votes on a
// page of articles in one round trip (HGET voted:<id> per article).
//
// # Prune
//
// The article hash and voted:<id> expire Grace after the window ends (the
// grace keeps "voting closed" distinguishable from "not found" and leaves
// the prune job time to run). The ZSETs and group SETs do not expire:
// [Store.Prune] walks time: from the oldest article, a bounded batch
// (ZRANGEBYSCORE -inf (cutoff LIMIT 0 n) at a time, and removes each batch
// with one script: from time:, score:, votes: and every group listed in
// groups: (unrankLua, repair.go: a group that loses a member loses its
// cached rankings, and its name leaves groups: when it empties), and it deletes
// the articles' hashes and voted:<id> keys. No single call does more than
// one batch of work, so Redis never blocks for long. The script re-checks
// every id's post time, so a prune racing with anything else removes only
// what is out of the window. A dry run (PruneOptions.DryRun) counts and
// lists what a prune would remove and changes nothing. The first prune
// after an upgrade also deletes the band: keys of the earlier story index
// (bands.go), once.
//
// # Repairs
//
// The article hash is the record. [Store.Repair] checks ranked ids
// against it: an id without a hash (expired before the prune job ran,
// deleted, evicted, never an article) is dropped from time:, votes:,
// score: and every group; an article missing from votes: or time: is
// ranked again from its hash. A listing that meets an id without a hash
// repairs it and reads the page again, so a page is full while more
// articles exist; a rebuild repairs what its walk finds.
//
// # Rebuild
//
// [Store.Rebuild] recomputes score: from time: and votes: with the
// configured formula (the rescore job runs it; it replaces a rebuild that
// emptied score: first, parsed members as numbers and was never
// scheduled). It computes the whole ranking into a temporary key
// (<p>{news}:score:rebuild:<token>, a ZSET in the news hash slot) and
// RENAMEs it over score:, so a reader sees either the old ranking or the
// new one, never a part of each.
//
// Walk and repair. Every rebuild first walks time: in post-time order,
// one bounded ZRANGEBYSCORE per round trip (a keyset cursor: the last post
// time read and how many ids at exactly that time were read, so an ingest
// or a prune elsewhere in time: shifts nothing); the same round trip
// carries, for the previous batch, one multi-key EXISTS of the batch's
// article hashes and ZMSCORE votes:. A time: of 100,000 articles or more
// is walked in two ranges of post times at once, split at the median, on
// two connections: Redis answers one walker while the other decodes and
// scores. When a batch has an id
// with no votes: entry or fewer hashes than ids, its ids go through
// Store.Repair. When score: and time: differ in size (the scripts keep
// them equal), score: is scanned for ids not in time: too: without a hash
// they are dropped, with one they are ranked again. What was repaired is
// counted in [RebuildResult] and logged, with the first ids of each kind.
//
// Every formula, linear included, is computed in Go, in bounded steps
// (no call touches more than one batch of articles, so Redis never stops
// serving others for long), and writes made while it is computed are
// kept:
//
//  1. Mark. One script creates touched:, a SET holding this rebuild's
//     marker member, with a one-minute expiry that a heartbeat goroutine
//     pushes back every half second. While it exists, every script that
//     writes time:, votes: or score: — vote, ingest, refresh, post,
//     repair, prune — adds its ids to it (touchLua, scripts.go). A second
//     rebuild that finds it waits two seconds: if the heartbeat went on, it fails
//     with [ErrRebuildRunning]; if not, the holder died (a killed process,
//     a Redis restart under it) and the marker is taken over. A holder
//     that was only stalled then finds its marker gone and fails with
//     [ErrMarkerLost], leaving score: alone.
//  2. Build. The walk above scores each article with the formula at one
//     instant (the store's clock), holding up to about two million scores
//     before writing them, sorted by score, in pipelined 500-member ZADDs
//     in MULTI/EXEC round trips that also push the expiry of tmp back, two
//     round trips in flight at once (ascending inserts are the cheapest
//     for a skiplist; tmp never exists without an expiry).
//  3. Swap. The swap script pops up to 1,000 ids from touched: per call
//     and gives each the score the formula gives its current time: and
//     votes: entries (formulaLua's rank, at the same instant), or removes
//     it from tmp when it left time:; the caller calls again while ids
//     remain. The call that finds none left checks tmp against time:
//     (ZCARD, and that the 100 oldest and newest articles are there),
//     RENAMEs it over score: and deletes touched:, in the same atomic
//     step: a write after it goes to the new score: directly, a write
//     before it was recorded and re-scored. Nothing is lost and no call
//     does more than a bounded amount of work.
//  4. Reconcile, if the check fails (something wrote time: without
//     recording its ids: an older binary, an operator): time: and tmp are
//     scanned in bounded batches and the ids one lacks go through
//     Store.Repair, which repairs or drops them and records them in
//     touched:; then the swap is tried again. [RebuildResult].Repaired
//     says it happened.
//
// A failed or cancelled rebuild leaves score: as it was; it deletes tmp
// and its marker (tmp and touched: expire anyway if the process dies).
package news
