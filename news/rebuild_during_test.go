package news

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/redistest"
)

// checkInvariant checks what a reader of the ranking relies on after a
// rebuild: time:, votes: and score: hold the same ids, each has its hash,
// votes: agrees with the hash's votes field, and every score is exactly
// the formula of the article's post time and final votes (at the
// rescorer's clock).
func (e *rebuildEnv) checkInvariant(t testing.TB, f Formula) {
	t.Helper()
	k := e.keys
	times, votes, scores := e.zmap(t, k.Time()), e.zmap(t, k.Votes()), e.zmap(t, k.Score())
	if len(times) != len(scores) || len(times) != len(votes) {
		t.Errorf("time: %d ids, votes: %d, score: %d", len(times), len(votes), len(scores))
	}
	now := e.clock.Now()
	var lost, rounding []string
	for id, ts := range times {
		hv, err := e.c.HGet(e.ctx, k.Article(id), "votes").Result()
		if err != nil {
			t.Errorf("%s: ranked, but its hash: %v", id, err)
			continue
		}
		v, ok := votes[id]
		if hvf, _ := strconv.ParseFloat(hv, 64); !ok || hvf != v {
			t.Errorf("%s: votes: %v (present %v), hash says %s", id, v, ok, hv)
		}
		s, ok := scores[id]
		if !ok {
			t.Errorf("%s: not in score:", id)
			continue
		}
		want := f.Score(time.Unix(int64(ts), 0), v, now)
		switch {
		case s == want:
		case math.Abs(s-want) > 1e-12*math.Max(1, math.Abs(want)):
			lost = append(lost, fmt.Sprintf("%s scored %.17g, want %.17g for %g votes", id, s, want, v))
		default:
			rounding = append(rounding, fmt.Sprintf("%s scored %.17g, want %.17g", id, s, want))
		}
	}
	for id := range scores {
		if _, ok := times[id]; !ok {
			t.Errorf("%s: in score: but not in time:", id)
		}
	}
	slices.Sort(lost)
	if len(lost) > 0 {
		t.Errorf("%d of %d articles have a score that is not the %s formula of their votes, e.g. %v",
			len(lost), len(times), f.Name(), lost[:min(3, len(lost))])
	}
	if len(rounding) > 0 {
		t.Errorf("%d of %d articles differ from Formula.Score in the last bits (Go and Lua disagree), e.g. %v",
			len(rounding), len(times), rounding[:min(3, len(rounding))])
	}
}

