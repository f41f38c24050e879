// Package termvec turns a news article's text into a weighted term
// vector and compares such vectors, for grouping copies of one event
// written by different outlets in their own words.
//
// Terms (Tokens) are Latin words (lower case, stop words dropped, lightly
// stemmed), CJK character bigrams, and facts: names, figures in one
// canonical notation, weekdays and dates (the same term in Chinese and
// English). A Doc counts an article's terms in its title, summary and
// lead, names and figures counting more (Weights); Doc.Vector weighs
// them by how rare they are among recent articles (TF-IDF against a
// DocFreq) into a unit Vector. A story's centroid is the sum of its
// members' vectors (Add), and Cosine compares an article with it.
package termvec

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Weights are how much a term counts by where it is and what it is.
type Weights struct {
	// Title, Summary and Lead weigh an occurrence by its field.
	Title, Summary, Lead float64
	// Name and Figure multiply an occurrence of a name, and of a figure,
	// date or weekday.
	Name, Figure float64
	// MaxLead is how many bytes of the lead are read at most.
	MaxLead int
	// CJKActor: a CJK title's actor may be the name it begins with
	// (Doc.Actor), not only a bigram its report repeats cjkNameMin times.
	CJKActor bool
	// CJKShortAdjacent: a CJK title's first two characters are a name
	// (CJKActor) only when the report writes the organisation's suffix or
	// stock code right after them ("美团（03690.HK）", "小米集团"), not some
	// characters further: two characters with more before the suffix are
	// most often a place that begins a longer name ("中国" of "中国人民银
	// 行", "深圳" of "深圳地铁集团").
	CJKShortAdjacent bool
	// CJKObject: a CJK title that does not begin with its actor has as
	// object the bigram it begins with ("长沙" of "长沙突降冰雹" whose
	// report repeats "冰雹"): where or what its actor's news is about.
	CJKObject bool
	// ActorWords: a Latin title's first name is its actor (Doc.Actor)
	// only when it begins within the title's first ActorWords words (stop
	// words not counted; 0: anywhere): "Crowds pack Boca Chica ..." is
	// about crowds, not Boca Chica.
	ActorWords int
	// ObjectClause: a Latin title's object (Doc.Object) is a name of the
	// actor's clause, not of one after a comma, a colon or a conjunction
	// ("... slumps 38% as US tariffs and Porsche charges bite").
	ObjectClause bool
}

// DefaultWeights are the weights tuned on the tuning half of the
// labelled coverage set (internal/coverage).
var DefaultWeights = Weights{Title: 2, Summary: 1, Lead: 1, Name: 3, Figure: 2, MaxLead: 2000, CJKActor: true,
	CJKShortAdjacent: true, CJKObject: true, ActorWords: 2, ObjectClause: true}

// Doc is an article's terms before weighting.
type Doc struct {
	// Counts holds each term's weighted occurrences (Weights).
	Counts map[string]float64
	// Facts are the figures, weekdays and dates of the title, sorted:
	// two titles that both have some and share none tell of other
	// events (another score, another day's close). The kind of event
	// its title's word of action tells is one too ("#exit": TitleKind),
	// and so is LaterFact when its title or summary writes that its
	// event comes a day or more after another ("a day after the Czech
	// central bank held", "前一日地震的余震") or its title names it as
	// one that follows another ("aftershock"): a follow-up, not a copy.
	Facts []string
	// Names are the terms the article writes as names anywhere (Name:
	// capitalised inside a sentence, Latin words in CJK text), sorted:
	// the actors and places of its event, which a look-alike event (the
	// same kind of report on another company, another city) does not
	// share.
	Names []string
	// TitleNames are the words of the title that are Names, of three
	// letters or more, sorted: whom or where the title is about (a
	// two-letter name is most often a common abbreviation, "AI", "EV",
	// or a country's, "US"). Names of several words are there as one
	// term too, their words joined by '_' ("dollar_general" besides
	// "dollar" and "general"; Phrase), and so are the CJK bigrams of a
	// CJK title that its article writes cjkNameMin times at least (a
	// company, a city, a team: "宁德", "申花").
	TitleNames []string
	// Actor is the first name of the title (of TitleNames, a name of
	// several words as one), "" when it has none: whom the title is
	// about, as a report puts it first ("Dollar General beats ...",
	// "宁德时代2025年净利润..."). A CJK title's is, with
	// Weights.CJKActor, the name it begins with when its report shows it
	// to be one ("长城汽车" of "长城汽车2月销量…" whose lead writes "长城汽
	// 车股份有限公司"; "中汽协" of "中汽协：…"), else its first bigram
	// its report writes cjkNameMin times.
	Actor string
	// Object is the title's first name after its actor, none of the
	// actor's words, "" when it has none: what or where the actor's news
	// is about ("macbook_air" of "Apple's new MacBook Air ...", "german"
	// of "Tesla's German registrations drop").
	Object string
	// CJK is set when the title is mostly CJK (a Chinese, Japanese or
	// Korean report): its language for grouping.
	CJK bool
}

