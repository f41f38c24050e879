package news

// Benchmarks of the news store against baselines on the same redis-server,
// in the same run. Each does a fixed amount of work:
//
//	go test -run '^$' -bench . -benchtime 1x ./news/
//
// Targets: ingest (batched) at least 0.5 × raw pipelined HSET+ZADD;
// refresh (list comment counts) at least 0.5 × blind pipelined
// HSET+ZADD×2; the others are reported (vote ratio to raw pipelined ZINCRBY, page latency,
// memory per article).

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
)

type benchEnv struct {
	s   *Store
	c   *redis.Client
	ctx context.Context
}

func newBenchEnv(b *testing.B, args ...string) *benchEnv {
	b.Helper()
	srv := redistest.Start(b, redistest.Options{Args: args})
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true, PoolSize: 64})
	b.Cleanup(func() { c.Close() })
	s, err := New(c, "bench:", DefaultOptions(), WithClock(clock.NewFake(t0)),
		WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		b.Fatal(err)
	}
	return &benchEnv{s: s, c: c, ctx: context.Background()}
}

func (e *benchEnv) flush(b *testing.B) {
	b.Helper()
	if err := e.c.FlushAll(e.ctx).Err(); err != nil {
		b.Fatal(err)
	}
}

// benchArticle is a crawled article of realistic size: a NetEase-style
// URL, a 20-character Chinese title (60 bytes), a source name and, when
// summary is set, a 150-byte summary and an image URL.
func benchArticle(i int, summary bool) Article {
	a := Article{
		URL:       fmt.Sprintf("https://www.163.com/news/article/K%07dS000189FR.html", i),
		Title:     "国内首条跨海高铁今日正式开通运营乘客体验" + strconv.Itoa(i%10),
		Source:    "netease",
		PostTime:  t0.Add(-time.Duration(i%(6*24*3600)) * time.Second),
		CrawlTime: t0,
		Comments:  int64(i % 500),
	}
	if summary {
		a.Summary = strings.Repeat("新闻摘要", 12) + "…" // 147 bytes
		a.Image = fmt.Sprintf("https://nimg.ws.126.net/?url=http://cms-bucket.ws.126.net/2025/0303/%d.jpg", i)
	}
	return a
}

// rawIngest is the baseline: the article's fields by HSET and its post
// time by ZADD, pipelined in batches, no checks, no scoring.
func rawIngest(ctx context.Context, c *redis.Client, k keyspace, as []Article) error {
	pipe := c.Pipeline()
	for _, a := range as {
		id := ID(a.URL)
		fields := []any{"url", a.URL, "title", a.Title, "source", a.Source, "time", a.PostTime.Unix(),
			"crawled", a.CrawlTime.Unix(), "comments", a.Comments, "up", 0, "down", 0, "votes", a.Comments}
		if a.Summary != "" {
			fields = append(fields, "summary", a.Summary, "image", a.Image)
		}
		pipe.HSet(ctx, k.Article(id), fields...)
		pipe.ZAdd(ctx, k.Time(), redis.Z{Score: float64(a.PostTime.Unix()), Member: id})
	}
	_, err := pipe.Exec(ctx)
	return err
}

func batches(n, size int, f func(lo, hi int) error) error {
	for lo := 0; lo < n; lo += size {
		if err := f(lo, min(lo+size, n)); err != nil {
			return err
		}
	}
	return nil
}

// inTurn runs n items in rounds, batch for batch through base and then
// through ours (each given the batch's bounds), and returns the time each
// took over the run and the per-round ratios of ours' throughput to
// base's, sorted (their median is robust to a burst of load in one round).
func inTurn(n, batch, rounds int, base, ours func(lo, hi int) error) (baseT, oursT time.Duration, ratios []float64, err error) {
	per := n / rounds
	for r := range rounds {
		var baseR, oursR time.Duration
		err = batches(per, batch, func(lo, hi int) error {
			lo, hi = lo+r*per, hi+r*per
			start := time.Now()
			if err := base(lo, hi); err != nil {
				return err
			}
			baseR += time.Since(start)
			start = time.Now()
			err := ours(lo, hi)
			oursR += time.Since(start)
			return err
		})
		if err != nil {
			return baseT, oursT, ratios, err
		}
		baseT += baseR
		oursT += oursR
		ratios = append(ratios, baseR.Seconds()/oursR.Seconds())
	}
	slices.Sort(ratios)
	return baseT, oursT, ratios, nil
}

