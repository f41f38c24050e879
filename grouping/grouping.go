// Package grouping groups news articles into stories as they come: each
// article is compared with the recent stories it shares rare terms with,
// as a whole (the centroid of their members' term vectors, package
// termvec), and joins the most similar one when it is similar enough, or
// starts a story of its own. It is pure Go and keeps its state in memory
// (Engine); the news store runs the same Engine on what it reads from
// Redis, so that what is measured in memory is what the store does.
package grouping

import (
	"math"
	"slices"
	"time"

	"github.com/newsrank/newsrank/termvec"
)

// Params tune the grouping.
type Params struct {
	// Weights weigh an article's terms by field and kind.
	Weights termvec.Weights
	// Unseen weighs the terms of an article that no recent article has
	// (termvec.Doc.Weigh; 0 counts as 1).
	Unseen float64
	// MaxTerms is how many terms an article's vector keeps (those of most
	// weight); MaxCentroid how many a story's centroid keeps.
	MaxTerms, MaxCentroid int
	// Keys is how many of an article's terms of most weight it looks its
	// candidate stories up by, and files its story under; PerKey is how
	// many stories one term lists at most (the latest filed first);
	// Candidates is how many stories an article is compared with at most
	// (those whose shared keys weigh most, a key listing n stories
	// counting its weight over n²).
	Keys, PerKey, Candidates int
	// LookupKeys is how many of its terms of most weight an article
	// looks its candidate stories up by, when more than Keys: a copy
	// whose rare terms are in its lead still finds its story, and the
	// index holds no more.
	LookupKeys int
	// LookupFigures: an article also looks its candidate stories up by
	// its telling figures (Telling) among its terms, which a copy in
	// another language shares where its words differ.
	LookupFigures bool
	// KeyFacts: an article is also filed under, and looks its stories up
	// by, its title's telling figures (Telling) and its actor's first
	// word or bigram (termvec.Doc.Actor), when among its vector's terms
	// but not its heaviest: what the copies of an event and its
	// follow-ups share most surely, the headline figure ("2085亿元") and
	// whom it is about ("吉利" of "吉利汽车").
	KeyFacts bool
	// MinSimilarity is the least Score that makes an article a member of
	// a story in its own language.
	MinSimilarity float64
	// Stale is how long after a story's latest member an article is
	// compared with it at full weight; past it the score decays by half
	// every HalfLife (0: no such decay).
	Stale, HalfLife time.Duration
	// Span is how long after a story's first report (its lead's post
	// time) an article is compared with it at full weight; past it the
	// score decays by half every SpanHalfLife (0: no such decay). The
	// reports of one event come within a day or so of the first; one of
	// the same kind a day later (the race after the qualifying, the next
	// company's results) tells of another event, and one that joins late
	// keeps a story open no longer.
	Span, SpanHalfLife time.Duration
	// CrossMinSimilarity is the least Score for an article to join a
	// story in another language (a Chinese and an English report), on
	// the terms both languages write alike (CrossScore), and
	// CrossMinShared how many such terms, facts among them, they must
	// share at least.
	CrossMinSimilarity float64
	CrossMinShared     int
	// CrossMinFigures is how many telling figures (Telling) the two must
	// share at least: a copy in another language gives the event's
	// figures (27,140 cars, 11.6%), where reports of other events share
	// a day's date, a year or a small count.
	CrossMinFigures int
	// FigureVeto: an article whose title has figures (or dates) and a
	// story whose lead's title has some, none shared, are other events,
	// unless a title's figures are among the other's terms (a copy that
	// puts another of the event's figures in its title still tells the
	// first one); WeekdayVeto: the same for weekdays, titles only.
	FigureVeto, WeekdayVeto bool
	// DayVeto: an article whose stated days (the dates and weekdays of
	// its text, DayBegins) all begin after a story's lead was posted
	// tells of a later event (the race after the qualifying, Tuesday's
	// operation after Monday's).
	DayVeto bool
	// TitleDayVeto: an article whose title states days (dates,
	// weekdays) that all begin after a story's lead was posted tells of a
	// later event, though its text writes an earlier day too ("after
	// Monday's injection, the central bank drained ... on Tuesday").
	TitleDayVeto bool
	// EarlierDayVeto: the day vetoes the other way round, for an
	// article that comes after the story it is of a later event than (a
	// crawl brings reports in no order): a story whose lead tells of a
	// day (Story.Day) that begins after the article was posted tells of a
	// later event, unless the article writes the lead's title day or
	// states a day of the lead's title.
	EarlierDayVeto bool
	// YearsOut: the figure veto leaves years and ranges of years out of
	// the titles' figures: a year in a title tells when, not what
	// ("2020–2022 Ford Explorer recalled ..." is a copy of "Ford recalls
	// 1.2 million Explorer SUVs ..."), and the reports of many events
	// write it.
	YearsOut bool
	// FigureRescue: the figure veto does not apply to an article and a
	// story that share at least so many figures besides (0: none does):
	// copies that put other stats of one match in their titles.
	FigureRescue int
	// NameVeto: an article and a story whose lead both have title names
	// (termvec.Doc.TitleNames) are reports of other actors or places (two
	// companies' results, two cities' floods) when none of the article's
	// is among the story's terms and the article writes none of the
	// story's in its title or twice: a rival named once in passing
	// ("after rival Broadcom's results") does not make them one.
	NameVeto bool
	// ActorVeto: an article and a story in one language whose lead name
	// first in their titles an actor (termvec.Doc.Actor: a name of one
	// word or of several as one, a CJK title's much repeated bigram) that
	// the other report never writes are reports of other actors, though
	// they share a word of a name or the words of a kind of news:
	// "Dollar General" and "Dollar Tree"'s results, two players' upsets
	// at one tournament, two carmakers' sales.
	ActorVeto bool
	// ObjectVeto: an article and a story in one language whose titles
	// put one actor first but then other names (termvec.Doc.Object: a
	// product, a place) are other events when neither report writes the
	// other's: one maker's two launches, one carmaker's sales in two
	// countries.
	ObjectVeto bool
	// KindVeto: an article and a story whose lead's title both tell a
	// kind of event (termvec.TitleKind), not the same, are other events:
	// one company's results and its finance chief's exit a day later.
	KindVeto bool
	// AfterVeto: an article that writes that its event comes a day or
	// more after another (termvec.LaterFact: "a day after the Czech
	// central bank held") does not join a story whose lead was posted
	// half a day or more before it: that is the event it cites; nor,
	// the other way round (a crawl brings reports in no order), does an
	// article posted half a day or more before a story's lead that
	// writes so. Off by default: a late copy of the follow-up event
	// writes so too ("the BSP held, a day after Indonesia's central
	// bank"), and the veto then keeps it from its own event's first
	// reports, posted half a day before it; on reports the rule was not
	// tuned on it parted such copies and no look-alike.
	AfterVeto bool
	// DatesOut: dates are left out of the vectors, as weekdays are: every
	// report of a day may state it.
	DatesOut bool
	// SharedNameLiftsActor: the actor veto does not apply to titles that
	// share a name besides their actors' words ("Arteta rues ... as
	// Mbappé punishes Arsenal", "Real Madrid 2-1 Arsenal: Mbappé ...").
	SharedNameLiftsActor bool
	// FigurePenalty multiplies the score of an article and a story whose
	// figures disagree so, when FigureVeto is off (1: nothing).
	FigurePenalty float64
}