// NewDoc returns the terms of an article's title, summary and lead.
//
// A word written with a capital only where any word may be (Initial) is
// a name when the article also writes it as a name, or writes it so
// twice and never in lower case ("TSMC" heading the title and a
// sentence); its occurrences then count as a name's.
func NewDoc(title, summary, lead string, w Weights) Doc {
	sc := scratchPool.Get().(*scratch)
	defer sc.release()
	occ, cjk, latin := occurrences(sc.occ[:0], title, summary, lead, w)
	sc.occ = occ
	// about two occurrences a distinct term: the map seldom grows
	d := Doc{Counts: make(map[string]float64, len(occ)/2)}
	isName := nameTest(sc.words, occ)
	var bigrams map[string]int
	if cjk > latin {
		bigrams = titleBigrams(sc.bigrams, occ)
	}
	for _, o := range occ {
		x := o.w
		switch o.kind {
		case Phrase:
			if o.title {
				d.TitleNames = namePhrases(o.term, isName, d.TitleNames)
			}
			continue
		case Bigram:
			if o.title && bigrams[o.term] >= cjkNameMin && len(o.term) > 3 {
				d.TitleNames = append(d.TitleNames, o.term)
				if d.Actor == "" {
					d.Actor = o.term
				}
			}
		case Name, Initial:
			if isName(o.term) {
				x *= w.Name
				d.Names = append(d.Names, o.term)
				if o.title && len(o.term) > 2 {
					d.TitleNames = append(d.TitleNames, o.term)
					if d.Actor == "" {
						d.Actor = o.term
					}
				}
			}
		case Figure, Weekday, Date:
			x *= w.Figure
			if o.title {
				d.Facts = append(d.Facts, o.term)
			}
		case Word:
			if o.title && isName(o.term) && len(o.term) > 2 {
				d.TitleNames = append(d.TitleNames, o.term)
			}
		}
		d.Counts[o.term] += x
	}
	if d.Actor != "" {
		// the name of several words that the first name begins
		for _, n := range d.TitleNames {
			if strings.HasPrefix(n, d.Actor+"_") && len(n) > len(d.Actor) {
				d.Actor = n
				break
			}
		}
	}
	d.CJK = cjk > latin
	if d.CJK && w.CJKActor {
		if a := cjkActor(title, summary, lead, w); a != "" {
			d.Actor = a
		}
	}
	if tellsLater(title) || tellsLater(summary) || followsTitle(title) {
		d.Facts = append(d.Facts, LaterFact)
	}
	for _, k := range TitleKinds(title) {
		d.Facts = append(d.Facts, "#"+k)
	}
	for _, l := range []*[]string{&d.Facts, &d.Names, &d.TitleNames} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	d.actorAndObject(title, occ, isName, w)
	return d
}

// scratch is what NewDoc builds and drops for each article, kept for
// the next one (scratchPool): the occurrences and the maps over them.
type scratch struct {
	occ     []occurrence
	words   map[string]wordSeen
	bigrams map[string]int
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{words: make(map[string]wordSeen, 256), bigrams: make(map[string]int, 32)}
}}

// release empties sc (no term of an article is kept by it) and gives it
// back to the pool.
func (sc *scratch) release() {
	clear(sc.occ)
	clear(sc.words)
	clear(sc.bigrams)
	if cap(sc.occ) > 1<<14 {
		sc.occ = nil // an article far longer than most: not kept
	}
	scratchPool.Put(sc)
}

