package termvec

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Kind is what a term stands for.
type Kind uint8

const (
	// Word is a Latin (or other space-separated) word, lower case, stop
	// words dropped, lightly stemmed (stem): "rates" and "rate" are one.
	Word Kind = iota
	// Bigram is a pair of adjacent CJK characters (a lone one by itself).
	Bigram
	// Initial is a word written with a capital where any word may be:
	// at a sentence's start, in a title in title case. It may be a name
	// ("Broadcom forecasts ...") or not ("Shares rose ..."): Doc tells
	// by the rest of the article.
	Initial
	// Name is a word written with a capital inside a sentence that has
	// lower-case words, or any Latin word inside CJK text: a person, a
	// company, a place ("Nvidia", "OpenAI" in a Chinese report).
	Name
	// Figure is a number in one canonical form whatever its notation
	// (figures.go).
	Figure
	// Weekday is a weekday, "@w1" (Monday) to "@w7", in any language.
	Weekday
	// Date is a day of a month, "@d3-5" for 5 March, in any language.
	Date
	// Phrase is a run of two or more words written with a capital one
	// after another, with only spaces or hyphens between them ("Dollar
	// General", "MacBook Air", "Baden-Württemberg"), their terms joined
	// by '_': one name of several words, which shares a word with other
	// names ("Dollar Tree", "iPad Air") without being them. Its words
	// are emitted too; NewDoc keeps the run's words that are names.
	Phrase
)

// IsFact tells whether terms of kind k are facts: names, figures,
// weekdays and dates, which copies of an event share whatever their
// wording (and their language) and which other events seldom have.
func (k Kind) IsFact() bool { return k >= Name && k != Phrase }

// Tokens calls emit with each term of text, in order, a term that recurs
// each time it does: see Kind for what the terms are.
func Tokens(text string, emit func(term string, k Kind)) {
	if !isASCII(text) {
		text = nfkc(text)
	}
	tk := tokenizer{emit: emit, start: true}
	tk.cjkText = isCJKText(text)
	skip := 0 // text[:skip] is read: a figure's
	for i, r := range text {
		if i < skip {
			continue
		}
		if unicode.IsDigit(r) || r == '-' || r == '−' {
			if n := tk.figureAt(text, i, r); n > 0 {
				skip = i + n
				continue
			}
		}
		switch {
		case r < 0x80:
			tk.flushRun()
			switch {
			case 'a' <= r && r <= 'z':
				tk.add(byte(r))
			case 'A' <= r && r <= 'Z':
				tk.capital = tk.capital || tk.n == 0
				tk.add(byte(r + 'a' - 'A'))
			case '0' <= r && r <= '9': // in a word of letters (figureAt)
				tk.add(byte(r))
			case r == '%':
				tk.flushWord()
				tk.emit("percent", Word)
			case r == '.' && tk.abbreviation():
				// "U.S.", "Feb. 1", "Mr. Tan": no sentence ends there
				tk.flushWord()
			case r == '.' || r == '!' || r == '?' || r == ':' || r == ';' || r == '\n' || r == '"':
				tk.endSentence()
			case r == '\'':
				// a possessive's s, a contraction's t: dropped with the word
				// they end (stop words), "O'Neill" kept one word
				tk.add('\'')
			case r == ' ' || r == '-':
				tk.flushWord() // a name may go on ("Dollar General", "Baden-Württemberg")
			default:
				tk.flushWord()
				tk.endRun()
			}
		case isCJK(r):
			tk.flushWord()
			tk.endRun()
			tk.endWords()
			if tk.prev != 0 {
				tk.emit(bigram(tk.prev, r), Bigram)
				if d := tk.weekday; d != 0 && !notWeekdayAfter(tk.prev, r) {
					tk.emit(weekdayTerm(d), Weekday)
				}
				tk.weekday = cjkWeekday(tk.prev, r) // held: the next character may undo it
			}
			tk.prev = r
			tk.cjkRun++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			tk.flushRun()
			r = baseLetter(r) // "Mbappé" is "Mbappe", "Müller" "Muller"
			tk.capital = tk.capital || tk.n == 0 && unicode.IsUpper(r)
			if tk.n+utf8.UTFMax <= len(tk.word) {
				tk.n += utf8.EncodeRune(tk.word[tk.n:], unicode.ToLower(r))
			}
		case r == '。' || r == '“' || r == '”' || r == '！' || r == '？' || r == '；':
			tk.flushRun()
			tk.endSentence()
		default:
			tk.flushRun()
			tk.flushWord()
			tk.endRun()
		}
	}
	tk.flushRun()
	tk.endSentence()
}

// bigram is the term of CJK characters a and b, written one after the
// other.
func bigram(a, b rune) string {
	var buf [2 * utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], a)
	n += utf8.EncodeRune(buf[n:], b)
	return string(buf[:n])
}

// isCJKText tells whether text is written in CJK: its Latin words are
// then names; a Latin text that glosses a name in CJK ("Taiwan
// Semiconductor (台積電)") is not.
func isCJKText(text string) bool {
	cjk, letters := 0, 0
	for _, r := range text {
		if isCJK(r) {
			cjk++
		} else if r < 0x80 && unicode.IsLetter(r) {
			letters++
		}
	}
	return cjk > 0 && 5*cjk > 2*letters
}

