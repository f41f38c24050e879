package grouping

import (
	"cmp"
	"container/heap"
	"slices"
	"strings"
	"time"

	"github.com/newsrank/newsrank/termvec"
)

// Regrouping.
//
// (With RegroupOptions.Replay, what the regroup job runs, the steps
// below run on the partition the Engine gives in publication order, and
// the plan turns the stories into the result: replay.go.)
//
// The Engine decides an article's story once, when it arrives, against
// what the index lists then: a copy that arrives before the terms that
// link it to its story are filed starts a story of its own (the story is
// split), and an article that joined the best story of its moment may
// fit a story that formed later better. Regroup looks at the stories of
// a span again, all at once, with the same Score the Engine uses, and
// plans the steps that mend both:
//
//   - Merge: two stories match when each one's lead, as an article,
//     would join the other story: its Score against the other's centroid
//     is at least the Engine's threshold (MinSimilarity, or
//     CrossMinSimilarity between languages) plus MergeMargin. Then the
//     newer story's articles join the older one, whose lead leads on.
//     Merges go best match first (the pair's Score is the lower of the
//     two), and a merged story is compared again as a whole
//     (agglomerative, on centroids), so that stories that each match a
//     third but not one another do not all end up one. A merge where one
//     side is an article alone is a Join: the article joins the story (or
//     the story joins the article, when the article is the older: the
//     older lead leads on either way).
//   - Move: an article of a story of two or more, not its lead, whose
//     Score against another story is at least the threshold and beats its
//     Score against the rest of its own story (its story without it) by
//     Margin at least, moves to that story. The margin keeps an article
//     from moving back and forth between runs: after the move, its own
//     story is the one it fits best by the margin. A lead is never moved
//     (its story would lose its id, its votes and its place in the
//     ranking): its story is merged whole or stays.
//
// A story's centroid is computed here again from its members' vectors:
// their sum, the MaxCentroid terms of most weight kept (the Engine adds
// a member at a time and keeps MaxCentroid terms after each, which
// differs only for a story of many members), so that every story is
// compared by the same rule whatever the order its members arrived in,
// and an article's own story without it is its story's sum less its
// vector. Candidates are found through every term of the stories' centroids,
// not the Engine's few keys: a split is often two stories whose keys
// differ. Regroup is pure and deterministic: the same clusters in any
// order give the same plan.

// Member is one article of a story, as Regroup reads it.
type Member struct {
	ID   string
	Time int64 // post time, Unix s
	// Vector is the article's term vector (Decision.Vector).
	Vector termvec.Vector
	// Facts are its title's facts, CJK its language, Actor and Object
	// its title's actor and object (termvec.Doc).
	Facts         []string
	CJK           bool
	Actor, Object string
	// TitleNames are its title's names and Counts its terms' weighted
	// occurrences (termvec.Doc), which the replay reads as the Engine
	// does (the vetoes: the days its text states, the names it writes);
	// the centroid merges read neither. Counts nil: the vetoes read the
	// vector instead.
	TitleNames []string
	Counts     map[string]float64
	// Day is when the day it tells of begins (TellsOf; 0: none), kept
	// for an article that started a story.
	Day int64
	// Closed: a member posted before the window (a story it started
	// would take no vote and no article). The Replay leaves it in its
	// story, as one without a vector: it neither starts a story (a
	// split the store would refuse, and the moves to it with it) nor
	// moves.
	Closed bool
}

// Cluster is a story and its articles, its lead first; an article alone
// is a Cluster of one.
type Cluster struct {
	Members []Member
}

// Lead is the id of c's lead.
func (c Cluster) Lead() string { return c.Members[0].ID }

// StepKind tells what a Step does.
type StepKind int

// The kinds of Step.
const (
	// Merge: story From, of two articles or more, joins story Into, of
	// two or more.
	Merge StepKind = iota + 1
	// Join: From or Into is an article alone; From's articles join Into.
	Join
	// Move: Article leaves story From for story Into.
	Move
	// Split: Article leaves story From and stands alone, the lead of a
	// story of its own (Into is its id): a replayed story that holds no
	// current lead starts so, and its other articles move to it.
	Split
)