// DefaultParams are the parameters tuned on the tuning half of the
// labelled coverage set (internal/coverage; bench/stories.md).
var DefaultParams = Params{
	Weights:              termvec.DefaultWeights,
	Unseen:               0.5,
	MaxTerms:             48,
	MaxCentroid:          128,
	Keys:                 10,
	PerKey:               8,
	Candidates:           8,
	LookupKeys:           15,
	LookupFigures:        true,
	KeyFacts:             true,
	DatesOut:             true,
	MinSimilarity:        0.12,
	Span:                 18 * time.Hour,
	SpanHalfLife:         12 * time.Hour,
	CrossMinSimilarity:   0.2,
	CrossMinShared:       2,
	CrossMinFigures:      1,
	FigureVeto:           true,
	WeekdayVeto:          true,
	DayVeto:              true,
	TitleDayVeto:         true,
	EarlierDayVeto:       true,
	YearsOut:             true,
	FigureRescue:         2,
	NameVeto:             true,
	ActorVeto:            true,
	SharedNameLiftsActor: true,
	ObjectVeto:           true,
	KindVeto:             true,
	FigurePenalty:        0.5,
}

// vector returns the term vector of doc d against df.
func (p Params) vector(d termvec.Doc, df termvec.DocFreq) termvec.Vector {
	u := p.Unseen
	if u == 0 {
		u = 1
	}
	return d.Weigh(df, p.MaxTerms, u, !p.DatesOut)
}