// tokenizer is the state of Tokens along a text.
type tokenizer struct {
	emit func(term string, k Kind)
	// cjkText: the text has CJK characters (its Latin words are names)
	cjkText bool
	// word[:n] is the current word, lower case (its first 64 bytes).
	word [64]byte
	n    int
	// capital: the word begins with an upper-case letter; digit: it is a
	// figure; suffix: it follows a figure in one word ("bn" of "1.2bn").
	capital, digit, suffix bool
	prev                   rune // previous CJK character of the current run, 0 if none
	weekday                int  // a weekday the run's last two characters name (cjkWeekday), not emitted yet
	cjkRun                 int
	per                    bool // a "per" held back: it may be "per cent"
	month                  int  // the last word was this month (1..12): a day may follow
	// start: the next word begins a sentence; lower: the sentence has a
	// lower-case word (not a stop word); names: its capitalised words
	// after the first, held until its end.
	start, lower bool
	names        []string
	// run holds the terms of the capitalised words read one after
	// another so far (Phrase); joined: nothing but a space or a hyphen
	// came since the last of them.
	run    []string
	joined bool
}

// add appends c to the current word.
func (tk *tokenizer) add(c byte) {
	if tk.n < len(tk.word) {
		tk.word[tk.n] = c
		tk.n++
	}
}

// flushWord emits the current word, if any.
func (tk *tokenizer) flushWord() {
	if tk.n == 0 {
		return
	}
	w, capital, digit, suffix := string(tk.word[:tk.n]), tk.capital, tk.digit, tk.suffix
	tk.n, tk.capital, tk.digit, tk.suffix = 0, false, false, false
	first := tk.start
	tk.start = false
	possessive := false
	if i := strings.IndexByte(w, '\''); i == 1 {
		w = strings.ReplaceAll(w, "'", "") // "o'neill", "d'arcy": one name
	} else if i >= 0 {
		w, possessive = w[:i], true // a possessive's s, a contraction's t
	}
	if w == "" {
		tk.endRun()
		return
	}
	month := 0
	defer func() { tk.month = month }()
	if digit || stopWords[w] || months[w] != 0 || weekdays[w] != 0 || w == "per" || w == "cent" {
		tk.endRun() // no word of a name
	}
	if m := months[w]; m != 0 && capital {
		// a month, the same term in every language ("March", "3月"); a
		// day may follow
		month = m
		tk.emit(monthTerm(m), Word)
		return
	}
	switch {
	case digit:
		tk.emit(w, Figure)
		return
	case stopWords[w]:
		return
	case tk.per:
		tk.per = false
		if w == "cent" {
			tk.emit("percent", Word)
			return
		}
		tk.emit("per", Word)
	case w == "per":
		tk.per = true
		return
	}
	if d := weekdays[w]; d != 0 {
		tk.emit(weekdayTerm(d), Weekday)
		return
	}
	t := stem(w)
	if !suffix && (capital || tk.cjkText) {
		// "Tesla's China sales": a possessive ends the name it is on
		tk.extendRun(t, possessive)
	} else {
		tk.endRun()
	}
	switch {
	case suffix: // a unit or an ending ("1.2bn", "5G", "2nd"): not a name
		tk.emit(t, Word)
	case tk.cjkText && len(w) > 1:
		tk.emit(t, Name)
	case capital && !first:
		tk.names = append(tk.names, t)
	case capital:
		tk.emit(t, Initial)
	default:
		tk.lower = true
		tk.emit(t, Word)
	}
}

// extendRun adds term t of a capitalised word to the run of them
// (Phrase), and ends the run after it when last.
func (tk *tokenizer) extendRun(t string, last bool) {
	if !tk.joined {
		tk.endRun()
	}
	tk.run = append(tk.run, t)
	tk.joined = !last
	if last {
		tk.endRun()
	}
}

// endRun ends the run of capitalised words: two or more are a Phrase.
func (tk *tokenizer) endRun() {
	if len(tk.run) > 1 {
		tk.emit(strings.Join(tk.run, "_"), Phrase)
	}
	tk.run, tk.joined = tk.run[:0], false
}

// abbreviation tells whether the current word, before a point, is an
// abbreviation (a letter, a month's, a title's, a company's).
func (tk *tokenizer) abbreviation() bool {
	if tk.n == 1 {
		return true
	}
	return tk.n > 1 && tk.n <= 4 && abbreviations[string(tk.word[:tk.n])]
}

// abbreviations are words written with a point that ends no sentence.
var abbreviations = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`jan feb mar apr jun jul aug sep sept oct nov dec
		mr mrs ms dr st jr sr inc co corp ltd vs no gov sen rep gen col sgt prof`) {
		m[w] = true
	}
	return m
}()

// endWords ends a run of words.
func (tk *tokenizer) endWords() {
	if tk.per {
		tk.per = false
		tk.emit("per", Word)
	}
	tk.month = 0
}

