package news

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/errkind"
)

// Default batch sizes: how many articles one prune call removes, and how
// many one read of a rebuild fetches (and one of its ZADDs writes, up to
// writeBatch). A read of 2,000 costs Redis a few milliseconds: its ZMSCORE
// and EXISTS stay well under a 10 ms SLOWLOG threshold on a ranking of
// millions.
const (
	DefaultPruneBatch = 100
	DefaultReadBatch  = 1000
)

// maxBatch caps both batches, so a call stays short and Lua's unpack stays
// within its limits.
const maxBatch = 5000

// maxBuffered caps how many scored articles a client-side rebuild holds
// before it writes them (sorted) to Redis: about 60 bytes each.
const maxBuffered = 1 << 21

// ErrMismatch means a rebuilt ranking did not hold the members of time:
// even after repair; score: was left as it was.
var ErrMismatch = errors.New("rebuilt ranking does not match time:")

// RebuildOptions configures [Store.Rebuild]. The zero value is the
// default. Runs of the rebuild should be serialised with the jobs
// package's lock; a second rebuild fails with ErrRebuildRunning anyway.
type RebuildOptions struct {
	// Batch is how many articles one read of time: fetches (default
	// DefaultReadBatch, at most 5000).
	Batch int

	// drain is how many touched ids one swap call re-scores (default
	// drainBatch; tests lower it).
	drain int
	// split is how many articles time: must hold for the walk to go in
	// two ranges at once (default splitMin; tests lower it).
	split int
	// afterBatch, when set (tests), runs after each batch of a rebuild has
	// been read and its predecessor checked; last is set for the final
	// batch of the walk. When the walk is split (split), each walker calls
	// it, concurrently, with its own batch count.
	afterBatch func(batch int, last bool)
	// beforeSwap, when set (tests), runs after a rebuild has written its
	// ranking, before the first swap call; afterSwapCall after each swap
	// call that did not swap.
	beforeSwap, afterSwapCall func()
}

// rebuilder is one rebuild of score: (rebuild*.go): the store's client,
// keys, formula, clock and logger, and the options with their defaults.
type rebuilder struct {
	c       redis.UniversalClient
	store   *Store
	keys    keyspace
	formula Formula
	clock   clock.Clock
	log     *slog.Logger
	read    int            // articles per read of time:
	drain   int            // touched ids one swap call re-scores
	split   int            // articles from which the walk goes in two ranges
	opts    RebuildOptions // the test hooks
}

func (s *Store) rebuilder(o RebuildOptions) *rebuilder {
	r := &rebuilder{c: s.c, store: s, keys: s.keys, formula: s.formula, clock: s.clock, log: s.log,
		read: DefaultReadBatch, drain: drainBatch, split: splitMin, opts: o}
	if o.Batch > 0 {
		r.read = min(o.Batch, maxBatch)
	}
	if o.drain > 0 {
		r.drain = o.drain
	}
	if o.split > 0 {
		r.split = o.split
	}
	return r
}

// tmpKey is where a rebuild writes the new ranking before the swap; it
// shares score:'s hash tag. // ZSET id → score
func (r *rebuilder) tmpKey(token string) string { return r.keys.Score() + "rebuild:" + token }

// tmpTTL bounds how long a temporary ranking left by a crashed rebuild
// survives; every batch pushes it back.
const tmpTTL = 10 * time.Minute

// markTTL bounds how long the marker of a rebuild (touched:)
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
	// Batches is how many batches the walks of time: took.
	Batches int
	// Rescored is how many ids written during the build (votes,
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

// ErrRebuildRunning means another rebuild is running: its
// heartbeat went on while this one waited staleAfter.
var ErrRebuildRunning = errkind.New(errkind.Conflict, "rebuild_running", "another rebuild of score: is running")

// ErrMarkerLost means a rebuild lost its marker: it expired or
// another rebuild took it over while this one was stalled, so writes made
// since may not have been recorded. The rebuild is abandoned and score:
// left as it was.
var ErrMarkerLost = errkind.New(errkind.Unavailable, "", "the rebuild's marker is gone")

// Rebuild recomputes score: from time: and votes: with the store's formula
// at the store clock's current time, swaps it in atomically, keeping every
// write made meanwhile, and repairs what it finds inconsistent: see the
// package documentation. On an error score: is left as it was.
func (s *Store) Rebuild(ctx context.Context, o RebuildOptions) (RebuildResult, error) {
	return s.rebuilder(o).run(ctx)
}

func (r *rebuilder) run(ctx context.Context) (RebuildResult, error) {
	start := time.Now()
	var res RebuildResult
	err := r.rebuildClient(ctx, &res)
	res.Formula = r.formula.Name()
	res.Took = time.Since(start)
	r.logRepairs(&res)
	if err != nil {
		return res, fmt.Errorf("rebuild %s ranking: %w", res.Formula, err)
	}
	r.log.Info("rebuild done", "formula", res.Formula, "articles", res.Articles,
		"batches", res.Batches, "rescored", res.Rescored, "reconciled", res.Repaired, "took", res.Took)
	return res, nil
}

// logRepairs logs what the rebuild repaired, if anything.
func (r *rebuilder) logRepairs(res *RebuildResult) {
	if res.VotesRepaired > 0 || res.Dropped > 0 || res.Restored > 0 {
		r.log.Warn("rebuild repaired the ranking from the article hashes: votes restored to articles missing from votes:, "+
			"ranked ids without an article dropped, articles missing from time: ranked again",
			"votes_repaired", res.VotesRepaired, "votes_repaired_ids", res.repairedIDs,
			"dropped", res.Dropped, "dropped_ids", res.droppedIDs,
			"restored", res.Restored, "restored_ids", res.restoredIDs)
	}
}

func token() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return hex.EncodeToString(b), nil
}
