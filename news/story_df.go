package news

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Document frequencies added in bulk.
//
// Every article of a story ingest counts once for each of its terms (a
// hundred or more with its lead) in the TermDF hash of its post day.
// Writing those counts chunk by chunk was most of what the story ingest
// cost Redis, one field at a time, and most of them are the same terms
// again. So the ingest script does not write them: it appends the
// chunk's counts per day, as one string each, to its store's journal
// (TermDFJournal), and the store keeps them in memory too (dfPending),
// summed by term and day, and adds them to what it reads of the hashes,
// so that its own plans count every article it ingested, as before.
// Once it holds dfFlushFields term-day counts, or has held some for
// dfFlushAge, it adds them to the hashes (flushDF): it freezes its
// journal (renames it, dfFreezeCmd, when it holds the entries the store
// wrote) and adds the sums in parts of dfPart counts, one HINCRBY per
// term and day however many articles had it (dfPartCmd), each part once:
// the parts are the sums ordered by day and term, and a part is added
// only after the one before it (TermDFJournalParts). The last part
// deletes the frozen journal. A crawl's run adds what its store holds
// when it ends (FlushStoryCounts).
//
// What another process reads is the hashes: it counts this one's recent
// articles once they are added (up to dfFlushAge or dfFlushFields
// behind): an error of the estimate that weighs the terms, which may
// change a score, not the guarantees (the index and the stories are
// versioned as before, so copies ingested at once by two processes still
// form one story). Nothing is lost when a process dies: its
// journals stay in Redis, listed in TermDFJournals with the time of
// their last entry, and the prune adds those quiet for dfQuiet
// (addJournal: a live journal it freezes first; the sums of a frozen
// one, read back, are the same parts in the same order, so a part added
// before the process died is not added again). Should the prune freeze
// the journal of a store that is alive (idle that long), the store finds
// its journal shorter than it wrote (its length is read with every plan,
// and dfFreezeCmd checks it): it adds what is there itself, forgets its
// pending counts and reads again, so nothing counts twice.

const (
	// dfFlushFields is how many term-day counts a store holds before it
	// adds them; dfPart how many one call adds (each an HINCRBY: a few
	// ms of Redis).
	dfFlushFields = 1 << 16
	dfPart        = 4096
	// dfFlushAge is how long a store holds counts before it adds them,
	// at the end of its next ingest.
	dfFlushAge = 10 * time.Second
	// dfQuiet is how long a journal goes without an entry before the
	// prune adds it: its writer is gone, or idle.
	dfQuiet = 10 * time.Minute
)

// dfPending is the document-frequency counts a store's ingests made and
// has not yet added to the TermDF hashes: those of the entries of its
// journal.
type dfPending struct {
	writer  string                // the store's journal's name
	counts  map[string][]dayCount // term → its counts by day
	fields  int                   // term-day counts held
	entries int64                 // entries the journal holds (as the store wrote them)
	since   time.Time             // when the oldest count held was made (zero: none)
	flushes int64                 // journals frozen so far (their names' numbers)
	// part: how many sums one call adds (dfPart; smaller in tests)
	part int
}

// dayCount is a count of articles posted on day.
type dayCount struct {
	day int64
	n   int32
}

// dfDelta is a chunk's counts of one day: articles posted that day and
// the terms they have ("*": the articles), a term possibly listed twice.
type dfDelta struct {
	day   int64
	terms []string
	ns    []int32
}

// entry is d as a journal entry: "<day> term count term count ...".
func (d *dfDelta) entry() string {
	n := 12
	for _, t := range d.terms {
		n += len(t) + 6
	}
	b := make([]byte, 0, n)
	b = strconv.AppendInt(b, d.day, 10)
	for j, t := range d.terms {
		b = append(append(append(b, ' '), t...), ' ')
		b = strconv.AppendInt(b, int64(d.ns[j]), 10)
	}
	return string(b)
}

// add takes in the counts of a chunk that went through (its journal
// entries written) at now.
func (p *dfPending) add(ds []dfDelta, now time.Time) {
	if len(ds) == 0 {
		return
	}
	if p.counts == nil {
		p.counts = make(map[string][]dayCount)
	}
	if p.fields == 0 {
		p.since = now
	}
	for i := range ds {
		d := &ds[i]
		for j, t := range d.terms {
			cs := p.counts[t]
			k := 0
			for k < len(cs) && cs[k].day != d.day {
				k++
			}
			if k == len(cs) {
				p.counts[t] = append(cs, dayCount{d.day, d.ns[j]})
				p.fields++
			} else {
				cs[k].n += d.ns[j]
			}
		}
	}
	p.entries += int64(len(ds))
}

