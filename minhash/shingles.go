package minhash

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Shingles calls emit with the hash of each shingle of text: each word
// of a Latin (or other space-separated) script and each pair of adjacent
// words of a sentence, stop words left out, and each pair of adjacent
// characters of a CJK run (a lone CJK character by itself). A shingle
// that recurs is emitted again. Words (their first 64 bytes) are folded
// to lower case and lose a plural s (stem) and the s of a possessive;
// "%" and "per cent" are the word "percent", and a number is one word,
// a figure, in one canonical form whatever its notation (figures.go:
// "2-0", "2.1", "14:30" one word each; "1,500" and "1 500" are "1500",
// "2:1" is "2-1", "7.0" is "7", "$1.2bn" is "$1.2 billion").
//
// Words and word pairs: the words carry a story's facts (names, places,
// figures) whatever the order a copy puts them in, the pairs its wording,
// which copies share more than different stories of one kind do. Facts
// weigh more: a figure (a number, figures.go) and a name (a
// capitalised word that does not begin its sentence, in a sentence that
// has lower-case words: not a word of a title in title case or in
// capitals) are emitted FactWeight times, each time under another hash,
// so that two reports of one kind of event (a bank cuts rates) that name
// other actors or figures share less than two copies of one report.
func Shingles(text string, emit func(uint64)) {
	shingles(text, func(h uint64, _ kind) { emit(h) })
}

// FactWeight is how many times a fact (a figure, a name) counts among the
// shingles of a text.
const FactWeight = 3

// kind is what a shingle's hash stands for: a word (or a lone CJK
// character, or a name's or figure's replicas after the first), a word
// pair or CJK bigram, or the first replica of a name (kindFact) or of a
// figure (kindFigure) (FactWeight), which Sketch.Keys prefers.
type kind uint8

const (
	kindWord kind = iota
	kindPair
	kindFact
	kindFigure
	kindWeekday
)

// shingles is Shingles telling pairs (of words, of CJK characters) from
// single words and characters.
func shingles(text string, emit func(h uint64, k kind)) {
	if !isASCII(text) {
		text = norm.NFKC.String(text)
	}
	sh := shingler{emit: emit, start: true}
	skip := 0 // text[:skip] is read: a figure's
	for i, r := range text {
		if i < skip {
			continue
		}
		if unicode.IsDigit(r) || r == '-' || r == '−' {
			if n := sh.figureAt(text, i, r); n > 0 {
				skip = i + n
				continue
			}
		}
		switch {
		case r < 0x80:
			sh.flushRun()
			switch {
			case 'a' <= r && r <= 'z':
				sh.add(byte(r))
			case 'A' <= r && r <= 'Z':
				sh.capital = sh.capital || sh.n == 0
				sh.add(byte(r + 'a' - 'A'))
			case '0' <= r && r <= '9': // in a word of letters (figureAt)
				sh.add(byte(r))
			case r == '%':
				sh.flushWord()
				sh.n = copy(sh.word[:], "percent")
				sh.flushWord()
			case r == '.' || r == '!' || r == '?' || r == ':' || r == ';' || r == '\n' || r == '"':
				sh.endSentence()
			default:
				sh.flushWord()
			}
		case isCJK(r):
			sh.flushWord()
			sh.endWords()
			if sh.prev != 0 {
				emit(mix(uint64(sh.prev)<<32|uint64(r)), kindPair)
				if d := sh.weekday; d != 0 && !notWeekdayAfter(sh.prev, r) {
					emit(weekdayHash[d], kindWeekday)
				}
				sh.weekday = cjkWeekday(sh.prev, r) // held: the next character may undo it
			}
			sh.prev = r
			sh.cjkRun++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			sh.flushRun()
			sh.capital = sh.capital || sh.n == 0 && unicode.IsUpper(r)
			if sh.n+utf8.UTFMax <= len(sh.word) {
				sh.n += utf8.EncodeRune(sh.word[sh.n:], unicode.ToLower(r))
			}
		case r == '。' || r == '“' || r == '”':
			sh.flushRun()
			sh.endSentence()
		default:
			sh.flushRun()
			sh.flushWord()
		}
	}
	sh.flushRun()
	sh.endSentence()
}

