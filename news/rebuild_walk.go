package news

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// walk reads time: in post-time order, a batch per round trip: each round
// trip sends, for the ids of the previous batch, ZMSCORE votes: and one
// EXISTS of all their article hashes, together with the ZRANGEBYSCORE of
// the next batch, whose start is a keyset cursor (the last post time read
// and how many ids at exactly that time were read), so an ingest or a
// prune elsewhere in time: shifts nothing. When a batch has an id without
// a votes: entry, or fewer hashes than ids, its ids go through
// Store.Repair, which restores votes from the hash and drops
// orphans. Each article left is handed to use (nil: the walk only
// repairs) with its post time and votes.
//
// Without withVotes it checks the hashes only, and hands no articles on.
func (r *rebuilder) walk(ctx context.Context, res *RebuildResult, withVotes bool, use func(id string, t, v float64)) error {
	return r.walkRange(ctx, res, withVotes, "-inf", "+inf", use)
}

// walkRange is walk over the post times from lo to hi only (ZRANGEBYSCORE
// bounds: "(" before a number excludes it).
func (r *rebuilder) walkRange(ctx context.Context, res *RebuildResult, withVotes bool, lo, hi string,
	use func(id string, t, v float64)) error {
	var batch []redis.Z // read from time:, waiting for its votes
	cur := timeCursor{min: lo, last: math.Inf(-1)}
	reading := true
	for reading || len(batch) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := r.c.Pipeline()
		check := r.queueCheck(ctx, p, batch, withVotes)
		var next *redis.ZSliceCmd
		if reading {
			next = p.ZRangeByScoreWithScores(ctx, r.keys.Time(), &redis.ZRangeBy{
				Min: cur.min, Max: hi, Offset: int64(cur.seen), Count: int64(r.read)})
		}
		if _, err := p.Exec(ctx); err != nil {
			return fmt.Errorf("read batch %d: %w", res.Batches+1, err)
		}
		if err := r.finishBatch(ctx, res, &cur, batch, check, use); err != nil {
			return err
		}
		batch = batch[:0]
		if next == nil {
			continue
		}
		res.Batches++
		batch = append(batch, next.Val()...)
		cur.advance(batch)
		reading = len(batch) == r.read
		if r.opts.afterBatch != nil {
			r.opts.afterBatch(res.Batches, !reading)
		}
	}
	return nil
}

// timeCursor is the walk's keyset cursor in time:: the last post time
// read (min, as ZRANGEBYSCORE's argument, and last) and how many ids at
// exactly that time were read (seen, the next read's offset).
type timeCursor struct {
	min  string
	last float64
	seen int
}

// advance moves the cursor past batch, just read from it.
func (c *timeCursor) advance(batch []redis.Z) {
	if len(batch) == 0 {
		return
	}
	last := batch[len(batch)-1].Score
	ties := 0
	for i := len(batch) - 1; i >= 0 && batch[i].Score == last; i-- {
		ties++
	}
	if last == c.last {
		c.seen += ties
	} else {
		c.min, c.last, c.seen = strconv.FormatFloat(last, 'f', -1, 64), last, ties
	}
}

// batchCheck is what a round trip of the walk asks about the batch read
// before: its votes (nil when not read) and how many of its article
// hashes exist.
type batchCheck struct {
	ids    []string
	votes  *redis.StringSliceCmd
	hashes *redis.IntCmd
}

// queueCheck queues on p the reads batchCheck holds for batch.
func (r *rebuilder) queueCheck(ctx context.Context, p redis.Pipeliner, batch []redis.Z, withVotes bool) batchCheck {
	c := batchCheck{ids: make([]string, len(batch))}
	if len(batch) == 0 {
		return c
	}
	keys := make([]string, len(batch))
	for i, z := range batch {
		c.ids[i] = z.Member.(string)
		keys[i] = r.keys.Article(c.ids[i])
	}
	if withVotes {
		c.votes = zmscore(ctx, p, r.keys.Votes(), c.ids)
	}
	c.hashes = p.Exists(ctx, keys...)
	return c
}

// finishBatch repairs a batch of the walk (repairBatch) from what c read,
// and hands each article left to use (when not nil).
func (r *rebuilder) finishBatch(ctx context.Context, res *RebuildResult, cur *timeCursor, batch []redis.Z, c batchCheck,
	use func(id string, t, v float64)) error {
	if len(batch) == 0 {
		return nil
	}
	var vs []string
	if c.votes != nil {
		if vs = c.votes.Val(); len(vs) != len(batch) {
			return fmt.Errorf("read batch %d: %d ids, %d vote counts", res.Batches, len(batch), len(vs))
		}
	}
	dropped, err := r.repairBatch(ctx, res, c.ids, vs, c.hashes.Val())
	if err != nil {
		return err
	}
	for i, z := range batch {
		// An orphan dropped at the cursor's post time was counted in
		// seen: the next read must not skip an id for it.
		if dropped[i] && z.Score == cur.last {
			cur.seen--
		}
	}
	for i, z := range batch {
		if dropped[i] || use == nil {
			continue
		}
		v, err := strconv.ParseFloat(vs[i], 64)
		if err != nil {
			return fmt.Errorf("votes of %s: %w", c.ids[i], err)
		}
		use(c.ids[i], z.Score, v)
	}
	return nil
}

// repairBatch repairs a batch of the walk when something is off: fewer
// article hashes than ids, or an id with no votes: entry (vs[i] == "";
// vs nil: votes not read). vs[i] then holds the votes its hash records;
// dropped[i] is set for an orphan dropped. Every id passed to
// Store.Repair is recorded in touched: while a client-side rebuild
// runs (touchLua).
func (r *rebuilder) repairBatch(ctx context.Context, res *RebuildResult, ids, vs []string, hashes int64) (dropped []bool, err error) {
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
// batches, it passes them to Store.Repair, which drops those without
// an article hash from every ranking and group, and ranks again those
// with one. (The new ranking is built from time:, so it would leave them
// out of score: anyway, but not out of votes: and the groups.)
func (r *rebuilder) sweepScore(ctx context.Context, res *RebuildResult) error {
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
// lacks to Store.Repair (see repairBatch).
func (r *rebuilder) repairMissing(ctx context.Context, res *RebuildResult, key, other string) error {
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
