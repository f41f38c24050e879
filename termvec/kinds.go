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

// stepWords, loseWords and posts make the exits of two words: "steps
// down", "loses its CEO" (a verb, then within three words a post).
var (
	stepWords = map[string]bool{"step": true, "steps": true, "stepping": true, "stand": true, "stands": true}
	loseWords = map[string]bool{"lose": true, "loses": true, "losing": true, "lost": true}
	posts     = map[string]bool{"ceo": true, "cfo": true, "coo": true, "cto": true, "chairman": true,
		"chairwoman": true, "chief": true, "director": true, "boss": true, "president": true}
)

// cjkKinds are the Chinese words of action (of two characters) and
// their kinds.
var cjkKinds = map[string]string{
	"业绩": KindResults, "营收": KindResults, "净利": KindResults, "利润": KindResults,
	"财报": KindResults, "年报": KindResults, "季报": KindResults, "亏损": KindResults,
	"盈利": KindResults,
	"辞职": KindExit, "辞任": KindExit, "辞去": KindExit, "请辞": KindExit, "离职": KindExit,
	"卸任": KindExit, "离任": KindExit, "任命": KindExit, "出任": KindExit, "接任": KindExit,
	"履新": KindExit, "免职": KindExit, "退休": KindExit,
	"召回": KindRecall,
	"起诉": KindLegal, "诉讼": KindLegal, "判决": KindLegal, "罚款": KindLegal, "被罚": KindLegal,
	"立案": KindLegal,
	"收购": KindDeal, "并购": KindDeal, "要约": KindDeal,
	"裁员": KindLayoffs,
}

// cjkKindFirst are the first characters of cjkKinds' words.
var cjkKindFirst = func() map[rune]bool {
	m := make(map[rune]bool, len(cjkKinds))
	for w := range cjkKinds {
		r, _ := utf8.DecodeRuneInString(w)
		m[r] = true
	}
	return m
}()

// TitleKinds returns the kinds of event a title's words of action
// tell (KindResults, KindExit, …), each once, in no order.
func TitleKinds(title string) []string {
	var kinds []string
	add := func(k string) {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	var buf [24]byte       // a word in lower case
	step, lose := false, 9 // the last word was a step word; words since a lose word
	for i := 0; i < len(title); {
		r, n := utf8.DecodeRuneInString(title[i:])
		if r >= 0x2e80 {
			if cjkKindFirst[r] {
				if _, m := utf8.DecodeRuneInString(title[i+n:]); m > 0 {
					if k, ok := cjkKinds[title[i:i+n+m]]; ok {
						add(k)
					}
				}
			}
			i += n
			continue
		}
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		j, b := i, 0
		for j < len(title) {
			r, n := utf8.DecodeRuneInString(title[j:])
			if !unicode.IsLetter(r) || r >= 0x2e80 {
				break
			}
			if b+n <= len(buf) {
				b += utf8.EncodeRune(buf[b:], unicode.ToLower(r))
			} else {
				b = len(buf) + 1 // longer than any word of action
			}
			j += n
		}
		var w []byte
		if b <= len(buf) {
			w = buf[:b]
		}
		if k, ok := latinKinds[string(w)]; ok && !(string(w) == "quarter" && isFinal(title[j:])) {
			add(k)
		}
		if step && string(w) == "down" || lose < 3 && posts[string(w)] {
			add(KindExit)
		}
		step, lose = stepWords[string(w)], lose+1
		if loseWords[string(w)] {
			lose = 0
		}
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

// laterWords are how a Chinese text says its event comes a day or more
// after another one it names; an English one writes "day(s) after",
// "week(s) after".
var laterWords = []string{"前一日", "前一天", "次日", "一天后", "翌日"}

// LaterFact is the fact of a title or summary that writes its event
// comes a day or more after another, or of a title that names its
// event as one that follows another ("aftershock", followsTitle)
// (Doc.Facts); it sorts after the kinds.
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
	for i := 0; i < len(text); {
		j := indexWord(text[i:], "after")
		if j < 0 {
			break
		}
		before := strings.TrimRight(text[:i+j], " ")
		k := strings.LastIndexByte(before, ' ') + 1
		switch w := before[k:]; {
		case strings.EqualFold(w, "day"), strings.EqualFold(w, "days"), strings.EqualFold(w, "week"), strings.EqualFold(w, "weeks"):
			return true
		}
		i += j + 5
	}
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 { // CJK, perhaps
			for _, w := range laterWords {
				if strings.Contains(text[i:], w) {
					return true
				}
			}
			break
		}
	}
	return false
}

// indexWord is the index in s of a word beginning with w (in lower
// case, of ASCII letters) in any case ("After", "AFTER"), -1 when s has
// none.
func indexWord(s, w string) int {
	lo, up := w[0], w[0]-'a'+'A'
	for i := 0; i+len(w) <= len(s); i++ {
		j := strings.IndexFunc(s[i:], func(r rune) bool { return r == rune(lo) || r == rune(up) })
		if j < 0 {
			return -1
		}
		i += j
		if i+len(w) <= len(s) && strings.EqualFold(s[i:i+len(w)], w) && (i == 0 || s[i-1] == ' ') {
			return i
		}
	}
	return -1
}

// followsTitle tells whether a title names its event as one that follows
// another of its kind: an aftershock follows the quake its reports cite.
func followsTitle(title string) bool {
	return indexWord(title, "aftershock") >= 0 || strings.Contains(title, "余震")
}