// shingler is the state of shingles along a text.
type shingler struct {
	emit func(h uint64, k kind)
	// word[:n] is the current word, lower case (its first 64 bytes).
	word [64]byte
	n    int
	// capital: the word begins with an upper-case letter; digit: it is a
	// figure; suffix: it follows a figure in one word ("bn" of "1.2bn").
	capital, digit, suffix bool
	prev                   rune // previous CJK character of the current run, 0 if none
	weekday                int  // a weekday the run's last two characters name (cjkWeekday), not emitted yet
	cjkRun                 int
	prevWord               uint64 // hash of the previous word of the current run, 0 if none
	per                    bool   // a "per" held back: it may be "per cent"
	// start: the next word begins a sentence; lower: the sentence has a
	// lower-case word (not a stop word); names[:nn]: its capitalised
	// words after the first (at most 16).
	start, lower bool
	names        [16]uint64
	nn           int
}

// add appends c to the current word.
func (sh *shingler) add(c byte) {
	if sh.n < len(sh.word) {
		sh.word[sh.n] = c
		sh.n++
	}
}

// flushWord emits the current word, if any, and its pair with the one
// before.
func (sh *shingler) flushWord() {
	if sh.n == 0 {
		return
	}
	w, capital, digit, suffix := sh.word[:sh.n], sh.capital, sh.digit, sh.suffix
	sh.n, sh.capital, sh.digit, sh.suffix = 0, false, false, false
	first := sh.start
	sh.start = false
	switch {
	case stopWords[string(w)]:
		return
	case sh.per:
		sh.per = false
		if string(w) == "cent" {
			w = []byte("percent")
		} else {
			sh.emitWord(perHash)
		}
	case string(w) == "per":
		sh.per = true
		return
	}
	h := fnv(stem(w))
	sh.emitWord(h)
	if d := weekdays[string(w)]; d != 0 {
		sh.emit(weekdayHash[d], kindWeekday) // besides the word (a name, capitalised)
	}
	switch {
	case digit:
		sh.emitFact(h, kindFigure)
	case suffix: // a unit or an ending ("1.2bn", "5G", "2nd"): not a name
	case capital && !first:
		if sh.nn < len(sh.names) {
			sh.names[sh.nn] = h
			sh.nn++
		}
	case !capital:
		sh.lower = true
	}
}

// emitWord emits the word of hash h and its pair with the one before.
func (sh *shingler) emitWord(h uint64) {
	sh.emit(mix(h), kindWord)
	if sh.prevWord != 0 {
		sh.emit(mix(sh.prevWord^h<<1), kindPair)
	}
	sh.prevWord = h
}

// emitFact emits the FactWeight-1 more hashes of the word of hash h, a
// name (kind kindFact) or a figure (kindFigure): the first of that kind,
// the others as words.
func (sh *shingler) emitFact(h uint64, k kind) {
	for i := uint64(1); i < FactWeight; i++ {
		sh.emit(mix(h+i*factStep), k)
		k = kindWord
	}
}

// endWords ends a run of words: the next word pairs with none.
func (sh *shingler) endWords() {
	if sh.per {
		sh.per = false
		sh.emitWord(perHash)
	}
	sh.prevWord = 0
}

// endSentence ends the current sentence: its names are facts if it has
// a lower-case word (in a title in title case, every word has a
// capital).
func (sh *shingler) endSentence() {
	sh.flushWord()
	sh.endWords()
	if sh.lower {
		for _, h := range sh.names[:sh.nn] {
			sh.emitFact(h, kindFact)
		}
	}
	sh.nn, sh.lower, sh.start = 0, false, true
}

// flushRun ends a run of CJK characters: a lone one is a shingle.
func (sh *shingler) flushRun() {
	if sh.cjkRun == 1 {
		sh.emit(mix(uint64(sh.prev)), kindWord)
	}
	if sh.weekday != 0 {
		sh.emit(weekdayHash[sh.weekday], kindWeekday)
	}
	sh.cjkRun, sh.prev, sh.weekday = 0, 0, 0
}

// stem drops a plural s: "rates" and "rate" are one word ("ss" and words
// of three letters or fewer are kept).
func stem(w []byte) []byte {
	if n := len(w); n > 3 && w[n-1] == 's' && w[n-2] != 's' {
		return w[:n-1]
	}
	return w
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// isCJK reports whether r is written without spaces between words: Han,
// kana, Hangul.
func isCJK(r rune) bool {
	return r >= 0x2e80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// fnv is 64-bit FNV-1a.
func fnv(s []byte) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// mix is splitmix64's finaliser: a bijection that spreads every input
// bit over the output.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

var perHash = fnv([]byte("per"))

// factStep is what a fact's word hash moves by from one of its hashes to
// the next (emitFact).
const factStep = 0x9e3779b97f4a7c15

// stopWords are English words too common to tell two stories apart, and
// the s an apostrophe leaves of a possessive ("bank's").
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an the of to in on at for by with and or but is are was were be as from its it this that after over into new says s") {
		m[w] = true
	}
	return m
}()
