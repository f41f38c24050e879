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
)

// BenchmarkClaimAck measures claim+ack throughput, batched, against the
// original's raw set queue on the same redis-server: SPOP n from the
// waiting set and SADD the URLs to the done set (which loses a URL when a
// worker dies). The same 8 consumers drain the same 30,000 URLs in
// batches of 16 either way, in 7 alternating rounds; the figures are the
// medians. It also reports the redis-server CPU time per URL (INFO cpu),
// which other load on the machine disturbs less than throughput.
//
// Target: ratio (newsrank / baseline URLs per second) >= 0.5.
func BenchmarkClaimAck(b *testing.B) {
	const total, consumers, batch = 30_000, 8, 16
	ctx := context.Background()
	_, c := newServer(b)
	urls := testURLs(total)

	drain := func(step func() (int, error)) (float64, []time.Duration) {
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			lat  []time.Duration
			errs []error
		)
		start := time.Now()
		b.StartTimer()
		defer b.StopTimer()
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
		if len(errs) > 0 {
			b.Fatal(errs[0])
		}
		return total / time.Since(start).Seconds(), lat
	}

	for range b.N {
		// Rounds alternate baseline and newsrank so that load from other
		// processes hits both alike; the figures are the medians.
		const rounds = 7
		var baseRates, ourRates, ratios, baseCPU, ourCPU []float64
		var baseLat, ourLat []time.Duration
		for r := range rounds {
			c.FlushAll(ctx)
			// baseline: the original's SET queue
			raw, done := "bench:waiting", "bench:done"
			for i := 0; i < total; i += 1000 {
				c.SAdd(ctx, raw, toArgs(urls[i:i+1000])...)
			}
			cpu0 := redisCPU(b, c)
			baseRate, lat := drain(func() (int, error) {
				got, err := c.SPopN(ctx, raw, batch).Result()
				if err != nil || len(got) == 0 {
					return 0, err
				}
				return len(got), c.SAdd(ctx, done, toArgs(got)...).Err()
			})
			baseLat = append(baseLat, lat...)
			baseCPU = append(baseCPU, (redisCPU(b, c)-cpu0)/total*1e6)

			q := newQueue(c, "bench", testConfig())
			if _, err := q.Push(ctx, urls...); err != nil {
				b.Fatal(err)
			}
			cpu0 = redisCPU(b, c)
			ourRate, lat := drain(func() (int, error) {
				got, err := q.TryClaim(ctx, batch, time.Minute)
				if err != nil || len(got) == 0 {
					return 0, err
				}
				return len(got), q.Ack(ctx, got...)
			})
			ourLat = append(ourLat, lat...)
			ourCPU = append(ourCPU, (redisCPU(b, c)-cpu0)/total*1e6)
			if st := mustStats(b, q); st.Done != total {
				b.Fatalf("newsrank queue: %+v, want %d done", st, total)
			}
			if r == 0 {
				if enc := c.ObjectEncoding(ctx, q.leaseKey()).Val(); enc != "skiplist" {
					b.Errorf("lease set encoding %q, want skiplist", enc)
				}
			}
			baseRates = append(baseRates, baseRate)
			ourRates = append(ourRates, ourRate)
			ratios = append(ratios, ourRate/baseRate)
		}
		baseRate, ourRate, ratio := median(baseRates), median(ourRates), median(ratios)
		b.ReportMetric(baseRate, "baseline-urls/s")
		b.ReportMetric(ourRate, "newsrank-urls/s")
		b.ReportMetric(ratio, "ratio")
		b.ReportMetric(median(baseCPU), "baseline-redis-cpu-us/url")
		b.ReportMetric(median(ourCPU), "newsrank-redis-cpu-us/url")
		b.ReportMetric(pct(baseLat, 50), "baseline-p50-ms")
		b.ReportMetric(pct(ourLat, 50), "newsrank-p50-ms")
		b.ReportMetric(pct(ourLat, 99), "newsrank-p99-ms")
		b.Logf("claim+ack of %d URLs by %d consumers, batches of %d, median of %d rounds: newsrank %.0f URLs/s, SPOP+SADD baseline %.0f URLs/s, ratio %.2f (target >= 0.5); ratios per round %.2f; redis-server CPU per URL: newsrank %.1f µs, baseline %.1f µs",
			total, consumers, batch, rounds, ourRate, baseRate, ratio, ratios, median(ourCPU), median(baseCPU))
	}
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkDoneMemory measures the memory of the done memory at 1,000,000
// URLs (INFO used_memory before and after acking them, on a fresh
// redis-server), against the original's done: SET of full URLs.
//
// Target: at most 80 bytes per URL.
func BenchmarkDoneMemory(b *testing.B) {
	const total = 1_000_000
	ctx := context.Background()
	for range b.N {
		_, c := newServer(b)
		cfg := testConfig()
		cfg.DoneCapacity = total
		q := newQueue(c, "memory", cfg)
		url := func(i int) string {
			return "https://news.example.com/2024/05/" + strconv.Itoa(i%31+1) + "/article-" + strconv.Itoa(i) + ".html"
		}

		before := usedMemory(b, c)
		b.ResetTimer()
		batch := make([]string, 0, scriptBatch)
		for i := range total {
			batch = append(batch, url(i))
			if len(batch) == scriptBatch {
				if err := q.Ack(ctx, batch...); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		b.StopTimer()
		ours := float64(usedMemory(b, c)-before) / total
		if st := mustStats(b, q); st.Done != total {
			b.Fatalf("done = %d, want %d", st.Done, total)
		}
		// Every bucket should be a listpack: look at a sample.
		s := q.span(q.now())
		nonCompact := 0
		for bk := uint32(0); bk < doneBuckets(total); bk += 97 {
			if enc := c.ObjectEncoding(ctx, q.doneKey(s.gcur, bk)).Val(); enc != "listpack" {
				nonCompact++
			}
		}
		// And every URL is remembered.
		if n, err := q.Push(ctx, url(0), url(total/2), url(total-1)); err != nil || n != 0 {
			b.Fatalf("push of done URLs added %d, %v", n, err)
		}

		// baseline: the original's done: SET of full URLs
		before = usedMemory(b, c)
		pipe := c.Pipeline()
		for i := range total {
			pipe.SAdd(ctx, "bench:done", url(i))
			if i%10_000 == 9_999 {
				if _, err := pipe.Exec(ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
		base := float64(usedMemory(b, c)-before) / total

		b.ReportMetric(ours, "newsrank-bytes/url")
		b.ReportMetric(base, "baseline-bytes/url")
		b.ReportMetric(ours/base, "ratio")
		b.ReportMetric(float64(nonCompact), "non-listpack-buckets-sampled")
		b.Logf("done memory at %d URLs: newsrank %.1f bytes/URL (%d buckets, %d of every 97th not listpack), SET of URLs %.1f bytes/URL (target <= 80)",
			total, ours, doneBuckets(total), nonCompact, base)
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

func usedMemory(b testing.TB, c *redis.Client) int64 {
	b.Helper()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("INFO memory has no used_memory")
	return 0
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
