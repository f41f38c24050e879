package queue

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"time"
)

// The done memory remembers each finished URL as 8 bytes (a slice of the
// SHA-256 of its canonical form) plus the seconds since its generation
// began, in hash buckets small enough for Redis' listpack encoding.
//
// Time is cut into generations of done_retention/4. A URL finished in
// generation g is written to bucket key done:<g>:<b> (b: 32 other bits of
// its hash, masked to the bucket count), which expires when generation g
// is older than the retention. A lookup checks the live generations (the
// 5 or 6 that can hold URLs finished within the retention) and compares
// the stored time with now - retention, so the retention is exact to the
// second while memory is held at most 1.25 × the retention. Each bucket
// also holds the field "t" (never a URL field, which is 8 bytes): the ack
// that adds it created the bucket and sets its TTL, so acks need no
// PEXPIRE per URL, and a bucket deleted meanwhile (purge, eviction) gets
// its TTL again.
const generationsPerRetention = 4

// targetPerBucket is the mean number of URLs per bucket at done_capacity.
// Redis keeps a hash in a listpack up to hash-max-listpack-entries (128 by
// default); with a mean of 64 a bucket exceeds 128 with probability below
// 1e-12 (Poisson tail), so buckets stay compact even with random spread.
const targetPerBucket = 64

// doneHash returns the bucket (before masking) and the 8-byte field of a
// canonical URL. A new URL is wrongly taken for done only if its 64-bit
// field equals that of a URL remembered in the same bucket: with m URLs in
// its bucket across the live generations (about 5 × 64 at capacity) the
// chance is m / 2^64, about 2e-17 per lookup; even 1,000 times over
// capacity it stays below 1e-13.
func doneHash(url string) (bucket uint32, field string) {
	h := sha256.Sum256([]byte(url))
	return binary.BigEndian.Uint32(h[0:4]), string(h[4:12])
}

// doneBuckets returns the number of buckets per generation: a power of two
// giving about targetPerBucket URLs each at capacity.
func doneBuckets(capacity int) uint32 {
	n := (capacity + targetPerBucket - 1) / targetPerBucket
	if n < 16 {
		n = 16
	}
	return 1 << bits.Len32(uint32(n-1))
}

// span is the live part of the done memory at one instant.
type span struct {
	now  int64 // unix ms
	glen int64 // generation length, ms
	g0   int64 // oldest live generation
	gcur int64 // current generation
	ret  int64 // retention, ms
}

func (q *Queue) span(now time.Time) span {
	ret := q.cfg.DoneRetention.D().Milliseconds()
	glen := max(ret/generationsPerRetention, 1000)
	ms := now.UnixMilli()
	return span{now: ms, glen: glen, g0: floorDiv(ms-ret, glen), gcur: floorDiv(ms, glen), ret: ret}
}

func (s span) ngen() int { return int(s.gcur - s.g0 + 1) }

// ttl is how long (ms) the current generation's keys must live: until the
// generation's last URL is older than the retention.
func (s span) ttl() int64 { return (s.gcur+1)*s.glen + s.ret - s.now }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// doneCurrentArgs appends the current generation's done bucket key of
// each URL to keys and the pair (url, field) to argv for the ack script.
func (q *Queue) doneCurrentArgs(s span, urls []string, keys []string, argv []any) ([]string, []any) {
	mask := doneBuckets(q.cfg.DoneCapacity) - 1
	for _, u := range urls {
		b, field := doneHash(u)
		keys = append(keys, q.doneKey(s.gcur, b&mask))
		argv = append(argv, u, field)
	}
	return keys, argv
}

// doneArgs appends the done bucket keys to keys and the per-URL triples
// (url, field, bucket index) to argv for a push or ack script.
func (q *Queue) doneArgs(s span, urls []string, keys []string, argv []any) ([]string, []any) {
	mask := doneBuckets(q.cfg.DoneCapacity) - 1
	index := make(map[uint32]int, len(urls))
	for _, u := range urls {
		b, field := doneHash(u)
		b &= mask
		j, ok := index[b]
		if !ok {
			j = len(index)
			index[b] = j
			for g := s.g0; g <= s.gcur; g++ {
				keys = append(keys, q.doneKey(g, b))
			}
		}
		argv = append(argv, u, field, j)
	}
	return keys, argv
}
