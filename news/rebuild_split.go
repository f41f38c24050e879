package news

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"
)

// splitMin is how many articles time: must hold for a rebuild to walk it
// in two ranges of post times at once (below it, one walk is short
// anyway).
const splitMin = 100_000

// walkPart is one range of a split walk: what it repaired and counted, and
// the articles it scored.
type walkPart struct {
	res RebuildResult
	buf []scored
}

// collect walks time: and scores every article with the formula at now. It
// writes to tmp (sorted) whatever would take the buffer past maxBuffered,
// and returns the rest. When time: holds at least r.split articles it walks
// two ranges of post times at once, split at the median post time, each
// on a connection of its own: while Redis answers one walker's round trip,
// the other decodes and scores its batch. Each range is walked as walk
// walks the whole (its own keyset cursor; an orphan dropped in it moves
// only its cursor), so the split changes nothing but the order in which
// batches are read. The test hook afterBatch is then called from both
// walkers, each counting its own batches.
func (r *rebuilder) collect(ctx context.Context, res *RebuildResult, tmp string, now time.Time) ([]scored, error) {
	n, err := r.c.ZCard(ctx, r.keys.Time()).Result()
	if err != nil {
		return nil, fmt.Errorf("count time: %w", err)
	}
	ranges := [][2]string{{"-inf", "+inf"}}
	if n >= int64(r.split) {
		mid, err := r.c.ZRangeWithScores(ctx, r.keys.Time(), n/2, n/2).Result()
		if err != nil {
			return nil, fmt.Errorf("median post time: %w", err)
		}
		if len(mid) == 1 {
			p := strconv.FormatFloat(mid[0].Score, 'f', -1, 64)
			ranges = [][2]string{{"-inf", "(" + p}, {p, "+inf"}}
		}
	}
	// Sized for time: as it is now, so that a million articles are not
	// copied over and over as the buffers grow; the first buffer can take
	// the others' articles too.
	parts := make([]walkPart, len(ranges))
	parts[0].buf = make([]scored, 0, min(max(int(n), r.read), maxBuffered))
	for i := 1; i < len(parts); i++ {
		parts[i].buf = make([]scored, 0, min(int(n)/len(parts)+r.read, maxBuffered))
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, rg := range ranges {
		part := &parts[i]
		g.Go(func() error {
			return r.walkPart(gctx, part, tmp, now, rg[0], rg[1], maxBuffered/len(ranges))
		})
	}
	err = g.Wait()
	buf := parts[0].buf
	for i := range parts {
		res.add(&parts[i].res)
		if i > 0 {
			buf = append(buf, parts[i].buf...)
		}
	}
	return buf, err
}

// walkPart walks the post times from lo to hi into part, writing its
// articles to tmp whenever it holds limit.
func (r *rebuilder) walkPart(ctx context.Context, part *walkPart, tmp string, now time.Time, lo, hi string, limit int) error {
	var werr error
	err := r.walkRange(ctx, &part.res, true, lo, hi, func(id string, t, v float64) {
		if werr != nil {
			return
		}
		part.buf = append(part.buf, scored{score: r.formula.Score(time.Unix(int64(t), 0), v, now), id: id})
		if len(part.buf) >= limit {
			werr = r.writeSorted(ctx, tmp, part.buf)
			part.buf = part.buf[:0]
		}
	})
	if err != nil {
		return err
	}
	return werr
}

// add counts what o, the result of a part of a walk, counted into res.
func (res *RebuildResult) add(o *RebuildResult) {
	res.Batches += o.Batches
	res.VotesRepaired += o.VotesRepaired
	res.Dropped += o.Dropped
	res.Restored += o.Restored
	for _, ids := range []struct{ to, from *[]string }{
		{&res.repairedIDs, &o.repairedIDs}, {&res.droppedIDs, &o.droppedIDs}, {&res.restoredIDs, &o.restoredIDs}} {
		*ids.to = append(*ids.to, (*ids.from)[:min(len(*ids.from), maxLogged-len(*ids.to))]...)
	}
}
