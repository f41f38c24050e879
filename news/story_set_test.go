package news_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

// storySetQuality is the pairwise grouping quality of one labelled set:
// precision and recall over pairs of articles in the same language, and
// the bilingual pairs found, counted apart.
type storySetQuality struct {
	precision, recall     float64
	tp, fp, fn            int
	crossFound, crossPair int
}

func (q storySetQuality) String() string {
	return fmt.Sprintf("precision %.3f recall %.3f (tp %d fp %d fn %d); bilingual pairs found %d of %d",
		q.precision, q.recall, q.tp, q.fp, q.fn, q.crossFound, q.crossPair)
}

// measureStorySet ingests demosite.StorySet(seed, 400) into a fresh store
// ranking by story and measures its grouping. In the set's order each
// story's copies come together, the wire's first; shuffled (with a fixed
// seed), they come among the other stories' articles in any order, as a
// crawl brings them.
func measureStorySet(t *testing.T, c *redistest.Server, seed int64, o news.Options, shuffled bool) storySetQuality {
	t.Helper()
	q, _, _ := groupStorySet(t, c, seed, o, shuffled)
	return q
}

// groupStorySet is measureStorySet also returning the set and, per
// article, the story it was given (its own id when alone) and its id.
func groupStorySet(t *testing.T, c *redistest.Server, seed int64, o news.Options, shuffled bool) (storySetQuality, []demosite.LabelledArticle, [][2]string) {
	t.Helper()
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	set := demosite.StorySet(seed, 400, now)
	s, err := news.New(c.Client(), fmt.Sprintf("q%d-%t:", seed, shuffled), o, news.WithClock(clock.NewFake(now)))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(set))
	ids := make([][2]string, len(set))
	order := make([]int, len(set))
	for i := range order {
		order[i] = i
	}
	if shuffled {
		rand.New(rand.NewPCG(uint64(seed), 7)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	for _, i := range order {
		a := set[i]
		r, err := s.Ingest(context.Background(), news.Article{URL: a.URL, Title: a.Title, Summary: a.Summary,
			Source: a.Source, PostTime: a.PostTime, CrawlTime: a.PostTime})
		if err != nil {
			t.Fatal(err)
		}
		// A story's id is its lead's id, so a lone article's own id is
		// its story.
		got[i] = r.Story
		if got[i] == "" {
			got[i] = r.ID
		}
		ids[i] = [2]string{got[i], r.ID}
	}
	var q storySetQuality
	for i := range set {
		for j := i + 1; j < len(set); j++ {
			same, grouped := set[i].Story == set[j].Story, got[i] == got[j]
			cross := set[i].Lang != set[j].Lang
			switch {
			case same && cross:
				q.crossPair++
				if grouped {
					q.crossFound++
				}
			case same && grouped:
				q.tp++
			case same:
				q.fn++
			case grouped:
				q.fp++
			}
		}
	}
	q.precision = float64(q.tp) / float64(q.tp+q.fp)
	q.recall = float64(q.tp) / float64(q.tp+q.fn)
	return q, set, ids
}

// TestStorySetQuality measures the story grouping on the demo site's
// labelled set: 30 sets of 400 stories (seeds 1 to 30; the threshold,
// the shingles and the index were tuned on seed 1, then the threshold
// and the candidates compared on 1 to 12 and checked on 13 to 30), each
// ingested in the set's order and shuffled. Pairs of a story's English
// and Chinese copies are counted apart and not in the target: shingles
// of words and character bigrams share nothing between a text and its
// translation, so no lexical method finds them.
//
// The target is 0.95 precision and 0.95 recall, met on every
// seed in both orders. At min_similarity 0.62 with 6 candidates, the
// least over the 30 seeds: in the set's order precision 0.972, recall
// 0.975; shuffled 0.983 and 0.958 (means 0.990 / 0.988 and 0.995 /
// 0.972). Seed 1 in order 0.988 / 0.993, shuffled 0.989 / 0.969. The set
// names each story's actor, place, weekday and
// figure, and words its summary in one of three patterns; a copy
// paraphrases the title, swaps words for synonyms, takes another summary
// pattern one time in three and may drop the last sentence. Names and
// figures counting three times among the shingles (minhash.FactWeight)
// is most of what keeps copies in another pattern together and stories
// of one kind apart. In shuffled order a story's lead is any of its
// copies, and a key of the index names the stories filed under it last:
// the index's keys are the article's names and figures first
// (minhash.FactKeys), each key lists StoriesPerKey stories, and a
// candidate shares 2 keys (minhash.MinSharedKeys); with one story per
// key and the least word pairs as keys, shuffled recall was 0.74 on
// seed 1 (0.99 in the set's order). What is still missed in shuffled
// order is mostly a copy whose lead, another paraphrase, was no longer
// listed under their shared keys of common bigrams when it came, and
// two paraphrases of one wire copy compared with each other, the lead
// being one of them.
func TestStorySetQuality(t *testing.T) {
	c := redistest.Start(t)
	o := news.DefaultOptions()
	o.RankBy = news.RankByStory
	for _, shuffled := range []bool{false, true} {
		least := storySetQuality{precision: 1, recall: 1}
		for seed := int64(1); seed <= storySetSeeds; seed++ {
			q := measureStorySet(t, c, seed, o, shuffled)
			t.Logf("seed %d, shuffled %t: %s", seed, shuffled, q)
			least.precision, least.recall = min(least.precision, q.precision), min(least.recall, q.recall)
			minP, minR := minStoryPrecision, minStoryRecall
			if shuffled {
				minR = minStoryRecallShuffled
			}
			if q.precision < minP || q.recall < minR {
				t.Errorf("seed %d, shuffled %t: %s: want precision >= %.2f and recall >= %.2f", seed, shuffled, q, minP, minR)
			}
			if err := c.Client().FlushAll(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("shuffled %t: least precision %.3f, least recall %.3f over %d seeds", shuffled, least.precision, least.recall, storySetSeeds)
	}
}

// storySetSeeds is how many labelled sets TestStorySetQuality measures.
const storySetSeeds = 30

// The floors TestStorySetQuality holds on every seed: the least measured
// over the seeds, rounded down (target 0.95 both).
const (
	minStoryPrecision      = 0.97
	minStoryRecall         = 0.97
	minStoryRecallShuffled = 0.95
)

// TestStorySetTune prints the quality on seed 1 for a range of
// thresholds, in the set's order and shuffled (go test -run
// StorySetTune -v -tune).
func TestStorySetTune(t *testing.T) {
	if !*tune {
		t.Skip("-tune not set")
	}
	c := redistest.Start(t)
	for _, shuffled := range []bool{false, true} {
		for _, m := range []float64{0.55, 0.6, 0.61, 0.62, 0.63, 0.64, 0.65, 0.67, 0.7, 0.75} {
			o := news.DefaultOptions()
			o.RankBy = news.RankByStory
			o.StoryMinSimilarity = m
			c.Client().FlushAll(context.Background())
			t.Logf("min_similarity %.2f seed 1, shuffled %t: %s", m, shuffled, measureStorySet(t, c, 1, o, shuffled))
		}
	}
}

var tune = flag.Bool("tune", false, "run TestStorySetTune")