// due tells whether p's counts are to be added at now.
func (p *dfPending) due(now time.Time) bool {
	return p.fields >= dfFlushFields || p.fields > 0 && now.Sub(p.since) >= dfFlushAge
}

// clear forgets p's counts: they are in the hashes, or being added.
func (p *dfPending) clear() {
	p.counts, p.fields, p.entries, p.since = nil, 0, 0, time.Time{}
}

// addTo adds p's counts of term to x, whose days begin at x.from.
func (p *dfPending) addTo(term string, x *termDF) {
	for _, c := range p.counts[term] {
		if i := c.day - x.from; i >= 0 && i < int64(len(x.n)) {
			x.n[i] += c.n
			x.sum += int(c.n)
		}
	}
}

// dfFreezeCmd freezes a store's live journal to add it: renames it
// and lists it under its new name, when it holds the entries the store
// wrote to it (else the prune froze it, or an answer was lost: the
// store then freezes it whatever it holds, and adds it as read back).
//
// KEYS[1] -> the live TermDFJournal LIST; KEYS[2] -> the frozen one's
// KEYS[3] -> TermDFJournals ZSET
// ARGV[1] -> the live journal's name; ARGV[2] -> the frozen one's
// ARGV[3] -> the entries the store wrote to it, or -1: any
// ARGV[4] -> now (Unix s)
//
// Returns how many entries it froze (0: none, the journal is empty or
// gone), or -1 when the journal does not hold ARGV[3] entries.
var dfFreezeCmd = redis.NewScript(`
local n = redis.call('LLEN', KEYS[1])
if ARGV[3] ~= '-1' and n ~= tonumber(ARGV[3]) then return -1 end
redis.call('ZREM', KEYS[3], ARGV[1])
if n == 0 then return 0 end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2])
return n
`)

// dfPartCmd adds part i of a frozen journal's sums to the TermDF hashes
// when parts 1 .. i-1, and not i, were added; the last part deletes the
// journal.
//
// KEYS[1] -> the frozen TermDFJournal LIST; KEYS[2] -> TermDFJournals
// ZSET; KEYS[3] -> TermDFJournalParts HASH
// ARGV[1] -> the journal's name; ARGV[2] -> i; ARGV[3] -> the parts
// ARGV[4] -> nd, days; then per day: its TermDF key, its TTL (s), nt,
// then nt pairs (term, count to add)
//
// Returns 1 when it added the part, else 0.
var dfPartCmd = redis.NewScript(`
local i = tonumber(ARGV[2])
if (tonumber(redis.call('HGET', KEYS[3], ARGV[1])) or 0) ~= i - 1 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local at = 5
for d = 1, tonumber(ARGV[4]) do
  local key, ttl, nt = ARGV[at], ARGV[at+1], tonumber(ARGV[at+2])
  at = at + 3
  for j = at, at + 2*nt - 1, 2 do redis.call('HINCRBY', key, ARGV[j], ARGV[j+1]) end
  at = at + 2*nt
  redis.call('EXPIRE', key, ttl)
end
if i < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[3], ARGV[1], i)
else
  redis.call('DEL', KEYS[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return 1
`)

// dfSum is a term's count to add on a day.
type dfSum struct {
	day  int64
	term string
	n    int64
}

// sums returns p's counts ordered by day and term: a frozen journal's
// parts (dfPart of them each).
func (p *dfPending) sums() []dfSum {
	out := make([]dfSum, 0, p.fields)
	for t, cs := range p.counts {
		for _, c := range cs {
			out = append(out, dfSum{c.day, t, int64(c.n)})
		}
	}
	sortSums(out)
	return out
}

func sortSums(xs []dfSum) {
	slices.SortFunc(xs, func(a, b dfSum) int {
		if c := cmp.Compare(a.day, b.day); c != 0 {
			return c
		}
		return strings.Compare(a.term, b.term)
	})
}

