package news_test

import (
	"testing"

	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/minhash"
	"github.com/newsrank/newsrank/news"
)

// TestStorySetMisses prints, on seed 1, the pairs of one story the
// grouping kept apart and the articles it put in another story's, with
// their overlaps (go test -run StorySetMisses -v -tune).
func TestStorySetMisses(t *testing.T) {
	if !*tune {
		t.Skip("-tune not set")
	}
	c := redistest.Start(t)
	o := news.DefaultOptions()
	o.RankBy = news.RankByStory
	q, set, ids := groupStorySet(t, c, 1, o, true)
	t.Logf("seed 1: %s", q)
	byID := map[string]int{}
	for i, g := range ids {
		byID[g[1]] = i
	}
	text := func(i int) string { return set[i].Title + " | " + set[i].Summary }
	sk := func(i int) minhash.Sketch {
		s, _ := minhash.Of(set[i].Title + "\n" + set[i].Summary)
		return s
	}
	shareKey := func(i, j int) bool {
		ki := map[uint32]bool{}
		for _, k := range sk(i).Keys() {
			ki[k] = true
		}
		for _, k := range sk(j).Keys() {
			if ki[k] {
				return true
			}
		}
		return false
	}
	for i := range set {
		for j := i + 1; j < len(set); j++ {
			if set[i].Story != set[j].Story || set[i].Lang != set[j].Lang || ids[i][0] == ids[j][0] {
				continue
			}
			li, lj := byID[ids[i][0]], byID[ids[j][0]]
			t.Logf("MISS %s ov %.2f key %v (lead ov: %.2f %.2f)\n  %d %s\n  %d %s", set[i].Story,
				minhash.Overlap(sk(i), sk(j)), shareKey(i, j), minhash.Overlap(sk(i), sk(li)), minhash.Overlap(sk(j), sk(lj)),
				i, text(i), j, text(j))
		}
	}
	for i := range set {
		l := byID[ids[i][0]]
		if l != i && set[l].Story != set[i].Story {
			t.Logf("FALSE ov %.2f\n  lead %s %s\n  art  %s %s", minhash.Overlap(sk(i), sk(l)),
				set[l].Story, text(l), set[i].Story, text(i))
		}
	}
}
