package termvec

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// actorAndObject settles d's actor (its title's first name) and sets
// its object: a Latin title's actor begins within its first
// w.ActorWords words and its object is in the actor's clause
// (w.ObjectClause); a CJK title that does not begin with its actor has
// the bigram it begins with as object (w.CJKObject).
func (d *Doc) actorAndObject(title string, occ []occurrence, isName func(string) bool, w Weights) {
	var pos titlePlaces
	if !d.CJK && d.Actor != "" && (w.ActorWords > 0 || w.ObjectClause) {
		pos = places(title)
		if w.ActorWords > 0 && pos.word(firstWord(d.Actor)) >= w.ActorWords {
			d.Actor = ""
		}
	}
	d.Object = titleObject(occ, isName, d.Actor, d.TitleNames)
	if d.CJK && w.CJKObject && d.Actor != "" {
		d.Object = cjkObject(title, d.Actor)
	}
	if w.ObjectClause && d.Object != "" && pos.clause(firstWord(d.Object)) != pos.clause(firstWord(d.Actor)) {
		d.Object = ""
	}
}

// titleObject returns the first name of the title after its actor
// (Doc.Object): a name of several words as one, none of the actor's
// words ("macbook_air" of "Apple's new MacBook Air ...", "german" of
// "Tesla's German registrations drop").
func titleObject(occ []occurrence, isName func(string) bool, actor string, titleNames []string) string {
	if actor == "" {
		return ""
	}
	of := func(w string) bool {
		return w == actor || slices.Contains(strings.Split(actor, "_"), w)
	}
	after := false // past the actor's first word
	for _, o := range occ {
		if !o.title {
			break
		}
		if o.kind != Name && o.kind != Initial || len(o.term) <= 2 || !isName(o.term) {
			continue
		}
		if of(o.term) {
			after = true
			continue
		}
		if !after {
			continue
		}
		for _, n := range titleNames {
			if strings.HasPrefix(n, o.term+"_") && !slices.ContainsFunc(strings.Split(n, "_"), of) {
				return n
			}
		}
		return o.term
	}
	return ""
}

// cjkActor returns the name a CJK title begins with, "" when it begins
// with none that the report shows to be a name: CJK has no capitals, but
// a report is most often titled by whom it is about first ("宁德时代
// 2025年净利润…", "比亚迪2月销量…"), or by a source and a colon ("乘联
// 会：…"). It is the title's leading run of CJK characters when a colon
// ends it (at most colonMax characters), else the longest of its first
// four, three or two characters that the summary or lead writes as a
// company's name (orgName): a verb or a common noun heading a title
// ("我国…", "地铁…") is not.
func cjkActor(title, summary, lead string, w Weights) string {
	const colonMax = 6
	n, end := 0, 0
	for i, r := range title {
		if !isCJK(r) {
			if n >= 2 && n <= colonMax && (r == '：' || r == ':') {
				return title[:i]
			}
			break
		}
		n++
		end = i + utf8.RuneLen(r)
	}
	if n < 2 {
		return ""
	}
	run := title[:end]
	for k := min(4, n); k >= 2; k-- {
		gap := orgGap
		if k == 2 && w.CJKShortAdjacent {
			gap = 0 // "中国" of "中国央行…" is no name, though the lead writes "中国人民银行"
		}
		if p := prefixRunes(run, k); orgName(summary, p, gap) || orgName(lead, p, gap) {
			return p
		}
	}
	return ""
}

// orgSuffixes end the names of companies and groups: "比亚迪股份有限公
// 司", "吉利汽车控股", "小米集团".
var orgSuffixes = []string{"公司", "集团", "股份", "控股", "科技", "银行", "汽车", "能源", "证券", "保险", "电子", "医药", "矿业"}

// orgGap is how many characters may come between a name and the
// organisation's suffix that shows it to be one: "宁德时代新能源科技".
const orgGap = 6

