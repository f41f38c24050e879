package news

import (
	"slices"

	"github.com/newsrank/newsrank/minhash"
)

// bestStory returns the story article id of sketches st joins, as
// ingestStoryCmd decides it (story_script.go), or "": the stories listed
// under at least minhash.MinSharedKeys of its keys (all of them when it
// has fewer) are candidates, the StoryMaxCandidates of most weight (the
// sum over the shared keys of 1/n² for a key listing n stories; ties in
// the order first met) are compared through their leads (look), and the
// most similar one posted at cutoff or later whose overlap is at least
// news.story.min_similarity and whose title passes titled wins.
func (s *Store) bestStory(id string, st *storyArt, lists map[string][]string, look func(string) (storyLead, bool), cutoff int64) string {
	shared := make(map[string]int)
	weight := make(map[string]float64)
	var met []string
	for _, f := range st.keys {
		ls := lists[f]
		if len(ls) == 0 {
			continue
		}
		w := 1 / float64(len(ls)*len(ls))
		for _, lead := range ls {
			if _, ok := shared[lead]; !ok {
				met = append(met, lead)
			}
			shared[lead]++
			weight[lead] += w
		}
	}
	need := min(minhash.MinSharedKeys, len(st.keys))
	cands := make([]string, 0, len(met))
	for _, lead := range met {
		if lead != id && shared[lead] >= need {
			cands = append(cands, lead)
		}
	}
	// met's order breaks ties, as pos does in the script: a stable sort
	slices.SortStableFunc(cands, func(x, y string) int {
		switch wx, wy := weight[x], weight[y]; {
		case wx > wy:
			return -1
		case wx < wy:
			return 1
		}
		return 0
	})
	best, bestb, bestu := "", 0, 1
	minsim := s.opts.StoryMinSimilarity
	for _, lead := range cands[:min(len(cands), StoryMaxCandidates)] {
		l, ok := look(lead)
		if !ok || l.t < cutoff {
			continue
		}
		b, u := minhash.Shared(st.mh, l.mh)
		if float64(b) >= minsim*float64(u)-1e-9 && b*bestu > bestb*u && titled(st.mt, l.mt) {
			best, bestb, bestu = lead, b, u
		}
	}
	return best
}

// titled is the script's titled: whether title sketch theirs (a lead's)
// overlaps ours by at least StoryMinTitleOverlap and, when both have
// figures (minhash.Figure), shares one; true when either is empty.
func titled(ours, theirs minhash.Sketch) bool {
	if len(ours) == 0 || len(theirs) == 0 {
		return true
	}
	b, u := minhash.Shared(ours, theirs)
	if float64(b) < StoryMinTitleOverlap*float64(u)-1e-9 {
		return false
	}
	fa, fb, fboth := 0, 0, 0
	for i, j := 0, 0; i < len(ours) || j < len(theirs); {
		switch {
		case j == len(theirs) || i < len(ours) && ours[i] < theirs[j]:
			if minhash.Figure(ours[i]) {
				fa++
			}
			i++
		case i == len(ours) || theirs[j] < ours[i]:
			if minhash.Figure(theirs[j]) {
				fb++
			}
			j++
		default:
			if minhash.Figure(ours[i]) {
				fa, fb, fboth = fa+1, fb+1, fboth+1
			}
			i, j = i+1, j+1
		}
	}
	return fboth > 0 || fa == 0 || fb == 0
}
