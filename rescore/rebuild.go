package rescore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
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
// tmp = time: + weight × votes: (ZUNIONSTORE, so an id missing from votes:
// counts 0 votes); ids only in votes: (left by a crash) are dropped by a
// ZINTERSTORE with time:; then tmp must have ZCARD(time:) members and is
// RENAMEd over score:. Returns the number of articles, or an error reply
// (and score: untouched) on a mismatch.
var linearCmd = redis.NewScript(`
local n = redis.call('ZCARD', KEYS[2])
if n == 0 then
  redis.call('DEL', KEYS[1], KEYS[4])
  return 0
end
redis.call('ZUNIONSTORE', KEYS[1], 2, KEYS[2], KEYS[3], 'WEIGHTS', 1, ARGV[1])
if redis.call('ZCARD', KEYS[1]) ~= n then
  redis.call('ZINTERSTORE', KEYS[1], 2, KEYS[1], KEYS[2], 'WEIGHTS', 1, 0)
end
local got = redis.call('ZCARD', KEYS[1])
if got ~= n then
  redis.call('DEL', KEYS[1])
  return redis.error_reply('MISMATCH rebuilt ' .. got .. ' articles, time: has ' .. n)
end
redis.call('RENAME', KEYS[1], KEYS[4])
return n
`)

// readCmd reads one batch of the client-side rebuild: a ZSCAN step over
// time: and the votes of the ids it returned.
//
//	KEYS[1] -> time: ZSET
//	KEYS[2] -> votes: ZSET
//	ARGV[1] -> ZSCAN cursor ("0" to start)
//	ARGV[2] -> COUNT hint
//
// Returns {next cursor, {id, post time, ...}, {votes or false, ...}}.
var readCmd = redis.NewScript(`
local r = redis.call('ZSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])
local flat = r[2]
local ids = {}
for i = 1, #flat, 2 do
  ids[#ids + 1] = flat[i]
end
local votes = {}
if #ids > 0 then
  votes = redis.call('ZMSCORE', KEYS[2], unpack(ids))
end
return {r[1], flat, votes}
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
	n, err := linearCmd.Run(ctx, r.c, keys, f.Weight).Int64()
	if err != nil {
		if redis.HasErrorPrefix(err, "MISMATCH") {
			return res, fmt.Errorf("%w: %w", ErrMismatch, err)
		}
		return res, err
	}
	res.Articles = n
	return res, nil
}

// rebuildClient is the pipelined client-side build: each round trip writes
// the previous batch's scores and reads the next batch.
func (r *Rescorer) rebuildClient(ctx context.Context) (RebuildResult, error) {
	var res RebuildResult
	tok, err := token()
	if err != nil {
		return res, err
	}
	tmp := r.tmpKey(tok)
	now := r.clock.Now()
	readKeys := []string{r.keys.Time(), r.keys.Votes()}
	var pending []redis.Z // the scores of the last batch read, to write
	cursor := "0"
	first := true
	for first || cursor != "0" || len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			r.c.Del(context.WithoutCancel(ctx), tmp)
			return res, err
		}
		p := r.c.Pipeline()
		if len(pending) > 0 {
			p.ZAdd(ctx, tmp, pending...)
			p.PExpire(ctx, tmp, tmpTTL)
		}
		var read *redis.Cmd
		if first || cursor != "0" {
			read = readCmd.Eval(ctx, p, readKeys, cursor, r.batch)
		}
		first = false
		if _, err := p.Exec(ctx); err != nil {
			r.c.Del(context.WithoutCancel(ctx), tmp)
			return res, fmt.Errorf("batch %d: %w", res.Batches, err)
		}
		pending = pending[:0]
		if read == nil {
			continue
		}
		res.Batches++
		var perr error
		cursor, pending, perr = r.scoreBatch(read, now, pending)
		if perr != nil {
			r.c.Del(context.WithoutCancel(ctx), tmp)
			return res, fmt.Errorf("batch %d: %w", res.Batches, perr)
		}
		if r.afterBatch != nil {
			r.afterBatch(res.Batches, cursor == "0")
		}
	}
	out, err := swapCmd.Run(ctx, r.c, []string{tmp, r.keys.Time(), r.keys.Score()}, swapSample, r.batch).Int64Slice()
	if err != nil {
		r.c.Del(context.WithoutCancel(ctx), tmp)
		if redis.HasErrorPrefix(err, "MISMATCH") {
			return res, fmt.Errorf("%w: %w", ErrMismatch, err)
		}
		return res, fmt.Errorf("swap: %w", err)
	}
	res.Articles, res.Repaired = out[0], out[1] == 1
	return res, nil
}

// scoreBatch decodes a readCmd reply and scores its articles into zs.
func (r *Rescorer) scoreBatch(read *redis.Cmd, now time.Time, zs []redis.Z) (string, []redis.Z, error) {
	v, ok := read.Val().([]any)
	if !ok || len(v) != 3 {
		return "", zs, fmt.Errorf("read batch: unexpected reply %T", read.Val())
	}
	cursor, _ := v[0].(string)
	pairs, _ := v[1].([]any)
	votes, _ := v[2].([]any)
	if len(pairs) != 2*len(votes) {
		return "", zs, fmt.Errorf("read batch: %d ids, %d vote counts", len(pairs)/2, len(votes))
	}
	for i := 0; i < len(votes); i++ {
		id, _ := pairs[2*i].(string)
		ts, _ := pairs[2*i+1].(string)
		t, err := strconv.ParseFloat(ts, 64)
		if err != nil {
			return "", zs, fmt.Errorf("read batch: post time of %s: %q", id, ts)
		}
		var vs float64
		if s, ok := votes[i].(string); ok {
			if vs, err = strconv.ParseFloat(s, 64); err != nil {
				return "", zs, fmt.Errorf("read batch: votes of %s: %q", id, s)
			}
		}
		zs = append(zs, redis.Z{Score: r.formula.Score(time.Unix(int64(t), 0), vs, now), Member: id})
	}
	return cursor, zs, nil
}
