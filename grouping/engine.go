package grouping

import (
	"slices"
	"strings"
	"time"

	"github.com/newsrank/newsrank/termvec"
)

// Freq is the document frequencies of the recent articles, which an
// Engine reads and adds each article to.
type Freq interface {
	termvec.DocFreq
	// Add counts one more article, posted at t (Unix s), with terms.
	Add(terms map[string]float64, t int64)
	// At sets the time (Unix s) the frequencies are read at: those of
	// the window before it.
	At(t int64)
}

// Engine groups articles one after another. Its state is what the news
// store keeps in Redis: the document frequencies (Freq), an inverted
// index of the recent stories by term (each term → the stories last
// filed under it, PerKey at most), and the stories. A store primes an
// Engine with what it read (SetList, SetStory, Absent) and runs it
// with Complete false: a story an index lists that it was not given is
// Missing, to be read and the batch run again.
type Engine struct {
	P Params
	// Window is how long after its lead's post time a story takes
	// members.
	Window time.Duration
	DF     Freq
	// Complete: the Engine holds every story (in memory); else a story
	// it does not hold is missing.
	Complete bool
	// Lookup, when set, gives a story the Engine needs and does not
	// hold, which it then holds (and may change: Lookup gives its own
	// copy): ok when Lookup knows it, s nil when it is gone. A store
	// gives stories so as it needs them rather than all it read.
	Lookup func(lead string) (s *Story, ok bool)

	lists   map[string][]string
	stories map[string]*Story
	absent  map[string]bool
	missing []string
	// missingKeys: terms whose list e needed and was not given
	missingKeys []string
	// candBuf and candAt: candidates' buffers, reused article after
	// article
	candBuf []candidate
	candAt  map[string]int
}

// NewEngine returns an empty Engine holding every story itself.
func NewEngine(p Params, window time.Duration, df Freq) *Engine {
	return &Engine{P: p, Window: window, DF: df, Complete: true,
		lists: make(map[string][]string), stories: make(map[string]*Story), absent: make(map[string]bool)}
}

// SetList sets the stories term lists (latest filed first; none when
// empty).
func (e *Engine) SetList(term string, leads []string) { e.lists[term] = leads }

// List returns the stories term lists.
func (e *Engine) List(term string) []string { return e.lists[term] }

// SetStory gives e story s.
func (e *Engine) SetStory(s *Story) { e.stories[s.Lead] = s }

// story returns story lead as e holds it, or as Lookup gives it (then
// e holds it); nil when neither does, or it is gone.
func (e *Engine) story(lead string) *Story {
	if s := e.stories[lead]; s != nil || e.Lookup == nil || e.absent[lead] {
		return s
	}
	s, ok := e.Lookup(lead)
	switch {
	case !ok:
	case s == nil:
		e.absent[lead] = true
	default:
		e.stories[lead] = s
	}
	return s
}

// Absent tells e that story lead is gone.
func (e *Engine) Absent(lead string) { e.absent[lead] = true }

// Story returns story lead, nil when e does not hold it.
func (e *Engine) Story(lead string) *Story { return e.stories[lead] }

// Missing returns the stories e needed and did not hold (Complete
// false), sorted, each once.
func (e *Engine) Missing() []string {
	slices.Sort(e.missing)
	return slices.Compact(e.missing)
}

// MissingKeys returns the terms whose list e needed and was not given
// (Complete false; SetList with an empty list gives one), sorted, each
// once.
func (e *Engine) MissingKeys() []string {
	slices.Sort(e.missingKeys)
	return slices.Compact(e.missingKeys)
}

// Decision is where an article went.
type Decision struct {
	// Story is the lead of the article's story: its own id when it
	// starts one.
	Story string
	// Score is the article's score against it (0 for a new story).
	Score float64
	// Vector is the article's term vector; Keys its index terms, under
	// which its story is filed.
	Vector termvec.Vector
	Keys   []string
	// day: TellsOf of an article that starts a story (EarlierDayVeto),
	// from what its comparisons computed; dayKnown when set
	day      int64
	dayKnown bool
}

// Joined tells whether the article joined another article's story.
func (d Decision) Joined(id string) bool { return d.Story != id }

// candidate is a story an article's keys list.
type candidate struct {
	lead  string
	w     float64 // the weight of the article's keys that list it, each over its list's length squared
	order int     // when first met
}

// Decide returns the story article a joins, or "" when it starts its
// own, with its score, vector and keys; it changes nothing.
func (e *Engine) Decide(a Article) Decision {
	return e.DecideTerms(a, e.Terms(a))
}

// ArticleTerms is what Decide computes of an article first: its vector
// on the document frequencies, its index keys (Decision.Keys) and the
// terms whose index lists it reads (Look, the keys first).
type ArticleTerms struct {
	Vector     termvec.Vector
	Keys, Look []string
	// lookW: the weight in Vector of each term of Look (0: none), when
	// as long as Look
	lookW []float64
}

// Terms returns article a's terms against e's document frequencies at
// its post time.
func (e *Engine) Terms(a Article) ArticleTerms {
	e.DF.At(a.Time)
	return e.TermsOf(a, e.P.vector(a.Doc, e.DF))
}

