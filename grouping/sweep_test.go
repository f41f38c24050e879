package grouping

import (
	"flag"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/coverage"
)

var (
	sweep       = flag.Bool("grouping.sweep", false, "sweep the parameters on the tuning half and log the figures")
	sweepMerged = flag.Bool("grouping.merged", false, "with -grouping.sweep, list the look-alike pairs merged")
)

// TestSweep logs the figures on the tuning half of variants of
// DefaultParams (go test -run TestSweep -grouping.sweep -v): how the
// parameters were chosen (bench/stories.md). Each variant is measured
// at several thresholds (F1, look-alike pairs merged), then at its own
// threshold: the pairs in two languages found and wrongly grouped, and
// the highest scores an article of a look-alike event reached against
// the other event's stories (how near they came to merging).
func TestSweep(t *testing.T) {
	if !*sweep {
		t.Skip("a tuning aid: run with -grouping.sweep")
	}
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	tune := set.Split(coverage.Tune)
	h := time.Hour
	variants := []struct {
		name string
		set  func(p *Params)
	}{
		{"default", func(p *Params) {}},
		{"first round's settings", func(p *Params) {
			p.Unseen, p.LookupKeys, p.LookupFigures = 1, 0, false
			p.Stale, p.HalfLife, p.Span, p.SpanHalfLife = 12*h, 24*h, 0, 0
			p.DayVeto, p.NameVeto, p.ActorVeto, p.FigureRescue = false, false, false, 0
			p.CrossMinSimilarity, p.CrossMinShared, p.CrossMinFigures = 0.5, 3, 0
		}},
		{"no day veto", func(p *Params) { p.DayVeto = false }},
		{"no title day veto", func(p *Params) { p.TitleDayVeto = false }},
		{"neither day veto", func(p *Params) { p.DayVeto, p.TitleDayVeto = false, false }},
		{"no name veto", func(p *Params) { p.NameVeto = false }},
		{"no actor veto", func(p *Params) { p.ActorVeto = false }},
		{"neither name nor actor veto", func(p *Params) { p.NameVeto, p.ActorVeto = false, false }},
		{"no object veto", func(p *Params) { p.ObjectVeto = false }},
		{"no CJK leading-name actor", func(p *Params) { p.Weights.CJKActor = false }},
		{"neither object veto nor CJK actor", func(p *Params) { p.ObjectVeto, p.Weights.CJKActor = false, false }},

		{"no key facts", func(p *Params) { p.KeyFacts = false }},
		{"dates in the vectors", func(p *Params) { p.DatesOut = false }},
		{"no shared name lifting the actor veto", func(p *Params) { p.SharedNameLiftsActor = false }},
		{"no CJK object", func(p *Params) { p.Weights.CJKObject = false }},
		{"CJK short names with a gap", func(p *Params) { p.Weights.CJKShortAdjacent = false }},
		{"actor anywhere in the title", func(p *Params) { p.Weights.ActorWords = 0 }},
		{"actor within 1 word", func(p *Params) { p.Weights.ActorWords = 1 }},
		{"actor within 3 words", func(p *Params) { p.Weights.ActorWords = 3 }},
		{"object in any clause", func(p *Params) { p.Weights.ObjectClause = false }},
		{"this round's rules off", func(p *Params) {
			p.KeyFacts, p.DatesOut, p.SharedNameLiftsActor = false, false, false
			p.Weights.CJKObject, p.Weights.CJKShortAdjacent, p.Weights.ActorWords, p.Weights.ObjectClause = false, false, 0, false
		}},
		{"key facts, keys 15", func(p *Params) { p.Keys = 15 }},
		{"no earlier-day veto", func(p *Params) { p.EarlierDayVeto = false }},
		{"years in the figure veto", func(p *Params) { p.YearsOut = false }},

		{"no figure rescue", func(p *Params) { p.FigureRescue = 0 }},
		{"no figure veto", func(p *Params) { p.FigureVeto = false }},
		{"no weekday veto", func(p *Params) { p.WeekdayVeto = false }},
		{"unseen 1", func(p *Params) { p.Unseen = 1 }},
		{"unseen 0.7", func(p *Params) { p.Unseen = 0.7 }},
		{"unseen 0.4", func(p *Params) { p.Unseen = 0.4 }},
		{"decay from the latest (12h, 24h)", func(p *Params) { p.Stale, p.HalfLife, p.SpanHalfLife = 12*h, 24*h, 0 }},
		{"both decays", func(p *Params) { p.Stale, p.HalfLife = 12*h, 24*h }},
		{"span 12h half 12h", func(p *Params) { p.Span, p.SpanHalfLife = 12*h, 12*h }},
		{"span 12h half 24h", func(p *Params) { p.Span, p.SpanHalfLife = 12*h, 24*h }},
		{"span 18h half 6h", func(p *Params) { p.Span, p.SpanHalfLife = 18*h, 6*h }},
		{"span 24h half 12h", func(p *Params) { p.Span, p.SpanHalfLife = 24*h, 12*h }},
		{"lookup 10", func(p *Params) { p.LookupKeys = 0 }},
		{"lookup 20", func(p *Params) { p.LookupKeys = 20 }},
		{"no figures looked up", func(p *Params) { p.LookupFigures = false }},
		{"keys 15", func(p *Params) { p.Keys = 15 }},
		{"candidates 4", func(p *Params) { p.Candidates = 4 }},
		{"candidates 16", func(p *Params) { p.Candidates = 16 }},
		{"cross 0.5, 3 terms, no figures", func(p *Params) { p.CrossMinSimilarity, p.CrossMinShared, p.CrossMinFigures = 0.5, 3, 0 }},
		{"cross 2 figures", func(p *Params) { p.CrossMinFigures = 2 }},
		{"cross 3 figures", func(p *Params) { p.CrossMinFigures = 3 }},
		{"cross 1 term", func(p *Params) { p.CrossMinShared = 1 }},
		{"cross 0.3", func(p *Params) { p.CrossMinSimilarity = 0.3 }},
		{"cross 0.15", func(p *Params) { p.CrossMinSimilarity = 0.15 }},
		{"cross 0.1", func(p *Params) { p.CrossMinSimilarity = 0.1 }},
		{"terms 32", func(p *Params) { p.MaxTerms = 32 }},
		{"terms 64", func(p *Params) { p.MaxTerms = 64 }},
		{"centroid 64", func(p *Params) { p.MaxCentroid = 64 }},
		{"centroid 256", func(p *Params) { p.MaxCentroid = 256 }},
		{"title 1", func(p *Params) { p.Weights.Title = 1 }},
		{"title 3", func(p *Params) { p.Weights.Title = 3 }},
		{"lead 0.5", func(p *Params) { p.Weights.Lead = 0.5 }},
		{"lead 1000 bytes", func(p *Params) { p.Weights.MaxLead = 1000 }},
		{"name 2", func(p *Params) { p.Weights.Name = 2 }},
		{"name 4", func(p *Params) { p.Weights.Name = 4 }},
		{"figure 1", func(p *Params) { p.Weights.Figure = 1 }},
		{"figure 3", func(p *Params) { p.Weights.Figure = 3 }},
	}
	for _, v := range variants {
		line := fmt.Sprintf("%-32s", v.name)
		for _, th := range []float64{0.08, 0.1, 0.12, 0.14, 0.16, 0.18, 0.2, 0.22} {
			p := withVariant(v.set)
			p.MinSimilarity = th
			q := measure(t, tune, p)
			line += fmt.Sprintf(" | %.2f %.3f %d", th, q.F1, q.LookAlikesMerged)
			if *sweepMerged {
				line += fmt.Sprintf(" %v", q.Merged)
			}
		}
		var look []float64
		for _, x := range diagnose(tune, withVariant(v.set), nil).look {
			look = append(look, x)
		}
		slices.Sort(look)
		slices.Reverse(look)
		q := measure(t, tune, withVariant(v.set))
		line += fmt.Sprintf(" | zh-en %d of %d, wrong %d | look-alikes' best %.2f", q.CrossFound, q.CrossPairs, q.CrossWrong, look[:min(len(look), 6)])
		t.Log(line)
	}
}

// withVariant returns DefaultParams changed by set.
func withVariant(set func(*Params)) Params {
	p := DefaultParams
	set(&p)
	return p
}
