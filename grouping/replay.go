package grouping

import (
	"slices"
)

// Replay.
//
// The Engine's stories depend on the order the articles came in: when
// two reports that share little each match a third, the flash, and come
// before it, they start two stories, and the flash joins one of them;
// the split stays, and every later copy picks a side. A crawl brings a
// site's back pages newest first or in any order, so the stories it
// leaves are not those publication order gives. The centroid merges
// (Regroup's Merge) mend little of it: compared with every story of the
// span by centroid, two stories must score well above the threshold to
// merge, or look-alikes merge.
//
// Replay runs the Engine again, in memory, over the span's articles in
// publication order (post time, then id), each with its vector and title
// facts as they are stored, and plans the steps that turn the stories
// into the partition it gives:
//
//   - each replayed story maps to the story of the oldest current lead
//     it holds (a lead is never moved: its story keeps its id, votes and
//     rank); the other current stories whose leads it holds are merged
//     into that one whole (Merge, or Join when one is an article alone),
//     the older lead leading on;
//   - then each article that is no current lead moves to the story its
//     replayed story maps to, when it is elsewhere (Move);
//   - a replayed story that holds no current lead (its articles all
//     members of other stories) starts with its oldest article, which
//     leaves its story and leads one of its own (Split), and the others
//     move to it.
//
// The replay is a function of the articles alone, not of their stories:
// run again on the result it gives the same partition, which the stories
// then are: it plans nothing. An article without a vector (gone,
// or posted by a user) or Closed is not replayed and stays in its story. Its cost
// is the Engine's over the span's articles: a few candidates an article
// (Params.Candidates), linear in the articles.

// replay plans the steps that turn r's clusters into the partition the
// Engine gives in publication order (Replay above), and applies them to
// r's clusters.
func (r *regrouper) replay() []Step {
	ms, story := r.partition()
	return r.mapTo(ms, story)
}

// partition returns the articles of r's clusters that have a vector, in
// publication order, and the partition the replay gives them (each
// article's story, named by its lead), the centroid merges and moves
// run on it unless NoMerges.
func (r *regrouper) partition() ([]Member, map[string]string) {
	var ms []Member
	for _, c := range r.cs {
		for _, m := range c.members {
			if len(m.Vector) > 0 && !m.Closed {
				ms = append(ms, m)
			}
		}
	}
	slices.SortFunc(ms, byTime)
	df := r.o.DF
	if df == nil {
		df = NewMemFreq(r.o.Window)
	}
	e := NewEngine(r.p, r.o.Window, df)
	story := make(map[string]string, len(ms)) // article → its replayed story's lead
	replayed := slices.Clone(ms)              // the articles as the replay weighs them
	for i := range replayed {
		m := &replayed[i]
		a := m.fullArticle()
		var d Decision
		if m.Counts != nil {
			d = e.Add(a)
			m.Vector = d.Vector
		} else {
			d = e.AddTerms(a, e.TermsOf(a, m.Vector))
		}
		story[m.ID] = d.Story
	}
	if !r.o.NoMerges {
		story = r.settle(replayed, story)
	}
	return ms, story
}

// mapTo plans the steps that turn r's clusters into partition story of
// articles ms (Replay above) and applies them to r's clusters.
func (r *regrouper) mapTo(ms []Member, story map[string]string) []Step {
	held := make(map[string]int) // replayed story → the oldest current cluster whose lead it holds
	for _, m := range ms {
		ci := r.where[m.ID]
		if r.cs[ci].lead().ID != m.ID {
			continue
		}
		if t, ok := held[story[m.ID]]; !ok || ci < t {
			held[story[m.ID]] = ci
		}
	}
	var steps []Step
	// merges: the current stories whose leads one replayed story holds,
	// into the oldest; r.cs is sorted oldest lead first
	for ci, c := range r.cs {
		lead := c.lead().ID
		rs, ok := story[lead]
		if !ok || !c.alive {
			continue
		}
		if t := held[rs]; t != ci {
			into := r.cs[t]
			steps = append(steps, r.merge(t, ci, r.p.Score(c.lead().fullArticle(), c.lead().Vector, into.story())))
		}
	}
	// a replayed story that holds no current lead: its oldest article
	// leaves its story and leads one of its own
	for _, m := range ms {
		if _, ok := held[story[m.ID]]; ok {
			continue
		}
		ci := r.where[m.ID]
		mi := slices.IndexFunc(r.cs[ci].members, func(x Member) bool { return x.ID == m.ID })
		st, ni := r.split(ci, mi)
		steps = append(steps, st)
		held[story[m.ID]] = ni
	}
	// moves, in publication order
	for _, m := range ms {
		t, ok := held[story[m.ID]]
		ci := r.where[m.ID]
		if !ok || ci == t {
			continue
		}
		c := r.cs[ci]
		mi := slices.IndexFunc(c.members, func(x Member) bool { return x.ID == m.ID })
		if mi <= 0 {
			continue // a lead
		}
		a := m.fullArticle()
		score := r.p.Score(a, m.Vector, r.cs[t].story())
		own := r.p.Score(a, m.Vector, r.rest(c, &c.members[mi]))
		steps = append(steps, r.move(ci, mi, t, score, own))
	}
	return steps
}

// settle runs the centroid merges, and the moves unless NoMoves, on the
// replayed stories (story: article → its replayed story's lead) of
// articles ms, in publication order, and returns the partition they
// leave, each article's story named by its lead.
func (r *regrouper) settle(ms []Member, story map[string]string) map[string]string {
	at := make(map[string]int)
	var cs []Cluster
	for _, m := range ms {
		l := story[m.ID]
		i, ok := at[l]
		if !ok {
			i = len(cs)
			at[l] = i
			cs = append(cs, Cluster{})
		}
		cs[i].Members = append(cs[i].Members, m) // the lead first: the oldest
	}
	o := r.o
	o.Replay = false
	s, _ := r.p.regrouper(cs, o)
	s.rounds(!o.NoMoves)
	out := make(map[string]string, len(ms))
	for _, c := range s.cs {
		if c.alive {
			for _, m := range c.members {
				out[m.ID] = c.lead().ID
			}
		}
	}
	return out
}

// fullArticle returns m as the Engine's Article with every field the
// store keeps of it (its title's names too).
func (m *Member) fullArticle() Article {
	a := m.article()
	a.Doc.TitleNames = m.TitleNames
	a.Doc.Counts = m.Counts
	return a
}

// nopFreq is the Freq of a replay: the articles' vectors are given, so
// no frequency is read, and none is counted.
type nopFreq struct{}

func (nopFreq) DF(string) int                 { return 0 }
func (nopFreq) Docs() int                     { return 0 }
func (nopFreq) Add(map[string]float64, int64) {}
func (nopFreq) At(int64)                      {}
