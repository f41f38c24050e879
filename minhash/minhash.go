// Package minhash estimates how alike two short texts are from small
// sketches: text is normalised (NFKC, lower case, punctuation and a few
// English stop words dropped, a plural s and a possessive 's cut, "%" and
// "per cent" read "percent", a number one word in one canonical form
// whatever its notation: figures.go) and cut into shingles — character
// bigrams for CJK text, words and pairs of words for Latin and other
// space-separated scripts, names and figures counting FactWeight times
// — and each shingle is hashed once. A text's sketch keeps the least K of its distinct hashes
// (bottom-k MinHash, Broder): for news titles and summaries that is
// usually all of them, so the similarity of two sketches is the exact
// Jaccard similarity of the texts' shingle sets, and an estimate of it
// for longer texts. Keys are
// what an index files a sketch under: its names and figures first, then
// its least word pairs; two texts share more of them the more alike they
// are, and a text filed under a key is a candidate only when it shares
// at least MinSharedKeys of them: one shared key is usually a common
// word pair or name, not a copy.
//
// Sketches compare texts in one language: a translation shares no
// shingle with its original, so bilingual copies of a story are not
// near-duplicates here.
package minhash

import (
	"encoding/binary"
	"encoding/hex"
	"slices"
)

// K is the most hashes a sketch keeps; IndexKeys is how many of them an
// index files a text under (Keys), FactKeys of them at most names and
// figures; MinSharedKeys is how many of them a text must share with
// another for the two to be compared (all of its keys when it has
// fewer: a title of two words has one word pair).
const (
	K             = 64
	IndexKeys     = 10
	MinSharedKeys = 2
	FactKeys      = 6
)

// Sketch is the bottom-K sketch of a text: the least K distinct 32-bit
// hashes of its shingles, in increasing order (all of them when the text
// has fewer than K distinct shingles).
type Sketch []uint32

// Of returns the sketch of text. A text with no shingle (empty, or
// punctuation only) has ok false: it is like nothing.
func Of(text string) (sk Sketch, ok bool) {
	var buf [4 * K]uint32
	hs := noWeekdays(appendHashes(buf[:0], text))
	if len(hs) == 0 {
		return nil, false
	}
	return bottom(hs), true
}

// OfTitled returns Of(title + "\n" + summary) and the title's sketch:
// Of(title) with the hashes of the weekdays it names (Weekday; nil when
// the title has no shingle), in one pass over the text: a line break
// ends a sentence, so the title's shingles are the first of the text's.
func OfTitled(title, summary string) (text, head Sketch, ok bool) {
	var buf [4 * K]uint32
	hs := appendHashes(buf[:0], title)
	if len(hs) > 0 {
		head = withWeekdays(bottom(hs), hs) // sorted in place: the text's sketch sorts them again
	}
	if hs = noWeekdays(appendHashes(hs, summary)); len(hs) == 0 {
		return nil, nil, false
	}
	return bottom(hs), head, true
}

// noWeekdays drops the weekdays' hashes from hs: only a title's sketch
// keeps them (for the story's titled check); in a text's, a weekday that
// many stories of one day share would only make them look alike.
func noWeekdays(hs []uint32) []uint32 {
	return slices.DeleteFunc(hs, Weekday)
}

// appendHashes appends to hs the hashes of the shingles of text, their
// low bits telling their kind (Keys, Figure): words end in binary 0,
// pairs in 01, names (one replica of each) in 011, figures (one replica
// of each) in 111.
func appendHashes(hs []uint32, text string) []uint32 {
	shingles(text, func(h uint64, k kind) {
		switch v := uint32(h >> 32); k {
		case kindPair:
			hs = append(hs, v&^3|1)
		case kindFact:
			hs = append(hs, v&^7|3)
		case kindFigure:
			hs = append(hs, v|7)
		case kindWeekday:
			hs = append(hs, v|0xff000007)
		default:
			hs = append(hs, v&^1)
		}
	})
	return hs
}

// bottom sorts hs in place and returns its least K distinct hashes, in a
// new slice.
func bottom(hs []uint32) Sketch {
	slices.Sort(hs)
	n := 0 // distinct hashes
	for i, v := range hs {
		if i == 0 || v != hs[i-1] {
			n++
		}
	}
	sk := make(Sketch, 0, min(n, K))
	for i, v := range hs {
		if len(sk) == K {
			break
		}
		if i == 0 || v != hs[i-1] {
			sk = append(sk, v)
		}
	}
	return sk
}

