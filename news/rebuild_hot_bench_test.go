package news

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
)

// BenchmarkRebuildHot rebuilds score: with the hot formula for 1,000,000
// articles (the data of BenchmarkRebuild) and times, in the same run, the
// raw pipelined ZADDs it is held to (rawZAdds). It reports the slowest
// server call and, in the log, Redis's INFO commandstats for the rebuild:
// where the server's time goes, and the CPU time redis-server and this
// process spent on the rebuild. It runs only with NEWSRANK_BENCH_HOT=1 (it
// repeats BenchmarkRebuild's (d), so make bench skips it):
// NEWSRANK_BENCH_HOT=1 go test -p 1 -run '^$' -bench 'RebuildHot' -benchtime 1x -v ./news/
func BenchmarkRebuildHot(b *testing.B) {
	if os.Getenv("NEWSRANK_BENCH_HOT") != "1" {
		b.Skip("set NEWSRANK_BENCH_HOT=1 to profile the hot rebuild of 1,000,000 articles")
	}
	ctx := context.Background()
	s := redistest.Start(b)
	c := s.Client()
	now := time.Now()
	hot := benchStore(b, c, "hot", clock.NewFake(now))
	populate(b, c, hot.keys, benchArticles, now, week)
	b.ResetTimer()
	for range b.N {
		rawOne, rawMulti := rawZAdds(b, c)
		slowlogReset(b, c)
		if err := c.ConfigResetStat(ctx).Err(); err != nil {
			b.Fatal(err)
		}
		cpu0, own0 := redisCPU(b, c), ownCPU()
		t := time.Now()
		res, err := hot.Rebuild(ctx, RebuildOptions{})
		if err != nil || res.Articles != benchArticles {
			b.Fatalf("hot rebuild: %+v, %v", res, err)
		}
		took := time.Since(t)
		cpu, own := redisCPU(b, c)-cpu0, ownCPU()-own0
		us, cmd, over := serverSlowCalls(b, c)
		b.Logf("INFO commandstats:\n%s", commandStats(b, c))
		b.ReportMetric(took.Seconds(), "hot-s")
		b.ReportMetric(took.Seconds()/rawOne.Seconds(), "hot/rawzadd1")
		b.ReportMetric(took.Seconds()/rawMulti.Seconds(), "hot/rawzadd500")
		b.ReportMetric(float64(us)/1000, "max-call-ms")
		b.ReportMetric(cpu.Seconds(), "redis-cpu-s")
		b.ReportMetric(own.Seconds(), "go-cpu-s")
		b.Logf("hot rebuild of %d articles: %s in %d batches (%.2fx raw 1-member ZADDs %s, %.2fx 500-member ZADDs %s); slowest server call %.2f ms (%s), %d over 10 ms; load average %s",
			benchArticles, took.Round(time.Millisecond), res.Batches, took.Seconds()/rawOne.Seconds(), rawOne.Round(time.Millisecond),
			took.Seconds()/rawMulti.Seconds(), rawMulti.Round(time.Millisecond), float64(us)/1000, cmd, over, loadavg())
	}
}

// commandStats is INFO commandstats without the commands that took no
// time worth reading (under 1 ms in all).
func commandStats(b *testing.B, c *redis.Client) string {
	b.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var keep []string
	for _, line := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(line, "cmdstat_") && !strings.Contains(line, "usec=0,") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// redisCPU is redis-server's CPU time so far (INFO cpu, user + system).
func redisCPU(b *testing.B, c *redis.Client) time.Duration {
	b.Helper()
	info, err := c.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, line := range strings.Split(info, "\r\n") {
		for _, f := range []string{"used_cpu_sys:", "used_cpu_user:"} {
			if v, ok := strings.CutPrefix(line, f); ok {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					b.Fatal(err)
				}
				total += x
			}
		}
	}
	return time.Duration(total * float64(time.Second))
}

// ownCPU is this process's CPU time so far (user + system).
func ownCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