// BenchmarkIngest: 20,000 articles in batches of 100, IngestBatch against
// raw pipelined HSET+ZADD, batch for batch in turn (each into its own key
// prefix on the same server), so that load from elsewhere on the machine
// falls on both alike. The ratio reported is the median over 10 rounds of
// 2,000 articles (robust to a burst of load in one round); the rates are
// over the whole run. Target: ratio >= 0.5.
func BenchmarkIngest(b *testing.B) {
	const n, batch, rounds = 20_000, 100, 10
	e := newBenchEnv(b)
	rawKeys := newKeyspace("bench-raw:")
	as := make([]Article, n)
	for i := range as {
		as[i] = benchArticle(i, true)
	}
	var raw, ours time.Duration
	var ratios []float64
	for range b.N {
		e.flush(b)
		rawT, oursT, rs, err := inTurn(n, batch, rounds,
			func(lo, hi int) error { return rawIngest(e.ctx, e.c, rawKeys, as[lo:hi]) },
			func(lo, hi int) error {
				rs, err := e.s.IngestBatch(e.ctx, as[lo:hi])
				for _, r := range rs {
					if r.Err != nil || r.Status != Created {
						return fmt.Errorf("%+v", r)
					}
				}
				return err
			})
		if err != nil {
			b.Fatal(err)
		}
		raw, ours, ratios = raw+rawT, ours+oursT, append(ratios, rs...)
	}
	rawRate := float64(n*b.N) / raw.Seconds()
	ourRate := float64(n*b.N) / ours.Seconds()
	slices.Sort(ratios)
	ratio := ratios[len(ratios)/2]
	b.ReportMetric(rawRate, "raw-articles/s")
	b.ReportMetric(ourRate, "ingest-articles/s")
	b.ReportMetric(ratio, "ratio")
	b.Logf("ingest %.0f articles/s, raw HSET+ZADD %.0f/s: median ratio %.2f (rounds %.2f..%.2f; target >= 0.5)",
		ourRate, rawRate, ratio, ratios[0], ratios[len(ratios)-1])
}

