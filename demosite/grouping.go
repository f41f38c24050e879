package demosite

import (
	"fmt"

	"github.com/newsrank/newsrank/internal/coverage"
)

// StoryQuality is how a story grouping of the site's articles agrees
// with the events of the coverage reports it publishes
// (Options.Stories).
type StoryQuality struct {
	// Quality is measured over the reports stored (coverage.Set.Measure:
	// pairs in one language, look-alike events merged, pairs in two
	// languages). Its Precision and F1 count only pairs of two reports.
	coverage.Quality
	// Reports is how many reports were stored and measured, of Published.
	Reports, Published int
	// WithOthers counts the pairs of a report and an ordinary article
	// grouped together: always wrong. Pairs of two ordinary articles are
	// not labelled (the demo's stock texts make some alike) and not
	// counted.
	WithOthers int
	// Precision and F1 count WithOthers against the grouping:
	// TP / (TP + FP + WithOthers).
	Precision, F1 float64
}

// String sums q up on one line.
func (q StoryQuality) String() string {
	return fmt.Sprintf("%d of %d reports: P %.3f R %.3f F1 %.3f (with ordinary articles: %d pairs); reports alone: %s",
		q.Reports, q.Published, q.Precision, q.Recall, q.F1, q.WithOthers, q.Quality)
}

// MeasureStories measures a story grouping of the site's public
// articles: story maps an article's path to its story (its lead's id, or
// its own id when alone; equal strings are one story). Articles missing
// from story (not stored) are left out.
func (s *Site) MeasureStories(story map[string]string) (StoryQuality, error) {
	set, paths := s.StoryCopies()
	q := StoryQuality{Published: len(set.Articles)}
	stored := &coverage.Set{Files: set.Files, LookAlikes: set.LookAlikes}
	var groups []string
	reports := map[string]int{} // story → the reports in it
	for i, a := range set.Articles {
		if g, ok := story[paths[i]]; ok {
			stored.Articles = append(stored.Articles, a)
			groups = append(groups, g)
			reports[g]++
		}
	}
	q.Reports = len(stored.Articles)
	m, err := stored.Measure(groups)
	if err != nil {
		return q, err
	}
	q.Quality = m
	for _, a := range s.public {
		if g, ok := story[a.path]; ok && a.report == nil {
			q.WithOthers += reports[g]
		}
	}
	if d := m.TP + m.FP + q.WithOthers; d > 0 {
		q.Precision = float64(m.TP) / float64(d)
	}
	if q.Precision+m.Recall > 0 {
		q.F1 = 2 * q.Precision * m.Recall / (q.Precision + m.Recall)
	}
	return q, nil
}