// occurrences tokenises an article's title, summary and lead (the lead
// cut at w.MaxLead, on a rune's boundary) into its terms' occurrences,
// each weighed by its field, appended to occ, and counts the title's
// CJK bigrams and its other terms.
func occurrences(occ []occurrence, title, summary, lead string, w Weights) (_ []occurrence, cjk, latin int) {
	if w.MaxLead > 0 && len(lead) > w.MaxLead {
		lead = lead[:w.MaxLead]
		for len(lead) > 0 && lead[len(lead)-1]&0xc0 == 0x80 {
			lead = lead[:len(lead)-1] // a cut rune
		}
	}
	// about a term every 5 bytes of Latin text, every 3 of CJK
	occ = slices.Grow(occ, (len(title)+len(summary)+len(lead))/4+8)
	for _, f := range []struct {
		text  string
		w     float64
		title bool
	}{{title, w.Title, true}, {summary, w.Summary, false}, {lead, w.Lead, false}} {
		Tokens(f.text, func(t string, k Kind) {
			occ = append(occ, occurrence{t, k, f.w, f.title})
			if f.title {
				if k == Bigram {
					cjk++
				} else {
					latin++
				}
			}
		})
	}
	return occ, cjk, latin
}

// titleBigrams counts in bigrams (empty) how often the article writes
// each bigram of its CJK title, in any field, and returns it.
func titleBigrams(bigrams map[string]int, occ []occurrence) map[string]int {
	for _, o := range occ {
		if o.kind == Bigram && o.title {
			bigrams[o.term] = 0
		}
	}
	for _, o := range occ {
		if c, ok := bigrams[o.term]; ok && o.kind == Bigram {
			bigrams[o.term] = c + 1
		}
	}
	return bigrams
}

// cjkNameMin is how often an article must write a bigram of its CJK
// title for NewDoc to take it for a name of the title (TitleNames): CJK
// has no capitals, and the actor a report is about (a company, a team,
// a city) is what it repeats most.
const cjkNameMin = 5

// namePhrases appends to names the names of several words in phrase
// (Phrase: terms joined by '_'): its runs of two words or more that are
// names. A title in title case capitalises every word ("Dollar General
// Beats Estimates"); only its names ("dollar_general") are kept.
func namePhrases(phrase string, isName func(string) bool, names []string) []string {
	words := strings.Split(phrase, "_")
	from := 0
	for i := 0; i <= len(words); i++ {
		if i < len(words) && isName(words[i]) {
			continue
		}
		if i-from > 1 {
			names = append(names, strings.Join(words[from:i], "_"))
		}
		from = i + 1
	}
	return names
}

// occurrence is one term of an article as NewDoc reads it.
type occurrence struct {
	term  string
	kind  Kind
	w     float64 // the field's weight
	title bool
}

// wordSeen is how often a word is written as a name, at a start, in
// lower case.
type wordSeen struct{ name, initial, lower int32 }

// nameTest returns, words (empty) filled with how each word of the
// article's occurrences is written, whether such a word is a name:
// written as one somewhere, or capitalised at least twice where any
// word is (heading sentences, a title in title case) and never in lower
// case.
func nameTest(words map[string]wordSeen, occ []occurrence) func(string) bool {
	for _, o := range occ {
		if o.kind != Word && o.kind != Initial && o.kind != Name {
			continue
		}
		x := words[o.term]
		switch o.kind {
		case Name:
			x.name++
		case Initial:
			x.initial++
		default:
			x.lower++
		}
		words[o.term] = x
	}
	return func(t string) bool {
		x := words[t]
		return x.name > 0 || x.initial >= 2 && x.lower == 0
	}
}

// DocFreq tells in how many of the recent articles (Docs) a term is.
type DocFreq interface {
	DF(term string) int
	Docs() int
}

// IDF is the inverse document frequency of a term in df of docs
// articles: ln((docs+1)/(df+1)) + 1, so that a term no other article
// has weighs most and one every article has weighs 1.
func IDF(df, docs int) float64 {
	return math.Log(float64(docs+1)/float64(df+1)) + 1
}

// Entry is one term of a Vector and its weight.
type Entry struct {
	Term string
	W    float64
}

// Vector is a sparse vector of terms, sorted by term.
type Vector []Entry

// Vector returns d weighted: each term's count, damped (1 + ln count
// above one), times its IDF in df, the max of most weight kept, scaled
// to unit length. Weekdays are left out: every report of a day may name
// it, so it tells days apart (Facts, Counts) but no event.
func (d Doc) Vector(df DocFreq, max int) Vector { return d.Weigh(df, max, 1, true) }

