package grouping

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/coverage"
)

// A crawl does not bring reports in the order they were published: a
// feed lists its newest first, sources are polled minutes to hours
// apart, a first crawl reads days of a site's back pages at once. The
// online pass is not indifferent to the order (the first report of a
// story names it and files it under its terms; a story's centroid is
// what came first), so its figures in publication order are the best
// case. BenchmarkStoryArrival measures the set in arrival orders.

// BenchmarkStoryArrival groups each half of the labelled coverage set
// in memory (DefaultParams) in arrival orders whose delays reach 1, 6
// and 24 hours (coverage.Set.ArrivalOrder, orders 1-5), reversed (a site's back pages
// newest first) and shuffled (CrawlOrders' shuffles 1-3), and reports
// per kind of order the median pair F1 and look-alike pairs merged over
// its orders, after the online pass (f1-1h, lookalikes-1h, ...) and after
// one run of the regroup job, the replay (f1-1h-job, lookalikes-1h-job,
// ...), each order's figures in the log. The window is the set's span and
// two days, so that no report falls out of it.
func BenchmarkStoryArrival(b *testing.B) {
	set, err := coverage.Load()
	if err != nil {
		b.Fatal(err)
	}
	window := set.Window()
	job := RegroupOptions{Margin: DefaultMargin, MergeMargin: DefaultMergeMargin, Window: window, Replay: true}
	for _, split := range []string{coverage.HeldOut, coverage.Tune} {
		b.Run(split, func(b *testing.B) {
			s := set.Split(split)
			kinds := []struct {
				name   string
				orders [][]int
			}{{name: "1h"}, {name: "6h"}, {name: "24h"}, {name: "reversed"}, {name: "shuffled"}}
			for k, jitter := range []time.Duration{time.Hour, 6 * time.Hour, 24 * time.Hour} {
				for n := uint64(1); n <= 5; n++ {
					kinds[k].orders = append(kinds[k].orders, s.ArrivalOrder(jitter, n))
				}
			}
			for _, o := range s.CrawlOrders(3) {
				switch {
				case o.Name == "reversed":
					kinds[3].orders = append(kinds[3].orders, o.Order)
				case strings.HasPrefix(o.Name, "shuffled"):
					kinds[4].orders = append(kinds[4].orders, o.Order)
				}
			}
			for range b.N {
				for _, kind := range kinds {
					var f1, merged, f1Job, mergedJob []float64
					for n, order := range kind.orders {
						story, cs := onlinePassIn(s, DefaultParams, order, window)
						q, err := s.Measure(story)
						if err != nil {
							b.Fatal(err)
						}
						qj, err := s.Measure(applyPlan(story, DefaultParams.Regroup(cs, job)))
						if err != nil {
							b.Fatal(err)
						}
						f1, merged = append(f1, q.F1), append(merged, float64(q.LookAlikesMerged))
						f1Job, mergedJob = append(f1Job, qj.F1), append(mergedJob, float64(qj.LookAlikesMerged))
						b.Logf("%s, %s, order %d: %s", split, kind.name, n+1, q)
						b.Logf("%s, %s, order %d, after the regroup job: %s", split, kind.name, n+1, qj)
					}
					b.ReportMetric(median(f1), "f1-"+kind.name)
					b.ReportMetric(median(merged), "lookalikes-"+kind.name)
					b.ReportMetric(median(f1Job), "f1-"+kind.name+"-job")
					b.ReportMetric(median(mergedJob), "lookalikes-"+kind.name+"-job")
				}
			}
		})
	}
}

// median returns the median of xs (the upper one of an even count).
func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}