// TestVotesDuringRebuildAreKept votes while a rebuild runs, at fixed
// points: after a batch whose articles the build has already read, and
// after the last batch; every vote must be in score: after the swap.
func TestVotesDuringRebuildAreKept(t *testing.T) {
	for _, formula := range []string{"linear", "hot", "gravity"} {
		t.Run(formula, func(t *testing.T) {
			e := newRebuildEnv(t, redistest.Start(t).Client(), formula, withBatch(20))
			ids := e.fill(t, 200, 13)
			e.clock.Advance(5 * time.Hour)
			// The build reads time: oldest first: the oldest ids are read
			// in the first batches.
			byAge, err := e.c.ZRange(e.ctx, e.keys.Time(), 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			votes, round := 0, 0
			during := func() {
				round++
				for i, id := range byAge[:60] {
					d := Up
					if i%5 == 0 {
						d = Down
					}
					e.vote(t, fmt.Sprintf("u%d", round), id, d)
					votes++
					if round > 1 && i%3 == 0 {
						// The previous round's voter switches, or cancels.
						d = -d
						if i%2 == 0 {
							d = None
						}
						e.vote(t, fmt.Sprintf("u%d", round-1), id, d)
						votes++
					}
				}
			}
			// Votes after a batch whose articles were read, after the last
			// batch, between the build and the swap, and between swap
			// calls (the swap re-scores 7 ids per call here).
			e.r.afterBatch = func(n int, last bool) {
				if n == 3 || last {
					during()
				}
			}
			e.r.beforeSwap = during
			swapCalls := 0
			e.r.afterSwapCall = func() {
				if swapCalls++; swapCalls == 2 {
					during()
				}
			}
			e.r.drain = 7
			res, err := e.r.Rebuild(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if votes == 0 {
				t.Fatal("no vote was cast during the rebuild")
			}
			t.Logf("%d votes during the rebuild: %+v", votes, res)
			if round != 4 || res.Rescored < 60 {
				t.Errorf("%d rounds of votes, %d ids re-scored at the swap; want 4 rounds, at least 60", round, res.Rescored)
			}
			e.checkInvariant(t, e.r.Formula())
			_ = ids
		})
	}
}

// TestRebuildRepairsOrphans damages the ranking as an expired hash, a
// lost votes: entry or a stray id would: the rebuild repairs what the
// article hash still records, drops what has no hash, and says so.
// It runs again with the walk split in two ranges (as for a large
// time:), the damage on both sides of the split.
func TestRebuildRepairsOrphans(t *testing.T) {
	for _, name := range []string{"linear", "hot", "gravity", "hot_split"} {
		formula, split := strings.CutSuffix(name, "_split")
		t.Run(name, func(t *testing.T) {
			opts := []rescorerOption{withBatch(20)}
			if split {
				opts = append(opts, withSplit(1))
			}
			e := newRebuildEnv(t, redistest.Start(t).Client(), formula, withBatch(20))
			var ids []string
			for i := range 60 {
				ids = append(ids, e.ingest(t, i, t0.Add(-time.Duration(i)*time.Hour), int64(i), "all"))
			}
			k := e.keys
			// ids[26] lost its votes: entry; its hash says 26 votes.
			e.c.ZRem(e.ctx, k.Votes(), ids[26])
			// ids[5]'s hash is gone (expired or deleted): an orphan in
			// time:, votes:, score: and group all.
			e.c.Del(e.ctx, k.Article(ids[5]))
			// A bare id in time: only, one in score: and a group only.
			e.c.ZAdd(e.ctx, k.Time(), redis.Z{Score: float64(t0.Unix() - 60), Member: "dddddddddddddddd"})
			e.c.ZAdd(e.ctx, k.Score(), redis.Z{Score: 1e12, Member: "eeeeeeeeeeeeeeee"})
			e.c.SAdd(e.ctx, k.Group("all"), "eeeeeeeeeeeeeeee")

			log := &logBuffer{}
			r := e.withFormula(t, formula, append(opts, withLog(log.logger()))...)
			res, err := r.Rebuild(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Articles != 59 || res.VotesRepaired != 1 || res.Dropped != 3 {
				t.Fatalf("result %+v: want 59 articles, 1 vote count repaired, 3 orphans dropped", res)
			}
			if v, err := e.c.ZScore(e.ctx, k.Votes(), ids[26]).Result(); err != nil || v != 26 {
				t.Fatalf("votes: of %s = %v, %v; want 26 from its hash", ids[26], v, err)
			}
			for _, id := range []string{ids[5], "dddddddddddddddd", "eeeeeeeeeeeeeeee"} {
				for _, key := range []string{k.Time(), k.Score(), k.Votes()} {
					if _, err := e.c.ZScore(e.ctx, key, id).Result(); err == nil {
						t.Errorf("orphan %s still in %s", id, key)
					}
				}
				if in, _ := e.c.SIsMember(e.ctx, k.Group("all"), id).Result(); in {
					t.Errorf("orphan %s still in group all", id)
				}
			}
			e.checkInvariant(t, r.Formula())
			if !strings.Contains(log.String(), "repaired") || !strings.Contains(log.String(), ids[26]) || !strings.Contains(log.String(), ids[5]) {
				t.Errorf("the rebuild did not log what it repaired and dropped:\n%s", log.String())
			}
			// The listing is full: 25 articles on page 1 of 59.
			p, err := e.store.List(e.ctx, ByScore, 1, 25)
			if err != nil || len(p.Items) != 25 || p.Total != 59 {
				t.Fatalf("page 1: %d items of %d, %v", len(p.Items), p.Total, err)
			}
		})
	}
}

// TestSplitWalkKeepsWritesDuringTheBuild walks time: in two ranges at once
// (as for a large time:) while articles arrive and old ones are pruned
// between two batches of one walker: the swap re-scores or removes each,
// with no need to reconcile, and the ranking is the formula's exactly.
func TestSplitWalkKeepsWritesDuringTheBuild(t *testing.T) {
	for _, formula := range []string{"linear", "hot", "gravity"} {
		t.Run(formula, func(t *testing.T) {
			e := newRebuildEnv(t, redistest.Start(t).Client(), formula, withBatch(20), withSplit(1))
			e.fill(t, 200, 3)
			for i := 200; i < 210; i++ {
				e.ingest(t, i, t0.Add(-150*time.Hour), 5)
			}
			pruner := e.withFormula(t, formula)
			// Both walkers (about 105 articles, 6 batches each) meet after
			// their third batch and the second to arrive writes: by then
			// the older range has checked its first two batches, which
			// hold the 10 old articles the prune removes, so the swap and
			// not the walk removes them, whichever walker runs ahead.
			var mu sync.Mutex
			arrived, wrote := 0, make(chan struct{})
			e.r.afterBatch = func(n int, _ bool) {
				if n != 3 {
					return
				}
				mu.Lock()
				arrived++
				second := arrived == 2
				mu.Unlock()
				if !second {
					<-wrote
					return
				}
				e.arriveAndLeave(t, pruner)
				close(wrote)
			}
			res, err := e.r.Rebuild(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Rescored != 20 || res.Repaired || res.Articles != 210 || res.Batches < 12 {
				t.Fatalf("result %+v, want 210 articles in two walks of 6 batches or more, 20 re-scored, not reconciled", res)
			}
			if err := sameRanking(e.zmap(t, e.keys.Score()), e.expected(t, formulas(e.clock.Now())[formula])); err != nil {
				t.Fatal(err)
			}
			e.checkInvariant(t, e.r.Formula())
		})
	}
}

// TestWritesDuringRebuildAreKept runs every write path at each stage of a
// rebuild — after a batch the build has read, after the last batch,
// between the build and the swap, between two swap calls: votes, new
// articles, a re-crawl with a new comment count, a producer's Refresh, a
// user's Post, group changes, a prune, and a listing that drops an
// orphan. Afterwards every article's score is the formula of its final
// votes, pruned and dropped articles are gone, and the groups hold what
// the group changes left.
func TestWritesDuringRebuildAreKept(t *testing.T) {
	for _, formula := range []string{"linear", "hot", "gravity"} {
		t.Run(formula, func(t *testing.T) {
			e := newRebuildEnv(t, redistest.Start(t).Client(), formula, withBatch(15))
			ids := e.fill(t, 120, 17)
			// Ten old articles, posted 150 to 159 hours before t0, that the
			// prunes remove a few at a time, oldest first.
			var old []string
			for i := range 10 {
				old = append(old, e.ingest(t, 500+i, t0.Add(-time.Duration(150+i)*time.Hour), 3, "g"))
			}
			e.store.AddToGroups(e.ctx, ids[0], "g")
			byAge, err := e.c.ZRange(e.ctx, e.keys.Time(), 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			wantGroup := map[string]bool{ids[0]: true}
			for _, id := range old {
				wantGroup[id] = true
			}
			var pruned, dropped []string
			round := 0
			during := func() {
				round++
				ctx := e.ctx
				// Votes on articles the build has read.
				for i, id := range byAge[round*5 : round*5+10] {
					e.vote(t, fmt.Sprintf("w%d", round), id, Dir(1-2*(i%2)))
				}
				// A new article, in group g, and a user's post.
				n := 1000 + round
				created := e.ingest(t, n, t0.Add(-time.Duration(round)*time.Minute), int64(round), "g")
				wantGroup[created] = true
				if _, err := e.store.Post(ctx, "poster", fmt.Sprintf("Posted %d", round), fmt.Sprintf("https://user.example.com/%d", round)); err != nil {
					t.Error(err)
				}
				// A re-crawl and a producer's refresh with new comment counts.
				if _, err := e.store.Ingest(ctx, Article{URL: fmt.Sprintf("https://news.example.com/a/%d.html", round),
					Title: "again", Comments: int64(100 + round), CrawlTime: t0}); err != nil {
					t.Error(err)
				}
				if _, err := e.store.Refresh(ctx, []Engagement{{URL: fmt.Sprintf("https://news.example.com/a/%d.html", 10+round),
					Comments: int64(200 + round)}}); err != nil {
					t.Error(err)
				}
				// Group changes.
				if err := e.store.AddToGroups(ctx, byAge[60+round], "g"); err != nil {
					t.Error(err)
				}
				wantGroup[byAge[60+round]] = true
				if err := e.store.RemoveFromGroups(ctx, ids[0], "g"); err != nil {
					t.Error(err)
				}
				delete(wantGroup, ids[0])
				// A prune that removes the oldest of the old articles.
				res, err := e.withFormula(t, formula).Prune(ctx, t0.Add(time.Duration(10+2*round)*time.Hour))
				if err != nil || res.Removed == 0 {
					t.Errorf("prune in round %d: %+v, %v", round, res, err)
				}
				for _, id := range old {
					if _, err := e.c.ZScore(ctx, e.keys.Time(), id).Result(); err != nil && !slices.Contains(pruned, id) {
						pruned = append(pruned, id)
						delete(wantGroup, id)
					}
				}
				// An article whose hash is lost; the listing drops it.
				orphan := byAge[100+round]
				e.c.Del(ctx, e.keys.Article(orphan))
				for page := 1; ; page++ {
					p, err := e.store.List(ctx, ByTime, page, 100)
					if err != nil {
						t.Errorf("listing in round %d: %v", round, err)
					}
					if err != nil || page >= p.Pages {
						break
					}
				}
				dropped = append(dropped, orphan)
			}
			e.r.afterBatch = func(n int, last bool) {
				if n == 2 || last {
					during()
				}
			}
			e.r.beforeSwap = during
			swapCalls := 0
			e.r.afterSwapCall = func() {
				if swapCalls++; swapCalls == 1 {
					during()
				}
			}
			e.r.drain = 5
			res, err := e.r.Rebuild(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d rounds of writes during the rebuild: %+v", round, res)
			if round != 4 {
				t.Fatalf("%d rounds of writes, want 4", round)
			}
			// Every write path recorded its ids: the swap re-scored them,
			// and found nothing to reconcile.
			if res.Repaired {
				t.Errorf("the swap had to reconcile the ranking with time:: a write path did not record its ids")
			}
			e.checkInvariant(t, e.r.Formula())
			for _, id := range append(slices.Clone(pruned), dropped...) {
				if _, err := e.c.ZScore(e.ctx, e.keys.Score(), id).Result(); err == nil {
					t.Errorf("%s was pruned or dropped during the rebuild, and is back in score:", id)
				}
			}
			members, _ := e.c.SMembers(e.ctx, e.keys.Group("g")).Result()
			got := map[string]bool{}
			for _, m := range members {
				got[m] = true
			}
			if len(got) != len(wantGroup) {
				t.Errorf("group g holds %d articles, want %d", len(got), len(wantGroup))
			}
			for id := range wantGroup {
				if !got[id] {
					t.Errorf("group g lacks %s", id)
				}
			}
			p, err := e.store.GroupList(e.ctx, "g", ByScore, 1, 100)
			if err != nil || p.Total != len(wantGroup) || len(p.Items) != len(wantGroup) {
				t.Errorf("group g listing: total %d, %d items, %v; want %d", p.Total, len(p.Items), err, len(wantGroup))
			}
		})
	}
}

// TestOneClientSideRebuildAtATime: a rebuild that finds another's marker,
// kept alive by its heartbeat, fails with ErrRebuildRunning and leaves
// both alone; one whose marker vanished under it (it expired while the
// process was stopped) fails with ErrMarkerLost, since writes made
// meanwhile may not have been recorded, and leaves score: as it was; one
// that finds the marker of a rebuild that died takes it over.
func TestOneClientSideRebuildAtATime(t *testing.T) {
	e := newRebuildEnv(t, redistest.Start(t).Client(), "hot", withBatch(10))
	e.fill(t, 50, 3)
	before := e.zmap(t, e.keys.Score())
	second := e.withFormula(t, "hot")
	var secondErr error
	e.r.afterBatch = func(n int, _ bool) {
		if n == 2 {
			_, secondErr = second.Rebuild(e.ctx)
		}
	}
	if _, err := e.r.Rebuild(e.ctx); err != nil {
		t.Fatalf("first rebuild: %v", err)
	}
	if !errors.Is(secondErr, ErrRebuildRunning) {
		t.Fatalf("second rebuild during the first: %v, want ErrRebuildRunning", secondErr)
	}

	e.r.afterBatch = func(n int, _ bool) {
		if n == 2 {
			e.c.Del(e.ctx, e.keys.Touched())
			e.vote(t, "unrecorded", e.zmapIDs(t)[0], Up)
			before = e.zmap(t, e.keys.Score())
		}
	}
	if _, err := e.r.Rebuild(e.ctx); !errors.Is(err, ErrMarkerLost) {
		t.Fatalf("rebuild whose marker vanished: %v, want ErrMarkerLost", err)
	}
	if err := sameRanking(e.zmap(t, e.keys.Score()), before); err != nil {
		t.Fatalf("score: changed by the failed rebuild: %v", err)
	}
	if keys, _ := e.c.Keys(e.ctx, e.keys.Score()+"rebuild:*").Result(); len(keys) != 0 {
		t.Fatalf("left behind: %v", keys)
	}
	e.r.afterBatch = nil
	if _, err := e.r.Rebuild(e.ctx); err != nil {
		t.Fatalf("next rebuild: %v", err)
	}
	e.checkInvariant(t, e.r.Formula())

	// A rebuild that died (killed, or Redis restarted under it) left its
	// marker: the next one waits for its heartbeat, sees none, takes the
	// marker over and rebuilds.
	e.c.SAdd(e.ctx, e.keys.Touched(), "rebuild:dead", e.zmapIDs(t)[3])
	e.c.PExpire(e.ctx, e.keys.Touched(), time.Minute)
	e.vote(t, "after-death", e.zmapIDs(t)[4], Up)
	if _, err := e.r.Rebuild(e.ctx); err != nil {
		t.Fatalf("rebuild after one died: %v", err)
	}
	e.checkInvariant(t, e.r.Formula())
	if n, _ := e.c.Exists(e.ctx, e.keys.Touched()).Result(); n != 0 {
		t.Fatal("the marker of the dead rebuild is still there")
	}
}

// zmapIDs returns the ids of time:, oldest first.
func (e *rebuildEnv) zmapIDs(t testing.TB) []string {
	t.Helper()
	ids, err := e.c.ZRange(e.ctx, e.keys.Time(), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
