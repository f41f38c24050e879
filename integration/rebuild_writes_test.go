package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

// TestFaultWritesDuringRebuilds runs rebuilds back to back while four
// voters cast a fixed list of votes each (up, down, switches, cancels),
// another ingests new articles and a producer refreshes comment counts.
// The rebuilds stop while the voters still vote, so no later rebuild
// repairs what the last one might have lost. Whatever the interleaving,
// when the writers are done every article's votes: entry is what its
// votes add up to, and its score is exactly the formula of its post time
// and those votes — for linear, hot and gravity.
func TestFaultWritesDuringRebuilds(t *testing.T) {
	for _, formula := range []string{"linear", "hot", "gravity"} {
		t.Run(formula, func(t *testing.T) {
			rs := redistest.Start(t)
			cfg := testConfig(rs.Options())
			cfg.News.Formula = formula
			s := newStack(t, cfg)
			ctx := context.Background()
			fc := clock.NewFake(time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)) // gravity's "now" for writers and rebuilds alike
			store, err := news.New(s.rdb, s.rdb.Prefix, cfg.News.Options(), news.WithClock(fc), news.WithLogger(s.log))
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(4, 5))
			const n = 3000
			url := func(i int) string { return fmt.Sprintf("https://news.example.com/w/%d.html", i) }
			as := make([]news.Article, n)
			for i := range as {
				as[i] = news.Article{URL: url(i), Title: fmt.Sprintf("Story %d", i),
					PostTime: fc.Now().Add(-time.Duration(rng.Int64N(int64(6 * 24 * time.Hour)))), Comments: rng.Int64N(40)}
			}
			if _, err := store.IngestBatch(ctx, as); err != nil {
				t.Fatal(err)
			}

			// Each voter's list: (article, direction); a later vote of the
			// same voter on the same article replaces the earlier one.
			type vote struct {
				i int
				d news.Dir
			}
			const voters, perVoter = 4, 500
			lists := make([][]vote, voters)
			for v := range lists {
				for range perVoter {
					lists[v] = append(lists[v], vote{rng.IntN(n / 3), news.Dir(rng.IntN(3) - 1)}) // on 1,000 articles, so some collide
				}
			}
			var wg sync.WaitGroup
			writers := make(chan struct{})
			var writing sync.WaitGroup
			var late atomic.Bool // a voter is three quarters through its list
			for v, list := range lists {
				writing.Go(func() {
					for k, x := range list {
						if k == len(list)*3/4 {
							late.Store(true)
						}
						if _, err := store.Vote(ctx, fmt.Sprintf("voter%d", v), news.ID(url(x.i)), x.d); err != nil {
							t.Errorf("vote: %v", err)
							return
						}
					}
				})
			}
			writing.Go(func() { // new articles, ten at a time
				for b := range 20 {
					batch := make([]news.Article, 10)
					for j := range batch {
						batch[j] = news.Article{URL: url(n + 10*b + j), Title: "New", PostTime: fc.Now(), Comments: int64(j)}
					}
					if _, err := store.IngestBatch(ctx, batch); err != nil {
						t.Errorf("ingest: %v", err)
						return
					}
				}
			})
			writing.Go(func() { // a producer's refreshed comment counts
				for b := range 50 {
					es := make([]news.Engagement, 10)
					for j := range es {
						es[j] = news.Engagement{URL: url(20*b + j), Comments: int64(100 + b)}
					}
					if _, err := store.Refresh(ctx, es); err != nil {
						t.Errorf("refresh: %v", err)
						return
					}
				}
			})
			go func() { writing.Wait(); close(writers) }()
			// Rebuilds run back to back until the voters are three quarters
			// through: the last one overlaps votes, and nothing after it
			// rebuilds again.
			rebuilds, rescored := 0, int64(0)
			wg.Go(func() {
				for !late.Load() {
					res, err := store.Rebuild(ctx, news.RebuildOptions{Batch: 200})
					if err != nil {
						t.Errorf("rebuild %d: %v", rebuilds+1, err)
						return
					}
					rebuilds++
					rescored += res.Rescored
				}
			})
			wg.Wait()
			<-writers
			if rebuilds == 0 {
				t.Fatal("no rebuild ran")
			}
			t.Logf("%d rebuilds ran during the writes; their swaps re-scored %d ids written meanwhile", rebuilds, rescored)

			// Expected votes: comments (as refreshed) + each voter's last
			// direction per article.
			want := map[string]float64{}
			for i := range n + 200 {
				it, err := store.Get(ctx, news.ID(url(i)))
				if err != nil {
					t.Fatalf("article %d: %v", i, err)
				}
				want[it.ID] = float64(it.Comments)
			}
			for _, list := range lists {
				last := map[int]news.Dir{}
				for _, x := range list {
					last[x.i] = x.d
				}
				for i, d := range last {
					want[news.ID(url(i))] += float64(d)
				}
			}
			checkRanking(t, store)
			rk := rankings(t, store)
			times, votes, scores := rk.Time, rk.Votes, rk.Score
			bad := 0
			for id, w := range want {
				sc := store.Formula().Score(time.Unix(int64(times[id]), 0), votes[id], fc.Now())
				if votes[id] != w || scores[id] != sc {
					if bad++; bad <= 5 {
						t.Errorf("%s: votes: %g (want %g), score %.17g (want %.17g)", id, votes[id], w, scores[id], sc)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d articles lost a write", bad, len(want))
			}
		})
	}
}
