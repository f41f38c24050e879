package integration

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

// Run with: go test -run '^$' -bench . -benchtime 1x ./integration/

// BenchmarkScaleOutConsumers crawls the demo site (360 articles, every
// article page answering after 20 ms, as a distant site would) on a
// three-master Redis Cluster, first with one consumer process, then with
// three, each with 2 workers and no politeness delay. It reports article
// pages per second for each and the ratio (three / one). Baseline: one
// process. Target: ratio >= 2: fetching is bound by the sites' latency,
// so processes on more machines add throughput until Redis or the site is
// the bottleneck, and the shared queue hands each URL to one of them.
func BenchmarkScaleOutConsumers(b *testing.B) {
	cl := redistest.StartCluster(b)
	const articles = 360
	rate := map[int]float64{}
	for range b.N {
		for round, procs := range []int{1, 3} {
			d := startDemo(b, articles, 20*time.Millisecond)
			cfg := testConfig(cl.Options())
			cfg.Redis.KeyPrefix = fmt.Sprintf("bench%d-%d:", round, procs)
			cfg.Crawler.Workers = 2
			cfg.Crawler.Sources = d.sources()
			s := newStack(b, cfg)
			path := writeConfig(b, cfg)
			var ps []*consumer
			for i := range procs {
				ps = append(ps, startConsumer(b, s.rdb, path, fmt.Sprintf("bench-%d-%d", procs, i)))
			}
			start := time.Now()
			if _, err := s.cr.Produce(context.Background()); err != nil {
				b.Fatal(err)
			}
			s.waitSettled(5 * time.Minute)
			took := time.Since(start)
			pages := 0
			for _, n := range d.servedTo() {
				pages += n
			}
			for _, p := range ps {
				p.terminate(b)
			}
			rate[procs] = float64(pages) / took.Seconds()
		}
	}
	b.ReportMetric(rate[1], "1-process-pages/s")
	b.ReportMetric(rate[3], "3-processes-pages/s")
	b.ReportMetric(rate[3]/rate[1], "ratio")
	b.Logf("crawl of %d articles (20 ms per page) on a 3-master cluster: 1 consumer process %.0f pages/s, 3 processes %.0f pages/s, ratio %.2f (target >= 2)",
		articles, rate[1], rate[3], rate[3]/rate[1])
}