// orgName tells whether text writes p as a company's name: followed, at
// most gap characters further, by an organisation's suffix
// (orgSuffixes: "宁德时代新能源科技股份有限公司"), or at once by a stock
// code in brackets ("紫金矿业（601899.SH）").
func orgName(text, p string, gap int) bool {
	for i := strings.Index(text, p); i >= 0; {
		after := text[i+len(p):]
		if strings.HasPrefix(after, "（") || strings.HasPrefix(after, "(") {
			_, w := utf8.DecodeRuneInString(after)
			if r, _ := utf8.DecodeRuneInString(after[w:]); '0' <= r && r <= '9' || 'A' <= r && r <= 'Z' {
				return true
			}
		}
		rest := after
		for n := 0; n <= gap && rest != ""; n++ {
			for _, s := range orgSuffixes {
				if strings.HasPrefix(rest, s) {
					return true
				}
			}
			r, w := utf8.DecodeRuneInString(rest)
			if !isCJK(r) {
				break
			}
			rest = rest[w:]
		}
		j := strings.Index(after, p)
		if j < 0 {
			break
		}
		i += len(p) + j
	}
	return false
}

// prefixRunes returns the first k runes of s.
func prefixRunes(s string, k int) string {
	for i := range s {
		if k == 0 {
			return s[:i]
		}
		k--
	}
	return s
}

// IsCJKName tells whether name n is written in CJK characters (a CJK
// title's actor, cjkActor): it is written when all its bigrams are.
func IsCJKName(n string) bool {
	r, _ := utf8.DecodeRuneInString(n)
	return isCJK(r)
}

// Bigrams returns the CJK bigrams of name n, as Tokens gives them.
func Bigrams(n string) []string {
	var out []string
	Tokens(n, func(t string, k Kind) {
		if k == Bigram {
			out = append(out, t)
		}
	})
	return out
}

// titlePlaces are where the terms of a Latin title are, in the title's
// order: the word each is a term of, counting the words that give a term
// (stop words give none), and that word's clause.
type titlePlaces []titlePlace

type titlePlace struct {
	term         string
	word, clause int
}

// places returns where the terms of title are (titlePlaces). A clause
// ends after a word that ends with a comma, colon, semicolon, question
// or exclamation mark, and before a dash between spaces or a word that
// joins clauses (clauseWords).
func places(title string) titlePlaces {
	out := make(titlePlaces, 0, 16)
	n, clause, any := 0, 0, false
	emit := func(t string, k Kind) {
		if k != Phrase {
			out = append(out, titlePlace{t, n, clause})
			any = true
		}
	}
	for f := range strings.FieldsSeq(title) {
		if clauseWords[strings.ToLower(f)] || strings.Trim(f, "-–—|") == "" {
			clause++
			continue
		}
		any = false
		Tokens(f, emit)
		if any {
			n++
		}
		if strings.ContainsAny(f[len(f)-1:], ",:;?!") {
			clause++
		}
	}
	return out
}

// word returns the word term t is first a term of (titlePlaces), a
// large number when the title has no such term.
func (p titlePlaces) word(t string) int {
	for _, x := range p {
		if x.term == t {
			return x.word
		}
	}
	return 1 << 30
}

// clause returns the clause of the word term t is first a term of, -1
// when the title has no such term.
func (p titlePlaces) clause(t string) int {
	for _, x := range p {
		if x.term == t {
			return x.clause
		}
	}
	return -1
}

// clauseWords begin a clause of a title: "... slumps as tariffs bite",
// "... wins after rival's exit".
var clauseWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`as after while amid despite but before when though although because since whereas
		unless until even`) {
		m[w] = true
	}
	return m
}()

// firstWord returns the first word of name n (a name of several words
// joins them with '_').
func firstWord(n string) string {
	if i := strings.IndexByte(n, '_'); i >= 0 {
		return n[:i]
	}
	return n
}

// cjkObject returns the bigram a CJK title begins with when the title
// does not begin with its actor, "" when it does or begins with no two
// CJK characters.
func cjkObject(title, actor string) string {
	if strings.HasPrefix(title, actor) {
		return ""
	}
	first := prefixRunes(title, 2)
	r1, w := utf8.DecodeRuneInString(first)
	r2, _ := utf8.DecodeRuneInString(first[w:])
	if !isCJK(r1) || !isCJK(r2) || strings.Contains(actor, first) {
		return ""
	}
	return first
}