// WeighTerms is an article's vector (as Terms weighs its Doc) from its
// n terms, each with its count and document frequency in docs articles
// as at gives them (termvec.WeighTerms).
func (p Params) WeighTerms(n int, at func(i int) (term string, count float64, df int), docs int) termvec.Vector {
	u := p.Unseen
	if u == 0 {
		u = 1
	}
	return termvec.WeighTerms(n, at, docs, p.MaxTerms, u, !p.DatesOut)
}

// Story is a story as the grouping sees it.
type Story struct {
	// Lead is the id of its first article, which names the story.
	Lead string
	// Centroid is the sum of its members' vectors (MaxCentroid terms).
	Centroid termvec.Vector
	// First is its lead's post time, Last its latest member's (Unix s).
	First, Last int64
	// Facts are the lead's title facts (termvec.Doc.Facts); CJK its
	// language.
	Facts []string
	CJK   bool
	// TitleNames are the lead's title names (termvec.Doc.TitleNames),
	// Actor its title's actor (termvec.Doc.Actor).
	TitleNames []string
	Actor      string
	// Object is the lead's title's object (termvec.Doc.Object).
	Object string
	// Day is when the day the lead tells of begins (TellsOf; 0: none).
	Day int64

	// norm is the length of the centroid whose first entry is at normOf,
	// of normLen entries (CentroidNorm)
	norm    float64
	normOf  *termvec.Entry
	normLen int
}

// CentroidNorm is the length of s's centroid (termvec.Vector.Norm),
// computed once for each centroid s is given: a story is compared with
// article after article. A centroid is never changed in place (Add makes
// a new one), so one at the same place and of the same length is the
// same.
func (s *Story) CentroidNorm() float64 {
	c := s.Centroid
	if len(c) == 0 {
		return 0
	}
	if s.normOf != &c[0] || s.normLen != len(c) {
		s.norm, s.normOf, s.normLen = c.Norm(), &c[0], len(c)
	}
	return s.norm
}

// TellsOf returns when the day an article posted at t (Unix s) tells
// of begins: the earliest its title states (dates, weekdays), else the
// earliest its text states (DayBegins); 0 when it states none. A title
// that states a day puts its event there, though its text may write an
// earlier one ("after Monday's injection, ... on Tuesday").
func TellsOf(d termvec.Doc, t int64) int64 {
	if b, ok := daysBegin(slices.Values(d.Facts), t); ok {
		return b
	}
	if b, ok := DayBegins(d, t); ok {
		return b
	}
	return 0
}

// Article is an article to group.
type Article struct {
	ID   string
	Time int64 // post time, Unix s
	Doc  termvec.Doc
}

