package queue

import (
	"crypto/sha256"
	"time"
)

// The done memory remembers each finished URL as a 12-byte field (a slice
// of the SHA-256 of its canonical form) whose value is when, within its
// generation, it was finished (whole minutes, rounded up), in one HASH per
// generation, so an ack of any number of URLs writes them with one HSET.
//
// Time is cut into generations of DoneRetention/4. A URL finished in
// generation g is written to done:<g>. A lookup (Push) checks the live
// generations (the 5 or 6 that can hold URLs finished within the
// retention) with one HMGET each and compares the stored time with now -
// retention, so a URL is remembered for the retention (at most a minute
// more) while memory is held at most 1.25 × the retention.
//
// A generation's hash is deleted with UNLINK, which frees it off Redis'
// main thread, by the claims' housekeeping once all it holds is older than
// the retention (the two generations before the oldest live one are
// unlinked each time). It also expires one generation later, a safety net
// for a queue nobody claims from any more; Redis frees an expired key in
// its main thread unless lazyfree-lazy-expire is yes.
const generationsPerRetention = 4

// doneFieldLen is the length of a done memory field. Redis stores a field
// of up to 14 bytes in a 16-byte allocation, so 12 bytes (96 bits) cost no
// more memory than 8: a new URL is wrongly taken for done only if its
// field equals that of one of the m URLs remembered in the live
// generations, with chance m / 2^96 (about 1e-21 per lookup at 100
// million).
const doneFieldLen = 12

// doneField returns the done memory's field of a canonical URL.
func doneField(url string) string {
	h := sha256.Sum256([]byte(url))
	return string(h[:doneFieldLen])
}

// minuteMs is the unit of the stored done times.
const minuteMs = 60_000

// doneWindow is the live part of the done memory at one instant.
type doneWindow struct {
	nowMs       int64 // unix ms
	genMs       int64 // generation length, ms
	oldestGen   int64 // oldest live generation
	currentGen  int64 // current generation
	retentionMs int64 // retention, ms
}

func (q *Queue) doneWindow(now time.Time) doneWindow {
	ret := q.opt.DoneRetention.Milliseconds()
	genMs := max(ret/generationsPerRetention, 1000)
	ms := now.UnixMilli()
	return doneWindow{nowMs: ms, genMs: genMs, oldestGen: floorDiv(ms-ret, genMs), currentGen: floorDiv(ms, genMs), retentionMs: ret}
}

// minutes is the value stored for a URL finished now: whole minutes since
// the current generation began, rounded up, so that the URL is remembered
// at least the retention.
func (s doneWindow) minutes() int64 {
	return (s.nowMs - s.currentGen*s.genMs + minuteMs - 1) / minuteMs
}

// expireAt is when (unix ms) the current generation's hash expires, if
// the housekeeping has not unlinked it before: one generation after its
// last URL is older than the retention.
func (s doneWindow) expireAt() int64 { return (s.currentGen+2)*s.genMs + s.retentionMs + minuteMs }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// liveDoneKeys returns the keys of the live generations, oldest first.
func (q *Queue) liveDoneKeys(s doneWindow) []string {
	keys := make([]string, 0, s.currentGen-s.oldestGen+1)
	for g := s.oldestGen; g <= s.currentGen; g++ {
		keys = append(keys, q.doneKey(g))
	}
	return keys
}

// deadDoneKeys returns the keys of the two generations before the oldest
// live one, which the housekeeping unlinks. Every claim needs them, so
// they are kept until the generation changes; the slice is shared (its
// capacity is its length).
func (q *Queue) deadDoneKeys(s doneWindow) []string {
	if d := q.deadDone.Load(); d != nil && d.oldestGen == s.oldestGen {
		return d.keys
	}
	d := &deadDone{oldestGen: s.oldestGen, keys: []string{q.doneKey(s.oldestGen - 2), q.doneKey(s.oldestGen - 1)}}
	q.deadDone.Store(d)
	return d.keys
}

// deadDone caches deadDoneKeys for one oldest live generation.
type deadDone struct {
	oldestGen int64
	keys      []string
}
