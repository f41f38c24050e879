package coverage

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// ArrivalOrder is the order in which s's articles arrive when each comes
// a uniform delay of up to jitter after its post time: the articles
// sorted by post time plus delay (ties in the set's order). The delays
// are drawn from a PCG started from n, so order n is the same on every
// run.
func (s *Set) ArrivalOrder(jitter time.Duration, n uint64) []int {
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

// Order is an order a set's articles come in (indexes into Articles),
// named.
type Order struct {
	Name  string
	Order []int
}

// CrawlOrders are the orders a crawl may bring s's articles in:
// publication order, arrival orders with delays up to 1, 6 and 24 hours
// (ArrivalOrder's orders 1 to n, named "1h-1" ...), publication order
// reversed (a site's back pages read newest first) and n shuffles
// ("shuffled-1" ..., a PCG started from the shuffle's number: the same
// on every run).
func (s *Set) CrawlOrders(n int) []Order {
	out := []Order{{"publication", s.ByPublished()}}
	for _, jitter := range []time.Duration{time.Hour, 6 * time.Hour, 24 * time.Hour} {
		for k := 1; k <= n; k++ {
			out = append(out, Order{fmt.Sprintf("%dh-%d", int(jitter.Hours()), k), s.ArrivalOrder(jitter, uint64(k))})
		}
	}
	rev := s.ByPublished()
	slices.Reverse(rev)
	out = append(out, Order{"reversed", rev})
	for k := 1; k <= n; k++ {
		o := s.ByPublished()
		rand.New(rand.NewPCG(uint64(k), 0x73687566)).Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
		out = append(out, Order{fmt.Sprintf("shuffled-%d", k), o})
	}
	return out
}