// Score is how similar article a, of vector v, is to story s: the cosine
// of v and s's centroid, lowered when a is more than Stale away from s's
// reports (before its first or after its latest) or when s with a would
// span more than Span; -1 when a veto
// applies (WeekdayVeto, DayVeto, TitleDayVeto, EarlierDayVeto, NameVeto, ActorVeto,
// ObjectVeto, KindVeto, FigureVeto). Between
// languages it is CrossScore.
func (p Params) Score(a Article, v termvec.Vector, s *Story) float64 {
	return p.score(a, v, s, new(articleDays))
}

// articleDays is DayBegins of an article, and what else score reads of
// it whatever the story, computed once for the stories it is compared
// with.
type articleDays struct {
	done, ok           bool
	begin              int64
	titleDone, titleOK bool
	title              int64
	// names: words of the article's title names (words), when namesDone
	names     []string
	namesDone bool
	// latin: its vector's terms that are no CJK bigram (latin), when
	// latinDone
	latin     termvec.Vector
	latinDone bool
	// norm: its vector's length, when normDone
	norm     float64
	normDone bool
}

// normOf is the length of the article's vector v.
func (d *articleDays) normOf(v termvec.Vector) float64 {
	if !d.normDone {
		d.norm, d.normDone = v.Norm(), true
	}
	return d.norm
}

// titleWords is words of the article's title names.
func (d *articleDays) titleWords(a Article) []string {
	if !d.namesDone {
		d.names, d.namesDone = words(a.Doc.TitleNames), true
	}
	return d.names
}

// latinOf is latin of the article's vector v.
func (d *articleDays) latinOf(v termvec.Vector) termvec.Vector {
	if !d.latinDone {
		d.latin, d.latinDone = latin(v), true
	}
	return d.latin
}

// ofTitle is DayBegins of the article's title's days alone.
func (d *articleDays) ofTitle(a Article) (int64, bool) {
	if !d.titleDone {
		d.title, d.titleOK = daysBegin(slices.Values(a.Doc.Facts), a.Time)
		d.titleDone = true
	}
	return d.title, d.titleOK
}

// tellsOf is TellsOf of the article.
func (d *articleDays) tellsOf(a Article) int64 {
	if b, ok := d.ofTitle(a); ok {
		return b
	}
	if b, ok := d.of(a); ok {
		return b
	}
	return 0
}

func (d *articleDays) of(a Article) (int64, bool) {
	if !d.done {
		d.begin, d.ok = DayBegins(a.Doc, a.Time)
		d.done = true
	}
	return d.begin, d.ok
}

