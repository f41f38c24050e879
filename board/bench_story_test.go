package board

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
)

// fillBoard puts members users with random scores (0..499) on key.
func fillBoard(b *testing.B, c redis.UniversalClient, key string, members int, rng *rand.Rand) {
	b.Helper()
	ctx := context.Background()
	for chunk := range slices.Chunk(rng.Perm(members), 1000) {
		pipe := c.Pipeline()
		for _, i := range chunk {
			pipe.ZAdd(ctx, key, redis.Z{Member: fmt.Sprintf("user%d", i), Score: float64(1 + rng.IntN(500))})
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// latencies runs f calls times and returns its latencies, sorted.
func latencies(b *testing.B, calls int, f func() error) []time.Duration {
	b.Helper()
	lat := make([]time.Duration, 0, calls)
	for range calls {
		t0 := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	return lat
}

// p50 runs f calls times and returns its median latency in ms.
func p50(b *testing.B, calls int, f func() error) float64 {
	b.Helper()
	lat := latencies(b, calls, f)
	return float64(lat[len(lat)/2]) / float64(time.Millisecond)
}

// BenchmarkArchiveAndMovement measures a period's archive (the top
// board.archive_top of a closed board of 100,000 users: MEMORY USAGE of
// its key) and the cost of movement next to the raw commands it
// replaces: Movements of one user against one ZREVRANK, and
// TopMovements(30) against a pipelined ZREVRANGE of 30 plus 30 ZREVRANKs
// on the day before. Reported, no target.
func BenchmarkArchiveAndMovement(b *testing.B) {
	const members, calls = 100_000, 2_000
	s := redistest.Start(b)
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true})
	defer c.Close()
	ctx := context.Background()
	cfg := DefaultOptions()
	cfg.Location = time.UTC
	clk := clock.NewFake(time.Date(2024, 2, 1, 1, 0, 0, 0, time.UTC))
	act, err := NewActivity(c, testPrefix, cfg, WithClock(clk))
	if err != nil {
		b.Fatal(err)
	}
	prev, cur := act.keys.day("2024-01-30"), act.keys.day("2024-01-31")
	rng := rand.New(rand.NewPCG(5, 6))
	fillBoard(b, c, prev, members, rng)
	fillBoard(b, c, cur, members, rng)
	date := time.Date(2024, 1, 31, 12, 0, 0, 0, time.UTC)
	var bytes100, bytes1000, rawOne, oneMove, rawTop, topMove float64
	for range b.N {
		for _, top := range []int{100, 1000} {
			ak := act.keys.archive(Day, "2024-01-30")
			c.Del(ctx, ak)
			act.archiveTop = top
			if rep, err := act.Archive(ctx); err != nil || rep.Archived != 1 {
				b.Fatalf("Archive = %+v %v", rep, err)
			}
			n := float64(c.MemoryUsage(ctx, ak, 0).Val())
			if top == 100 {
				bytes100 = n
			} else {
				bytes1000 = n
			}
		}
		rawOne = p50(b, calls, func() error { return c.ZRevRank(ctx, prev, "user42").Err() })
		oneMove = p50(b, calls, func() error {
			_, err := act.Movements(ctx, Day, date, []string{"user42"})
			return err
		})
		rawTop = p50(b, calls, func() error {
			users, err := c.ZRevRange(ctx, cur, 0, 29).Result()
			if err != nil {
				return err
			}
			pipe := c.Pipeline()
			for _, u := range users {
				pipe.ZRevRank(ctx, prev, u)
			}
			_, err = pipe.Exec(ctx)
			if err == redis.Nil {
				err = nil
			}
			return err
		})
		topMove = p50(b, calls, func() error {
			m, err := act.TopMovements(ctx, Day, date, 30)
			if err == nil && len(m.Entries) != 30 {
				err = fmt.Errorf("%d entries", len(m.Entries))
			}
			return err
		})
	}
	b.ReportMetric(bytes100, "archive-top100-bytes")
	b.ReportMetric(bytes1000, "archive-top1000-bytes")
	b.ReportMetric(oneMove/rawOne, "movement-vs-zrevrank")
	b.ReportMetric(topMove/rawTop, "topmovements-vs-raw")
	b.Logf("archive of a %d-user day: %.0f bytes at archive_top 100 (%.1f MB for 730 days and 24 months), %.0f at 1000; p50 Movements(1 user) %.3f ms vs ZREVRANK %.3f ms (ratio %.2f); TopMovements(30) %.3f ms vs ZREVRANGE 30 + 30 pipelined ZREVRANK (2 round trips) %.3f ms (ratio %.2f)",
		members, bytes100, bytes100*(730+24)/1e6, bytes1000, oneMove, rawOne, oneMove/rawOne, topMove, rawTop, topMove/rawTop)
}
