// Package simhash fingerprints short texts so that near-duplicates get
// fingerprints a few bits apart: text is normalised (NFKC, lower case,
// punctuation dropped), cut into features — character bigrams for CJK
// text, words for Latin and other space-separated scripts — and hashed
// into a 64-bit SimHash (Charikar). Distance is the Hamming distance of
// two fingerprints; Bands splits one into the four 16-bit values a
// locality-sensitive index files it under: two fingerprints at most 3
// bits apart share at least one band (pigeonhole).
//
// The fingerprint compares texts in one language: a translation shares
// no features with its original, so bilingual copies of a story are not
// near-duplicates here.
package simhash

import (
	"math/bits"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Fingerprint is a 64-bit SimHash.
type Fingerprint uint64

// NumBands is how many bands Bands returns; BandBits their width.
const (
	NumBands = 4
	BandBits = 64 / NumBands
)

// MaxDistance is the largest distance the band index is sure to find:
// fingerprints within it share at least one band.
const MaxDistance = NumBands - 1

// Distance returns the Hamming distance of a and b (0 to 64).
func Distance(a, b Fingerprint) int { return bits.OnesCount64(uint64(a ^ b)) }

// Bands returns the NumBands 16-bit slices of f, lowest bits first.
func (f Fingerprint) Bands() [NumBands]uint16 {
	var b [NumBands]uint16
	for i := range b {
		b[i] = uint16(f >> (BandBits * i))
	}
	return b
}

// Of returns the fingerprint of text. An empty text (or one of
// punctuation only) has fingerprint 0 and ok false: it is like nothing.
func Of(text string) (f Fingerprint, ok bool) {
	var v [64]int32
	n := 0
	add := func(h uint64) {
		h = mix(h)
		for i := range v {
			if h&(1<<i) != 0 {
				v[i]++
			} else {
				v[i]--
			}
		}
		n++
	}
	Features(text, add)
	if n == 0 {
		return 0, false
	}
	for i, c := range v {
		if c > 0 {
			f |= 1 << i
		}
	}
	return f, true
}

// Features calls emit with the hash of each feature of text: each word
// of a Latin (or other space-separated) script that is not a stop word,
// and each pair of adjacent characters of a CJK run (a lone CJK
// character is a feature by itself).
func Features(text string, emit func(uint64)) {
	text = norm.NFKC.String(text)
	var word strings.Builder
	var prev rune // previous CJK character of the current run, 0 if none
	cjkRun := 0
	flushWord := func() {
		if word.Len() > 0 {
			w := word.String()
			if !stopWords[w] {
				emit(fnv(w))
			}
			word.Reset()
		}
	}
	flushRun := func() {
		if cjkRun == 1 {
			emit(fnv(string(prev)))
		}
		cjkRun, prev = 0, 0
	}
	for _, r := range text {
		switch {
		case isCJK(r):
			flushWord()
			if prev != 0 {
				emit(fnv(string([]rune{prev, r})))
			}
			prev = r
			cjkRun++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushRun()
			word.WriteRune(unicode.ToLower(r))
		default:
			flushRun()
			flushWord()
		}
	}
	flushRun()
	flushWord()
}

// isCJK reports whether r is written without spaces between words: Han,
// kana, Hangul.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// fnv is 64-bit FNV-1a.
func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// mix spreads FNV's weak high bits over the word (splitmix64's
// finaliser), so every bit of a fingerprint carries as much as any other.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// stopWords are English words too common to tell two stories apart.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an the of to in on at for by with and or but is are was were be as from its it this that after over into new says") {
		m[w] = true
	}
	return m
}()
