package termvec

import (
	"slices"
	"strings"
	"unicode/utf8"
)

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
func cjkActor(title, summary, lead string) string {
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
		if p := prefixRunes(run, k); orgName(summary, p) || orgName(lead, p) {
			return p
		}
	}
	return ""
}

// orgSuffixes end the names of companies and groups: "比亚迪股份有限公
// 司", "吉利汽车控股", "小米集团".
var orgSuffixes = []string{"公司", "集团", "股份", "控股", "科技", "银行", "汽车", "能源", "证券", "保险", "电子", "医药", "矿业"}

// orgName tells whether text writes p as a company's name: followed, at
// most orgGap characters further, by an organisation's suffix
// (orgSuffixes: "宁德时代新能源科技股份有限公司"), or at once by a stock
// code in brackets ("紫金矿业（601899.SH）").
func orgName(text, p string) bool {
	const orgGap = 6
	for i := strings.Index(text, p); i >= 0; {
		after := text[i+len(p):]
		if strings.HasPrefix(after, "（") || strings.HasPrefix(after, "(") {
			_, w := utf8.DecodeRuneInString(after)
			if r, _ := utf8.DecodeRuneInString(after[w:]); '0' <= r && r <= '9' || 'A' <= r && r <= 'Z' {
				return true
			}
		}
		rest := after
		for gap := 0; gap <= orgGap && rest != ""; gap++ {
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
