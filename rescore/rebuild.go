package rescore

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
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
// inserts in. Ids only in votes: (left by a crash) are not taken. When an
// article of time: has no votes: entry the intersection is short, and the
// script falls back to ZUNIONSTORE (missing votes count 0) then drops the
// ids that are not in time:. Then tmp must have ZCARD(time:) members; the
// old score: is UNLINKed (so Redis frees it in the background, not inside
// the script) and tmp RENAMEd over it. Returns the number of articles, or
// an error reply (score: untouched) on a mismatch.
var linearCmd = redis.NewScript(`
local n = redis.call('ZCARD', KEYS[2])
if n == 0 then
  redis.call('DEL', KEYS[1], KEYS[4])
  return 0
end
redis.call('ZINTERSTORE', KEYS[1], 2, KEYS[2], KEYS[3], 'WEIGHTS', 1, ARGV[1])
if redis.call('ZCARD', KEYS[1]) ~= n then
  redis.call('ZUNIONSTORE', KEYS[1], 2, KEYS[2], KEYS[3], 'WEIGHTS', 1, ARGV[1])
  redis.call('ZINTERSTORE', KEYS[1], 2, KEYS[1], KEYS[2], 'WEIGHTS', 1, 0)
end
local got = redis.call('ZCARD', KEYS[1])
if got ~= n then
  redis.call('DEL', KEYS[1])
  return redis.error_reply('MISMATCH rebuilt ' .. got .. ' articles, time: has ' .. n)
end
redis.call('UNLINK', KEYS[4])
redis.call('RENAME', KEYS[1], KEYS[4])
return n
`)

// swapCmd checks the rebuilt ranking, repairs it if time: changed during
// the build, and swaps it in.
//
//	KEYS[1] -> the temporary ZSET
//	KEYS[2] -> time: ZSET
//	KEYS[3] -> score: ZSET
//	ARGV[1] -> how many of the oldest and of the newest ids of time: to
//	           look up in the temporary ZSET (the bounded check)
//	ARGV[2] -> batch size of the repair walk
//
// When the temporary ZSET has a different ZCARD from time:, or misses one
// of the sampled ids, it is repaired: ids not in time: (pruned meanwhile)
// are dropped with a ZINTERSTORE, and the ids of time: it lacks (ingested
// meanwhile) take their current score: value, found by a walk of time:
// in batches. Then it is RENAMEd over score: and its expiry removed.
// Returns {articles, repaired 0|1}, or an error reply (score: untouched)
// when some id of time: has no score anywhere.
var swapCmd = redis.NewScript(`
local tmp, tkey, skey = KEYS[1], KEYS[2], KEYS[3]
local n = redis.call('ZCARD', tkey)
local k = tonumber(ARGV[1])
local function sampled_missing()
  for _, r in ipairs({{0, k - 1}, {-k, -1}}) do
    local ids = redis.call('ZRANGE', tkey, r[1], r[2])
    if #ids > 0 then
      local s = redis.call('ZMSCORE', tmp, unpack(ids))
      for i = 1, #ids do
        if not s[i] then return true end
      end
    end
  end
  return false
end
if n == 0 then
  redis.call('DEL', tmp, skey)
  return {0, 0}
end
local repaired = 0
if redis.call('ZCARD', tmp) ~= n or sampled_missing() then
  repaired = 1
  redis.call('ZINTERSTORE', tmp, 2, tmp, tkey, 'WEIGHTS', 1, 0)
  local step = tonumber(ARGV[2])
  local unscored = 0
  for start = 0, n - 1, step do
    local ids = redis.call('ZRANGE', tkey, start, start + step - 1)
    local have = redis.call('ZMSCORE', tmp, unpack(ids))
    local add = {}
    for i = 1, #ids do
      if not have[i] then
        local s = redis.call('ZSCORE', skey, ids[i])
        if s then
          add[#add + 1] = s
          add[#add + 1] = ids[i]
        else
          unscored = unscored + 1
        end
      end
    end
    if #add > 0 then
      redis.call('ZADD', tmp, unpack(add))
    end
  end
  if unscored > 0 then
    redis.call('DEL', tmp)
    return redis.error_reply('MISMATCH ' .. unscored .. ' articles of time: have no score')
  end
end
local got = redis.call('ZCARD', tmp)
if got ~= n then
  redis.call('DEL', tmp)
  return redis.error_reply('MISMATCH rebuilt ' .. got .. ' articles, time: has ' .. n)
end
redis.call('UNLINK', skey)
redis.call('RENAME', tmp, skey)
redis.call('PERSIST', skey)
return {n, repaired}
`)

// tmpTTL bounds how long a temporary ranking left by a crashed rebuild
// survives; every batch pushes it back.
const tmpTTL = 10 * time.Minute

// swapSample is how many of the oldest and newest ids the swap checks.
const swapSample = 100

// RebuildResult reports a rebuild.
type RebuildResult struct {
	// Formula is the formula's name.
	Formula string
	// Articles is how many articles score: holds now.
	Articles int64
	// ServerSide is set when Redis did the work (linear).
	ServerSide bool
	// Batches is how many batches the client-side build took.
	Batches int
	// Repaired is set when articles were ingested or pruned during the
	// build and the swap adjusted the new ranking for them.
	Repaired bool
	// Took is the wall time of the rebuild.
	Took time.Duration
}

