package news

import (
	"maps"
	"slices"
	"strings"

	"github.com/newsrank/newsrank/termvec"
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
