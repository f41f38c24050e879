package queue

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/redistest"
)

// BenchmarkClaimAck measures claim+ack throughput, batched, against a
// bare set queue on the same redis-server: SPOP n from the
// waiting set and SADD the URLs to the done set (which loses a URL when a
// worker dies). Both sides drain the same 30,000 URLs with the same 8
// consumers, the same batch size and the same two round trips per batch
// (claim, then ack; no pipelining on either side), in 15 rounds that
// alternate which side goes first, so load from other processes hits both
// alike; the figures are the medians, and ratio-min and ratio-max give the
// range over the rounds. It also reports CPU time per URL of redis-server
// (INFO cpu) and of this process (the client side), which other load on
// the machine disturbs less than throughput.
//
// The headline is batch=16; batch=8 is the default claim_batch, and
// batch=1 and batch=64 show how the ratio moves with the batch: a fixed
// cost per round trip, which both sides pay, weighs less as batches grow,
// leaving the cost per URL, which is higher for newsrank (lease set, done
// memory, Lua).
//
// Target: ratio (newsrank / baseline URLs per second) >= 0.5.
func BenchmarkClaimAck(b *testing.B) {
	_, c := newServer(b)
	for _, batch := range []int{16, 8, 1, 64} {
		b.Run("batch="+strconv.Itoa(batch), func(b *testing.B) { benchClaimAck(b, c, batch) })
	}
}