// Rebuild recomputes score: from time: and votes: with the formula and
// swaps it in atomically: see the package documentation. On an error
// score: is left as it was.
func (r *Rescorer) Rebuild(ctx context.Context) (RebuildResult, error) {
	start := time.Now()
	var res RebuildResult
	var err error
	if lin, ok := r.formula.(news.Linear); ok {
		res, err = r.rebuildLinear(ctx, lin)
	} else {
		res, err = r.rebuildClient(ctx)
	}
	res.Formula = r.formula.Name()
	res.Took = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("rebuild %s ranking: %w", res.Formula, err)
	}
	r.log.Info("rebuild done", "formula", res.Formula, "articles", res.Articles, "server_side", res.ServerSide,
		"batches", res.Batches, "repaired", res.Repaired, "took", res.Took)
	return res, nil
}

func token() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func (r *Rescorer) rebuildLinear(ctx context.Context, f news.Linear) (RebuildResult, error) {
	res := RebuildResult{ServerSide: true}
	tok, err := token()
	if err != nil {
		return res, err
	}
	keys := []string{r.tmpKey(tok), r.keys.Time(), r.keys.Votes(), r.keys.Score()}
	lc, done := longCallClient(r.c, r.callTTL)
	defer done()
	n, err := linearCmd.Run(ctx, lc, keys, f.Weight).Int64()
	if err != nil {
		if redis.HasErrorPrefix(err, "MISMATCH") {
			return res, fmt.Errorf("%w: %w", ErrMismatch, err)
		}
		return res, err
	}
	res.Articles = n
	return res, nil
}

// rebuildClient is the client-side build. It reads time: in post-time
// order, a batch per round trip: each round trip sends ZMSCORE votes: for
// the ids of the previous batch together with the ZRANGEBYSCORE of the
// next one, whose start is a keyset cursor (the last post time read and
// how many ids at exactly that time were read), so an ingest or a prune
// elsewhere in time: shifts nothing. It scores each article with the
// formula and writes the scores sorted by score, in pipelined multi-member
// ZADDs: a skiplist filled in ascending order costs Redis about a third
// of one filled in random order.
func (r *Rescorer) rebuildClient(ctx context.Context) (RebuildResult, error) {
	var res RebuildResult
	tok, err := token()
	if err != nil {
		return res, err
	}
	tmp := r.tmpKey(tok)
	fail := func(err error) (RebuildResult, error) {
		r.c.Unlink(context.WithoutCancel(ctx), tmp)
		return res, err
	}
	now := r.clock.Now()
	buf := make([]redis.Z, 0, r.read)
	var batch []redis.Z // read from time:, waiting for its votes
	from, fromScore, seen := "-inf", math.Inf(-1), 0
	reading := true
	for reading || len(batch) > 0 {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		p := r.c.Pipeline()
		var votes *redis.FloatSliceCmd
		if len(batch) > 0 {
			ids := make([]string, len(batch))
			for i, z := range batch {
				ids[i] = z.Member.(string)
			}
			votes = p.ZMScore(ctx, r.keys.Votes(), ids...)
		}
		var next *redis.ZSliceCmd
		if reading {
			next = p.ZRangeByScoreWithScores(ctx, r.keys.Time(), &redis.ZRangeBy{
				Min: from, Max: "+inf", Offset: int64(seen), Count: int64(r.read)})
		}
		if _, err := p.Exec(ctx); err != nil {
			return fail(fmt.Errorf("read batch %d: %w", res.Batches+1, err))
		}
		if votes != nil {
			vs := votes.Val()
			if len(vs) != len(batch) {
				return fail(fmt.Errorf("read batch %d: %d ids, %d vote counts", res.Batches, len(batch), len(vs)))
			}
			for i, z := range batch {
				// ZMSCORE gives 0 for an id missing from votes:.
				buf = append(buf, redis.Z{Score: r.formula.Score(time.Unix(int64(z.Score), 0), vs[i], now), Member: z.Member})
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
		if len(buf) >= maxBuffered {
			if err := r.writeSorted(ctx, tmp, buf); err != nil {
				return fail(err)
			}
			buf = buf[:0]
		}
	}
	if err := r.writeSorted(ctx, tmp, buf); err != nil {
		return fail(err)
	}
	lc, closeLC := longCallClient(r.c, r.callTTL)
	defer closeLC()
	out, err := swapCmd.Run(ctx, lc, []string{tmp, r.keys.Time(), r.keys.Score()}, swapSample, r.read).Int64Slice()
	if err != nil {
		if redis.HasErrorPrefix(err, "MISMATCH") {
			return fail(fmt.Errorf("%w: %w", ErrMismatch, err))
		}
		return fail(fmt.Errorf("swap: %w", err))
	}
	res.Articles, res.Repaired = out[0], out[1] == 1
	return res, nil
}

// writeBatch is how many members one ZADD of writeSorted carries, and
// writePipeline how many ZADDs go in one round trip.
const (
	writeBatch    = 500
	writePipeline = 10
)

// writeSorted sorts zs by score (then id) and adds them to tmp in
// pipelined ZADDs, pushing tmp's expiry back with each round trip. Each
// round trip is one MULTI/EXEC, so the ZADDs that create tmp and its
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
