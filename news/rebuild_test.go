package news

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
)

func contextCancelled() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx, cancel
}

// fill ingests n articles spread over the last six days with random
// comment counts, and casts random up and down votes.
func (e *rebuildEnv) fill(t testing.TB, n int, seed uint64) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	ids := make([]string, n)
	for i := range n {
		post := t0.Add(-time.Duration(rng.IntN(6*24*3600)) * time.Second)
		ids[i] = e.ingest(t, i, post, int64(rng.IntN(50)))
	}
	for i := range n / 2 {
		d := Up
		if i%4 == 0 {
			d = Down
		}
		e.vote(t, fmt.Sprintf("user%d", i%7), ids[rng.IntN(n)], d)
	}
	return ids
}

// formulas maps each formula to its independent implementation at now.
func formulas(now time.Time) map[string]func(t, v float64) float64 {
	return map[string]func(t, v float64) float64{"linear": linear, "hot": hot, "gravity": gravity(now)}
}

func TestRebuildEachFormula(t *testing.T) {
	for _, formula := range []string{"linear", "hot", "gravity"} {
		t.Run(formula, func(t *testing.T) {
			e := newRebuildEnv(t, redistest.Start(t).Client(), formula, withBatch(50))
			ids := e.fill(t, 300, 7)
			k := e.keys
			// Damage score: as a broken job would: wrong scores, a missing
			// article, an id that is no article; and leave an orphan in votes:.
			e.c.ZAdd(e.ctx, k.Score(), redis.Z{Score: -1, Member: ids[0]}, redis.Z{Score: 5, Member: "ffffffffffffffff"})
			e.c.ZRem(e.ctx, k.Score(), ids[1])
			e.c.ZAdd(e.ctx, k.Votes(), redis.Z{Score: 3, Member: "eeeeeeeeeeeeeeee"})
			// And an article whose votes: entry is gone gets the votes its
			// hash records back.
			hashVotes, _ := e.c.HGet(e.ctx, k.Article(ids[2]), "votes").Float64()
			e.c.ZRem(e.ctx, k.Votes(), ids[2])
			e.clock.Advance(30 * time.Hour) // gravity decays; the others do not care

			res, err := e.r.Rebuild(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Articles != 300 || res.Formula != formula || res.VotesRepaired != 1 {
				t.Fatalf("result %+v", res)
			}
			if v, err := e.c.ZScore(e.ctx, k.Votes(), ids[2]).Result(); err != nil || v != hashVotes {
				t.Fatalf("votes: of %s = %v, %v; want %v from its hash", ids[2], v, err, hashVotes)
			}
			if res.Batches < 2 {
				t.Fatalf("rebuild of 300 in batches of 50 took %d batches", res.Batches)
			}
			want := e.expected(t, formulas(e.clock.Now())[formula])
			if err := sameRanking(e.zmap(t, k.Score()), want); err != nil {
				t.Fatalf("score: after rebuild: %v", err)
			}
			if ttl, _ := e.c.PTTL(e.ctx, k.Score()).Result(); ttl != -1 {
				t.Fatalf("score: has a TTL after the swap: %v", ttl)
			}
			// The listing follows the rebuilt ranking.
			top, err := e.store.Top(e.ctx, 10)
			if err != nil || len(top) != 10 {
				t.Fatalf("top: %v, %v", top, err)
			}
			for i := 1; i < len(top); i++ {
				if want[top[i-1].ID] < want[top[i].ID] {
					t.Fatalf("top 10 not in rebuilt order at %d", i)
				}
			}
			// No temporary key is left.
			if keys, _ := e.c.Keys(e.ctx, k.Score()+"rebuild:*").Result(); len(keys) != 0 {
				t.Fatalf("left behind: %v", keys)
			}
		})
	}
}

func TestRebuildGravityDecaysWithTheClock(t *testing.T) {
	e := newRebuildEnv(t, redistest.Start(t).Client(), "gravity")
	old := e.ingest(t, 1, t0.Add(-time.Hour), 100)
	if _, err := e.r.Rebuild(e.ctx); err != nil {
		t.Fatal(err)
	}
	before := e.zmap(t, e.keys.Score())[old]
	// Two days later a new article with 3 votes outranks the old one with
	// 100, once the rebuild has refreshed the old one's score.
	e.clock.Advance(48 * time.Hour)
	fresh := e.ingest(t, 2, e.clock.Now(), 3)
	if _, err := e.r.Rebuild(e.ctx); err != nil {
		t.Fatal(err)
	}
	s := e.zmap(t, e.keys.Score())
	if !(s[old] < before/50) || !(s[fresh] > s[old]) {
		t.Fatalf("old %g (was %g), fresh %g: want the old score decayed below the fresh one", s[old], before, s[fresh])
	}
	if err := sameRanking(s, e.expected(t, gravity(e.clock.Now()))); err != nil {
		t.Fatal(err)
	}
}

func TestRebuildEmpty(t *testing.T) {
	for _, formula := range []string{"linear", "hot"} {
		e := newRebuildEnv(t, redistest.Start(t).Client(), formula)
		e.c.ZAdd(e.ctx, e.keys.Score(), redis.Z{Score: 1, Member: "stale"})
		res, err := e.r.Rebuild(e.ctx)
		if err != nil || res.Articles != 0 {
			t.Fatalf("%s: %+v, %v", formula, res, err)
		}
		if n, _ := e.c.Exists(e.ctx, e.keys.Score()).Result(); n != 0 {
			t.Fatalf("%s: score: should be empty when time: is", formula)
		}
	}
}

// TestReadersSeeACompleteRanking switches score: between two formulas many
// times while readers read it whole: every read must be exactly one of the
// two complete rankings.
func TestReadersSeeACompleteRanking(t *testing.T) {
	e := newRebuildEnv(t, redistest.Start(t).Client(), "linear")
	e.fill(t, 2000, 11)
	lin := e.withFormula(t, "linear")
	hotR := e.withFormula(t, "hot", withBatch(100))
	wantLin, wantHot := e.expected(t, linear), e.expected(t, hot)
	if _, err := lin.Rebuild(e.ctx); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(e.ctx)
	var wg sync.WaitGroup
	var reads, sawLin, sawHot atomic.Int64
	errs := make(chan error, 4)
	for range 2 {
		wg.Go(func() {
			for ctx.Err() == nil {
				zs, err := e.c.ZRangeWithScores(ctx, e.keys.Score(), 0, -1).Result()
				if err != nil {
					if ctx.Err() == nil {
						errs <- err
					}
					return
				}
				got := make(map[string]float64, len(zs))
				for _, z := range zs {
					got[z.Member.(string)] = z.Score
				}
				reads.Add(1)
				switch {
				case sameRanking(got, wantLin) == nil:
					sawLin.Add(1)
				case sameRanking(got, wantHot) == nil:
					sawHot.Add(1)
				default:
					errs <- fmt.Errorf("a reader saw a ranking that is neither: linear: %v; hot: %v",
						sameRanking(got, wantLin), sameRanking(got, wantHot))
					return
				}
			}
		})
	}
	for i := range 10 {
		r := lin
		if i%2 == 0 {
			r = hotR
		}
		if _, err := r.Rebuild(e.ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if sawLin.Load() == 0 || sawHot.Load() == 0 {
		t.Fatalf("readers saw linear %d and hot %d times in %d reads; want both", sawLin.Load(), sawHot.Load(), reads.Load())
	}
	t.Logf("%d complete reads during 10 rebuilds (linear %d, hot %d)", reads.Load(), sawLin.Load(), sawHot.Load())
}

// TestRebuildRepairsChangesDuringTheBuild ingests and prunes articles while
// a rebuild is between batches.
func TestRebuildRepairsChangesDuringTheBuild(t *testing.T) {
	for _, formula := range []string{"linear", "hot", "gravity"} {
		t.Run(formula, func(t *testing.T) {
			e := newRebuildEnv(t, redistest.Start(t).Client(), formula)
			// Articles 0..199 recent; 200..209 posted 150 h before t0.
			e.fill(t, 200, 3)
			for i := 200; i < 210; i++ {
				e.ingest(t, i, t0.Add(-150*time.Hour), 5)
			}
			pruner := e.withFormula(t, formula)
			e.r.Batch, e.r.pruneBatch = 20, 20
			e.r.afterBatch = func(n int, _ bool) {
				if n != 3 {
					return
				}
				// While the build runs: ten new articles arrive and the
				// old ones leave the window.
				e.arriveAndLeave(t, pruner)
			}
			res, err := e.r.Rebuild(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			// The ingests and the prune recorded their ids; the swap
			// re-scored or removed each, with no need to reconcile.
			if res.Rescored != 20 || res.Repaired || res.Articles != 210 {
				t.Fatalf("result %+v, want 210 articles, 20 re-scored, not reconciled", res)
			}
			want := e.expected(t, formulas(e.clock.Now())[formula])
			if err := sameRanking(e.zmap(t, e.keys.Score()), want); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSwapReconcilesWritesThatDidNotRecordTheirIds changes time: during
// the build behind the scripts' back (a raw ZADD, a raw ZREM, as an older
// binary or an operator might): the swap finds the ranking short,
// reconciles it against time: and the article hashes, and swaps in a
// correct ranking.
func TestSwapReconcilesWritesThatDidNotRecordTheirIds(t *testing.T) {
	for _, formula := range []string{"hot", "gravity"} {
		t.Run(formula, func(t *testing.T) {
			e := newRebuildEnv(t, redistest.Start(t).Client(), formula, withBatch(10))
			ids := e.fill(t, 40, 5)
			late := e.ingest(t, 99, t0.Add(-time.Minute), 7)
			e.c.ZRem(e.ctx, e.keys.Time(), late) // an article with its hash, not ranked
			e.c.ZRem(e.ctx, e.keys.Score(), late)
			e.r.afterBatch = func(n int, last bool) {
				if !last {
					return
				}
				k := e.keys
				// An id with no article, and the article put back, in time:
				// only; an article removed from time: only.
				e.c.ZAdd(e.ctx, k.Time(), redis.Z{Score: float64(t0.Unix()), Member: "dddddddddddddddd"},
					redis.Z{Score: float64(t0.Add(-time.Minute).Unix()), Member: late})
				e.c.ZRem(e.ctx, k.Time(), ids[3])
			}
			res, err := e.r.Rebuild(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Repaired || res.Articles != 41 || res.Dropped != 1 || res.Restored != 1 {
				t.Fatalf("result %+v: want 41 articles (the one removed from time: ranked again from its hash, "+
					"the one without an article dropped), reconciled", res)
			}
			e.checkInvariant(t, e.r.Formula())
			if keys, _ := e.c.Keys(e.ctx, e.keys.Score()+"rebuild:*").Result(); len(keys) != 0 {
				t.Fatalf("left behind: %v", keys)
			}
			if n, _ := e.c.Exists(e.ctx, e.keys.Touched()).Result(); n != 0 {
				t.Fatal("the rebuild left its marker")
			}
		})
	}
}

func TestCancelledRebuildLeavesScoreAlone(t *testing.T) {
	e := newRebuildEnv(t, redistest.Start(t).Client(), "hot", withBatch(10))
	e.fill(t, 300, 9) // more than 128: a skiplist, which ZSCAN walks in steps
	before := e.zmap(t, e.keys.Score())
	ctx, cancel := context.WithCancel(e.ctx)
	e.r.afterBatch = func(n int, _ bool) {
		if n == 2 {
			cancel()
		}
	}
	if _, err := e.r.Rebuild(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("rebuild: %v, want context.Canceled", err)
	}
	if err := sameRanking(e.zmap(t, e.keys.Score()), before); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.c.Exists(e.ctx, e.keys.Touched()).Result(); n != 0 {
		t.Fatal("the cancelled rebuild left its marker: writers would keep recording ids")
	}
	if keys, _ := e.c.Keys(e.ctx, e.keys.Score()+"rebuild:*").Result(); len(keys) != 0 {
		t.Fatalf("left behind: %v", keys)
	}
}

// TestEmbeddedRedis runs prune and both kinds of rebuild on miniredis.
func TestEmbeddedRedis(t *testing.T) {
	ctx := context.Background()
	c, err := rdb.Open(ctx, rdb.DefaultOptions(), quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Embedded() {
		t.Fatal("default config is not embedded")
	}
	e := newRebuildEnv(t, c, "linear", withBatch(25))
	e.fill(t, 150, 21)
	for i := 500; i < 520; i++ {
		e.ingest(t, i, t0.Add(-160*time.Hour), 1, "old")
	}
	res, err := e.r.Prune(ctx, t0.Add(12*time.Hour))
	if err != nil || res.Removed != 20 {
		t.Fatalf("prune: %+v, %v", res, err)
	}
	for _, formula := range []string{"linear", "hot", "gravity"} {
		r := e.withFormula(t, formula, withBatch(25))
		if _, err := r.Rebuild(ctx); err != nil {
			t.Fatalf("%s: %v", formula, err)
		}
		if err := sameRanking(e.zmap(t, e.keys.Score()), e.expected(t, formulas(e.clock.Now())[formula])); err != nil {
			t.Fatalf("%s: %v", formula, err)
		}
	}
	// An article ingested (by a store using hot) after the walk's last
	// batch is missing from the new ranking: the swap repairs it.
	hotStore, err := New(c, prefix, withFormulaCfg(e.cfg, "hot"), WithClock(e.clock), WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	hot := newRescorer(hotStore, withBatch(25))
	hot.afterBatch = func(_ int, last bool) {
		if last {
			if _, err := hotStore.Ingest(ctx, Article{URL: "https://news.example.com/late.html", Title: "Late", PostTime: t0, Comments: 3}); err != nil {
				t.Error(err)
			}
		}
	}
	if res, err := hot.Rebuild(ctx); err != nil || res.Articles != 151 || res.Rescored != 1 || res.Repaired {
		t.Fatalf("rebuild with an ingest during it: %+v, %v", res, err)
	}
	if err := sameRanking(e.zmap(t, e.keys.Score()), e.expected(t, formulas(e.clock.Now())["hot"])); err != nil {
		t.Fatal(err)
	}
}

func withFormulaCfg(cfg Options, formula string) Options {
	cfg.Formula = formula
	return cfg
}

// TestCluster runs prune and rebuilds on a three-node Redis Cluster: every
// key a script touches carries the {news} hash tag.
func TestRebuildOnCluster(t *testing.T) {
	cl := redistest.StartCluster(t)
	e := newRebuildEnv(t, cl.Client(), "linear", withBatch(40))
	e.fill(t, 200, 5)
	for i := 500; i < 530; i++ {
		e.ingest(t, i, t0.Add(-160*time.Hour), 1, "old")
	}
	if res, err := e.r.Prune(e.ctx, t0.Add(12*time.Hour)); err != nil || res.Removed != 30 {
		t.Fatalf("prune: %+v, %v", res, err)
	}
	for _, formula := range []string{"linear", "hot"} {
		r := e.withFormula(t, formula, withBatch(40))
		if _, err := r.Rebuild(e.ctx); err != nil {
			t.Fatalf("%s: %v", formula, err)
		}
		if err := sameRanking(e.zmap(t, e.keys.Score()), e.expected(t, formulas(e.clock.Now())[formula])); err != nil {
			t.Fatalf("%s: %v", formula, err)
		}
	}
}

// TestRebuildWalksTiesAcrossBatches has more articles at one post time
// than a read batch holds: the keyset cursor must neither skip nor repeat.
func TestRebuildWalksTiesAcrossBatches(t *testing.T) {
	e := newRebuildEnv(t, redistest.Start(t).Client(), "hot", withBatch(7))
	same := t0.Add(-time.Hour)
	for i := range 60 {
		e.ingest(t, i, same, int64(i))
	}
	for i := 60; i < 100; i++ {
		e.ingest(t, i, t0.Add(-time.Duration(i)*time.Minute), int64(i%5))
	}
	e.c.Del(e.ctx, e.keys.Score())
	res, err := e.r.Rebuild(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Articles != 100 || res.Repaired || res.Batches != 15 {
		t.Fatalf("result %+v: want 100 articles in 15 batches of 7, no repair", res)
	}
	if err := sameRanking(e.zmap(t, e.keys.Score()), e.expected(t, hot)); err != nil {
		t.Fatal(err)
	}
	// Orphans among the ties, dropped by the walk, must not make it skip
	// the ids after them.
	at := strconv.FormatInt(same.Unix(), 10)
	tied, _ := e.c.ZRangeByScore(e.ctx, e.keys.Time(), &redis.ZRangeBy{Min: at, Max: at}).Result()
	for _, i := range []int{5, 6, 12, 13, 20} {
		e.c.Del(e.ctx, e.keys.Article(tied[i]))
	}
	res, err = e.r.Rebuild(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Articles != 95 || res.Dropped != 5 || res.Repaired {
		t.Fatalf("result %+v: want 95 articles, 5 orphans dropped, nothing to reconcile", res)
	}
	if err := sameRanking(e.zmap(t, e.keys.Score()), e.expected(t, hot)); err != nil {
		t.Fatal(err)
	}
}
