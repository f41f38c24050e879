package grouping

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/coverage"
)

// namedOrder is an order the articles of a set come in.
type namedOrder struct {
	name  string
	order []int
}

// crawlOrders are the orders a crawl may bring s's articles in:
// publication order, arrival orders with delays up to 1, 6 and 24 hours
// (arrivalOrder's orders 1 to n), publication order reversed (a site's
// back pages read newest first) and n shuffles (a PCG started from the
// shuffle's number: the same on every run).
func crawlOrders(s *coverage.Set, n int) []namedOrder {
	out := []namedOrder{{"publication", s.ByPublished()}}
	for _, jitter := range []time.Duration{time.Hour, 6 * time.Hour, 24 * time.Hour} {
		for k := 1; k <= n; k++ {
			out = append(out, namedOrder{fmt.Sprintf("%dh-%d", int(jitter.Hours()), k), arrivalOrder(s, jitter, uint64(k))})
		}
	}
	rev := s.ByPublished()
	slices.Reverse(rev)
	out = append(out, namedOrder{"reversed", rev})
	for k := 1; k <= n; k++ {
		o := s.ByPublished()
		rand.New(rand.NewPCG(uint64(k), 0x73687566)).Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
		out = append(out, namedOrder{fmt.Sprintf("shuffled-%d", k), o})
	}
	return out
}

// jobVariants are the regroup jobs measured: the centroid merges and
// moves alone (the job before the replay), the replay alone, and the
// replay then the centroid merges (the default).
func jobVariants(window time.Duration) []struct {
	name string
	o    RegroupOptions
} {
	base := RegroupOptions{Margin: DefaultMargin, MergeMargin: DefaultMergeMargin, Window: window}
	replay, merges, moves := base, base, base
	replay.Replay, replay.NoMerges = true, true
	merges.Replay, merges.NoMoves = true, true
	moves.Replay = true
	return []struct {
		name string
		o    RegroupOptions
	}{{"centroids", base}, {"replay", replay}, {"+merges", merges}, {"+moves", moves}}
}

var replayTable = flag.Bool("grouping.replay-table", false, "log the tuning half's figures in crawl orders before and after each regroup job")

// TestReplayTable logs, for the tuning half in each crawlOrders order,
// the pair F1 and look-alikes merged after the online pass and after one
// run of each jobVariants job (go test -run TestReplayTable
// -grouping.replay-table -v ./grouping/): how the job was chosen.
func TestReplayTable(t *testing.T) {
	if !*replayTable {
		t.Skip("a tuning aid: run with -grouping.replay-table")
	}
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	s := set.Split(coverage.Tune)
	window := s.Window()
	for _, o := range crawlOrders(s, 3) {
		story, cs := onlinePassIn(s, DefaultParams, o.order, window)
		q, err := s.Measure(story)
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("%-12s online %.3f / %d", o.name, q.F1, q.LookAlikesMerged)
		for _, v := range jobVariants(window) {
			plan := DefaultParams.Regroup(cs, v.o)
			after, err := s.Measure(applyPlan(story, plan))
			if err != nil {
				t.Fatal(err)
			}
			line += fmt.Sprintf(" | %s %.3f / %d (%d steps)", v.name, after.F1, after.LookAlikesMerged, len(plan.Steps))
		}
		po := jobVariants(window)[3].o
		po.MaxKeyStories = DefaultMaxKeyStories
		r, _ := DefaultParams.regrouper(cs, po)
		_, part := r.partition()
		ideal := slices.Clone(story)
		for i := range ideal {
			if l, ok := part[fmt.Sprintf("a%04d", i)]; ok {
				ideal[i] = l
			}
		}
		iq, _ := s.Measure(ideal)
		line += fmt.Sprintf(" | partition %.3f / %d", iq.F1, iq.LookAlikesMerged)
		t.Log(line)
	}
}
