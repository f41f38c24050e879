package rescore

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/news"
)

// linearCmd rebuilds score: for the linear formula inside Redis.
//
//	KEYS[1] -> the temporary ZSET
//	KEYS[2] -> time: ZSET
//	KEYS[3] -> votes: ZSET
//	KEYS[4] -> score: ZSET
//	ARGV[1] -> the vote weight
//
// tmp = time: + weight × votes: by ZINTERSTORE with time: first: Redis then
// walks time: in post-time order and inserts into tmp in nearly ascending
// score order, about three times faster than the hash order ZUNIONSTORE
// inserts in. Ids only in votes: (left by a crash) are not taken. Then tmp
// must have ZCARD(time:) members: if some article of time: has no votes:
// entry, tmp is deleted and the reply is an error VOTES (score: untouched;
// the caller repairs votes: from the article hashes and runs it again) —
// an article is never scored as if it had no votes. Otherwise the old
// score: is UNLINKed (so Redis frees it in the background, not inside the
// script) and tmp RENAMEd over it. Returns the number of articles.
var linearCmd = redis.NewScript(`
local n = redis.call('ZCARD', KEYS[2])
if n == 0 then
  redis.call('DEL', KEYS[1], KEYS[4])
  return 0
end
local got = redis.call('ZINTERSTORE', KEYS[1], 2, KEYS[2], KEYS[3], 'WEIGHTS', 1, ARGV[1])
if got ~= n then
  redis.call('DEL', KEYS[1])
  return redis.error_reply('VOTES ' .. (n - got) .. ' articles of time: have no votes: entry')
end
redis.call('UNLINK', KEYS[4])
redis.call('RENAME', KEYS[1], KEYS[4])
return n
`)

// startCmd marks a client-side rebuild as running: from now on every
// script that writes time:, votes: or score: adds its ids to touched:
// (news.TouchLua).
//
//	KEYS[1] -> touched: SET
//	ARGV[1] -> this rebuild's marker member
//	ARGV[2] -> the marker's TTL (ms)
//	ARGV[3] -> -1, or the PTTL at or below which touched: is taken over
//
// When touched: exists, another rebuild holds it. Its heartbeat pushes the
// expiry back to ARGV[2] every half second; if the PTTL has fallen to
// ARGV[3] (the caller passes what it saw two seconds before, less one
// second: nothing refreshed it for at least a second), that rebuild is dead
// and touched: is taken over (deleted, then marked anew). Otherwise the
// reply is the PTTL (>= 0) and nothing changes. Returns -1 when the
// rebuild is marked.
var startCmd = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  local left = redis.call('PTTL', KEYS[1])
  local limit = tonumber(ARGV[3])
  if limit < 0 or left > limit then return left end
  redis.call('DEL', KEYS[1])
end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return -1
`)

// swapCmd re-scores a bounded number of the ids written since the rebuild
// began and, once none is left, checks the rebuilt ranking and swaps it
// in.
//
//	KEYS[1] -> the temporary ZSET
//	KEYS[2] -> time: ZSET
//	KEYS[3] -> votes: ZSET
//	KEYS[4] -> score: ZSET
//	KEYS[5] -> touched: SET
//	ARGV[1] -> this rebuild's marker member of touched:
//	ARGV[2] -> how many touched ids to re-score in this call
//	ARGV[3] -> the marker's TTL (ms)
//	ARGV[4] -> the temporary ZSET's TTL (ms)
//	ARGV[5] -> how many of the oldest and of the newest ids of time: to
//	           look up in the temporary ZSET (the bounded check)
//	ARGV[6], ARGV[7] -> formula name and parameter (news.FormulaArgs)
//	ARGV[8] -> now (Unix s): the instant the whole ranking is scored at
//
// It pops up to ARGV[2] ids from touched: (putting the marker back): an id
// still in time: gets rank(its post time, its votes: entry, or 0) in the
// temporary ZSET, the same function of the same values the writers and
// the client-side build use (news.FormulaLua); an id no longer in time:
// (pruned, dropped) leaves it. When touched: holds more ids it returns
// {-1, re-scored}: call it again. Otherwise the temporary ZSET must have
// ZCARD(time:) members and hold the sampled ids; if not (something wrote
// time: without touching its ids) it returns {-2, re-scored} and changes
// nothing else. If it does, score: is UNLINKed, the temporary ZSET RENAMEd
// over it and made persistent, touched: deleted (the rebuild is over), and
// it returns {articles, re-scored}. An error reply LOST means touched: no
// longer holds the marker (it expired, or another rebuild took it over), so
// writes made since may not have been recorded.
var swapCmd = redis.NewScript(news.FormulaLua + `
local tmp, tkey, vkey, skey, touched = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local marker = ARGV[1]
if redis.call('SISMEMBER', touched, marker) == 0 then
  return redis.error_reply('LOST the rebuild marker is gone')