// FlushStoryCounts adds the document-frequency counts the store's story
// ingests hold to Redis's (see dfPending), so that other processes
// count its articles; a crawl calls it when its run ends. It does
// nothing when there are none, or when the store does not rank by story.
func (s *Store) FlushStoryCounts(ctx context.Context) error {
	if !s.opts.stories() {
		return nil
	}
	c := s.stories
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	return s.flushDF(ctx, s.clock.Now())
}

// flushDF adds the store's pending counts at now (the caller holds the
// cache's turn): it freezes its journal and adds its sums in parts; when
// the journal is not as the store wrote it, it adds what the journal
// holds instead (addJournal). Either way it forgets its pending counts.
func (s *Store) flushDF(ctx context.Context, now time.Time) error {
	p := &s.stories.df
	if p.entries == 0 {
		return nil
	}
	p.flushes++
	frozen := p.frozen()
	n, err := s.freezeJournal(ctx, p.writer, frozen, p.entries, now)
	if err != nil {
		// whether it ran or not, the next plan finds the journal as the
		// store wrote it, or not (frozen), and adds it then
		return err
	}
	sums := p.sums()
	if n < 0 {
		return s.addOwn(ctx, now)
	}
	p.clear()
	return s.addParts(ctx, frozen, sums, 0, now)
}

// frozen is the name of the journal p's store froze last.
func (p *dfPending) frozen() string { return p.writer + "." + strconv.FormatInt(p.flushes, 10) }

// addOwn adds the store's journals as Redis holds them, and forgets its
// pending counts: its live journal was not as it wrote it (the prune
// froze it, or the answer of a script was lost). The journal it froze
// last is added too (its freezing's answer may be what was lost).
func (s *Store) addOwn(ctx context.Context, now time.Time) error {
	p := &s.stories.df
	p.clear()
	if _, err := s.addLive(ctx, p.writer, now); err != nil {
		return err
	}
	if p.flushes > 0 {
		if _, err := s.addJournal(ctx, p.frozen(), now); err != nil {
			return err
		}
	}
	return nil
}

// freezeJournal freezes the live journal of writer as frozen when it
// holds entries (-1: any), and returns how many it froze (-1: it did not
// hold entries).
func (s *Store) freezeJournal(ctx context.Context, writer, frozen string, entries int64, now time.Time) (int64, error) {
	keys := []string{s.keys.TermDFJournal(writer), s.keys.TermDFJournal(frozen), s.keys.TermDFJournals()}
	n, err := dfFreezeCmd.Run(ctx, s.c, keys, writer, frozen, entries, now.Unix()).Int64()
	if err != nil {
		return 0, fmt.Errorf("freeze the document-frequency journal %s: %w", writer, err)
	}
	return n, nil
}

// addLive freezes writer's live journal whatever it holds and adds it,
// and returns how many counts it added.
func (s *Store) addLive(ctx context.Context, writer string, now time.Time) (int, error) {
	var b [4]byte
	_, _ = rand.Read(b[:])
	frozen := writer + ".r" + hex.EncodeToString(b[:])
	n, err := s.freezeJournal(ctx, writer, frozen, -1, now)
	if err != nil || n == 0 {
		return 0, err
	}
	return s.addJournal(ctx, frozen, now)
}

// addParts adds sums (a frozen journal's, ordered) in parts from the
// one after done, each when the one before it is added.
func (s *Store) addParts(ctx context.Context, frozen string, sums []dfSum, done int, now time.Time) error {
	size := s.stories.df.partSize()
	parts := (len(sums) + size - 1) / size
	for i := done + 1; i <= parts; i++ {
		ok, err := s.addPart(ctx, frozen, sums, i, now)
		if err != nil || !ok {
			// not ok: another (the prune) adds it
			return err
		}
	}
	return nil
}

