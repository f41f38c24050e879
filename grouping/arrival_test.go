package grouping

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
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

// arrivalOrder is the order in which s's articles arrive when each
// comes a uniform delay of up to jitter after its post time: the
// articles sorted by post time plus delay (ties in the set's order).
// The delays are drawn from a PCG started from n, so order n is the
// same on every run.
func arrivalOrder(s *coverage.Set, jitter time.Duration, n uint64) []int {
	r := rand.New(rand.NewPCG(n, 0x6e657773))
	at := make([]int64, len(s.Articles))
	order := make([]int, len(s.Articles))
	for i, a := range s.Articles {
		at[i] = a.Published.Unix() + r.Int64N(int64(jitter/time.Second)+1)
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(at[a], at[b]) })
	return order
}

func TestArrivalOrder(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := arrivalOrder(set, 0, 1), set.ByPublished(); !slices.Equal(got, want) {
		t.Error("with no delay the arrival order is not the publication order")
	}
	a, b := arrivalOrder(set, time.Hour, 1), arrivalOrder(set, time.Hour, 1)
	if !slices.Equal(a, b) {
		t.Error("one order number gave two orders")
	}
	if slices.Equal(a, set.ByPublished()) {
		t.Error("an hour's delays left the publication order as it was")
	}
	for i := 1; i < len(a); i++ {
		if d := set.Articles[a[i-1]].Published.Sub(set.Articles[a[i]].Published); d > time.Hour {
			t.Fatalf("article %d arrives before one published %v earlier, beyond the hour's delay", a[i-1], d)
		}
	}
}

// BenchmarkStoryArrival groups each half of the labelled coverage set
// in memory (DefaultParams) in arrival orders whose delays reach 1, 6
// and 24 hours (arrivalOrder, orders 1-5), and reports per delay the
// median pair F1 and look-alike pairs merged over the orders (f1-1h,
// lookalikes-1h, ...), each order's figures in the log. The window is
// the set's span and two days, so that no report falls out of it.
func BenchmarkStoryArrival(b *testing.B) {
	set, err := coverage.Load()
	if err != nil {
		b.Fatal(err)
	}
	window := set.Window()
	for _, split := range []string{coverage.HeldOut, coverage.Tune} {
		b.Run(split, func(b *testing.B) {
			s := set.Split(split)
			for range b.N {
				for _, jitter := range []time.Duration{time.Hour, 6 * time.Hour, 24 * time.Hour} {
					var f1, merged []float64
					for n := uint64(1); n <= 5; n++ {
						q, err := s.Measure(groupIn(s, DefaultParams, arrivalOrder(s, jitter, n), window))
						if err != nil {
							b.Fatal(err)
						}
						f1 = append(f1, q.F1)
						merged = append(merged, float64(q.LookAlikesMerged))
						b.Logf("%s, delays up to %v, order %d: %s", split, jitter, n, q)
					}
					slices.Sort(f1)
					slices.Sort(merged)
					h := strconv.Itoa(int(jitter.Hours())) + "h"
					b.ReportMetric(f1[len(f1)/2], "f1-"+h)
					b.ReportMetric(merged[len(merged)/2], "lookalikes-"+h)
				}
			}
		})
	}
}
