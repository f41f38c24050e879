package grouping

import (
	"flag"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/coverage"
)

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

// TestReplayTable logs, for the tuning half in each of its CrawlOrders,
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
	for _, o := range s.CrawlOrders(3) {
		story, cs := onlinePassIn(s, DefaultParams, o.Order, window)
		q, err := s.Measure(story)
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("%-12s online %.3f / %d", o.Name, q.F1, q.LookAlikesMerged)
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
