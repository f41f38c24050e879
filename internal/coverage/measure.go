package coverage

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Quality is how well a grouping of a set's articles into stories agrees
// with the set's events.
type Quality struct {
	// TP, FP, FN count pairs of articles in one language: grouped and of
	// one event, grouped and of two, of one event and not grouped.
	TP, FP, FN int
	// Precision, Recall, F1 are over those pairs (0 when undefined).
	Precision, Recall, F1 float64
	// LookAlikesMerged of LookAlikes: the look-alike pairs whose events
	// are merged (any article of one grouped with any of the other).
	LookAlikesMerged, LookAlikes int
	// Merged lists the merged look-alike pairs, "a + b".
	Merged []string
	// CrossFound of CrossPairs: pairs of one event's articles in two
	// languages that are grouped; CrossWrong: pairs of articles in two
	// languages grouped though of two events.
	CrossFound, CrossPairs, CrossWrong int
	// CrossRecall and CrossPrecision are over the pairs in two languages
	// (CrossPrecision is 1 when none is grouped).
	CrossRecall, CrossPrecision float64
}

// Measure compares a grouping of s.Articles (story[i] names the story
// of article i; equal strings are one story) with the set's events.
func (s *Set) Measure(story []string) (Quality, error) {
	var q Quality
	if len(story) != len(s.Articles) {
		return q, fmt.Errorf("coverage: %d stories for %d articles", len(story), len(s.Articles))
	}
	as := s.Articles
	for i := range as {
		for j := i + 1; j < len(as); j++ {
			same, grouped := as[i].Event == as[j].Event, story[i] == story[j]
			if as[i].Lang != as[j].Lang {
				switch {
				case same:
					q.CrossPairs++
					if grouped {
						q.CrossFound++
					}
				case grouped:
					q.CrossWrong++
				}
				continue
			}
			switch {
			case same && grouped:
				q.TP++
			case same:
				q.FN++
			case grouped:
				q.FP++
			}
		}
	}
	q.Precision = ratio(q.TP, q.TP+q.FP)
	q.Recall = ratio(q.TP, q.TP+q.FN)
	if q.Precision+q.Recall > 0 {
		q.F1 = 2 * q.Precision * q.Recall / (q.Precision + q.Recall)
	}
	q.CrossRecall = ratio(q.CrossFound, q.CrossPairs)
	q.CrossPrecision = 1
	if q.CrossFound+q.CrossWrong > 0 {
		q.CrossPrecision = ratio(q.CrossFound, q.CrossFound+q.CrossWrong)
	}
	// an event's stories, to tell merged look-alikes
	stories := make(map[string]map[string]bool)
	for i, a := range as {
		if stories[a.Event] == nil {
			stories[a.Event] = make(map[string]bool)
		}
		stories[a.Event][story[i]] = true
	}
	for _, l := range s.LookAlikes {
		q.LookAlikes++
		for st := range stories[l.A] {
			if stories[l.B][st] {
				q.LookAlikesMerged++
				q.Merged = append(q.Merged, l.A+" + "+l.B)
				break
			}
		}
	}
	return q, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// String sums q up on one line.
func (q Quality) String() string {
	return fmt.Sprintf("P %.3f R %.3f F1 %.3f (tp %d fp %d fn %d); look-alikes merged %d of %d (%.1f%%); cross-language R %.3f (%d of %d) P %.3f",
		q.Precision, q.Recall, q.F1, q.TP, q.FP, q.FN, q.LookAlikesMerged, q.LookAlikes,
		100*ratio(q.LookAlikesMerged, q.LookAlikes), q.CrossRecall, q.CrossFound, q.CrossPairs, q.CrossPrecision)
}

// Stats describes a set.
type Stats struct {
	Events, Articles int
	// PerLang counts the articles per language; Bilingual counts the
	// events reported in both.
	PerLang   map[string]int
	Bilingual int
	// Tune and HeldOut count the events of each split.
	Tune, HeldOut int
	LookAlikes    int
	// MedianJaccard is the median Jaccard similarity of the pairs of one
	// event's articles in one language (Pairs of them): of their words
	// (Latin, lower case) and CJK character bigrams, in title + summary;
	// MedianJaccardLead the same with the lead too.
	MedianJaccard, MedianJaccardLead float64
	Pairs                            int
}

// Stats returns the statistics of s.
func (s *Set) Stats() Stats {
	st := Stats{Articles: len(s.Articles), PerLang: make(map[string]int), LookAlikes: len(s.LookAlikes)}
	langs := make(map[string]map[string]bool)
	for _, a := range s.Articles {
		st.PerLang[a.Lang]++
		if langs[a.Event] == nil {
			langs[a.Event] = make(map[string]bool)
			st.Events++
			if a.Split == Tune {
				st.Tune++
			} else {
				st.HeldOut++
			}
		}
		langs[a.Event][a.Lang] = true
	}
	for _, l := range langs {
		if len(l) > 1 {
			st.Bilingual++
		}
	}
	short := make([]map[string]bool, len(s.Articles))
	long := make([]map[string]bool, len(s.Articles))
	for i, a := range s.Articles {
		short[i] = Tokens(a.Title + "\n" + a.Summary)
		long[i] = Tokens(a.Title + "\n" + a.Summary + "\n" + a.Lead)
	}
	var js, jl []float64
	for i, a := range s.Articles {
		for j := i + 1; j < len(s.Articles); j++ {
			if b := s.Articles[j]; a.Event == b.Event && a.Lang == b.Lang {
				js = append(js, Jaccard(short[i], short[j]))
				jl = append(jl, Jaccard(long[i], long[j]))
			}
		}
	}
	st.Pairs = len(js)
	st.MedianJaccard, st.MedianJaccardLead = median(js), median(jl)
	return st
}

// String prints the statistics, one line.
func (st Stats) String() string {
	langs := make([]string, 0, len(st.PerLang))
	for l, n := range st.PerLang {
		langs = append(langs, fmt.Sprintf("%s %d", l, n))
	}
	slices.Sort(langs)
	return fmt.Sprintf("%d events (tune %d, held out %d; %d in both languages), %d articles (%s), %d look-alike pairs; same-story pairs in one language %d, median Jaccard %.3f (title + summary), %.3f (with the lead)",
		st.Events, st.Tune, st.HeldOut, st.Bilingual, st.Articles, strings.Join(langs, ", "), st.LookAlikes, st.Pairs, st.MedianJaccard, st.MedianJaccardLead)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	if n := len(xs); n%2 == 1 {
		return xs[n/2]
	}
	n := len(xs)
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Tokens returns the words of text (runs of letters and digits, lower
// case) and the bigrams of its runs of CJK characters (a lone character
// by itself): a plain yardstick of how many words two texts share, the
// same for any method measured.
func Tokens(text string) map[string]bool {
	out := make(map[string]bool)
	var word []rune
	var prev rune
	flush := func() {
		if len(word) > 0 {
			out[string(word)] = true
			word = word[:0]
		}
	}
	run := 0
	endRun := func() {
		if run == 1 {
			out[string(prev)] = true
		}
		run, prev = 0, 0
	}
	for _, r := range text {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			if prev != 0 {
				out[string([]rune{prev, r})] = true
			}
			prev = r
			run++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			endRun()
			word = append(word, unicode.ToLower(r))
		default:
			endRun()
			flush()
		}
	}
	endRun()
	flush()
	return out
}

// Jaccard is |a ∩ b| / |a ∪ b| (0 for two empty sets).
func Jaccard(a, b map[string]bool) float64 {
	both := 0
	for t := range a {
		if b[t] {
			both++
		}
	}
	return ratio(both, len(a)+len(b)-both)
}
