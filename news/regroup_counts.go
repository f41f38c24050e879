package news

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/termvec"
	"github.com/redis/go-redis/v9"
)

// An article's hash keeps its terms' weighted occurrences (tc: its
// Doc's Counts written as a term vector, termvec.Vector.String), for the
// regroup job's replay: the vetoes the Engine applies read them (the
// days an article's text states, whether it writes a story's actor or
// names it twice), and the replay decides as the ingest did only when it
// reads what the ingest read. About 0.9 KB an article. An article stored
// before the field was written replays on its vector (Counts nil).

// appendCounts appends the tc field of doc d to an article's fields f.
func appendCounts(f []any, d *termvec.Doc) []any {
	if len(d.Counts) == 0 {
		return f
	}
	v := make(termvec.Vector, 0, len(d.Counts))
	for _, t := range slices.Sorted(maps.Keys(d.Counts)) {
		v = append(v, termvec.Entry{Term: t, W: d.Counts[t]})
	}
	return append(f, "tc", v.String())
}

// parseCounts reads a tc field; nil when empty or unreadable (the
// replay then reads the vector, as for an article without the field).
func parseCounts(s string) map[string]float64 {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	v, err := termvec.Parse(s)
	if err != nil {
		return nil
	}
	out := make(map[string]float64, len(v))
	for _, e := range v {
		out[e.Term] = e.W
	}
	return out
}

// countedDays returns the days from day `from` up to (not including)
// day `to` whose TermDF hash counts some article ("*"), in order: the
// only ones replayDF reads (a first crawl's span has none before it).
// A day it cannot tell about is listed, for replayDF to read and report.
func (s *Store) countedDays(ctx context.Context, from, to int64) []int64 {
	if to <= from {
		return nil
	}
	pipe := s.c.Pipeline()
	cmds := make([]*redis.StringCmd, 0, to-from)
	for d := from; d < to; d++ {
		cmds = append(cmds, pipe.HGet(ctx, s.keys.TermDF(d), "*"))
	}
	_, _ = pipe.Exec(ctx) // redis.Nil for a day without a hash; any other error is each command's
	var out []int64
	for i, c := range cmds {
		if n, err := c.Int(); n > 0 || err != nil && !errors.Is(err, redis.Nil) {
			out = append(out, from+int64(i))
		}
	}
	return out
}

// regroupDFChunk is how many terms one HMGET of a day's frequencies
// asks for at most.
const regroupDFChunk = 2000

// replayDF returns the document frequencies the replay starts from: the
// stored counts (TermDF) of the window's days before the day of from
// (the span's start), of the terms the span's articles cs have. The
// replay adds the span's articles to them one by one in publication
// order, so that each is weighed as the ingest weighed it had the
// articles come in that order. Bounded: one HMGET a day that counts some
// article (countedDays) for every regroupDFChunk terms.
func (s *Store) replayDF(ctx context.Context, from int64, cs []grouping.Cluster) (*grouping.MemFreq, error) {
	f := grouping.NewMemFreq(s.opts.Window)
	set := map[string]bool{"*": true}
	for _, c := range cs {
		for _, m := range c.Members {
			for t := range m.Counts {
				set[t] = true
			}
		}
	}
	terms := slices.Sorted(maps.Keys(set))
	first := grouping.Day(from)
	days := s.countedDays(ctx, first-grouping.WindowDays(s.opts.Window)+1, first)
	for _, d := range days {
		counts := make(map[string]int)
		docs := 0
		for lo := 0; lo < len(terms); lo += regroupDFChunk {
			part := terms[lo:min(len(terms), lo+regroupDFChunk)]
			v, err := s.c.HMGet(ctx, s.keys.TermDF(d), part...).Result()
			if err != nil {
				return nil, fmt.Errorf("regroup: read the frequencies of day %d: %w", d, err)
			}
			for i, x := range v {
				n, _ := strconv.Atoi(str(x))
				switch {
				case n == 0:
				case part[i] == "*":
					docs = n
				default:
					counts[part[i]] = n
				}
			}
		}
		if docs > 0 {
			f.AddDay(d, docs, counts)
		}
	}
	return f, nil
}