// score is Score, the article's DayBegins taken from days.
func (p Params) score(a Article, v termvec.Vector, s *Story, days *articleDays) float64 {
	if !agree(a.Doc.Facts, s.Facts, false, p.WeekdayVeto, false) {
		return -1
	}
	if p.DayVeto && !sharesDay(a.Doc.Counts, s.Facts) {
		if b, ok := days.of(a); ok && b > s.First {
			return -1
		}
	}
	if p.TitleDayVeto && !sharesDay(a.Doc.Counts, s.Facts) && !sharesTitleDay(a.Doc.Facts, s.Facts) {
		if b, ok := days.ofTitle(a); ok && b > s.First {
			return -1
		}
	}
	if p.EarlierDayVeto && s.Day > a.Time && !sharesDay(a.Doc.Counts, s.Facts) && !sharesTitleDay(a.Doc.Facts, s.Facts) {
		return -1
	}
	if p.NameVeto {
		an, sn := days.titleWords(a), words(s.TitleNames)
		if len(an) > 0 && len(sn) > 0 && !anyIn(an, s.Centroid) && !p.prominent(sn, a.Doc) {
			return -1
		}
	}
	if p.ActorVeto && a.Doc.CJK == s.CJK && otherActors(a.Doc, v, s) &&
		!(p.SharedNameLiftsActor && sharedTitleName(a.Doc, s)) {
		return -1
	}
	if p.ObjectVeto && a.Doc.CJK == s.CJK && otherObjects(a.Doc, v, s) {
		return -1
	}
	if p.KindVeto && otherKinds(a.Doc.Facts, s.Facts) {
		return -1
	}
	if p.AfterVeto && (a.Time-s.First >= halfDay && termvec.Later(a.Doc.Facts) ||
		s.First-a.Time >= halfDay && termvec.Later(s.Facts)) {
		return -1
	}
	var sim float64
	penalty := 1.0
	cross := crossFigures(a.Doc.Facts, s.Centroid) || crossFigures(s.Facts, v)
	if !agree(a.Doc.Facts, s.Facts, true, false, p.YearsOut) && !cross &&
		(p.FigureRescue == 0 || sharedFigures(v, s.Centroid) < p.FigureRescue) {
		if p.FigureVeto {
			return -1
		}
		penalty = p.FigurePenalty
	}
	if a.Doc.CJK != s.CJK {
		sim = p.crossScore(days.latinOf(v), latin(s.Centroid))
	} else {
		// termvec.Cosine, the lengths computed once
		if na, nb := days.normOf(v), s.CentroidNorm(); na != 0 && nb != 0 {
			sim = termvec.Dot(v, s.Centroid) / (na * nb)
		}
	}
	sim *= penalty
	// Both decays look at times, not at the order of arrival: a crawl
	// takes pages in no particular order, so an article may come after
	// a story of a later day; it is as far from that story as one that
	// came after it the other way round.
	if d := time.Duration(gap(a.Time, s.First, s.Last)) * time.Second; d > p.Stale && p.HalfLife > 0 {
		sim *= math.Exp2(-float64(d-p.Stale) / float64(p.HalfLife))
	}
	span := max(a.Time, s.Last) - min(a.Time, s.First)
	if d := time.Duration(span) * time.Second; d > p.Span && p.SpanHalfLife > 0 {
		sim *= math.Exp2(-float64(d-p.Span) / float64(p.SpanHalfLife))
	}
	return sim
}

// halfDay is half a day in seconds: a report posted so long after a
// story's first tells of the day after (AfterVeto).
const halfDay = 12 * 60 * 60

// gap is how far time t is from the span [first, last] of a story's
// reports (Unix s): 0 within it.
func gap(t, first, last int64) int64 {
	switch {
	case t > last:
		return t - last
	case t < first:
		return first - t
	}
	return 0
}

// CrossScore compares vectors of texts in two languages on the terms
// they can share (names in Latin letters, figures, dates: no CJK
// bigram): the cosine of the two vectors without their bigrams, 0 when
// they share fewer than CrossMinShared terms, no fact besides names, or
// fewer than CrossMinFigures telling figures (Telling).
func (p Params) CrossScore(a, b termvec.Vector) float64 {
	return p.crossScore(latin(a), latin(b))
}

// crossScore is CrossScore of vectors of no CJK bigram (latin).
func (p Params) crossScore(a, b termvec.Vector) float64 {
	n, facts, telling := 0, 0, 0
	termvec.Shared(a, b, func(t string, _, _ float64) {
		n++
		if isFact(t) {
			facts++
		}
		if Telling(t) {
			telling++
		}
	})
	if n < p.CrossMinShared || facts == 0 || telling < p.CrossMinFigures {
		return 0
	}
	return termvec.Cosine(a, b)
}

// Keys returns the index terms of vector v: its n terms of most weight
// (ties by term), weekdays left out (many stories of a day share one).
func Keys(v termvec.Vector, n int) []string {
	es := make([]termvec.Entry, 0, len(v))
	for _, e := range v {
		if !isWeekday(e.Term) {
			es = append(es, e)
		}
	}
	slices.SortFunc(es, func(a, b termvec.Entry) int {
		switch {
		case a.W > b.W:
			return -1
		case a.W < b.W:
			return 1
		case a.Term < b.Term:
			return -1
		case a.Term > b.Term:
			return 1
		}
		return 0
	})
	keys := make([]string, 0, n)
	for _, e := range es[:min(n, len(es))] {
		keys = append(keys, e.Term)
	}
	return keys
}
