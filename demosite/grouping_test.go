package demosite

import (
	"testing"
)

// TestPairCounts: pairs of one story grouped together count as found,
// pairs grouped across stories (or with an ordinary article) as wrong,
// one story's copies in one language apart as missed; two ordinary
// articles and a story's copies in two languages apart count neither way.
func TestPairCounts(t *testing.T) {
	gs := []Grouped{
		{"s1", "en", "a"}, {"s1", "en", "a"}, {"s1", "en", "b"}, // one found, two missed
		{"s1", "zh", "c"},                // other language, apart: not counted
		{"", "en", "a"},                  // ordinary, grouped with s1: three wrong
		{"", "en", "d"}, {"", "en", "d"}, // two ordinary together: not counted
		{"s2", "en", "e"}, {"s2", "en", "e"}, // one found
	}
	tp, fp, missed := PairCounts(gs)
	if tp != 2 || fp != 2 || len(missed) != 2 || missed[0] != [2]int{0, 2} || missed[1] != [2]int{1, 2} {
		t.Errorf("PairCounts = %d, %d, %v; want 2, 2, [[0 2] [1 2]]", tp, fp, missed)
	}
}
