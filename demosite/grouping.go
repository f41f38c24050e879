package demosite

// Grouped is an article as a story grouping placed it: its labelled story
// (LabelledArticle.Story or ArticleInfo.Story; "" for an ordinary
// article), its language ("en", "zh") and the group it was put in (its
// story's lead, or itself when alone).
type Grouped struct {
	Label, Lang, Group string
}

// PairCounts scores a grouping against the labels, over the pairs of
// articles of which at least one is labelled (two ordinary articles are
// not labelled: the demo's stock texts make some of them alike): tp, the
// pairs of one story grouped together; fp, the pairs grouped together
// that are not one story; missed, the pairs of one story in one language
// not grouped together (indexes into gs). A story's copies in two
// languages share no word, so no lexical grouping finds them: those
// pairs count neither way. Precision is tp / (tp + fp), recall tp / (tp +
// len(missed)).
func PairCounts(gs []Grouped) (tp, fp int, missed [][2]int) {
	for i := range gs {
		for j := i + 1; j < len(gs); j++ {
			a, b := gs[i], gs[j]
			if a.Label == "" && b.Label == "" {
				continue
			}
			together, same := a.Group == b.Group, a.Label == b.Label
			switch {
			case together && same:
				tp++
			case together:
				fp++
			case same && a.Lang == b.Lang:
				missed = append(missed, [2]int{i, j})
			}
		}
	}
	return tp, fp, missed
}