// Weigh is Vector with the terms no article of df has (DF 0) weighed
// unseen times as much: a word or CJK bigram no other recent article
// writes is most often no word of an event (a CJK bigram across two
// words, "圳大" of "深圳大幅"), and it can match no story yet. Dates are
// left out too unless dates is set: as a weekday, a day's date is
// stated by reports of any event of the day ("4月14日24时起", "央行14日
// 开展…"), and the day vetoes read it from Counts and Facts.
func (d Doc) Weigh(df DocFreq, max int, unseen float64, dates bool) Vector {
	v := make(Vector, 0, len(d.Counts))
	docs := df.Docs()
	for t, c := range d.Counts {
		if weighed(t, dates) {
			v = append(v, Entry{t, weight(c, df.DF(t), docs, unseen)})
		}
	}
	return v.top(max).unit()
}

// WeighTerms is Weigh of a Doc whose n terms at gives, each with its
// count (Doc.Counts) and document frequency in docs articles: a caller
// that holds the frequencies of an article's terms along with them
// looks none up.
func WeighTerms(n int, at func(i int) (term string, count float64, df int), docs, max int, unseen float64, dates bool) Vector {
	v := make(Vector, 0, n)
	for i := range n {
		if t, c, df := at(i); weighed(t, dates) {
			v = append(v, Entry{t, weight(c, df, docs, unseen)})
		}
	}
	return v.top(max).unit()
}

// weighed tells whether term t is weighed into a vector (Weigh):
// weekdays never are, dates when dates is set.
func weighed(t string, dates bool) bool {
	if _, ok := WeekdayOf(t); ok {
		return false // every story of a day has it
	}
	return dates || !strings.HasPrefix(t, "@d")
}

// weight is the weight of a term of count c in an article, in df of
// docs articles (Weigh).
func weight(c float64, df, docs int, unseen float64) float64 {
	if c > 1 {
		c = 1 + math.Log(c)
	}
	x := c * IDF(df, docs)
	if df == 0 {
		x *= unseen
	}
	return x
}

// top keeps the max entries of most weight (ties by term), sorted by
// term; all when max is 0 or more than there are.
func (v Vector) top(max int) Vector {
	if max > 0 && len(v) > max {
		selectHeaviest(v, max)
		v = v[:max]
	}
	slices.SortFunc(v, func(a, b Entry) int {
		x, y := a.Term, b.Term
		if len(x) > 0 && len(y) > 0 && x[0] != y[0] { // as in Dot
			return int(x[0]) - int(y[0])
		}
		return strings.Compare(x, y)
	})
	return v
}

// heavier orders entries by weight, the heavier first, ties by term.
func heavier(a, b Entry) bool {
	if c := cmp.Compare(a.W, b.W); c != 0 {
		return c > 0
	}
	return a.Term < b.Term
}

// selectHeaviest moves the k entries of most weight (ties by term) to
// v[:k], in no particular order (0 < k < len(v); terms unique): a
// quickselect, where sorting all of v by weight costs several times
// more comparisons.
func selectHeaviest(v Vector, k int) {
	// v[:lo] are among the k heaviest and v[hi:] are not
	lo, hi := 0, len(v)
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		v[m], v[hi-1] = v[hi-1], v[m]
		pivot, p := v[hi-1], lo
		for i := lo; i < hi-1; i++ {
			if heavier(v[i], pivot) {
				v[i], v[p] = v[p], v[i]
				p++
			}
		}
		v[p], v[hi-1] = v[hi-1], v[p]
		// v[lo:p] are heavier than the pivot, now at p, and v[p+1:hi]
		// lighter
		switch {
		case p == k || p == k-1:
			return
		case p > k:
			hi = p
		default:
			lo = p + 1
		}
	}
}

// unit scales v to length 1 in place.
func (v Vector) unit() Vector {
	if n := v.Norm(); n > 0 {
		for i := range v {
			v[i].W /= n
		}
	}
	return v
}

// Norm is v's length.
func (v Vector) Norm() float64 {
	s := 0.0
	for _, e := range v {
		s += e.W * e.W
	}
	return math.Sqrt(s)
}

// Dot is the dot product of a and b.
func Dot(a, b Vector) float64 {
	s := 0.0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		x, y := a[i].Term, b[j].Term
		// most terms met in the walk differ in their first byte: told
		// without a call
		if len(x) > 0 && len(y) > 0 && x[0] != y[0] {
			if x[0] < y[0] {
				i++
			} else {
				j++
			}
			continue
		}
		switch c := strings.Compare(x, y); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			s += a[i].W * b[j].W
			i, j = i+1, j+1
		}
	}
	return s
}

