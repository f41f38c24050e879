package news

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
)

// heartbeat keeps a client-side rebuild's marker alive until ctx ends:
// every heartbeatEvery it pushes the expiry of touched: and of tmp back,
// and when the marker is gone it cancels the build with ErrMarkerLost. A
// failed round trip (Redis unreachable) is tried again at the next beat;
// the build fails on its own if Redis stays away.
func (r *rebuilder) heartbeat(ctx context.Context, cancel context.CancelCauseFunc, tmp, marker string) {
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
func (r *rebuilder) start(ctx context.Context, marker string) error {
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

// rebuildClient is the rebuild, for every formula: mark the rebuild as running,
// walk time: scoring every article with the formula, write the scores
// sorted by score in pipelined multi-member ZADDs (a skiplist filled in
// ascending order costs Redis about a third of one filled in random
// order), then swap: re-score what was written meanwhile and RENAME.
func (r *rebuilder) rebuildClient(ctx context.Context, res *RebuildResult) error {
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

func (r *rebuilder) buildAndSwap(ctx context.Context, res *RebuildResult, tmp, marker string) error {
	now := r.clock.Now()
	buf, err := r.collect(ctx, res, tmp, now)
	if err == nil {
		err = r.sweepScore(ctx, res)
	}
	if err != nil {
		return err
	}
	if err := r.writeSorted(ctx, tmp, buf); err != nil {
		return err
	}
	if r.opts.beforeSwap != nil {
		r.opts.beforeSwap()
	}
	return r.swap(ctx, res, tmp, marker, now)
}

// swap calls swapCmd until it has re-scored every id written during the
// build and swapped the ranking in. When the ranking is found short (a
// write that did not record its id), it reconciles it and tries again.
func (r *rebuilder) swap(ctx context.Context, res *RebuildResult, tmp, marker string, now time.Time) error {
	name, param := r.formula.scriptArgs()
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
		if r.opts.afterSwapCall != nil {
			r.opts.afterSwapCall()
		}
	}
	return fmt.Errorf("%w: writes kept coming faster than %d swap calls re-scored them", ErrMismatch, maxSwapCalls)
}

// reconcile finds what differs between time: and the rebuilt ranking when
// something wrote time: without recording its ids: ids of time: the
// ranking lacks and ids of the ranking time: lacks go through
// Store.Repair (repairMissing), which repairs or drops them and
// records them in touched:, so the next swap call re-scores or removes
// them.
func (r *rebuilder) reconcile(ctx context.Context, res *RebuildResult, tmp string) error {
	if err := r.repairMissing(ctx, res, r.keys.Time(), tmp); err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	if err := r.repairMissing(ctx, res, tmp, r.keys.Time()); err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	return nil
}

// scored is an article's id and its new score, as a rebuild buffers them.
type scored struct {
	score float64
	id    string
}

// writeBatch is how many members one ZADD of writeSorted carries at most
// (and no more than the read batch), writePipeline how many ZADDs go in
// one round trip, and writers how many round trips are in flight at once:
// while Redis applies one, the next is being encoded and sent.
const (
	writeBatch    = 500
	writePipeline = 10
	writers       = 2
)

// writeSorted sorts zs by score (then id) and adds them to tmp in
// pipelined ZADDs, pushing the expiry of tmp back with each round trip.
// Each round trip is one MULTI/EXEC, so the ZADDs that create tmp and its
// PEXPIRE are applied together: however the process or Redis dies, a
// temporary ranking never exists without an expiry. Round trips go out
// from writers goroutines, each taking the next run of members in score
// order, so Redis still fills tmp nearly in ascending order.
func (r *rebuilder) writeSorted(ctx context.Context, tmp string, zs []scored) error {
	slices.SortFunc(zs, func(a, b scored) int {
		if c := cmp.Compare(a.score, b.score); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	size := min(writeBatch, r.read)
	step := int64(size * writePipeline)
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for range writers {
		g.Go(func() error {
			z := make([]redis.Z, size)
			for {
				start := next.Add(step) - step
				if start >= int64(len(zs)) {
					return nil
				}
				if err := r.writeRun(gctx, tmp, zs[start:min(start+step, int64(len(zs)))], size, z); err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}

// writeRun adds run to tmp in one MULTI/EXEC of ZADDs of up to size
// members and a PEXPIRE of tmp; z is scratch space of size members.
func (r *rebuilder) writeRun(ctx context.Context, tmp string, run []scored, size int, z []redis.Z) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p := r.c.TxPipeline()
	for i := 0; i < len(run); i += size {
		part := run[i:min(i+size, len(run))]
		for j, s := range part {
			z[j] = redis.Z{Score: s.score, Member: s.id}
		}
		p.ZAdd(ctx, tmp, z[:len(part)]...)
	}
	p.PExpire(ctx, tmp, tmpTTL)
	if _, err := p.Exec(ctx); err != nil {
		return fmt.Errorf("write scores: %w", err)
	}
	return nil
}