func (k StepKind) String() string {
	switch k {
	case Merge:
		return "merge"
	case Join:
		return "join"
	case Move:
		return "move"
	case Split:
		return "split"
	}
	return "unknown"
}

// Step is one change of the stories, applied in the order of the Plan.
type Step struct {
	Kind StepKind
	// Into is the story that takes the articles (its lead's id), From
	// the story they leave (for Merge and Join its lead leads no more).
	Into, From string
	// Article is the article moved (Move).
	Article string
	// Score is the Score of what joins against Into: the newer story's
	// centroid against the older's (Merge, Join), the article against
	// Into (Move); Own, for Move, the article's Score against the rest of
	// From.
	Score, Own float64
	// IntoMembers and FromMembers are the ids of the two stories'
	// articles before the step, sorted (what the step was planned on).
	IntoMembers, FromMembers []string
	// IntoCentroid and IntoLast are Into's centroid and latest member's
	// post time after the step; FromCentroid and FromLast From's after a
	// Move (FromCentroid nil when its lead is left alone).
	IntoCentroid, FromCentroid termvec.Vector
	IntoLast, FromLast         int64
}

// Plan is what Regroup found to do.
type Plan struct {
	Steps []Step
	// Stories and Articles are how many stories (an article alone
	// included) and articles were examined.
	Stories, Articles int
}

// RegroupOptions tune Regroup.
type RegroupOptions struct {
	// Margin is how much better an article must fit another story than
	// the rest of its own to move.
	Margin float64
	// MergeMargin is how far above the Engine's threshold both leads of
	// two stories must score against the other story for the two to
	// merge. Compared with every story of the span, where the Engine
	// compares an article with a few candidates, the Engine's threshold
	// alone merges stories that only look alike (two chip makers'
	// outlooks, two car makers' results).
	MergeMargin float64
	// Window is how long after its lead's post time a story takes
	// members (the Engine's Window): stories whose leads are further
	// apart are not merged, and an article does not move to a story whose
	// lead was posted more than Window before it.
	Window time.Duration
	// MaxKeyStories: a term that the centroids of more stories than this
	// have proposes none of them as candidates (a common term, of little
	// weight, would make every pair a candidate); 0 means
	// DefaultMaxKeyStories.
	MaxKeyStories int
	// Replay: the plan turns the stories into those the Engine gives
	// over their articles in publication order (Replay), those merged by
	// centroid (MergeMargin) unless NoMerges and with articles moved
	// (Margin) unless NoMoves.
	Replay, NoMerges, NoMoves bool
	// DF, for Replay, holds the document frequencies of the articles
	// before the span's; the replay weighs each article that has its
	// Counts against them and the span's articles before it, as the
	// Engine did in publication order, and counts it in (nil: a MemFreq
	// over Window, the span's articles alone).
	DF Freq
}

// DefaultMargin and DefaultMergeMargin are RegroupOptions.Margin and
// MergeMargin by default, chosen on the tuning half of the labelled
// coverage set (internal/coverage; BenchmarkStoryRegroup).
const (
	DefaultMargin      = 0.1
	DefaultMergeMargin = 0.26
)

// regroupRounds is how many rounds of merges and moves one Regroup plans
// at most.
const regroupRounds = 4

// DefaultMaxKeyStories is RegroupOptions.MaxKeyStories by default.
const DefaultMaxKeyStories = 200

// rcluster is a cluster as Regroup works on it.
type rcluster struct {
	members []Member       // the lead first, then by post time
	sum     termvec.Vector // the sum of the members' vectors, every term
	cent    termvec.Vector // sum's MaxCentroid terms of most weight
	head    termvec.Vector // sum's headTerms terms of most weight (rest)
	first   int64          // the lead's post time
	last    int64
	keys    []string // its centroid's terms, sorted
	alive   bool
	ver     int
	st      *Story // story's answer, until setSum changes c
}