// BenchmarkBoardGrowth measures Redis memory per active user of the
// activity boards: 20,000 users each visit 2 pages and like 3 articles in
// one day (one entry on the day board and one on the month board, and
// the user's ledger hash with 5 fields that make the events idempotent
// and undoable), with Record (RecordMany) against bare ZINCRBY
// of the day and month boards (no ledger). Target: ratio < 2.5 (the
// ledger is the price of exact undo and of counting a repeat once). And
// per registered invitee on the invitation board (20,000 invitees of
// 2,000 inviters), reported.
func BenchmarkBoardGrowth(b *testing.B) {
	const users, inviters = 20_000, 2_000
	rs := redistest.Start(b)
	c := rs.Client()
	ctx := context.Background()
	cfg := board.DefaultOptions()
	cfg.Location = time.UTC
	var ours, base, invitee float64
	for range b.N {
		c.FlushAll(ctx)
		act, err := board.NewActivity(c, prefix, cfg)
		if err != nil {
			b.Fatal(err)
		}
		evs := make([]board.Event, 0, users*5)
		for u := range users {
			user := "user-" + strconv.Itoa(u)
			for p := range 2 {
				evs = append(evs, board.Event{User: user, Action: "visit", Target: fmt.Sprintf("/page/%d", (u+p)%500)})
			}
			for a := range 3 {
				evs = append(evs, board.Event{User: user, Action: "like", Target: fmt.Sprintf("%016x", (u*7+a)%5000)})
			}
		}
		before := redistest.UsedMemory(b, c)
		for lo := 0; lo < len(evs); lo += board.MaxBatch {
			if _, err := act.RecordMany(ctx, evs[lo:min(lo+board.MaxBatch, len(evs))]); err != nil {
				b.Fatal(err)
			}
		}
		ours = float64(redistest.UsedMemory(b, c)-before) / users

		c.FlushAll(ctx)
		before = redistest.UsedMemory(b, c)
		day, month := prefix+"{act}:day:"+time.Now().UTC().Format(board.DayLayout), prefix+"{act}:month:"+time.Now().UTC().Format(board.MonthLayout)
		pipe := c.Pipeline()
		for i, ev := range evs {
			pts := 1.0
			if ev.Action == "like" {
				pts = 2
			}
			pipe.ZIncrBy(ctx, day, pts, ev.User)
			pipe.ZIncrBy(ctx, month, pts, ev.User)
			if i%1000 == 999 {
				if _, err := pipe.Exec(ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
		base = float64(redistest.UsedMemory(b, c)-before) / users

		c.FlushAll(ctx)
		inv, err := board.NewInvites(c, prefix, cfg)
		if err != nil {
			b.Fatal(err)
		}
		before = redistest.UsedMemory(b, c)
		for i := range users {
			if _, err := inv.Register(ctx, "newcomer-"+strconv.Itoa(i), "inviter-"+strconv.Itoa(i%inviters)); err != nil {
				b.Fatal(err)
			}
		}
		invitee = float64(redistest.UsedMemory(b, c)-before) / users
	}
	b.ReportMetric(ours, "record-bytes/user-day")
	b.ReportMetric(base, "zincrby-bytes/user-day")
	b.ReportMetric(ours/base, "ratio")
	b.ReportMetric(invitee, "bytes/invitee")
	b.Logf("activity boards, %d users with 2 visits and 3 likes in a day: Record %.0f bytes/user (day and month entries + a ledger hash of 5 fields), raw ZINCRBY %.0f bytes/user, ratio %.2f (target < 2.5); invitation board: %.0f bytes per invitee (%d inviters)",
		users, ours, base, ours/base, invitee, inviters)
}

// BenchmarkVoteGrowth measures Redis memory per vote: 100,000 votes,
// cast by 100 users on each of 1,000 articles, then by 1,000 users on
// each of 100 articles (up, or down for every fourth), against a
// voted:<id> SET of the users who voted, as in Redis in Action's article
// voting (up-votes only, no down-votes, no switching). An article's voted: hash stays in
// Redis' compact listpack encoding up to hash-max-listpack-entries (128)
// voters; past that it becomes a hash table. Reported, no target.
func BenchmarkVoteGrowth(b *testing.B) {
	rs := redistest.Start(b)
	cfg := testConfig(rs.Options())
	s := newStack(b, cfg)
	c := rs.Client()
	ctx := context.Background()
	for _, tc := range []struct{ articles, voters int }{{1_000, 100}, {100, 1_000}} {
		var ours, base float64
		for range b.N {
			c.FlushAll(ctx)
			ids := make([]string, tc.articles)
			for i := range ids {
				r, err := s.store.Ingest(ctx, news.Article{URL: fmt.Sprintf("https://news.example.com/v/%d.html", i), Title: "Votes", PostTime: time.Now().Add(-time.Hour)})
				if err != nil {
					b.Fatal(err)
				}
				ids[i] = r.ID
			}
			before := redistest.UsedMemory(b, c)
			var wg sync.WaitGroup
			for w := range 8 {
				wg.Go(func() {
					for u := w; u < tc.voters; u += 8 {
						user := "voter-" + strconv.Itoa(u)
						for i, id := range ids {
							d := news.Up
							if (u+i)%4 == 0 {
								d = news.Down
							}
							if _, err := s.store.Vote(ctx, user, id, d); err != nil {
								b.Error(err)
								return
							}
						}
					}
				})
			}
			wg.Wait()
			votes := float64(tc.articles * tc.voters)
			ours = float64(redistest.UsedMemory(b, c)-before) / votes

			before = redistest.UsedMemory(b, c)
			pipe := c.Pipeline()
			for _, id := range ids {
				for u := range tc.voters {
					pipe.SAdd(ctx, "set:voted:"+id, "voter-"+strconv.Itoa(u))
					if pipe.Len() == 1000 {
						if _, err := pipe.Exec(ctx); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			if _, err := pipe.Exec(ctx); err != nil {
				b.Fatal(err)
			}
			base = float64(redistest.UsedMemory(b, c)-before) / votes
		}
		name := fmt.Sprintf("%d-voters-", tc.voters)
		b.ReportMetric(ours, name+"bytes/vote")
		b.ReportMetric(base, name+"set-bytes/vote")
		b.Logf("%d votes, %d voters on each of %d articles: %.1f bytes per vote in voted:<id> (HASH user → ±1), a voted: SET %.1f bytes per vote, ratio %.2f",
			tc.articles*tc.voters, tc.voters, tc.articles, ours, base, ours/base)
	}
}
