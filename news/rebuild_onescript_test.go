package news

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
)

// This file keeps the linear rebuild as it was before it ran in bounded
// steps — one Lua script (ZINTERSTORE, then RENAME) that Redis runs as a
// single call of O(N log N) — for the benchmarks only: BenchmarkRebuild
// measures the bounded rebuild against it in the same run.

// rebuildOneScript is the old linear rebuild: the walk (hashes only), the
// sweep of score:, then linearCmd. It blocks Redis for the whole script.
func (s *Store) rebuildOneScript(ctx context.Context) (RebuildResult, error) {
	r := s.rebuilder(RebuildOptions{})
	f, ok := r.formula.(Linear)
	if !ok {
		return RebuildResult{}, fmt.Errorf("one-script rebuild: formula %s is not linear", r.formula.Name())
	}
	start := time.Now()
	var res RebuildResult
	err := r.rebuildLinear(ctx, f, &res)
	res.Formula, res.Took = f.Name(), time.Since(start)
	return res, err
}

// rebuildLinear walks time: to repair what is inconsistent, then rebuilds
// in one server-side script, which no write can interleave with. The walk
// checks the article hashes only: the script finds articles missing from
// votes: by itself (ZINTERSTORE comes out short), and then a second walk
// repairs votes: too before the script runs again.
func (r *rebuilder) rebuildLinear(ctx context.Context, f Linear, res *RebuildResult) error {
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
	lc, done := longCallClient(r.c, 5*time.Minute)
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

// longCallClient returns a client for one long server-side call: c's
// connection settings with the read timeout raised to d and no retries
// (retrying a timed-out rebuild would only run it again behind itself),
// and a function that closes it. For a client it does not know it returns
// c itself.
func longCallClient(c redis.UniversalClient, d time.Duration) (redis.UniversalClient, func()) {
	if w, ok := c.(*rdb.Client); ok {
		c = w.UniversalClient
	}
	switch x := c.(type) {
	case *redis.Client:
		o := *x.Options()
		o.ReadTimeout, o.MaxRetries, o.PoolSize, o.MinIdleConns = d, -1, 1, 0
		nc := redis.NewClient(&o)
		return nc, func() { nc.Close() }
	case *redis.ClusterClient:
		o := *x.Options()
		o.ReadTimeout, o.MaxRetries, o.PoolSize, o.MinIdleConns = d, -1, 1, 0
		nc := redis.NewClusterClient(&o)
		return nc, func() { nc.Close() }
	}
	return c, func() {}
}
