package termvec

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A title says what happened with a word of action: a company's
// quarter is told by its results, sales or profit, an executive's exit
// by a resignation or a successor, a maker's fault by a recall. Two
// reports that tell of one company a day apart (its results, then its
// finance chief leaving) share its name and much of its background, but
// their titles' words of action are of other kinds, none the same. A
// title's kinds (TitleKinds) are title facts (Doc.Facts), written "#"
// and the kind ("#exit"), so that they are kept and read wherever the
// title's figures are. A title that also cites the other event ("…to
// step down, a day after annual results") has both kinds.

// The kinds of event a title's word of action tells.
const (
	KindResults = "results" // a company's or a country's figures for a period
	KindExit    = "exit"    // a person leaving or taking a post
	KindRecall  = "recall"  // a product called back
	KindLegal   = "legal"   // a lawsuit, a court's ruling, a fine
	KindDeal    = "deal"    // a takeover, a merger
	KindLayoffs = "layoffs" // jobs cut
)

// latinKinds are the English words of action and their kinds, in the
// forms titles write them.
var latinKinds = map[string]string{
	"results": KindResults, "earnings": KindResults, "profit": KindResults, "profits": KindResults,
	"revenue": KindResults, "revenues": KindResults, "sales": KindResults, "quarter": KindResults,
	"quarterly": KindResults, "loss": KindResults, "losses": KindResults, "guidance": KindResults,
	"outlook": KindResults, "forecast": KindResults,

	"resign": KindExit, "resigns": KindExit, "resigned": KindExit, "resignation": KindExit,
	"quit": KindExit, "quits": KindExit, "exit": KindExit, "exits": KindExit, "depart": KindExit,
	"departs": KindExit, "departure": KindExit, "departing": KindExit, "ousted": KindExit,
	"ousts": KindExit, "sacked": KindExit, "sacks": KindExit, "retire": KindExit, "retires": KindExit,
	"retirement": KindExit, "appoint": KindExit, "appoints": KindExit, "appointed": KindExit,
	"successor": KindExit, "succeed": KindExit, "succeeds": KindExit,

	"recall": KindRecall, "recalls": KindRecall, "recalled": KindRecall, "recalling": KindRecall,

	"sue": KindLegal, "sues": KindLegal, "sued": KindLegal, "suing": KindLegal, "lawsuit": KindLegal,
	"lawsuits": KindLegal, "court": KindLegal, "verdict": KindLegal, "fined": KindLegal,

	"acquire": KindDeal, "acquires": KindDeal, "acquired": KindDeal, "acquisition": KindDeal,
	"takeover": KindDeal, "merger": KindDeal, "buyout": KindDeal,

	"layoffs": KindLayoffs, "layoff": KindLayoffs, "redundancies": KindLayoffs,
}

// latinExitPhrases are words of an exit of two words: "steps down",
// "loses its CEO" (a verb, then within a few words a post).
var (
	stepWords = map[string]bool{"step": true, "steps": true, "stepping": true, "stand": true, "stands": true}
	loseWords = map[string]bool{"lose": true, "loses": true, "losing": true, "lost": true}
	posts     = map[string]bool{"ceo": true, "cfo": true, "coo": true, "cto": true, "chairman": true,
		"chairwoman": true, "chief": true, "director": true, "boss": true, "president": true}
)

// cjkKinds are the Chinese words of action and their kinds.
var cjkKinds = []struct{ word, kind string }{
	{"业绩", KindResults}, {"营收", KindResults}, {"净利", KindResults}, {"利润", KindResults},
	{"财报", KindResults}, {"年报", KindResults}, {"季报", KindResults}, {"亏损", KindResults},
	{"盈利", KindResults},
	{"辞职", KindExit}, {"辞任", KindExit}, {"辞去", KindExit}, {"请辞", KindExit}, {"离职", KindExit},
	{"卸任", KindExit}, {"离任", KindExit}, {"任命", KindExit}, {"出任", KindExit}, {"接任", KindExit},
	{"履新", KindExit}, {"免职", KindExit}, {"退休", KindExit},
	{"召回", KindRecall},
	{"起诉", KindLegal}, {"诉讼", KindLegal}, {"判决", KindLegal}, {"罚款", KindLegal}, {"被罚", KindLegal},
	{"立案", KindLegal},
	{"收购", KindDeal}, {"并购", KindDeal}, {"要约", KindDeal},
	{"裁员", KindLayoffs},
}

// TitleKinds returns the kinds of event a title's words of action
// tell (KindResults, KindExit, …), each once, in no order.
func TitleKinds(title string) []string {
	var kinds []string
	add := func(k string) {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	for i, r := range title {
		if r >= 0x2e80 {
			for _, k := range cjkKinds {
				if strings.Contains(title[i:], k.word) {
					add(k.kind)
				}
			}
			break
		}
	}
	var prev [4]string // the words before, prev[0] the last
	for i := 0; i < len(title); {
		r, n := utf8.DecodeRuneInString(title[i:])
		if !unicode.IsLetter(r) || r >= 0x2e80 {
			i += n
			continue
		}
		j := i
		for j < len(title) {
			r, n := utf8.DecodeRuneInString(title[j:])
			if !unicode.IsLetter(r) || r >= 0x2e80 {
				break
			}
			j += n
		}
		w := strings.ToLower(title[i:j])
		if k, ok := latinKinds[w]; ok && !(w == "quarter" && isFinal(title[j:])) {
			add(k)
		}
		if w == "down" && stepWords[prev[0]] {
			add(KindExit)
		}
		if posts[w] && (loseWords[prev[0]] || loseWords[prev[1]] || loseWords[prev[2]]) {
			add(KindExit)
		}
		copy(prev[1:], prev[:3])
		prev[0] = w
		i = j
	}
	return kinds
}

// isFinal tells whether s, what follows "quarter", begins with
// "-final" or " final" (a quarter-final is a match, not a period).
func isFinal(s string) bool {
	return len(s) >= 6 && (s[0] == '-' || s[0] == ' ') && strings.EqualFold(s[1:6], "final")
}

// IsKind tells a title fact that is a kind of event ("#exit") or
// LaterFact from a figure, a weekday or a date.
func IsKind(f string) bool { return f != "" && f[0] == '#' }

// laterWords are how a text says its event comes a day or more after
// another one it names.
var laterWords = []string{"day after", "days after", "week after", "weeks after",
	"前一日", "前一天", "此前一天", "次日", "一天后", "翌日"}

// LaterFact is the fact of a title or summary that writes its event
// comes a day or more after another (Doc.Facts); it sorts after the
// kinds.
const LaterFact = "#~later"

// Later tells whether facts (Doc.Facts) have LaterFact.
func Later(facts []string) bool {
	for _, f := range facts {
		if f == LaterFact {
			return true
		}
		if !IsKind(f) {
			return false // kinds sort first, LaterFact last of them
		}
	}
	return false
}

// tellsLater tells whether text writes that its event comes a day or
// more after another (LaterFact).
func tellsLater(text string) bool {
	if text == "" {
		return false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 'A' && c <= 'Z' {
			text = strings.ToLower(text)
			break
		}
	}
	for _, w := range laterWords {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}