// TermsOf is Terms with a's vector given, weighed as Terms weighs it
// (Params.WeighTerms of a's terms on the same frequencies).
func (e *Engine) TermsOf(a Article, v termvec.Vector) ArticleTerms {
	look := Keys(v, max(e.P.Keys, e.P.LookupKeys))
	t := ArticleTerms{Vector: v, Keys: slices.Clone(look[:min(len(look), e.P.Keys)]), Look: look}
	if e.P.KeyFacts {
		for _, k := range keyFacts(a.Doc, v) {
			if !slices.Contains(t.Keys, k) {
				t.Keys = append(t.Keys, k)
			}
			if !slices.Contains(t.Look, k) {
				t.Look = append(t.Look, k)
			}
		}
	}
	if e.P.LookupFigures {
		for _, x := range v {
			if Telling(x.Term) && !slices.Contains(t.Look, x.Term) {
				t.Look = append(t.Look, x.Term)
			}
		}
	}
	t.lookW = make([]float64, len(t.Look))
	for i, k := range t.Look {
		t.lookW[i] = weightIn(v, k)
	}
	return t
}

// weightIn is term k's weight in v, 0 when v has no such term.
func weightIn(v termvec.Vector, k string) float64 {
	if i, ok := slices.BinarySearchFunc(v, k, func(x termvec.Entry, t string) int { return strings.Compare(x.Term, t) }); ok {
		return v[i].W
	}
	return 0
}

// keyFacts returns the terms of vector v that article d is filed under
// and looks its stories up by besides its heaviest (KeyFacts): its
// title's telling figures and its actor's first word or CJK bigram.
func keyFacts(d termvec.Doc, v termvec.Vector) []string {
	var out []string
	for _, f := range d.Facts {
		if Telling(f) && anyIn([]string{f}, v) {
			out = append(out, f)
		}
	}
	if a := d.Actor; a != "" {
		if termvec.IsCJKName(a) {
			if bs := termvec.Bigrams(a); len(bs) > 0 {
				a = bs[0]
			}
		} else if i := strings.IndexByte(a, '_'); i >= 0 {
			a = a[:i]
		}
		if anyIn([]string{a}, v) {
			out = append(out, a)
		}
	}
	return out
}

// DecideTerms is Decide with a's terms given, as Terms returned them on
// the same document frequencies: a caller that decides the same
// articles again on more of the index (a store that read the stories a
// first run found missing) computes them once. t is not changed, and
// its vector is a new story's centroid until a member joins it.
func (e *Engine) DecideTerms(a Article, t ArticleTerms) Decision {
	v := t.Vector
	d := Decision{Story: a.ID, Vector: v, Keys: t.Keys}
	lookW := t.lookW
	if len(lookW) != len(t.Look) {
		lookW = make([]float64, len(t.Look))
		for i, k := range t.Look {
			lookW[i] = weightIn(v, k)
		}
	}
	cands := e.candidates(a.ID, t.Look, lookW)
	cutoff := a.Time - int64(e.Window/time.Second)
	best := 0.0
	days := new(articleDays)
	for _, c := range cands[:min(len(cands), e.P.Candidates)] {
		s := e.story(c.lead)
		if s == nil {
			if !e.Complete && !e.absent[c.lead] {
				e.missing = append(e.missing, c.lead)
			}
			continue
		}
		if s.First < cutoff {
			continue
		}
		min := e.P.MinSimilarity
		if a.Doc.CJK != s.CJK {
			min = e.P.CrossMinSimilarity
		}
		if sc := e.P.score(a, v, s, days); sc >= min && sc > best {
			best, d.Story, d.Score = sc, c.lead, sc
		}
	}
	if e.P.EarlierDayVeto && d.Story == a.ID {
		d.day, d.dayKnown = days.tellsOf(a), true
	}
	return d
}

// candidates returns the stories the index lists under keys (an
// article's, each of weights in its vector) that are not id's own,
// those whose shared keys weigh most first (ties: the first met), all
// of them: Decide compares the first Candidates. A key missing from the index is noted (Complete
// false). The slice is e's, valid until the next call.
func (e *Engine) candidates(id string, keys []string, weights []float64) []candidate {
	if e.candAt == nil {
		e.candAt = make(map[string]int, len(keys)*e.P.PerKey)
	}
	cands, at := e.candBuf[:0], e.candAt
	clear(at)
	for j, k := range keys {
		w := weights[j] // k's weight in the article's vector
		l, ok := e.lists[k]
		if !ok && !e.Complete {
			e.missingKeys = append(e.missingKeys, k)
		}
		for _, lead := range l {
			if lead == id {
				continue
			}
			i, ok := at[lead]
			if !ok {
				i = len(cands)
				at[lead] = i
				cands = append(cands, candidate{lead: lead, order: i})
			}
			// a key listing n stories tells less of each: a common word's
			// list is full of other events' stories
			cands[i].w += w / float64(len(l)*len(l))
		}
	}
	slices.SortFunc(cands, func(x, y candidate) int {
		switch {
		case x.w > y.w:
			return -1
		case x.w < y.w:
			return 1
		}
		return x.order - y.order
	})
	e.candBuf = cands[:0]
	return cands
}