// endSentence ends the current sentence: its capitalised words are names
// if it has a lower-case word (in a title in title case, every word has
// a capital), words otherwise.
func (tk *tokenizer) endSentence() {
	tk.flushWord()
	tk.endRun()
	tk.endWords()
	k := Initial
	if tk.lower {
		k = Name
	}
	for _, t := range tk.names {
		tk.emit(t, k)
	}
	tk.names, tk.lower, tk.start = tk.names[:0], false, true
}

// flushRun ends a run of CJK characters: a lone one is a term.
func (tk *tokenizer) flushRun() {
	if tk.cjkRun == 1 {
		tk.emit(string(tk.prev), Bigram)
	}
	if tk.weekday != 0 {
		tk.emit(weekdayTerm(tk.weekday), Weekday)
	}
	tk.cjkRun, tk.prev, tk.weekday = 0, 0, 0
}

// stem folds the endings of English inflection: a plural or third
// person s ("rates", "cuts"), "ies" ("companies" is "company"), -ing and
// -ed ("raised", "raising" and "raise" are "rais"; "cutting" is "cut").
// Words of three letters or fewer are kept.
func stem(w string) string {
	n := len(w)
	if n <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:n-2]
	case strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is"):
		return w
	case w[n-1] == 's':
		w = w[:n-1]
	case strings.HasSuffix(w, "ing") && n > 5:
		w = undouble(w[:n-3])
	case strings.HasSuffix(w, "ed") && n > 4 && w[n-3] != 'e':
		w = undouble(w[:n-2])
	}
	if n := len(w); n > 3 && w[n-1] == 'e' && w[n-2] != 'e' {
		w = w[:n-1]
	}
	return w
}

// undouble drops the second of a doubled final consonant ("cutt" of
// "cutting"), not of l, s, z ("fall", "pass").
func undouble(w string) string {
	if n := len(w); n > 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// nfkc is norm.NFKC.String(text). A CJK text writes punctuation and
// figures in their full-width forms ("，", "（", "１２％"), each of which
// NFKC makes the ASCII character it is the form of: nfkc writes those
// itself, in one pass over the bytes, and leaves NFKC only what is left
// (most often nothing: the rest is normal already, which it tells fast).
// NFKC decomposes a full-width form to its ASCII character before it
// composes, so composing the text written so is the same.
func nfkc(text string) string {
	var b []byte
	from := 0 // text[from:] is not copied to b yet
	for i := 0; i+2 < len(text); i++ {
		c0 := text[i]
		if c0 != 0xef && c0 != 0xe3 {
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		var ascii byte
		switch {
		case 0xff01 <= r && r <= 0xff5e:
			ascii = byte(r - 0xff01 + '!')
		case r == 0x3000: // the ideographic space
			ascii = ' '
		default:
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(text))
		}
		b = append(append(b, text[from:i]...), ascii)
		from = i + size
		i += size - 1
	}
	if b != nil {
		text = string(append(b, text[from:]...))
	}
	return norm.NFKC.String(text)
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
	switch {
	case r < 0x2e80:
		return false
	case 0x4e00 <= r && r <= 0x9fff || 0xac00 <= r && r <= 0xd7a3:
		// the CJK Unified Ideographs and the Hangul syllables, all Han
		// or Hangul: most of a CJK text, found without the tables
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// stopWords are English words too common to tell two stories apart.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the of to in on at for by with and or but nor is are was were be been being
		as from its it this that these those after over into new says said say saying told tell
		has have had having do does did will would shall should can could may might must
		not no yes so than then there their they them he she his her him we our us you your i me my
		who whom whose which what when where why how all any both each few more most other some such
		only own same too very just also about above below up down out off again further once here
		while during before under until against between through because if since though although
		mr mrs ms dr according year years week day days month months time times percent
		one two three first last next amid via including`) {
		m[w] = true
	}
	return m
}()

// latinStart and latinEnd bound the Latin letters with marks that
// Tokens writes as their base letter (Latin-1 Supplement to Latin
// Extended-B): outlets write a name with its accents or without
// ("Mbappé", "Mbappe"; "São Paulo", "Sao Paulo"), one name either way.
const latinStart, latinEnd = 0xc0, 0x250

// baseLetter returns the ASCII letter a Latin letter with a mark is
// written with (latinBases), else r.
func baseLetter(r rune) rune {
	if latinStart <= r && r < latinEnd {
		if b := latinBases[r-latinStart]; b != 0 {
			return rune(b)
		}
	}
	return r
}

// latinBases maps a letter of latinStart..latinEnd to the ASCII letter
// its canonical decomposition begins with, 0 when it has none ("ø",
// "æ", "ß" are letters of their own).
var latinBases = func() (t [latinEnd - latinStart]byte) {
	for r := rune(latinStart); r < latinEnd; r++ {
		d := norm.NFD.String(string(r))
		if len(d) > 1 && d[0] < 0x80 && ('a' <= d[0]|0x20 && d[0]|0x20 <= 'z') {
			t[r-latinStart] = d[0]
		}
	}
	return t
}()