func (c *rcluster) lead() *Member { return &c.members[0] }

// story returns c as the Engine's Story.
func (c *rcluster) story() *Story {
	if c.st == nil {
		l := c.lead()
		c.st = &Story{Lead: l.ID, Centroid: c.cent, First: c.first, Last: c.last, Facts: l.Facts, CJK: l.CJK, Actor: l.Actor, Object: l.Object, Day: l.Day}
	}
	return c.st
}

// article returns m as the Engine's Article (its Doc holds what Score
// reads: the title's facts, the language, the actor and the object).
func (m *Member) article() Article {
	return Article{ID: m.ID, Time: m.Time, Doc: termvec.Doc{Facts: m.Facts, CJK: m.CJK, Actor: m.Actor, Object: m.Object}}
}

// terms returns the terms of v.
func terms(v termvec.Vector) []string {
	out := make([]string, len(v))
	for i, e := range v {
		out[i] = e.Term
	}
	return out
}

func (c *rcluster) ids() []string {
	out := make([]string, len(c.members))
	for i, m := range c.members {
		out[i] = m.ID
	}
	slices.Sort(out)
	return out
}

// older tells whether a's lead comes before b's: by post time, then id.
func older(a, b *rcluster) bool {
	if a.first != b.first {
		return a.first < b.first
	}
	return a.lead().ID < b.lead().ID
}