// Add decides article a's story (Decide) and applies the decision: the
// article joins the story (its centroid grows by the article's vector)
// or starts one, the story is filed first under the article's keys, and
// the article's terms count in the document frequencies.
func (e *Engine) Add(a Article) Decision {
	d := e.Decide(a)
	e.Apply(a, d)
	return d
}

// AddTerms is Add with a's terms given (DecideTerms).
func (e *Engine) AddTerms(a Article, t ArticleTerms) Decision {
	d := e.DecideTerms(a, t)
	e.Apply(a, d)
	return d
}

// Apply applies decision d on article a (Add).
func (e *Engine) Apply(a Article, d Decision) {
	if s := e.stories[d.Story]; s != nil && d.Story != a.ID {
		s.Centroid = termvec.Add(s.Centroid, d.Vector, e.P.MaxCentroid)
		s.Last = max(s.Last, a.Time)
	} else {
		e.stories[a.ID] = &Story{Lead: a.ID, Centroid: d.Vector, First: a.Time, Last: a.Time,
			Facts: a.Doc.Facts, CJK: a.Doc.CJK, TitleNames: a.Doc.TitleNames, Actor: a.Doc.Actor, Object: a.Doc.Object}
		if e.P.EarlierDayVeto {
			if !d.dayKnown {
				d.day = TellsOf(a.Doc, a.Time)
			}
			e.stories[a.ID].Day = d.day
		}
		d.Story = a.ID
	}
	for _, k := range d.Keys {
		l := e.lists[k]
		if len(l) > 0 && l[0] == d.Story {
			continue
		}
		nl := make([]string, 1, e.P.PerKey)
		nl[0] = d.Story
		for _, x := range l {
			if x != d.Story && len(nl) < e.P.PerKey {
				nl = append(nl, x)
			}
		}
		e.lists[k] = nl
	}
	e.DF.Add(a.Doc.Counts, a.Time)
}

// MemFreq is a Freq in memory: the articles' terms counted per day of
// their post time, the days of the window summed.
type MemFreq struct {
	// Window is how long an article counts (days, rounded up).
	Window time.Duration
	now    int64 // the day of the latest article
	days   map[int64]*day
	// window: the days of the window before now that have articles
	// (each), made again when now moves or a day is added
	window []*day
	stale  bool
}

type day struct {
	docs  int
	terms map[string]int
}

// NewMemFreq returns an empty MemFreq over window.
func NewMemFreq(window time.Duration) *MemFreq {
	return &MemFreq{Window: window, days: make(map[int64]*day)}
}

// Day is the day number of Unix time t, as the document frequencies
// count them.
func Day(t int64) int64 { return t / 86400 }

// WindowDays is how many days of counts the document frequencies of a
// window sum: the current day and those before it that the window
// reaches.
func WindowDays(window time.Duration) int64 {
	return int64((window+24*time.Hour-1)/(24*time.Hour)) + 1
}

func (f *MemFreq) each(fn func(*day)) {
	if f.stale || f.window == nil {
		f.window = f.window[:0]
		n := WindowDays(f.Window)
		for d := f.now - n + 1; d <= f.now; d++ {
			if x := f.days[d]; x != nil {
				f.window = append(f.window, x)
			}
		}
		f.stale = false
	}
	for _, x := range f.window {
		fn(x)
	}
}

// setNow moves f's latest day to d, when later.
func (f *MemFreq) setNow(d int64) {
	if d > f.now {
		f.now, f.stale = d, true
	}
}

// DF is how many articles of the window have term.
func (f *MemFreq) DF(term string) int {
	n := 0
	f.each(func(d *day) { n += d.terms[term] })
	return n
}

// Docs is how many articles the window has.
func (f *MemFreq) Docs() int {
	n := 0
	f.each(func(d *day) { n += d.docs })
	return n
}

// At reads the frequencies of the window before t (and after, an
// article posted later than the latest).
func (f *MemFreq) At(t int64) { f.setNow(Day(t)) }

// AddDay counts on day d (Day) docs articles more and, for each term of
// terms, so many more articles that have it: the counts of a day read
// from elsewhere (the store's).
func (f *MemFreq) AddDay(d int64, docs int, terms map[string]int) {
	x := f.days[d]
	if x == nil {
		x = &day{terms: make(map[string]int, len(terms))}
		f.days[d] = x
		f.stale = true
	}
	x.docs += docs
	for t, n := range terms {
		x.terms[t] += n
	}
}

// Add counts an article posted at t.
func (f *MemFreq) Add(terms map[string]float64, t int64) {
	d := Day(t)
	f.setNow(d)
	x := f.days[d]
	if x == nil {
		x = &day{terms: make(map[string]int)}
		f.days[d] = x
		f.stale = true
	}
	x.docs++
	for term := range terms {
		x.terms[term]++
	}
}
