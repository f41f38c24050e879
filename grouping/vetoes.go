package grouping

// The facts the vetoes read (Params.score): the days an article states,
// its telling figures, the names and actors its title and text write.

import (
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/newsrank/newsrank/termvec"
)

// DaySlack is how long before a calendar day's start in UTC it begins
// in the earliest time zone (UTC+14).
const DaySlack = 14 * time.Hour

// DayBegins returns when the earliest day doc d states begins, in the
// earliest time zone, for an article posted at t (Unix s): of its dates
// (the year that puts them nearest t) and weekdays (the last such day
// up to t's day in UTC), those that begin before t (a day to come is a
// plan, not the event's day). ok is false when it states none.
func DayBegins(d termvec.Doc, t int64) (begin int64, ok bool) {
	return daysBegin(maps.Keys(d.Counts), t)
}

// daysBegin is DayBegins of the days among terms.
func daysBegin(terms iter.Seq[string], t int64) (begin int64, ok bool) {
	post := time.Unix(t, 0).UTC()
	today := time.Date(post.Year(), post.Month(), post.Day(), 0, 0, 0, 0, time.UTC)
	slack := int64(DaySlack / time.Second)
	for term := range terms {
		if term == "" || term[0] != '@' {
			continue // no weekday nor date
		}
		var day time.Time
		if w, isDay := termvec.WeekdayOf(term); isDay {
			back := (int(today.Weekday()) - w%7 + 7) % 7
			day = today.AddDate(0, 0, -back)
		} else if m, dd, isDate := termvec.DateOf(term); isDate {
			best := int64(math.MaxInt64)
			for y := post.Year() - 1; y <= post.Year()+1; y++ {
				c := time.Date(y, time.Month(m), dd, 0, 0, 0, 0, time.UTC)
				if c.Day() != dd {
					continue // 30 February
				}
				if dist := abs(c.Unix() - t); dist < best {
					best, day = dist, c
				}
			}
			if day.IsZero() {
				continue
			}
		} else {
			continue
		}
		b := day.Unix() - slack
		if b > t {
			continue
		}
		if !ok || b < begin {
			begin, ok = b, true
		}
	}
	return begin, ok
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Telling tells a figure that few events share: one with a fraction
// (11.6, 4.5) or of 100 and more that is no year (27140, 1.5 trillion),
// not a small count, a rank or a day (2, 16, 21), that any day's reports
// have, nor a year.
func Telling(t string) bool {
	if t == "" || !('0' <= t[0] && t[0] <= '9' || t[0] == '-') {
		return false
	}
	if strings.ContainsAny(t, ".") {
		return true
	}
	n, err := strconv.Atoi(strings.TrimPrefix(t, "-"))
	if err != nil {
		return strings.HasSuffix(t, "bp")
	}
	return n >= 100 && (n < 1900 || n > 2100)
}

// IsYears tells a figure that is a year (1900 to 2100) or a range of
// years ("2023.2025" of "2023–2025", "2025.26" is no range of years).
func IsYears(t string) bool {
	for part := range strings.SplitSeq(t, ".") {
		if len(part) != 4 {
			return false
		}
		n, err := strconv.Atoi(part)
		if err != nil || n < 1900 || n > 2100 {
			return false
		}
	}
	return true
}

// latin returns the entries of v that are no CJK bigram
// (v itself when all are: the caller changes neither).
func latin(v termvec.Vector) termvec.Vector {
	isLatin := func(t string) bool {
		r, _ := utf8.DecodeRuneInString(t)
		return t != "" && r < 0x2e80
	}
	n := 0
	for _, e := range v {
		if isLatin(e.Term) {
			n++
		}
	}
	if n == len(v) {
		return v
	}
	out := make(termvec.Vector, 0, n)
	for _, e := range v {
		if isLatin(e.Term) {
			out = append(out, e)
		}
	}
	return out
}

// isFact tells a figure, weekday or date term from a word.
func isFact(t string) bool {
	return t != "" && (t[0] == '@' || t[0] == '-' || '0' <= t[0] && t[0] <= '9')
}

// agree tells whether two lists of title facts, sorted, agree: they
// share one, or either has none; facts of one kind only are compared
// (a weekday with weekdays, a figure or date with figures and dates),
// figures when figures is set (years and ranges of years left out with
// noYears: IsYears), weekdays when weekdays is.
func agree(a, b []string, figures, weekdays, noYears bool) bool {
	for _, weekday := range []bool{false, true} {
		if weekday && !weekdays || !weekday && !figures {
			continue
		}
		na, nb, both := 0, 0, 0
		for _, x := range a {
			if termvec.IsKind(x) || !weekday && noYears && IsYears(x) {
				continue
			}
			if isWeekday(x) == weekday {
				na++
				if slices.Contains(b, x) {
					both++
				}
			}
		}
		for _, x := range b {
			if termvec.IsKind(x) || !weekday && noYears && IsYears(x) {
				continue
			}
			if isWeekday(x) == weekday {
				nb++
			}
		}
		if na > 0 && nb > 0 && both == 0 {
			return false
		}
	}
	return true
}

// sharesDay tells whether one of the weekdays and dates of facts is a
// term of counts.
func sharesDay(counts map[string]float64, facts []string) bool {
	for _, f := range facts {
		if _, ok := termvec.WeekdayOf(f); ok {
			if counts[f] > 0 {
				return true
			}
		} else if _, _, ok := termvec.DateOf(f); ok && counts[f] > 0 {
			return true
		}
	}
	return false
}

// sharesTitleDay tells whether two lists of title facts share a weekday
// or date: what sharesDay tells of an article whose terms are not kept
// (Regroup's), by its title.
func sharesTitleDay(a, b []string) bool {
	for _, f := range a {
		if _, ok := termvec.WeekdayOf(f); ok && slices.Contains(b, f) {
			return true
		}
		if _, _, ok := termvec.DateOf(f); ok && slices.Contains(b, f) {
			return true
		}
	}
	return false
}

// sharedFigures counts the figures (no date, weekday or month) vectors a
// and b share.
func sharedFigures(a, b termvec.Vector) int {
	n := 0
	termvec.Shared(a, b, func(t string, _, _ float64) {
		if t[0] != '@' && isFact(t) {
			n++
		}
	})
	return n
}

// prominent tells whether doc d writes one of names in its title or
// twice at least: what it is about, not a rival named in passing.
func (p Params) prominent(names []string, d termvec.Doc) bool {
	for _, n := range names {
		if d.Counts[n] >= 2*p.Weights.Name*min(p.Weights.Title, p.Weights.Summary, p.Weights.Lead) {
			return true
		}
	}
	return false
}

// words returns the names of names that are one word, no CJK bigram
// (termvec.Doc.TitleNames also has names of several words and CJK
// bigrams).
func words(names []string) []string {
	out := names[:0:0]
	for _, n := range names {
		if r, _ := utf8.DecodeRuneInString(n); r < 0x2e80 && strings.IndexByte(n, '_') < 0 {
			out = append(out, n)
		}
	}
	return out
}

// otherActors tells whether article d's title and story s's lead's
// title are about other actors (ActorVeto): each names first (Actor) one
// that the other report never writes. An article without its terms
// (Regroup's) is read by its vector v.
func otherActors(d termvec.Doc, v termvec.Vector, s *Story) bool {
	if d.Actor == "" || s.Actor == "" || d.Actor == s.Actor {
		return false
	}
	return !writes(d.Actor, s.inStory) && !writes(s.Actor, inArticle(d, v))
}

// sharedTitleName tells whether article d's title and story s's lead's
// title share a name that is no word of either's actor.
func sharedTitleName(d termvec.Doc, s *Story) bool {
	of := func(n, actor string) bool {
		return n == actor || slices.Contains(strings.Split(actor, "_"), n)
	}
	for _, n := range d.TitleNames {
		if strings.IndexByte(n, '_') >= 0 || of(n, d.Actor) || of(n, s.Actor) {
			continue
		}
		if slices.Contains(s.TitleNames, n) {
			return true
		}
	}
	return false
}

// otherObjects tells whether article d's title and story s's lead's
// title put one actor first and then other objects (ObjectVeto) that
// the other report never writes.
func otherObjects(d termvec.Doc, v termvec.Vector, s *Story) bool {
	if d.Actor == "" || d.Actor != s.Actor || d.Object == "" || s.Object == "" || d.Object == s.Object {
		return false
	}
	return !writes(d.Object, s.inStory) && !writes(s.Object, inArticle(d, v))
}

// inStory tells whether term t is among the story's terms.
func (s *Story) inStory(t string) bool { return anyIn([]string{t}, s.Centroid) }

// inArticle returns whether article d (of vector v) writes a term; an
// article without its terms (Regroup's) is read by its vector.
func inArticle(d termvec.Doc, v termvec.Vector) func(string) bool {
	if d.Counts == nil {
		return func(t string) bool { return anyIn([]string{t}, v) }
	}
	return func(t string) bool { return d.Counts[t] > 0 }
}

// writes tells whether name n is written, as has tells of a term: as
// one term, or, a name of several words ("dollar_general"), each of its
// words, or, a CJK name ("宁德时代"), each of its bigrams.
func writes(n string, has func(string) bool) bool {
	if has(n) {
		return true
	}
	if termvec.IsCJKName(n) {
		bs := termvec.Bigrams(n)
		return len(bs) > 0 && !slices.ContainsFunc(bs, func(b string) bool { return !has(b) })
	}
	return strings.IndexByte(n, '_') >= 0 && !slices.ContainsFunc(strings.Split(n, "_"), func(w string) bool { return !has(w) })
}

// anyIn tells whether one of terms is a term of v.
func anyIn(terms []string, v termvec.Vector) bool {
	for _, t := range terms {
		if _, ok := slices.BinarySearchFunc(v, t, func(e termvec.Entry, t string) int { return strings.Compare(e.Term, t) }); ok {
			return true
		}
	}
	return false
}

// crossFigures tells whether one of the figures (or dates) of facts is a
// term of v.
func crossFigures(facts []string, v termvec.Vector) bool {
	for _, f := range facts {
		if isWeekday(f) || termvec.IsKind(f) {
			continue
		}
		if _, ok := slices.BinarySearchFunc(v, f, func(e termvec.Entry, t string) int { return strings.Compare(e.Term, t) }); ok {
			return true
		}
	}
	return false
}

// otherKinds tells whether two lists of title facts, sorted, both have
// kinds of event (termvec.TitleKinds), none the same (KindVeto).
func otherKinds(a, b []string) bool {
	na, nb := 0, 0
	for _, x := range a {
		if !termvec.IsKind(x) {
			break // kinds sort first
		}
		if x == termvec.LaterFact {
			continue
		}
		na++
		if slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !termvec.IsKind(x) {
			break
		}
		if x != termvec.LaterFact {
			nb++
		}
	}
	return na > 0 && nb > 0
}

func isWeekday(t string) bool { return len(t) > 2 && t[0] == '@' && t[1] == 'w' }