// addPart adds part i of sums, a frozen journal's (dfPartCmd), and
// tells whether it did.
func (s *Store) addPart(ctx context.Context, frozen string, sums []dfSum, i int, now time.Time) (bool, error) {
	size := s.stories.df.partSize()
	parts := (len(sums) + size - 1) / size
	window := int64((s.opts.Window + Grace) / time.Second)
	keys := []string{s.keys.TermDFJournal(frozen), s.keys.TermDFJournals(), s.keys.TermDFJournalParts()}
	part := sums[(i-1)*size : min(i*size, len(sums))]
	args := make([]any, 0, 4+4*len(part))
	args = append(args, frozen, i, parts, 0)
	nd := 0
	for lo := 0; lo < len(part); {
		hi := lo
		for hi < len(part) && part[hi].day == part[lo].day {
			hi++
		}
		d := part[lo].day
		args = append(args, s.keys.TermDF(d), max(dfExpiry(d, window)-now.Unix(), 1), hi-lo)
		for _, x := range part[lo:hi] {
			args = append(args, x.term, x.n)
		}
		nd++
		lo = hi
	}
	args[3] = nd
	ok, err := dfPartCmd.Run(ctx, s.c, keys, args...).Int()
	if err != nil {
		return false, fmt.Errorf("add the document frequencies of %s: %w", frozen, err)
	}
	return ok == 1, nil
}

// partSize is how many sums one call adds.
func (p *dfPending) partSize() int {
	if p.part > 0 {
		return p.part
	}
	return dfPart
}

// dfExpiry is when the TermDF hash of day expires: when the day has left
// the window (window: the window and Grace, in s).
func dfExpiry(day, window int64) int64 { return (day+1)*86400 + window }

// addJournal adds the frozen journal name as read back from Redis: its
// entries summed by day and term, in the parts not added yet, and
// returns how many counts it added.
func (s *Store) addJournal(ctx context.Context, name string, now time.Time) (int, error) {
	key := s.keys.TermDFJournal(name)
	var p dfPending
	for at := int64(0); ; at += 100 {
		es, err := s.c.LRange(ctx, key, at, at+99).Result()
		if err != nil {
			return 0, fmt.Errorf("read the document-frequency journal %s: %w", name, err)
		}
		for _, e := range es {
			f := strings.Fields(e)
			if len(f)%2 != 1 {
				return 0, fmt.Errorf("document-frequency journal %s: bad entry %.40q", name, e)
			}
			day, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("document-frequency journal %s: bad entry %.40q: %w", name, e, err)
			}
			d := dfDelta{day: day}
			for j := 1; j < len(f); j += 2 {
				n, err := strconv.ParseInt(f[j+1], 10, 32)
				if err != nil {
					return 0, fmt.Errorf("document-frequency journal %s: bad entry %.40q: %w", name, e, err)
				}
				d.terms, d.ns = append(d.terms, f[j]), append(d.ns, int32(n))
			}
			p.add([]dfDelta{d}, now)
		}
		if len(es) < 100 {
			break
		}
	}
	done, err := s.c.HGet(ctx, s.keys.TermDFJournalParts(), name).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("read the parts added of %s: %w", name, err)
	}
	sums := p.sums()
	if len(sums) == 0 {
		// gone (expired, or added by another meanwhile): unlist it
		if err := s.c.ZRem(ctx, s.keys.TermDFJournals(), name).Err(); err != nil {
			return 0, fmt.Errorf("unlist the document-frequency journal %s: %w", name, err)
		}
		return 0, nil
	}
	return len(sums) - min(done*s.stories.df.partSize(), len(sums)), s.addParts(ctx, name, sums, done, now)
}

// addQuietJournals adds the journals that had no entry for dfQuiet
// before now (their writer died, or is idle: see dfPending), 100 at a
// time, and returns how many counts it added.
func (s *Store) addQuietJournals(ctx context.Context, now time.Time) (int, error) {
	max := "(" + strconv.FormatInt(now.Add(-dfQuiet).Unix(), 10)
	n := 0
	seen := make(map[string]bool) // one try each: another may be adding it
	for {
		names, err := s.c.ZRangeByScore(ctx, s.keys.TermDFJournals(), &redis.ZRangeBy{Min: "-inf", Max: max, Count: 100}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return n, fmt.Errorf("read the document-frequency journals: %w", err)
		}
		fresh := 0
		for _, name := range names {
			if seen[name] {
				continue
			}
			seen[name] = true
			fresh++
			var k int
			if strings.Contains(name, ".") {
				k, err = s.addJournal(ctx, name, now)
			} else {
				k, err = s.addLive(ctx, name, now)
			}
			n += k
			if err != nil {
				return n, err
			}
		}
		if len(names) < 100 || fresh == 0 {
			return n, nil
		}
	}
}
