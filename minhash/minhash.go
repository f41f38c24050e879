// Package minhash estimates how alike two short texts are from small
// signatures: text is normalised (NFKC, lower case, punctuation and a few
// English stop words dropped) and cut into shingles — character bigrams
// for CJK text, words for Latin and other space-separated scripts — and
// its signature keeps, for each of NumHashes hash functions, the least
// hash over the shingles (MinHash, Broder). The share of equal positions
// of two signatures estimates the Jaccard similarity of their shingle
// sets. Bands cuts a signature into NumBands bands of Rows positions each
// and hashes each to a 32-bit value: two texts with Jaccard similarity s
// share at least one band with probability 1 − (1 − s^Rows)^NumBands
// (0.75 at s = 0.4, 0.90 at s = 0.5, 0.94 at s = 0.55, 0.995 at s = 0.7), which is what a locality-sensitive
// index files a signature under.
//
// Signatures compare texts in one language: a translation shares no
// shingle with its original, so bilingual copies of a story are not
// near-duplicates here.
package minhash

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// NumHashes is the length of a signature. Its first NumBands × Rows
// positions are banded (Bands); all of them estimate the similarity, so
// the estimate is finer than the index's banding.
const (
	NumHashes = 64
	Rows      = 2
	NumBands  = 8
)

// Signature is the MinHash signature of a text.
type Signature [NumHashes]uint32

// Of returns the signature of text. A text with no shingle (empty, or
// punctuation only) has ok false: it is like nothing.
//
// Each shingle is hashed once (64 bits, Shingles); the NumHashes hash
// functions are derived from that hash by multiply-add-shift
// (Dietzfelbinger: (a·x + b) >> 32 with odd a), one multiplication each.
func Of(text string) (sig Signature, ok bool) {
	for i := range sig {
		sig[i] = ^uint32(0)
	}
	n := 0
	Shingles(text, func(h uint64) {
		n++
		for i := range sig {
			if v := uint32((h*mulA[i] + addB[i]) >> 32); v < sig[i] {
				sig[i] = v
			}
		}
	})
	return sig, n > 0
}

// Similarity estimates the Jaccard similarity of the texts of a and b:
// the share of equal positions, 0 to 1.
func Similarity(a, b Signature) float64 {
	eq := 0
	for i := range a {
		if a[i] == b[i] {
			eq++
		}
	}
	return float64(eq) / NumHashes
}

// Bands returns the NumBands band values of sig: band i hashes positions
// i×Rows to (i+1)×Rows−1.
func (sig Signature) Bands() [NumBands]uint32 {
	var b [NumBands]uint32
	for i := range b {
		h := uint64(i) << 56
		for _, v := range sig[i*Rows : (i+1)*Rows] {
			h = mix(h ^ uint64(v))
		}
		b[i] = uint32(h)
	}
	return b
}

// Hex returns sig as 8 hex digits per position, big-endian: equal
// positions are equal 8-digit substrings.
func (sig Signature) Hex() string {
	var b [NumHashes * 4]byte
	for i, v := range sig {
		binary.BigEndian.PutUint32(b[4*i:], v)
	}
	return hex.EncodeToString(b[:])
}

// mulA and addB are the NumHashes hash functions' parameters (mulA odd).
var mulA, addB = func() (a, b [NumHashes]uint64) {
	x := uint64(0x9e3779b97f4a7c15)
	for i := range a {
		x += 0x9e3779b97f4a7c15
		a[i] = mix(x) | 1
		x += 0x9e3779b97f4a7c15
		b[i] = mix(x)
	}
	return a, b
}()

// Shingles calls emit with the hash of each shingle of text: each pair
// of adjacent words of a Latin (or other space-separated) script, stop
// words left out (a lone word is a shingle by itself), and each pair of
// adjacent characters of a CJK run (a lone CJK character likewise). A
// shingle that recurs is emitted again. Words are folded to lower case
// and lose a plural s (stem).
//
// Word pairs rather than single words: copies of a story share their
// wording, while different stories of one kind share many single words
// ("central bank", "interest rates") but fewer pairs of them.
func Shingles(text string, emit func(uint64)) {
	if !isASCII(text) {
		text = norm.NFKC.String(text)
	}
	var buf [64]byte
	word := buf[:0]
	var prev rune // previous CJK character of the current run, 0 if none
	cjkRun := 0
	var prevWord uint64 // hash of the previous word of the current run, 0 if none
	words := 0
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		if !stopWords[string(word)] {
			h := fnv(stem(word))
			if prevWord != 0 {
				emit(mix(prevWord ^ h<<1))
			}
			prevWord = h
			words++
		}
		word = word[:0]
	}
	endWords := func() {
		if words == 1 {
			emit(mix(prevWord))
		}
		prevWord, words = 0, 0
	}
	flushRun := func() {
		if cjkRun == 1 {
			emit(mix(uint64(prev)))
		}
		cjkRun, prev = 0, 0
	}
	for _, r := range text {
		switch {
		case r < 0x80:
			flushRun()
			switch {
			case 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
				word = append(word, byte(r))
			case 'A' <= r && r <= 'Z':
				word = append(word, byte(r+'a'-'A'))
			default:
				flushWord()
			}
		case isCJK(r):
			flushWord()
			endWords()
			if prev != 0 {
				emit(mix(uint64(prev)<<32 | uint64(r)))
			}
			prev = r
			cjkRun++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushRun()
			word = utf8.AppendRune(word, unicode.ToLower(r))
		default:
			flushRun()
			flushWord()
		}
	}
	flushRun()
	flushWord()
	endWords()
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

// stopWords are English words too common to tell two stories apart.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an the of to in on at for by with and or but is are was were be as from its it this that after over into new says") {
		m[w] = true
	}
	return m
}()
