package grouping

import (
	"flag"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/coverage"
)

var sweep = flag.Bool("grouping.sweep", false, "sweep the parameters on the tuning half and log the figures")

// TestSweep logs the figures on the tuning half of variants of
// DefaultParams (go test -run TestSweep -grouping.sweep -v): how the
// parameters were chosen (bench/stories.md). Each variant is measured
// at several thresholds; its best F1 is logged with the figures there.
func TestSweep(t *testing.T) {
	if !*sweep {
		t.Skip("a tuning aid: run with -grouping.sweep")
	}
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	tune := set.Split(coverage.Tune)
	variants := []struct {
		name string
		set  func(p *Params)
	}{
		{"default", func(p *Params) {}},
		{"title 1", func(p *Params) { p.Weights.Title = 1 }},
		{"figure veto", func(p *Params) { p.FigureVeto = true }},
		{"figure veto on title figures only", func(p *Params) { p.FigureVeto, p.FigurePenalty = false, 0 }},
		{"penalty 0.7", func(p *Params) { p.FigurePenalty = 0.7 }},
		{"penalty 1", func(p *Params) { p.FigurePenalty = 1 }},
		{"t32 s12 penalty 0.5", func(p *Params) { p.MaxTerms, p.FigureVeto, p.Stale, p.FigurePenalty = 32, false, 12*time.Hour, 0.5 }},
		{"t32 s12 penalty 0.7", func(p *Params) { p.MaxTerms, p.FigureVeto, p.Stale, p.FigurePenalty = 32, false, 12*time.Hour, 0.7 }},
		{"t32 s12 penalty 0.7 name 2", func(p *Params) {
			p.MaxTerms, p.FigureVeto, p.Stale, p.FigurePenalty, p.Weights.Name = 32, false, 12*time.Hour, 0.7, 2
		}},
		{"t24 s12 penalty 0.7", func(p *Params) { p.MaxTerms, p.FigureVeto, p.Stale, p.FigurePenalty = 24, false, 12*time.Hour, 0.7 }},
		{"t48 s12 penalty 0.7", func(p *Params) { p.MaxTerms, p.FigureVeto, p.Stale, p.FigurePenalty = 48, false, 12*time.Hour, 0.7 }},
		{"terms 32 no figure veto", func(p *Params) { p.MaxTerms, p.FigureVeto = 32, false }},
		{"terms 32 no figure veto stale 12h", func(p *Params) { p.MaxTerms, p.FigureVeto, p.Stale = 32, false, 12*time.Hour }},
		{"title 3", func(p *Params) { p.Weights.Title = 3 }},
		{"lead 0.5", func(p *Params) { p.Weights.Lead = 0.5 }},
		{"no lead", func(p *Params) { p.Weights.Lead = 0 }},
		{"summary 2", func(p *Params) { p.Weights.Summary = 2 }},
		{"name 1", func(p *Params) { p.Weights.Name = 1 }},
		{"name 3", func(p *Params) { p.Weights.Name = 3 }},
		{"figure 1", func(p *Params) { p.Weights.Figure = 1 }},
		{"figure 3", func(p *Params) { p.Weights.Figure = 3 }},
		{"lead 1000 bytes", func(p *Params) { p.Weights.MaxLead = 1000 }},
		{"lead 4000 bytes", func(p *Params) { p.Weights.MaxLead = 4000 }},
		{"terms 32", func(p *Params) { p.MaxTerms = 32 }},
		{"terms 128", func(p *Params) { p.MaxTerms = 128 }},
		{"centroid 64", func(p *Params) { p.MaxCentroid = 64 }},
		{"centroid 256", func(p *Params) { p.MaxCentroid = 256 }},
		{"no time decay", func(p *Params) { p.HalfLife = 0 }},
		{"no vetoes", func(p *Params) { p.FigureVeto, p.WeekdayVeto = false, false }},
		{"no figure veto", func(p *Params) { p.FigureVeto = false }},
		{"no weekday veto", func(p *Params) { p.WeekdayVeto = false }},
		{"stale 12h", func(p *Params) { p.Stale = 12 * time.Hour }},
		{"stale 12h half 12h", func(p *Params) { p.Stale, p.HalfLife = 12*time.Hour, 12*time.Hour }},
		{"stale 6h half 24h", func(p *Params) { p.Stale = 6 * time.Hour }},
		{"stale 24h half 12h", func(p *Params) { p.Stale, p.HalfLife = 24*time.Hour, 12*time.Hour }},
		{"keys 5", func(p *Params) { p.Keys = 5 }},
		{"keys 20", func(p *Params) { p.Keys = 20 }},
		{"candidates 4", func(p *Params) { p.Candidates = 4 }},
		{"candidates 16", func(p *Params) { p.Candidates = 16 }},
	}
	for _, v := range variants {
		var best coverage.Quality
		bestTh := 0.0
		for _, th := range []float64{0.06, 0.08, 0.1, 0.12, 0.14, 0.16, 0.18, 0.2, 0.22, 0.25} {
			p := DefaultParams
			v.set(&p)
			p.MinSimilarity = th
			if q := measure(t, tune, p); q.F1 > best.F1 {
				best, bestTh = q, th
			}
		}
		p := DefaultParams
		v.set(&p)
		t.Logf("%-16s at %.2f: F1 %.3f | best at %.2f: %s", v.name, DefaultParams.MinSimilarity, measure(t, tune, p).F1, bestTh, best)
	}
}