// BenchmarkVote: 20,000 votes by distinct users on 1,000 articles, in
// rounds of 2,000 taken in turn. Ours: Vote (one script call per vote, as
// the web API makes them) from 32 concurrent callers. Baseline: ZINCRBY
// score: 432, pipelined 100 at a time from one caller (no per-user check,
// no counts, no window). Reported, no target.
func BenchmarkVote(b *testing.B) {
	const articles, votes, round, callers, batch = 1_000, 20_000, 2_000, 32, 100
	e := newBenchEnv(b)
	as := make([]Article, articles)
	ids := make([]string, articles)
	for i := range as {
		as[i] = benchArticle(i, false)
		ids[i] = ID(as[i].URL)
	}
	var raw, ours time.Duration
	for range b.N {
		e.flush(b)
		if _, err := e.s.IngestBatch(e.ctx, as); err != nil {
			b.Fatal(err)
		}
		for r0 := 0; r0 < votes; r0 += round {
			start := time.Now()
			if err := batches(round, batch, func(lo, hi int) error {
				pipe := e.c.Pipeline()
				for v := r0 + lo; v < r0+hi; v++ {
					pipe.ZIncrBy(e.ctx, "bench-raw:{news}:score:", 432, ids[v%articles])
				}
				_, err := pipe.Exec(e.ctx)
				return err
			}); err != nil {
				b.Fatal(err)
			}
			raw += time.Since(start)

			start = time.Now()
			var wg sync.WaitGroup
			errs := make(chan error, callers)
			for w := range callers {
				wg.Go(func() {
					for v := r0 + w; v < r0+round; v += callers {
						if _, err := e.s.Vote(e.ctx, "user"+strconv.Itoa(v), ids[v%articles], Up); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			ours += time.Since(start)
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
		}
	}
	rawRate := float64(votes*b.N) / raw.Seconds()
	ourRate := float64(votes*b.N) / ours.Seconds()
	b.ReportMetric(rawRate, "raw-zincrby/s")
	b.ReportMetric(ourRate, "votes/s")
	b.ReportMetric(ourRate/rawRate, "ratio")
	b.Logf("vote %.0f/s (%d callers), raw pipelined ZINCRBY %.0f/s: ratio %.2f (reported, no target)", ourRate, callers, rawRate, ourRate/rawRate)
}

func percentile(d []time.Duration, p float64) time.Duration {
	slices.Sort(d)
	return d[min(len(d)-1, int(p*float64(len(d))))]
}

// serverUsec is redis-server's time spent in commands so far (INFO
// commandstats, INFO itself left out).
func serverUsec(b *testing.B, e *benchEnv) float64 {
	b.Helper()
	info, err := e.c.Info(e.ctx, "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") || name == "cmdstat_info" {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(kv, "usec="); ok {
				n, _ := strconv.ParseFloat(v, 64)
				total += n
			}
		}
	}
	return total
}

// BenchmarkListPage: 2,000 requests for a random page of 25 by score out
// of 10,000 articles, fields included, each read three ways in turn:
//
//   - ours, again: List of a page it read before (page.go: the ranking
//     and the remembered ids' fields in one pipeline, one round trip; the
//     front pages of a busy site are read this way);
//   - ours, first read: the same List with its memory of pages cleared
//     (ranking, then fields: two round trips);
//   - baseline: a plain read of a page, ZREVRANGE then pipelined HGETALL (two
//     round trips, no decoding into items).
//
// Reports p50/p99 latency of each, redis-server time per page (INFO
// commandstats, read outside the timed calls) and PING's p50 (the round
// trip: on localhost it is tiny, so a second round trip costs less here
// than across a network). Reported, no target.
func BenchmarkListPage(b *testing.B) {
	const articles, requests, size = 10_000, 2_000, 25
	e := newBenchEnv(b)
	e.flush(b)
	as := make([]Article, articles)
	for i := range as {
		as[i] = benchArticle(i, true)
	}
	if err := batches(articles, 500, func(lo, hi int) error {
		_, err := e.s.IngestBatch(e.ctx, as[lo:hi])
		return err
	}); err != nil {
		b.Fatal(err)
	}
	pages := articles / size
	rng := rand.New(rand.NewPCG(1, 2))
	var warm, cold, raw, ping []time.Duration
	var warmUs, coldUs, rawUs float64
	timed := func(lat *[]time.Duration, us *float64, f func() error) {
		u := serverUsec(b, e)
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		*lat = append(*lat, time.Since(start))
		*us += serverUsec(b, e) - u
	}
	for range b.N {
		for i := range requests {
			start := time.Now()
			if err := e.c.Ping(e.ctx).Err(); err != nil {
				b.Fatal(err)
			}
			ping = append(ping, time.Since(start))
			page := 1 + rng.IntN(pages)
			list := func() error {
				p, err := e.s.List(e.ctx, ByScore, page, size)
				if err == nil && len(p.Items) != size {
					err = fmt.Errorf("page %d: %d items", page, len(p.Items))
				}
				return err
			}
			rawRead := func() error {
				ids, err := e.c.ZRevRange(e.ctx, e.s.keys.Score(), int64((page-1)*size), int64(page*size-1)).Result()
				if err != nil {
					return err
				}
				pipe := e.c.Pipeline()
				for _, id := range ids {
					pipe.HGetAll(e.ctx, e.s.keys.Article(id))
				}
				_, err = pipe.Exec(e.ctx)
				return err
			}
			// The first read of a page's data is slower (CPU caches), so
			// which way reads first rotates.
			switch i % 3 {
			case 0:
				e.s.guesses.forget()
				timed(&cold, &coldUs, list)
				timed(&warm, &warmUs, list)
				timed(&raw, &rawUs, rawRead)
			case 1:
				timed(&raw, &rawUs, rawRead)
				e.s.guesses.forget()
				timed(&cold, &coldUs, list)
				timed(&warm, &warmUs, list)
			case 2:
				list() // untimed: remembers the page
				timed(&warm, &warmUs, list)
				timed(&raw, &rawUs, rawRead)
				e.s.guesses.forget()
				timed(&cold, &coldUs, list)
			}
		}
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	n := float64(requests * b.N)
	p50, p99 := percentile(warm, 0.50), percentile(warm, 0.99)
	c50, c99 := percentile(cold, 0.50), percentile(cold, 0.99)
	r50, r99 := percentile(raw, 0.50), percentile(raw, 0.99)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(c50), "first-p50-ms")
	b.ReportMetric(ms(c99), "first-p99-ms")
	b.ReportMetric(ms(r50), "raw-p50-ms")
	b.ReportMetric(ms(r99), "raw-p99-ms")
	b.ReportMetric(ms(percentile(ping, 0.5)), "ping-p50-ms")
	b.ReportMetric(warmUs/n, "server-us/page")
	b.ReportMetric(rawUs/n, "raw-server-us/page")
	b.Logf("page of %d by score: p50 %.3f ms, p99 %.3f ms (read again: one round trip); first read p50 %.3f ms, p99 %.3f ms (two); ZREVRANGE+pipelined HGETALL: p50 %.3f ms, p99 %.3f ms (two); PING p50 %.3f ms",
		size, ms(p50), ms(p99), ms(c50), ms(c99), ms(r50), ms(r99), ms(percentile(ping, 0.5)))
	b.Logf("redis-server time per page: %.0f µs read again, %.0f µs first read, %.0f µs ZREVRANGE+HGETALL", warmUs/n, coldUs/n, rawUs/n)
}

// BenchmarkMemoryPerArticle: Redis memory per article at 100,000 articles
// (used_memory after − before, divided by 100,000), for articles without
// and with a summary and image. A hash value over 64 bytes (the summary)
// turns the hash from a compact listpack into a hashtable; the third case
// runs a server with hash-max-listpack-value 512 to show what that setting
// saves. Baseline: the same fields by raw HSET+ZADD (no score:, votes: or
// expiry). Reported, no target.
func BenchmarkMemoryPerArticle(b *testing.B) {
	const n = 100_000
	for _, tc := range []struct {
		name    string
		summary bool
		args    []string
	}{
		{"short", false, nil},
		{"summary", true, nil},
		{"summary-listpack512", true, []string{"--hash-max-listpack-value", "512"}},
	} {
		e := newBenchEnv(b, tc.args...)
		as := make([]Article, n)
		for i := range as {
			as[i] = benchArticle(i, tc.summary)
		}
		var ours, raw float64
		for range b.N {
			e.flush(b)
			before := redistest.UsedMemory(b, e.c)
			if err := batches(n, 500, func(lo, hi int) error {
				_, err := e.s.IngestBatch(e.ctx, as[lo:hi])
				return err
			}); err != nil {
				b.Fatal(err)
			}
			ours = float64(redistest.UsedMemory(b, e.c)-before) / n
			e.flush(b)
			before = redistest.UsedMemory(b, e.c)
			if err := batches(n, 500, func(lo, hi int) error { return rawIngest(e.ctx, e.c, e.s.keys, as[lo:hi]) }); err != nil {
				b.Fatal(err)
			}
			raw = float64(redistest.UsedMemory(b, e.c)-before) / n
		}
		b.ReportMetric(ours, tc.name+"-bytes/article")
		b.ReportMetric(raw, tc.name+"-raw-bytes/article")
		b.Logf("%s articles: %.0f bytes/article (raw HSET+ZADD %.0f)", tc.name, ours, raw)
	}
}

// rawRefresh is the refresh baseline: each item's comment count and votes
// by HSET and its votes: and score: by ZADD, pipelined, written blind (no
// existence, URL or window check, no comparison with the stored count, the
// score computed by the caller from a post time it already knows).
func rawRefresh(ctx context.Context, c *redis.Client, k keyspace, as []Article, es []Engagement) error {
	pipe := c.Pipeline()
	for i, e := range es {
		id := ID(e.URL)
		pipe.HSet(ctx, k.Article(id), "comments", e.Comments, "votes", e.Comments)
		pipe.ZAdd(ctx, k.Votes(), redis.Z{Score: float64(e.Comments), Member: id})
		pipe.ZAdd(ctx, k.Score(), redis.Z{Score: float64(as[i].PostTime.Unix()) + 432*float64(e.Comments), Member: id})
	}
	_, err := pipe.Exec(ctx)
	return err
}

// BenchmarkRefresh: the producer's refresh of comment counts from list
// pages. 10,000 stored articles; 10 rounds, each 10 list pages of 100
// items with new counts, Refresh against the blind pipelined baseline
// (rawRefresh) page for page in turn; the ratio is the median over the
// rounds. Then the same pages again with the same counts (no change: what
// most items of a list read again carry), reported as a rate. Target:
// ratio >= 0.5 (a refresh reads each article's hash and checks it before
// writing).
func BenchmarkRefresh(b *testing.B) {
	const n, page, rounds = 10_000, 100, 10
	e := newBenchEnv(b)
	rawKeys := newKeyspace("bench-raw:")
	as := make([]Article, n)
	for i := range as {
		as[i] = benchArticle(i, false)
		as[i].Comments = 1
	}
	var raw, ours, same time.Duration
	var ratios []float64
	for range b.N {
		e.flush(b)
		if err := batches(n, 100, func(lo, hi int) error {
			if err := rawIngest(e.ctx, e.c, rawKeys, as[lo:hi]); err != nil {
				return err
			}
			_, err := e.s.IngestBatch(e.ctx, as[lo:hi])
			return err
		}); err != nil {
			b.Fatal(err)
		}
		es := make([]Engagement, n)
		for i, a := range as {
			es[i] = Engagement{URL: a.URL, Comments: int64(2 + i%700)}
		}
		per := n / rounds
		for r := range rounds {
			var rawR, oursR time.Duration
			if err := batches(per, page, func(lo, hi int) error {
				lo, hi = lo+r*per, hi+r*per
				start := time.Now()
				if err := rawRefresh(e.ctx, e.c, rawKeys, as[lo:hi], es[lo:hi]); err != nil {
					return err
				}
				rawR += time.Since(start)
				start = time.Now()
				got, err := e.s.Refresh(e.ctx, es[lo:hi])
				oursR += time.Since(start)
				if err == nil && got != hi-lo {
					err = fmt.Errorf("refreshed %d of %d", got, hi-lo)
				}
				return err
			}); err != nil {
				b.Fatal(err)
			}
			raw += rawR
			ours += oursR
			ratios = append(ratios, rawR.Seconds()/oursR.Seconds())
		}
		start := time.Now()
		if err := batches(n, page, func(lo, hi int) error {
			got, err := e.s.Refresh(e.ctx, es[lo:hi])
			if err == nil && got != 0 {
				err = fmt.Errorf("refreshed %d unchanged articles", got)
			}
			return err
		}); err != nil {
			b.Fatal(err)
		}
		same += time.Since(start)
	}
	rawRate := float64(n*b.N) / raw.Seconds()
	ourRate := float64(n*b.N) / ours.Seconds()
	sameRate := float64(n*b.N) / same.Seconds()
	slices.Sort(ratios)
	ratio := ratios[len(ratios)/2]
	b.ReportMetric(rawRate, "raw-items/s")
	b.ReportMetric(ourRate, "refresh-items/s")
	b.ReportMetric(sameRate, "unchanged-items/s")
	b.ReportMetric(ratio, "ratio")
	b.Logf("refresh %.0f items/s (unchanged %.0f/s), blind HSET+ZADD×2 %.0f/s: median ratio %.2f (rounds %.2f..%.2f; target >= 0.5)",
		ourRate, sameRate, rawRate, ratio, ratios[0], ratios[len(ratios)-1])
}