// sample merges the least K hashes of the union of a and b: how many there
// are, and how many of them are in a, in b, and in both.
func sample(a, b Sketch) (union, inA, inB, both int) {
	i, j := 0, 0
	for union < K && (i < len(a) || j < len(b)) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			i++
		case i == len(a) || b[j] < a[i]:
			j++
		default:
			i, j = i+1, j+1
			both++
		}
		union++
	}
	return union, i, j, both
}

// Overlap estimates the share of the shingles of the shorter of the texts
// of a and b that the other has (the overlap coefficient, |A∩B| /
// min(|A|, |B|)): of the least K hashes of their union, those in both
// over those in the one with fewer. It is exact when both texts have
// fewer than K distinct shingles. A copy that drops a sentence of the
// original keeps its overlap where its Jaccard similarity falls.
func Overlap(a, b Sketch) float64 {
	_, inA, inB, both := sample(a, b)
	if m := min(inA, inB); m > 0 {
		return float64(both) / float64(m)
	}
	return 0
}

// Shared returns what Overlap divides: of the least K hashes of the
// union of a and b, how many are in both, and how many are in the one
// with fewer (an index that compares sketches against a threshold
// compares these integers, as the ingest script does).
func Shared(a, b Sketch) (both, least int) {
	_, inA, inB, both := sample(a, b)
	return both, min(inA, inB)
}

// Similarity estimates the Jaccard similarity of the shingle sets of the
// texts of a and b: of the least K hashes of the union of a and b, the
// share that is in both (Broder's bottom-k estimator, exact when both
// texts have fewer than K distinct shingles).
func Similarity(a, b Sketch) float64 {
	union, _, _, both := sample(a, b)
	if union == 0 {
		return 0
	}
	return float64(both) / float64(union)
}

// Keys returns the index keys of sk: the least FactKeys hashes of its
// names and figures, then the least of its word pairs and CJK bigrams, up
// to IndexKeys in all (fewer when it has fewer). Names and figures come
// first because they are what a story's copies share and other stories
// seldom have, so that an index whose keys of common word pairs ("the
// ministry said") keep naming the latest stories filed under them still
// finds a story by them. Two texts whose word pairs have Jaccard
// similarity s share about s × IndexKeys of their least, so that copies
// share several keys where texts alike in one common word pair share one
// (hence MinSharedKeys). Single words are left out: a common word would
// make every text that has it a candidate of every other.
func (sk Sketch) Keys() []uint32 {
	keys := make([]uint32, 0, IndexKeys)
	for _, v := range sk {
		if v&3 == 3 && len(keys) < FactKeys && !Weekday(v) {
			keys = append(keys, v)
		}
	}
	for _, v := range sk {
		if v&3 == 1 && len(keys) < IndexKeys {
			keys = append(keys, v)
		}
	}
	return keys
}

// Figure tells whether v, a hash of a sketch, is a figure's (a number, in
// its canonical form: "2-0", "2.1%" and "14:30" have one each; a decimal
// with trailing zeros two, "7.0" being "7" and, as written, "7.0").
func Figure(v uint32) bool { return v&7 == 7 && !Weekday(v) }

// Bytes returns sk as 4 bytes per hash, big-endian.
func (sk Sketch) Bytes() []byte {
	b := make([]byte, 4*len(sk))
	for i, v := range sk {
		binary.BigEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// FromBytes returns the sketch b holds, as Bytes writes it (a trailing
// part of fewer than 4 bytes is ignored).
func FromBytes(b []byte) Sketch {
	sk := make(Sketch, len(b)/4)
	for i := range sk {
		sk[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	return sk
}

// Hex returns sk as 8 hex digits per hash, big-endian: the order of the
// 8-digit substrings is the order of the hashes.
func (sk Sketch) Hex() string {
	b := make([]byte, 4*len(sk))
	for i, v := range sk {
		binary.BigEndian.PutUint32(b[4*i:], v)
	}
	return hex.EncodeToString(b)
}

// withWeekdays is a title's sketch with every weekday hash of hs (the
// title's, sorted), also those past its least K: a weekday's hash is high
// (Weekday), and a title of more than K shingles would lose it.
func withWeekdays(head Sketch, hs []uint32) Sketch {
	for i := len(hs) - 1; i >= 0 && hs[i] >= 0xff000007; i-- {
		if v := hs[i]; Weekday(v) && !slices.Contains(head, v) {
			head = append(head, v)
		}
	}
	slices.Sort(head)
	return head
}