end
local formula, param, now = ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8])
local ids = redis.call('SPOP', touched, tonumber(ARGV[2]) + 1)
local add, rem = {}, {}
for _, id in ipairs(ids) do
  if id ~= marker then
    local t = redis.call('ZSCORE', tkey, id)
    if t then
      local v = tonumber(redis.call('ZSCORE', vkey, id) or '0')
      add[#add + 1] = num(rank(formula, param, tonumber(t), v, now))
      add[#add + 1] = id
    else
      rem[#rem + 1] = id
    end
  end
end
redis.call('SADD', touched, marker)
redis.call('PEXPIRE', touched, ARGV[3])
if #add > 0 then
  redis.call('ZADD', tmp, unpack(add))
  redis.call('PEXPIRE', tmp, ARGV[4])
end
if #rem > 0 then redis.call('ZREM', tmp, unpack(rem)) end
local done = #add / 2 + #rem
if redis.call('SCARD', touched) > 1 then return {-1, done} end
local n = redis.call('ZCARD', tkey)
if n == 0 then
  redis.call('DEL', tmp, skey, touched)
  return {0, done}
end
if redis.call('ZCARD', tmp) ~= n then return {-2, done} end
local k = tonumber(ARGV[5])
for _, r in ipairs({{0, k - 1}, {-k, -1}}) do
  local sample = redis.call('ZRANGE', tkey, r[1], r[2])
  local s = redis.call('ZMSCORE', tmp, unpack(sample))
  for i = 1, #sample do
    if not s[i] then return {-2, done} end
  end
end
redis.call('UNLINK', skey)
redis.call('RENAME', tmp, skey)
redis.call('PERSIST', skey)
redis.call('DEL', touched)
return {n, done}
`)

// tmpTTL bounds how long a temporary ranking left by a crashed rebuild
// survives; every batch pushes it back.
const tmpTTL = 10 * time.Minute

// markTTL bounds how long the marker of a client-side rebuild (touched:)
// outlives the rebuild: a rebuild that died makes writers record their ids
// for at most this long (unless the next rebuild takes the marker over).
// The rebuild's heartbeat pushes it back every heartbeatEvery; a rebuild
// whose heartbeat stopped for staleAfter is taken to be dead, and the
// next rebuild takes its marker over (the dead one, if it was only
// stalled, then fails with ErrMarkerLost).
const (
	markTTL        = time.Minute
	heartbeatEvery = 500 * time.Millisecond
	staleAfter     = 2 * time.Second
)

// swapSample is how many of the oldest and newest ids the swap checks.
const swapSample = 100

// drainBatch is how many touched ids one swap call re-scores (a few
// milliseconds of server time).
const drainBatch = 1000

// maxSwapCalls bounds the swap calls of one rebuild (each re-scores up to
// drainBatch ids written during the build, or finds the ranking short and
// reconciles it): writes would have to outpace it for a whole rebuild's
// worth of calls. maxReconciles bounds the reconciliations.
const (
	maxSwapCalls  = 10000
	maxReconciles = 3
)

// maxLogged is how many repaired ids of each kind a rebuild logs.
const maxLogged = 20

// RebuildResult reports a rebuild.
type RebuildResult struct {
	// Formula is the formula's name.
	Formula string
	// Articles is how many articles score: holds now.
	Articles int64
	// ServerSide is set when Redis computed the scores (linear).
	ServerSide bool
	// Batches is how many batches the walks of time: took.
	Batches int
	// Rescored is how many ids written during a client-side build (votes,
	// ingests, refreshes, prunes, repairs) the swap re-scored or removed.
	Rescored int64
	// Repaired is set when the rebuilt ranking still differed from time:
	// after that (a write that did not record its id) and the rebuild
	// walked time: and the ranking to reconcile them.
	Repaired bool
	// VotesRepaired counts articles of time: that had no votes: entry and
	// got the votes their hash records; Dropped counts orphans, ranked ids
	// without an article hash, removed from the rankings and groups;
	// Restored counts articles missing from time: (found in score: or in
	// the rebuilt ranking) whose hash was there: they are ranked again
	// from it.
	VotesRepaired, Dropped, Restored int64
	// Took is the wall time of the rebuild.
	Took time.Duration

	// repairedIDs, droppedIDs and restoredIDs are the first maxLogged of
	// each, for the log.
	repairedIDs, droppedIDs, restoredIDs []string
}

// ErrRebuildRunning means another client-side rebuild is running: its
// heartbeat went on while this one waited staleAfter.
var ErrRebuildRunning = errors.New("another rebuild of score: is running")

// ErrMarkerLost means a client-side rebuild lost its marker: it expired or
// another rebuild took it over while this one was stalled, so writes made
// since may not have been recorded. The rebuild is abandoned and score:
// left as it was.
var ErrMarkerLost = errors.New("the rebuild's marker is gone")

// Rebuild recomputes score: from time: and votes: with the formula and
// swaps it in atomically, keeping every write made meanwhile, and repairs
// what it finds inconsistent: see the package documentation. On an error
// score: is left as it was.
func (r *Rescorer) Rebuild(ctx context.Context) (RebuildResult, error) {
	start := time.Now()
	var res RebuildResult
	var err error
	if lin, ok := r.formula.(news.Linear); ok {
		err = r.rebuildLinear(ctx, lin, &res)
	} else {
		err = r.rebuildClient(ctx, &res)
	}
	res.Formula = r.formula.Name()
	res.Took = time.Since(start)
	if res.VotesRepaired > 0 || res.Dropped > 0 || res.Restored > 0 {
		r.log.Warn("rebuild repaired the ranking from the article hashes: votes restored to articles missing from votes:, "+
			"ranked ids without an article dropped, articles missing from time: ranked again",
			"votes_repaired", res.VotesRepaired, "votes_repaired_ids", res.repairedIDs,
			"dropped", res.Dropped, "dropped_ids", res.droppedIDs,
			"restored", res.Restored, "restored_ids", res.restoredIDs)
	}
	if err != nil {
		return res, fmt.Errorf("rebuild %s ranking: %w", res.Formula, err)
	}
	r.log.Info("rebuild done", "formula", res.Formula, "articles", res.Articles, "server_side", res.ServerSide,
		"batches", res.Batches, "rescored", res.Rescored, "reconciled", res.Repaired, "took", res.Took)
	return res, nil
}

func token() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// rebuildLinear walks time: to repair what is inconsistent, then rebuilds
// in one server-side script, which no write can interleave with. The walk
// checks the article hashes only: the script finds articles missing from
// votes: by itself (ZINTERSTORE comes out short), and then a second walk
// repairs votes: too before the script runs again.
func (r *Rescorer) rebuildLinear(ctx context.Context, f news.Linear, res *RebuildResult) error {
	res.ServerSide = true
	tok, err := token()
	if err != nil {
		return err
	}
	if err := r.walk(ctx, res, false, nil); err != nil {
		return err
	}
	if err := r.sweepScore(ctx, res); err != nil {
		return err
	}
	keys := []string{r.tmpKey(tok), r.keys.Time(), r.keys.Votes(), r.keys.Score()}
	lc, done := longCallClient(r.c, r.callTTL)
	defer done()
	for try := 0; ; try++ {
		n, err := linearCmd.Run(ctx, lc, keys, f.Weight).Int64()
		if err == nil {
			res.Articles = n
			return nil
		}
		if !redis.HasErrorPrefix(err, "VOTES") {
			return err
		}
		if try == 1 {
			return fmt.Errorf("%w: %w", ErrMismatch, err)
		}
		if err := r.walk(ctx, res, true, nil); err != nil {
			return err
		}
	}
}

// walk reads time: in post-time order, a batch per round trip: each round
// trip sends, for the ids of the previous batch, ZMSCORE votes: and one
// EXISTS of all their article hashes, together with the ZRANGEBYSCORE of
// the next batch, whose start is a keyset cursor (the last post time read
// and how many ids at exactly that time were read), so an ingest or a
// prune elsewhere in time: shifts nothing. When a batch has an id without
// a votes: entry, or fewer hashes than ids, its ids go through
// news.Store.Repair, which restores votes from the hash and drops
// orphans. Each article left is handed to use (nil: the walk only
// repairs) with its post time and votes.
//
// Without withVotes it checks the hashes only, and hands no articles on.
func (r *Rescorer) walk(ctx context.Context, res *RebuildResult, withVotes bool, use func(id string, t, v float64)) error {
	var batch []redis.Z // read from time:, waiting for its votes
	from, fromScore, seen := "-inf", math.Inf(-1), 0
	reading := true
	for reading || len(batch) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := r.c.Pipeline()
		var votes *redis.StringSliceCmd
		var hashes *redis.IntCmd
		ids := make([]string, len(batch))
		if len(batch) > 0 {
			keys := make([]string, len(batch))
			for i, z := range batch {
				ids[i] = z.Member.(string)
				keys[i] = r.keys.Article(ids[i])
			}
			if withVotes {
				votes = zmscore(ctx, p, r.keys.Votes(), ids)
			}
			hashes = p.Exists(ctx, keys...)
		}
		var next *redis.ZSliceCmd
		if reading {
			next = p.ZRangeByScoreWithScores(ctx, r.keys.Time(), &redis.ZRangeBy{
				Min: from, Max: "+inf", Offset: int64(seen), Count: int64(r.read)})
		}
		if _, err := p.Exec(ctx); err != nil {
			return fmt.Errorf("read batch %d: %w", res.Batches+1, err)
		}
		if len(batch) > 0 {
			var vs []string
			if votes != nil {
				if vs = votes.Val(); len(vs) != len(batch) {
					return fmt.Errorf("read batch %d: %d ids, %d vote counts", res.Batches, len(batch), len(vs))
				}
			}
			dropped, err := r.repairBatch(ctx, res, ids, vs, hashes.Val())
			if err != nil {
				return err
			}
			for i, z := range batch {
				// An orphan dropped at the cursor's post time was counted
				// in seen: the next read must not skip an id for it.
				if dropped[i] && z.Score == fromScore {
					seen--
				}
			}
			for i, z := range batch {
				if dropped[i] || use == nil {
					continue
				}
				v, err := strconv.ParseFloat(vs[i], 64)
				if err != nil {
					return fmt.Errorf("votes of %s: %w", ids[i], err)
				}
				use(ids[i], z.Score, v)
			}
		}
		batch = batch[:0]
		if next == nil {
			continue
		}
		res.Batches++
		batch = append(batch, next.Val()...)
		if len(batch) > 0 {
			last := batch[len(batch)-1].Score
			ties := 0
			for i := len(batch) - 1; i >= 0 && batch[i].Score == last; i-- {
				ties++
			}
			if last == fromScore {
				seen += ties
			} else {
				from, fromScore, seen = strconv.FormatFloat(last, 'f', -1, 64), last, ties
			}
		}
		reading = len(batch) == r.read
		if r.afterBatch != nil {
			r.afterBatch(res.Batches, !reading)
		}
	}
	return nil
}

// repairBatch repairs a batch of the walk when something is off: fewer
// article hashes than ids, or an id with no votes: entry (vs[i] == "";
// vs nil: votes not read). vs[i] then holds the votes its hash records;
// dropped[i] is set for an orphan dropped. Every id passed to
// news.Store.Repair is recorded in touched: while a client-side rebuild
// runs (news.TouchLua).
func (r *Rescorer) repairBatch(ctx context.Context, res *RebuildResult, ids, vs []string, hashes int64) (dropped []bool, err error) {
	dropped = make([]bool, len(ids))
	var suspects []string
	if hashes < int64(len(ids)) {
		suspects = ids // which hashes are missing: Repair finds out
	} else {
		for i, v := range vs {
			if v == "" {
				suspects = append(suspects, ids[i])
			}
		}
	}
	if len(suspects) == 0 {
		return dropped, nil
	}
	rep, err := r.store.Repair(ctx, suspects)
	if err != nil {
		return dropped, err
	}
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	for id, v := range rep.Votes {
		if i, ok := at[id]; ok && vs != nil {
			vs[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		res.VotesRepaired++
		if len(res.repairedIDs) < maxLogged {
			res.repairedIDs = append(res.repairedIDs, id)
		}
	}
	for _, id := range rep.Dropped {
		if i, ok := at[id]; ok {
			dropped[i] = true
		}
		res.Dropped++
		if len(res.droppedIDs) < maxLogged {
			res.droppedIDs = append(res.droppedIDs, id)
		}
	}
	for _, id := range rep.Restored {
		res.Restored++
		if len(res.restoredIDs) < maxLogged {
			res.restoredIDs = append(res.restoredIDs, id)
		}
	}
	return dropped, nil
}

// sweepScore looks for ids in score: that are not in time: when the two
// differ in size (the scripts keep them the same): in bounded ZSCAN
// batches, it passes them to news.Store.Repair, which drops those without
// an article hash from every ranking and group, and ranks again those
// with one. (The new ranking is built from time:, so it would leave them
// out of score: anyway, but not out of votes: and the groups.)
func (r *Rescorer) sweepScore(ctx context.Context, res *RebuildResult) error {
	var nt, ns *redis.IntCmd
	if _, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		nt, ns = p.ZCard(ctx, r.keys.Time()), p.ZCard(ctx, r.keys.Score())
		return nil
	}); err != nil {
		return fmt.Errorf("count rankings: %w", err)
	}
	if nt.Val() == ns.Val() {
		return nil
	}
	return r.repairMissing(ctx, res, r.keys.Score(), r.keys.Time())
}

// repairMissing scans key in bounded batches and passes the ids that other
// lacks to news.Store.Repair (see repairBatch).
func (r *Rescorer) repairMissing(ctx context.Context, res *RebuildResult, key, other string) error {
	cursor := uint64(0)
	for {
		kv, next, err := r.c.ZScan(ctx, key, cursor, "", int64(r.read)).Result()
		if err != nil {
			return fmt.Errorf("scan %s: %w", key, err)
		}
		ids := make([]string, 0, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			ids = append(ids, kv[i])
		}
		if len(ids) > 0 {
			in := zmscore(ctx, r.c, other, ids)
			if err := in.Err(); err != nil {
				return fmt.Errorf("look up %d ids of %s in %s: %w", len(ids), key, other, err)
			}
			var odd []string
			for i, s := range in.Val() {
				if s == "" {
					odd = append(odd, ids[i])
				}
			}
			if _, err := r.repairBatch(ctx, res, odd, nil, 0); err != nil {
				return err
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// heartbeat keeps a client-side rebuild's marker alive until ctx ends:
// every heartbeatEvery it pushes the expiry of touched: and of tmp back,
// and when the marker is gone it cancels the build with ErrMarkerLost. A
// failed round trip (Redis unreachable) is tried again at the next beat;
// the build fails on its own if Redis stays away.
func (r *Rescorer) heartbeat(ctx context.Context, cancel context.CancelCauseFunc, tmp, marker string) {
	t := time.NewTicker(heartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var there *redis.BoolCmd
		_, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.PExpire(ctx, r.keys.Touched(), markTTL)
			p.PExpire(ctx, tmp, tmpTTL)
			there = p.SIsMember(ctx, r.keys.Touched(), marker)
			return nil
		})
		if err == nil && !there.Val() {
			cancel(ErrMarkerLost)
			return
		}
	}
}

// start marks a client-side rebuild (startCmd). When another rebuild holds
// the marker, it waits staleAfter and looks again: a marker whose expiry
// nobody pushed back for the last half of that wait belongs to a rebuild
// that died, and is taken over; otherwise it is ErrRebuildRunning.
func (r *Rescorer) start(ctx context.Context, marker string) error {
	limit := int64(-1)
	for {
		left, err := startCmd.Run(ctx, r.c, []string{r.keys.Touched()}, marker, markTTL.Milliseconds(), limit).Int64()
		switch {
		case err != nil:
			return fmt.Errorf("start: %w", err)
		case left < 0:
			if limit >= 0 {
				r.log.Warn("rebuild: took over the marker of a rebuild whose heartbeat stopped")
			}
			return nil
		case limit >= 0:
			return ErrRebuildRunning
		}
		limit = max(0, left-(staleAfter/2).Milliseconds())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(staleAfter):
		}
	}
}

// rebuildClient is the client-side build: mark the rebuild as running,
// walk time: scoring every article with the formula, write the scores
// sorted by score in pipelined multi-member ZADDs (a skiplist filled in
// ascending order costs Redis about a third of one filled in random
// order), then swap: re-score what was written meanwhile and RENAME.
func (r *Rescorer) rebuildClient(ctx context.Context, res *RebuildResult) error {
	tok, err := token()
	if err != nil {
		return err
	}
	tmp, marker := r.tmpKey(tok), "rebuild:"+tok
	if err := r.start(ctx, marker); err != nil {
		return err
	}
	bctx, cancel := context.WithCancelCause(ctx)
	beat := make(chan struct{})
	go func() {
		defer close(beat)
		r.heartbeat(bctx, cancel, tmp, marker)
	}()
	err = r.buildAndSwap(bctx, res, tmp, marker)
	cancel(nil)
	<-beat
	// (After a successful swap the marker is gone too, and the heartbeat
	// may have said so: that is no failure.)
	if cause := context.Cause(bctx); err != nil && errors.Is(cause, ErrMarkerLost) {
		err = cause
	}
	if err != nil {
		// Unmark and drop the temporary ranking, unless another rebuild
		// took over an expired marker.
		bg := context.WithoutCancel(ctx)
		r.c.Unlink(bg, tmp)
		if err := endCmd.Run(bg, r.c, []string{r.keys.Touched()}, marker).Err(); err != nil {
			r.log.Warn("rebuild: remove the marker", "err", err)
		}
	}
	return err
}

// endCmd ends a client-side rebuild that failed.
//
//	KEYS[1] -> touched: SET
//	ARGV[1] -> the rebuild's marker member
//
// Deletes touched: when it holds the marker. Returns 1 if it did, else 0.
var endCmd = redis.NewScript(`
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`)

func (r *Rescorer) buildAndSwap(ctx context.Context, res *RebuildResult, tmp, marker string) error {
	now := r.clock.Now()
	buf := make([]redis.Z, 0, r.read)
	var werr error
	err := r.walk(ctx, res, true, func(id string, t, v float64) {
		if werr != nil {
			return
		}
		buf = append(buf, redis.Z{Score: r.formula.Score(time.Unix(int64(t), 0), v, now), Member: id})
		if len(buf) >= maxBuffered {
			werr = r.writeSorted(ctx, tmp, buf)
			buf = buf[:0]
		}
	})
	if err == nil {
		err = werr
	}
	if err == nil {
		err = r.sweepScore(ctx, res)
	}
	if err != nil {
		return err
	}
	if err := r.writeSorted(ctx, tmp, buf); err != nil {
		return err
	}
	if r.beforeSwap != nil {
		r.beforeSwap()
	}
	return r.swap(ctx, res, tmp, marker, now)
}

// swap calls swapCmd until it has re-scored every id written during the
// build and swapped the ranking in. When the ranking is found short (a
// write that did not record its id), it reconciles it and tries again.
func (r *Rescorer) swap(ctx context.Context, res *RebuildResult, tmp, marker string, now time.Time) error {
	name, param := news.FormulaArgs(r.formula)
	keys := []string{tmp, r.keys.Time(), r.keys.Votes(), r.keys.Score(), r.keys.Touched()}
	reconciles := 0
	for range maxSwapCalls {
		if err := ctx.Err(); err != nil {
			return err
		}
		out, err := swapCmd.Run(ctx, r.c, keys, marker, r.drain, markTTL.Milliseconds(), tmpTTL.Milliseconds(),
			swapSample, name, param, now.Unix()).Int64Slice()
		if err != nil {
			if redis.HasErrorPrefix(err, "LOST") {
				return fmt.Errorf("swap: %w", ErrMarkerLost)
			}
			return fmt.Errorf("swap: %w", err)
		}
		if len(out) != 2 {
			return fmt.Errorf("swap: unexpected reply %v", out)
		}
		res.Rescored += out[1]
		switch {
		case out[0] >= 0:
			res.Articles = out[0]
			return nil
		case out[0] == -2:
			if reconciles == maxReconciles {
				return fmt.Errorf("%w: still after %d reconciliations", ErrMismatch, reconciles)
			}
			reconciles++
			res.Repaired = true
			if err := r.reconcile(ctx, res, tmp); err != nil {
				return err
			}
		}
		if r.afterSwapCall != nil {
			r.afterSwapCall()
		}
	}
	return fmt.Errorf("%w: writes kept coming faster than %d swap calls re-scored them", ErrMismatch, maxSwapCalls)
}

// reconcile finds what differs between time: and the rebuilt ranking when
// something wrote time: without recording its ids: ids of time: the
// ranking lacks and ids of the ranking time: lacks go through
// news.Store.Repair (repairMissing), which repairs or drops them and
// records them in touched:, so the next swap call re-scores or removes
// them.
func (r *Rescorer) reconcile(ctx context.Context, res *RebuildResult, tmp string) error {
	if err := r.repairMissing(ctx, res, r.keys.Time(), tmp); err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	if err := r.repairMissing(ctx, res, tmp, r.keys.Time()); err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	return nil
}

// zmscore sends (or queues, in a pipeline) ZMSCORE key ids, its reply read
// as strings: a missing member is "" (go-redis's ZMScore makes it 0, like
// a real 0).
func zmscore(ctx context.Context, c interface {
	Process(context.Context, redis.Cmder) error
}, key string, ids []string) *redis.StringSliceCmd {
	args := make([]any, 2, 2+len(ids))
	args[0], args[1] = "zmscore", key
	for _, id := range ids {
		args = append(args, id)
	}
	cmd := redis.NewStringSliceCmd(ctx, args...)
	_ = c.Process(ctx, cmd)
	return cmd
}

// writeBatch is how many members one ZADD of writeSorted carries, and
// writePipeline how many ZADDs go in one round trip.
const (
	writeBatch    = 500
	writePipeline = 10
)

// writeSorted sorts zs by score (then id) and adds them to tmp in
// pipelined ZADDs, pushing the expiry of tmp back with each round trip.
// Each round trip is one MULTI/EXEC, so the ZADDs that create tmp and its
// PEXPIRE are applied together: however the process or Redis dies, a
// temporary ranking never exists without an expiry.
func (r *Rescorer) writeSorted(ctx context.Context, tmp string, zs []redis.Z) error {
	slices.SortFunc(zs, func(a, b redis.Z) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Member.(string), b.Member.(string))
	})
	for start := 0; start < len(zs); start += writeBatch * writePipeline {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := r.c.TxPipeline()
		end := min(start+writeBatch*writePipeline, len(zs))
		for i := start; i < end; i += writeBatch {
			p.ZAdd(ctx, tmp, zs[i:min(i+writeBatch, end)]...)
		}
		p.PExpire(ctx, tmp, tmpTTL)
		if _, err := p.Exec(ctx); err != nil {
			return fmt.Errorf("write scores: %w", err)
		}
	}
	return nil
}
