package demosite

import (
	"math"
	"testing"
)

// TestMeasureStories: a grouping by event and language is perfect; an
// ordinary article put in a story counts against precision once per
// report in it; two ordinary articles together count neither way; a
// report not stored is left out.
func TestMeasureStories(t *testing.T) {
	site := New(Options{Articles: 30, Now: testNow, Seed: 1, Stories: 12})
	reports, paths := site.StoryCopies()
	story := map[string]string{}
	for i, a := range reports.Articles {
		story[paths[i]] = a.Event + "/" + a.Lang
	}
	var ordinary []string
	for _, a := range site.Articles() {
		if a.Story == "" {
			story[a.Path] = a.Path
			ordinary = append(ordinary, a.Path)
		}
	}
	q, err := site.MeasureStories(story)
	if err != nil {
		t.Fatal(err)
	}
	if q.Reports != len(paths) || q.Published != len(paths) || q.Precision != 1 || q.Recall != 1 || q.WithOthers != 0 || q.TP == 0 {
		t.Fatalf("grouped by event: %s; want all reports, P 1 R 1", q)
	}
	tp := q.TP

	// Two ordinary articles in a story of their own, and one in the
	// story of a report of two or more.
	size := map[string]int{}
	for _, p := range paths {
		size[story[p]]++
	}
	k := 0
	for size[story[paths[k]]] < 2 {
		k++
	}
	first, inFirst := story[paths[k]], size[story[paths[k]]]
	story[ordinary[0]], story[ordinary[1]] = "ordinary", "ordinary"
	story[ordinary[2]] = first
	if q, err = site.MeasureStories(story); err != nil {
		t.Fatal(err)
	}
	if want := float64(tp) / float64(tp+inFirst); q.WithOthers != inFirst || math.Abs(q.Precision-want) > 1e-12 || q.Quality.Precision != 1 {
		t.Errorf("an ordinary article with %d reports: %s; want %d pairs with ordinary articles, P %.3f", inFirst, q, inFirst, want)
	}
	story[ordinary[2]] = ordinary[2]

	delete(story, paths[k])
	if q, err = site.MeasureStories(story); err != nil {
		t.Fatal(err)
	}
	if q.Reports != len(paths)-1 || q.Published != len(paths) || q.TP != tp-(inFirst-1) || q.Precision != 1 {
		t.Errorf("a report not stored: %s; want %d of %d reports, tp %d", q, len(paths)-1, len(paths), tp-(inFirst-1))
	}
}