// byTime orders members by post time, then id.
func byTime(a, b Member) int {
	if c := cmp.Compare(a.Time, b.Time); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// sortMembers sorts the members of a cluster after its lead by byTime.
func sortMembers(ms []Member) { slices.SortFunc(ms[1:], byTime) }

// sum returns the sum of the vectors of ms, every term kept, and their
// latest post time.
func sum(ms []Member) (termvec.Vector, int64) {
	var v termvec.Vector
	var last int64
	for i := range ms {
		v = termvec.Add(v, ms[i].Vector, 0)
		last = max(last, ms[i].Time)
	}
	return v, last
}

// less returns a - b for b a part of sum a (weights left that rounding
// alone made are dropped).
func less(a, b termvec.Vector) termvec.Vector {
	out := make(termvec.Vector, 0, len(a))
	j := 0
	for _, e := range a {
		for j < len(b) && b[j].Term < e.Term {
			j++
		}
		if j < len(b) && b[j].Term == e.Term {
			e.W -= b[j].W
			if e.W < 1e-9 {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// top returns v's n terms of most weight (all when n is 0), sorted by
// term.
func top(v termvec.Vector, n int) termvec.Vector { return termvec.Add(nil, v, n) }

// setSum sets c's sum and what follows from it: its centroid, its head
// and its latest post time.
func (r *regrouper) setSum(c *rcluster, sum termvec.Vector) {
	c.st = nil
	c.sum = sum
	c.cent = top(sum, r.p.MaxCentroid)
	c.head = top(sum, r.p.MaxCentroid+r.headTerms)
	c.last = c.first
	for _, m := range c.members {
		c.last = max(c.last, m.Time)
	}
}

// rest returns cluster c without its member m as a Story: the sum of the
// other members' vectors (MaxCentroid terms kept) and their latest post
// time. m's vector lowers at most len(m.Vector) terms of the sum, so the
// centroid's terms are among the sum's MaxCentroid + len(m.Vector) of
// most weight (c.head, unless m's vector is longer than headTerms).
func (r *regrouper) rest(c *rcluster, m *Member) *Story {
	head := c.head
	if len(m.Vector) > r.headTerms {
		head = top(c.sum, r.p.MaxCentroid+len(m.Vector))
	}
	l := c.lead()
	s := &Story{Lead: l.ID, Centroid: top(less(head, m.Vector), r.p.MaxCentroid), First: c.first, Last: c.first, Facts: l.Facts, CJK: l.CJK, Actor: l.Actor, Object: l.Object, Day: l.Day}
	for _, o := range c.members {
		if o.ID != m.ID {
			s.Last = max(s.Last, o.Time)
		}
	}
	return s
}

// least is the least Score for an article in language a to join a
// story in language s, as Decide takes it.
func (p Params) least(a, s bool) float64 {
	if a != s {
		return p.CrossMinSimilarity
	}
	return p.MinSimilarity
}

// regrouper holds Regroup's state.
type regrouper struct {
	p Params
	o RegroupOptions
	// headTerms is how many terms a member's vector has at most, but for
	// vectors made with other parameters
	headTerms int
	cs        []*rcluster
	byKey     map[string][]int // term → clusters filed under it, ascending
	where     map[string]int   // article id → its cluster
	// seen and pass: neighbours' marks, seen[j] == pass for a cluster
	// it listed already in its current call
	seen []int
	pass int
}

// Regroup plans the merges and moves that mend the stories cs (see
// Regrouping above). cs are the stories of a span, each article in one
// of them; the plan's steps are in the order to apply them.
func (p Params) Regroup(cs []Cluster, o RegroupOptions) Plan {
	if o.MaxKeyStories <= 0 {
		o.MaxKeyStories = DefaultMaxKeyStories
	}
	r, plan := p.regrouper(cs, o)
	if o.Replay {
		plan.Steps = r.replay()
	} else {
		plan.Steps = r.rounds(true)
	}
	return plan
}

// regrouper returns the regrouper of clusters cs, and a Plan of no step
// that counts them.
func (p Params) regrouper(cs []Cluster, o RegroupOptions) (*regrouper, Plan) {
	r := &regrouper{p: p, o: o, headTerms: p.MaxTerms, byKey: make(map[string][]int), where: make(map[string]int)}
	plan := Plan{}
	for _, c := range cs {
		if len(c.Members) == 0 {
			continue
		}
		rc := &rcluster{members: slices.Clone(c.Members), alive: true}
		sortMembers(rc.members)
		rc.first = rc.lead().Time
		total, _ := sum(rc.members)
		r.setSum(rc, total)
		r.cs = append(r.cs, rc)
		plan.Stories++
		plan.Articles += len(c.Members)
	}
	// the clusters in a fixed order: by lead, oldest first
	slices.SortFunc(r.cs, func(a, b *rcluster) int {
		if older(a, b) {
			return -1
		}
		if older(b, a) {
			return 1
		}
		return 0
	})
	for i, c := range r.cs {
		for _, m := range c.members {
			r.where[m.ID] = i
		}
		c.keys = terms(c.cent)
		for _, k := range c.keys {
			r.byKey[k] = append(r.byKey[k], i)
		}
	}
	return r, plan
}

// rounds plans merges, and moves when moves is true, on r's clusters:
// a move can leave an article alone or change a story's centroid so
// that a merge or join now holds, so it plans again on the result until
// a round finds nothing (bounded), so that the next run has nothing left.
func (r *regrouper) rounds(moves bool) []Step {
	var steps []Step
	for range regroupRounds {
		n := len(steps)
		steps = append(steps, r.merges()...)
		if moves {
			steps = append(steps, r.moves()...)
		}
		if len(steps) == n {
			break
		}
	}
	return steps
}

// neighbours returns the alive clusters other than i filed under terms,
// ascending.
func (r *regrouper) neighbours(i int, terms []string) []int {
	if len(r.seen) < len(r.cs) {
		r.seen = append(r.seen, make([]int, len(r.cs)-len(r.seen))...)
	}
	r.pass++ // a cluster is listed once: seen[j] == pass once it is
	var out []int
	for _, k := range terms {
		l := r.byKey[k]
		if len(l) > r.o.MaxKeyStories {
			continue
		}
		for _, j := range l {
			if j != i && r.seen[j] != r.pass && r.cs[j].alive {
				r.seen[j] = r.pass
				out = append(out, j)
			}
		}
	}
	slices.Sort(out)
	return out
}

// pairScore is how well clusters a and b match: the lower of the Scores
// of each one's lead against the other, and whether it reaches the
// threshold and MergeMargin (false when their leads are more than Window
// apart).
func (r *regrouper) pairScore(a, b *rcluster) (float64, bool) {
	if older(b, a) {
		a, b = b, a
	}
	if time.Duration(b.first-a.first)*time.Second > r.o.Window {
		return 0, false
	}
	sc := min(r.p.Score(b.lead().article(), b.lead().Vector, a.story()),
		r.p.Score(a.lead().article(), a.lead().Vector, b.story()))
	return sc, sc >= r.p.least(b.lead().CJK, a.lead().CJK)+r.o.MergeMargin
}

// edge is a candidate merge in mergeHeap.
type edge struct {
	a, b   int // a older
	va, vb int // their versions when scored
	score  float64
}

// mergeHeap pops the best edge first (ties: the older a, then b).
type mergeHeap []edge

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score > h[j].score
	}
	if h[i].a != h[j].a {
		return h[i].a < h[j].a
	}
	return h[i].b < h[j].b
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(edge)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// push scores clusters i and j and pushes their edge when they match.
func (r *regrouper) push(h *mergeHeap, i, j int) {
	a, b := i, j
	if older(r.cs[j], r.cs[i]) {
		a, b = j, i
	}
	if sc, ok := r.pairScore(r.cs[a], r.cs[b]); ok {
		heap.Push(h, edge{a: a, b: b, va: r.cs[a].ver, vb: r.cs[b].ver, score: sc})
	}
}

// merges merges the best matching pair of clusters while one matches.
func (r *regrouper) merges() []Step {
	h := &mergeHeap{}
	for i := range r.cs {
		for _, j := range r.neighbours(i, r.cs[i].keys) {
			if j > i {
				r.push(h, i, j)
			}
		}
	}
	var steps []Step
	for h.Len() > 0 {
		e := heap.Pop(h).(edge)
		a, b := r.cs[e.a], r.cs[e.b]
		if !a.alive || !b.alive || a.ver != e.va || b.ver != e.vb {
			continue
		}
		steps = append(steps, r.merge(e.a, e.b, e.score))
		for _, j := range r.neighbours(e.a, a.keys) {
			r.push(h, e.a, j)
		}
	}
	return steps
}

// merge merges cluster bi into cluster ai, whose lead is the older, and
// returns the step, of Score score.
func (r *regrouper) merge(ai, bi int, score float64) Step {
	a, b := r.cs[ai], r.cs[bi]
	st := Step{Kind: Merge, Into: a.lead().ID, From: b.lead().ID, Score: score,
		IntoMembers: a.ids(), FromMembers: b.ids()}
	if len(a.members) == 1 || len(b.members) == 1 {
		st.Kind = Join
	}
	a.members = append(a.members, b.members...)
	sortMembers(a.members)
	r.setSum(a, termvec.Add(a.sum, b.sum, 0))
	a.ver++
	b.alive = false
	for _, m := range b.members {
		r.where[m.ID] = ai
	}
	r.file(ai, terms(a.cent))
	st.IntoCentroid, st.IntoLast = a.cent, a.last
	return st
}

// file files cluster i under terms too (a cluster stays filed under
// the terms its centroid lost: a candidate more, compared for nothing).
func (r *regrouper) file(i int, terms []string) {
	c := r.cs[i]
	for _, k := range terms {
		x, found := slices.BinarySearch(c.keys, k)
		if found {
			continue
		}
		c.keys = slices.Insert(c.keys, x, k)
		l := r.byKey[k]
		y, _ := slices.BinarySearch(l, i)
		r.byKey[k] = slices.Insert(l, y, i)
	}
}

// fit is where article m of cluster own fits best: its Score against
// the rest of own, and the best other cluster (-1 for none) whose Score
// reaches the threshold, with that Score.
func (r *regrouper) fit(m *Member, own int) (float64, int, float64) {
	a := m.article()
	days := new(articleDays) // what the Scores read of m alone, once
	ownScore := r.p.score(a, m.Vector, r.rest(r.cs[own], m), days)
	best, bestScore := -1, 0.0
	cutoff := m.Time - int64(r.o.Window/time.Second)
	for _, j := range r.neighbours(own, terms(m.Vector)) {
		t := r.cs[j]
		if t.first < cutoff {
			continue
		}
		sc := r.p.score(a, m.Vector, t.story(), days)
		if sc >= r.p.least(m.CJK, t.lead().CJK) && sc > bestScore {
			best, bestScore = j, sc
		}
	}
	return ownScore, best, bestScore
}

// moves moves the articles that fit another story better than their own
// by the margin, the greatest gain first, each once; each move is checked
// again on the stories as the moves before it left them.
func (r *regrouper) moves() []Step {
	type cand struct {
		id   string
		gain float64
	}
	var cands []cand
	for i, c := range r.cs {
		if !c.alive || len(c.members) < 2 {
			continue
		}
		for mi := 1; mi < len(c.members); mi++ {
			m := &c.members[mi]
			own, best, sc := r.fit(m, i)
			if best >= 0 && sc >= own+r.o.Margin {
				cands = append(cands, cand{m.ID, sc - own})
			}
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.gain != b.gain {
			return cmp.Compare(b.gain, a.gain)
		}
		return strings.Compare(a.id, b.id)
	})
	var steps []Step
	for _, cd := range cands {
		i := r.where[cd.id]
		c := r.cs[i]
		mi := slices.IndexFunc(c.members, func(m Member) bool { return m.ID == cd.id })
		if mi <= 0 || len(c.members) < 2 {
			continue
		}
		m := c.members[mi]
		own, best, sc := r.fit(&m, i)
		if best < 0 || sc < own+r.o.Margin {
			continue
		}
		steps = append(steps, r.move(i, mi, best, sc, own))
	}
	return steps
}

// split takes member mi (not the lead) out of cluster ci into a cluster
// of its own, which it leads, and returns the step and that cluster.
func (r *regrouper) split(ci, mi int) (Step, int) {
	c := r.cs[ci]
	m := c.members[mi]
	st := Step{Kind: Split, Into: m.ID, From: c.lead().ID, Article: m.ID, IntoMembers: []string{m.ID}, FromMembers: c.ids()}
	st.Own = r.p.Score(m.fullArticle(), m.Vector, r.rest(c, &c.members[mi]))
	r.leave(c, mi, &st)
	n := &rcluster{members: []Member{m}, alive: true, first: m.Time}
	r.setSum(n, termvec.Add(nil, m.Vector, 0))
	r.cs = append(r.cs, n)
	ni := len(r.cs) - 1
	r.where[m.ID] = ni
	r.file(ni, terms(n.cent))
	st.IntoCentroid, st.IntoLast = n.cent, n.last
	return st, ni
}

// leave takes member mi (not the lead) out of cluster c and writes what
// c is after it into st (FromLast; FromCentroid unless its lead is left
// alone).
func (r *regrouper) leave(c *rcluster, mi int, st *Step) {
	m := c.members[mi]
	c.members = slices.Delete(c.members, mi, mi+1)
	c.ver++
	r.setSum(c, less(c.sum, m.Vector))
	st.FromLast = c.last
	if len(c.members) > 1 {
		st.FromCentroid = c.cent
	}
}

// move moves member mi (not the lead) of cluster ci to cluster ti and
// returns the step, of Score score and Own own.
func (r *regrouper) move(ci, mi, ti int, score, own float64) Step {
	c, t := r.cs[ci], r.cs[ti]
	m := c.members[mi]
	st := Step{Kind: Move, Into: t.lead().ID, From: c.lead().ID, Article: m.ID, Score: score, Own: own,
		IntoMembers: t.ids(), FromMembers: c.ids()}
	r.leave(c, mi, &st)
	t.members = append(t.members, m)
	sortMembers(t.members)
	r.setSum(t, termvec.Add(t.sum, m.Vector, 0))
	t.ver++
	r.where[m.ID] = ti
	r.file(ti, terms(t.cent))
	st.IntoCentroid, st.IntoLast = t.cent, t.last
	return st
}