// Cosine is the cosine of the angle between a and b (0 when either is
// empty).
func Cosine(a, b Vector) float64 {
	na, nb := a.Norm(), b.Norm()
	if na == 0 || nb == 0 {
		return 0
	}
	return Dot(a, b) / (na * nb)
}

// Shared calls fn with each term a and b share and its weights.
func Shared(a, b Vector, fn func(term string, wa, wb float64)) {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		x, y := a[i].Term, b[j].Term
		if len(x) > 0 && len(y) > 0 && x[0] != y[0] { // as in Dot
			if x[0] < y[0] {
				i++
			} else {
				j++
			}
			continue
		}
		switch c := strings.Compare(x, y); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			fn(a[i].Term, a[i].W, b[j].W)
			i, j = i+1, j+1
		}
	}
}

// Add returns the sum of c and v, the max entries of most weight kept (a
// centroid of bounded size): c + v for a story's centroid c and a new
// member's vector v.
func Add(c, v Vector, max int) Vector {
	out := make(Vector, 0, len(c)+len(v))
	i, j := 0, 0
	for i < len(c) && j < len(v) {
		x, y := c[i].Term, v[j].Term
		d := 0
		if len(x) > 0 && len(y) > 0 && x[0] != y[0] { // as in Dot
			d = int(x[0]) - int(y[0])
		} else {
			d = strings.Compare(x, y)
		}
		switch {
		case d < 0:
			out = append(out, c[i])
			i++
		case d > 0:
			out = append(out, v[j])
			j++
		default:
			out = append(out, Entry{x, c[i].W + v[j].W})
			i, j = i+1, j+1
		}
	}
	out = append(append(out, c[i:]...), v[j:]...)
	return out.topSorted(max)
}

// topSorted is top of v sorted by term: the max entries of most weight
// kept in their order, found on a copy, v not sorted again.
func (v Vector) topSorted(max int) Vector {
	if max <= 0 || len(v) <= max {
		return v
	}
	var buf [256]Entry
	w := append(buf[:0], v...)
	selectHeaviest(w, max)
	least := w[0] // the lightest of the max heaviest
	for _, e := range w[1:max] {
		if heavier(least, e) {
			least = e
		}
	}
	out := v[:0]
	for _, e := range v {
		if !heavier(least, e) { // least itself, or heavier
			out = append(out, e)
		}
	}
	return out
}

// String encodes v as "term weight term weight ...", weights with 4
// significant digits: what the store keeps (terms hold no space).
func (v Vector) String() string {
	s, _ := v.encode(nil)
	return s
}

// Stored returns v's encoding (String) and the vector Parse reads from
// it: v with each weight as written, in one pass.
func (v Vector) Stored() (string, Vector) {
	at := make([]int, 0, 2*len(v))
	s, at := v.encode(at)
	out := make(Vector, len(v))
	for i, e := range v {
		w, err := strconv.ParseFloat(s[at[2*i]:at[2*i+1]], 64)
		if err != nil {
			panic(fmt.Sprintf("term vector: weight %q written unread: %v", s[at[2*i]:at[2*i+1]], err))
		}
		out[i] = Entry{e.Term, w}
	}
	return s, out
}

// encode is String, and appends to at (when not nil) where each weight
// begins and ends in it.
func (v Vector) encode(at []int) (string, []int) {
	n := 0
	for _, e := range v {
		n += len(e.Term) + 12
	}
	var b strings.Builder // its String is no copy
	b.Grow(n)
	var f [32]byte
	for i, e := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.Term)
		b.WriteByte(' ')
		from := b.Len()
		b.Write(strconv.AppendFloat(f[:0], e.W, 'g', 4, 64))
		if at != nil {
			at = append(at, from, b.Len())
		}
	}
	return b.String(), at
}

// Parse decodes a Vector that String encoded.
func Parse(s string) (Vector, error) {
	if s == "" {
		return nil, nil
	}
	f := strings.Fields(s)
	if len(f)%2 != 0 {
		return nil, errors.New("term vector: a term without its weight")
	}
	v := make(Vector, 0, len(f)/2)
	for i := 0; i < len(f); i += 2 {
		w, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil {
			return nil, fmt.Errorf("term vector: weight of %q: %w", f[i], err)
		}
		if len(v) > 0 && v[len(v)-1].Term >= f[i] {
			return nil, fmt.Errorf("term vector: %q out of order", f[i])
		}
		v = append(v, Entry{f[i], w})
	}
	return v, nil
}
