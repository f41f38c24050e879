package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/news"
)

// BenchmarkListDuringRebuild reads GET /api/news?page=1 over real loopback
// HTTP (the load generator's keep-alive connection, one request every
// 2 ms) while the store rebuilds score: for 1,000,000 articles, and
// reports the reads' p50, p99 and max, against the same reads with no
// rebuild running, and the slowest call redis-server ran meanwhile
// (SLOWLOG at 1 ms; target: none over 10 ms). The articles are seeded as
// an ingest leaves them, with post times drawn at random over the week
// before now (not in id order) and net votes from -200 to 1000.
func BenchmarkListDuringRebuild(b *testing.B) {
	const articles = 1_000_000
	e := newEnv(b)
	ctx := context.Background()
	seedWeek(b, e, articles)
	rc := redis.NewClient(&redis.Options{Addr: e.redis.Addr(), Protocol: 2, DisableIdentity: true})
	defer rc.Close()
	conns := newConnPool(strings.TrimPrefix(e.ts.URL, "http://"), "/api/news?page=1")
	defer conns.close()

	var idle, during []time.Duration
	var res news.RebuildResult
	var took time.Duration
	var slowest time.Duration
	var slowCmd string
	var over int
	for range b.N {
		reads := 0
		idle = readEvery(b, conns, func() bool { reads++; return reads <= 500 }, idle)
		if err := rc.ConfigSet(ctx, "slowlog-log-slower-than", "1000").Err(); err != nil {
			b.Fatal(err)
		}
		rc.ConfigSet(ctx, "slowlog-max-len", "100000")
		rc.SlowLogReset(ctx)
		done := make(chan error, 1)
		t := time.Now()
		go func() {
			var err error
			res, err = e.store.Rebuild(ctx, news.RebuildOptions{})
			done <- err
		}()
		var rerr error
		finished := false
		during = readEvery(b, conns, func() bool {
			select {
			case rerr = <-done:
				finished = true
			default:
			}
			return !finished
		}, during)
		took = time.Since(t)
		if rerr != nil || res.Articles != articles {
			b.Fatalf("rebuild: %+v, %v", res, rerr)
		}
		logs, err := rc.SlowLogGet(ctx, -1).Result()
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range logs {
			if l.Duration > slowest {
				slowest, slowCmd = l.Duration, strings.ToLower(fmt.Sprint(l.Args[0]))
			}
			if l.Duration > 10*time.Millisecond {
				over++
			}
		}
	}
	b.StopTimer()
	pct := func(ds []time.Duration, p int) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[min(len(s)-1, len(s)*p/100)]
	}
	b.ReportMetric(took.Seconds(), "rebuild-s")
	b.ReportMetric(ms(pct(idle, 50)), "idle-p50-ms")
	b.ReportMetric(ms(pct(idle, 99)), "idle-p99-ms")
	b.ReportMetric(ms(pct(during, 50)), "during-p50-ms")
	b.ReportMetric(ms(pct(during, 99)), "during-p99-ms")
	b.ReportMetric(ms(pct(during, 100)), "during-max-ms")
	b.ReportMetric(ms(slowest), "max-call-ms")
	b.ReportMetric(float64(over), "calls-over-10ms")
	b.Logf("GET /api/news?page=1 during a rebuild of %d articles (%s, %d batches): p50 %.2f ms, p99 %.2f ms, max %.2f ms over %d requests; with no rebuild: p50 %.2f ms, p99 %.2f ms over %d; slowest Redis call %.2f ms (%s), %d over 10 ms (target 0)",
		articles, took.Round(time.Millisecond), res.Batches, ms(pct(during, 50)), ms(pct(during, 99)), ms(pct(during, 100)), len(during),
		ms(pct(idle, 50)), ms(pct(idle, 99)), len(idle), ms(slowest), slowCmd, over)
}

// readEvery gets page 1 through conns every 2 ms while more() says so,
// appending each request's latency to lat.
func readEvery(b *testing.B, conns *connPool, more func() bool, lat []time.Duration) []time.Duration {
	b.Helper()
	for more() {
		c, err := conns.get()
		if err != nil {
			b.Fatal(err)
		}
		t := time.Now()
		if _, err := c.get(); err != nil {
			b.Fatalf("GET page 1: %v", err)
		}
		lat = append(lat, time.Since(t))
		conns.put(c)
		time.Sleep(2 * time.Millisecond)
	}
	return lat
}

// seedWeek writes n articles as an ingest leaves them (hash, time:,
// votes:, score: by the default formula, postTime + 432 × votes), post
// times at random over the week before the environment's now, net
// votes from -200 to 1000, in pipelines of 1,000.
func seedWeek(b *testing.B, e *testEnv, n int) {
	b.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(n), 29))
	now := e.clock.Now().Unix()
	const chunk = 1000
	for start := 0; start < n; start += chunk {
		p := e.rdb.Pipeline()
		var times, votes, scores []redis.Z
		for i := start; i < min(start+chunk, n); i++ {
			id := fmt.Sprintf("%016x", uint64(i)*0x9E3779B97F4A7C15)
			post := now - 1 - rng.Int64N(7*24*3600)
			v := rng.Int64N(1201) - 200
			p.HSet(ctx, e.newsKey("news:"+id), "title", "Article "+strconv.Itoa(i), "url", "https://news.example.com/"+id,
				"time", post, "crawled", post, "comments", max(v, 0), "up", 0, "down", 0, "votes", v)
			times = append(times, redis.Z{Score: float64(post), Member: id})
			votes = append(votes, redis.Z{Score: float64(v), Member: id})
			scores = append(scores, redis.Z{Score: float64(post + 432*v), Member: id})
		}
		p.ZAdd(ctx, e.newsKey("time:"), times...)
		p.ZAdd(ctx, e.newsKey("votes:"), votes...)
		p.ZAdd(ctx, e.newsKey("score:"), scores...)
		if _, err := p.Exec(ctx); err != nil {
			b.Fatalf("seed: %v", err)
		}
	}
}
