package news

import (
	"slices"

	"github.com/newsrank/newsrank/minhash"
)

// storyScratch is bestStory's memory, kept from one article to the next
// of a batch.
type storyScratch struct {
	at    map[string]int // lead → its index in met
	met   []metStory
	cands []metStory
}

// metStory is a story listed under an article's keys: how many of them
// list it, and the sum over them of 1/n² for a key listing n stories.
type metStory struct {
	lead   string
	shared int
	weight float64
}

// bestStory returns the story article id of sketches st joins, as
// ingestStoryCmd decides it (story_script.go), or "": the stories listed
// under at least minhash.MinSharedKeys of its keys (all of them when it
// has fewer) are candidates, the StoryMaxCandidates of most weight (the
// sum over the shared keys of 1/n² for a key listing n stories; ties in
// the order first met) are compared through their leads (look), and the
// most similar one posted at cutoff or later whose overlap is at least
// news.story.min_similarity and whose title passes titled wins.
func (s *Store) bestStory(id string, st *storyArt, lists map[string][]string, look func(string) (storyLead, bool), cutoff int64, sc *storyScratch) string {
	// met: the stories listed under the article's keys, in the order
	// first met, with how many of the keys list them and their weight
	clear(sc.at)
	met := sc.met[:0]
	for _, f := range st.keys {
		ls := lists[f]
		if len(ls) == 0 {
			continue
		}
		w := 1 / float64(len(ls)*len(ls))
		for _, lead := range ls {
			i, ok := sc.at[lead]
			if !ok {
				i = len(met)
				sc.at[lead] = i
				met = append(met, metStory{lead: lead})
			}
			met[i].shared++
			met[i].weight += w
		}
	}
	need := min(minhash.MinSharedKeys, len(st.keys))
	cands := sc.cands[:0]
	for _, m := range met {
		if m.lead != id && m.shared >= need {
			cands = append(cands, m)
		}
	}
	sc.met, sc.cands = met, cands
	// met's order breaks ties, as pos does in the script: a stable sort
	slices.SortStableFunc(cands, func(x, y metStory) int {
		switch {
		case x.weight > y.weight:
			return -1
		case x.weight < y.weight:
			return 1
		}
		return 0
	})
	best, bestb, bestu := "", 0, 1
	minsim := s.opts.StoryMinSimilarity
	for _, c := range cands[:min(len(cands), StoryMaxCandidates)] {
		lead := c.lead
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
// figures (minhash.Figure), shares one, and when both name a weekday
// (minhash.Weekday), shares it; true when either is empty.
func titled(ours, theirs minhash.Sketch) bool {
	if len(ours) == 0 || len(theirs) == 0 {
		return true
	}
	b, u := minhash.Shared(ours, theirs)
	if float64(b) < StoryMinTitleOverlap*float64(u)-1e-9 {
		return false
	}
	return agree(ours, theirs, minhash.Figure) && agree(ours, theirs, minhash.Weekday)
}

// agree tells whether two sketches that both have hashes of a kind (is)
// share one of them; true when either has none.
func agree(ours, theirs minhash.Sketch, is func(uint32) bool) bool {
	fa, fb, fboth := 0, 0, 0
	for i, j := 0, 0; i < len(ours) || j < len(theirs); {
		switch {
		case j == len(theirs) || i < len(ours) && ours[i] < theirs[j]:
			if is(ours[i]) {
				fa++
			}
			i++
		case i == len(ours) || theirs[j] < ours[i]:
			if is(theirs[j]) {
				fb++
			}
			j++
		default:
			if is(ours[i]) {
				fa, fb, fboth = fa+1, fb+1, fboth+1
			}
			i, j = i+1, j+1
		}
	}
	return fboth > 0 || fa == 0 || fb == 0
}