func benchClaimAck(b *testing.B, c *redis.Client, batch int) {
	const consumers, rounds = 8, 15
	total := 30_000
	if batch == 1 {
		total = 10_000 // a round trip per URL: keep the rounds short
	}
	ctx := context.Background()
	urls := testURLs(total)

	// drain runs the consumers until step returns 0 and returns the URLs
	// per second, the latencies of step, and the CPU seconds redis-server
	// and this process used.
	drain := func(step func() (int, error)) (rate float64, lat []time.Duration, redisSec, selfSec float64) {
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			errs []error
		)
		redis0, self0 := redisCPU(b, c), processCPU()
		start := time.Now()
		b.StartTimer()
		for range consumers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mine []time.Duration
				for {
					t0 := time.Now()
					n, err := step()
					if err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
						return
					}
					if n == 0 {
						break
					}
					mine = append(mine, time.Since(t0))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		b.StopTimer()
		rate = float64(total) / time.Since(start).Seconds()
		if len(errs) > 0 {
			b.Fatal(errs[0])
		}
		return rate, lat, redisCPU(b, c) - redis0, processCPU() - self0
	}

	baseline := func() (float64, []time.Duration, float64, float64) {
		raw, done := "bench:waiting", "bench:done"
		for i := 0; i < total; i += 1000 {
			c.SAdd(ctx, raw, toArgs(urls[i:min(i+1000, total)])...)
		}
		return drain(func() (int, error) {
			got, err := c.SPopN(ctx, raw, int64(batch)).Result()
			if err != nil || len(got) == 0 {
				return 0, err
			}
			return len(got), c.SAdd(ctx, done, toArgs(got)...).Err()
		})
	}
	ours := func() (float64, []time.Duration, float64, float64) {
		q := newQueue(c, "bench", testConfig())
		if _, err := q.Push(ctx, urls...); err != nil {
			b.Fatal(err)
		}
		rate, lat, rs, ss := drain(func() (int, error) {
			got, err := q.TryClaim(ctx, batch, time.Minute)
			if err != nil || len(got) == 0 {
				return 0, err
			}
			return len(got), q.Ack(ctx, got...)
		})
		if st := mustStats(b, q); st.Done != int64(total) {
			b.Fatalf("newsrank queue: %+v, want %d done", st, total)
		}
		if enc := c.ObjectEncoding(ctx, q.leaseKey()).Val(); enc != "skiplist" {
			b.Errorf("lease set encoding %q, want skiplist", enc)
		}
		return rate, lat, rs, ss
	}

	b.StopTimer()
	for range b.N {
		var baseRates, ourRates, ratios, baseCPU, ourCPU, baseSelf, ourSelf []float64
		var baseLat, ourLat []time.Duration
		for r := range rounds {
			c.FlushAll(ctx)
			var br, or, brs, ors, bss, oss float64
			var bl, ol []time.Duration
			if r%2 == 0 {
				br, bl, brs, bss = baseline()
				or, ol, ors, oss = ours()
			} else {
				or, ol, ors, oss = ours()
				br, bl, brs, bss = baseline()
			}
			baseRates, ourRates, ratios = append(baseRates, br), append(ourRates, or), append(ratios, or/br)
			baseCPU, ourCPU = append(baseCPU, brs/float64(total)*1e6), append(ourCPU, ors/float64(total)*1e6)
			baseSelf, ourSelf = append(baseSelf, bss/float64(total)*1e6), append(ourSelf, oss/float64(total)*1e6)
			baseLat, ourLat = append(baseLat, bl...), append(ourLat, ol...)
		}
		ratio := median(ratios)
		b.ReportMetric(median(baseRates), "baseline-urls/s")
		b.ReportMetric(median(ourRates), "newsrank-urls/s")
		b.ReportMetric(ratio, "ratio")
		b.ReportMetric(slices.Min(ratios), "ratio-min")
		b.ReportMetric(slices.Max(ratios), "ratio-max")
		b.ReportMetric(median(baseCPU), "baseline-redis-cpu-us/url")
		b.ReportMetric(median(ourCPU), "newsrank-redis-cpu-us/url")
		b.ReportMetric(median(baseSelf), "baseline-client-cpu-us/url")
		b.ReportMetric(median(ourSelf), "newsrank-client-cpu-us/url")
		b.ReportMetric(pct(baseLat, 50), "baseline-p50-ms")
		b.ReportMetric(pct(ourLat, 50), "newsrank-p50-ms")
		b.ReportMetric(pct(ourLat, 99), "newsrank-p99-ms")
		slices.Sort(ratios)
		b.Logf("claim+ack of %d URLs by %d consumers, batches of %d, median of %d rounds: newsrank %.0f URLs/s, SPOP+SADD baseline %.0f URLs/s, ratio %.2f (target >= 0.5), rounds' ratios sorted %.2f; CPU per URL: redis-server newsrank %.1f µs, baseline %.1f µs; client newsrank %.1f µs, baseline %.1f µs",
			total, consumers, batch, rounds, median(ourRates), median(baseRates), ratio, ratios,
			median(ourCPU), median(baseCPU), median(ourSelf), median(baseSelf))
	}
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkDoneMemory measures the memory of the done memory at 1,000,000
// URLs (INFO used_memory before and after acking them, on a fresh
// redis-server), against a done: SET of full URLs. A
// generation is one Redis hash, whose bucket array doubles at each power
// of two and is moved to the new array a little at each write: it also
// reports the figure at 1,100,000 URLs, just past 2^20, where both arrays
// are held, the most a URL costs.
//
// Target: at most 80 bytes per URL.
func BenchmarkDoneMemory(b *testing.B) {
	const total, past = 1_000_000, 1_100_000
	ctx := context.Background()
	for range b.N {
		_, c := newServer(b)
		q := newQueue(c, "memory", testConfig())
		url := func(i int) string {
			return "https://news.example.com/2024/05/" + strconv.Itoa(i%31+1) + "/article-" + strconv.Itoa(i) + ".html"
		}

		before := redistest.UsedMemory(b, c)
		ack := func(from, to int) {
			batch := make([]string, 0, scriptBatch)
			for i := from; i < to; i++ {
				batch = append(batch, url(i))
				if len(batch) == scriptBatch || i == to-1 {
					if err := q.Ack(ctx, batch...); err != nil {
						b.Fatal(err)
					}
					batch = batch[:0]
				}
			}
		}
		b.ResetTimer()
		ack(0, total)
		b.StopTimer()
		ours := float64(redistest.UsedMemory(b, c)-before) / total
		if st := mustStats(b, q); st.Done != total {
			b.Fatalf("done = %d, want %d", st.Done, total)
		}
		// And every URL is remembered.
		if n, err := q.Push(ctx, url(0), url(total/2), url(total-1)); err != nil || n != 0 {
			b.Fatalf("push of done URLs added %d, %v", n, err)
		}
		ack(total, past)
		oursPast := float64(redistest.UsedMemory(b, c)-before) / past

		// baseline: a done: SET of full URLs
		before = redistest.UsedMemory(b, c)
		pipe := c.Pipeline()
		for i := range total {
			pipe.SAdd(ctx, "bench:done", url(i))
			if i%10_000 == 9_999 {
				if _, err := pipe.Exec(ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
		base := float64(redistest.UsedMemory(b, c)-before) / total

		b.ReportMetric(ours, "newsrank-bytes/url")
		b.ReportMetric(oursPast, "newsrank-bytes/url-at-1.1M")
		b.ReportMetric(base, "baseline-bytes/url")
		b.ReportMetric(ours/base, "ratio")
		b.Logf("done memory at %d URLs: newsrank %.1f bytes/URL (%.1f at %d, both bucket arrays held), SET of URLs %.1f bytes/URL (target <= 80)",
			total, ours, oursPast, past, base)
	}
}

// redisCPU returns the CPU seconds redis-server has used (INFO cpu).
func redisCPU(b testing.TB, c *redis.Client) float64 {
	b.Helper()
	info, err := c.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	for line := range strings.SplitSeq(info, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		if k == "used_cpu_sys" || k == "used_cpu_user" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatal(err)
			}
			sum += f
		}
	}
	return sum
}

// pct returns the p-th percentile of d in milliseconds.
func pct(d []time.Duration, p int) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[min(len(s)-1, len(s)*p/100)]) / float64(time.Millisecond)
}
