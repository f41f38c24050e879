package termvec

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/newsrank/newsrank/internal/coverage"
)

// TestStored: Stored gives String's encoding and the vector Parse reads
// from it, weights of every size included.
func TestStored(t *testing.T) {
	ws := []float64{0.12345678, 1, 0.5, 1e-7, 123456.789, 2.71828, 0.99996, 0.000123456, 1.5e10, 0, 3.14159265}
	var v Vector
	for i, w := range ws {
		v = append(v, Entry{string(rune('a'+i)) + "term", w})
	}
	for n := 0; n <= len(v); n++ {
		s, got := v[:n].Stored()
		if want := v[:n].String(); s != want {
			t.Errorf("Stored's encoding %q, String %q", s, want)
		}
		want, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, want, func(a, b Entry) bool { return a.Term == b.Term && math.Float64bits(a.W) == math.Float64bits(b.W) }) {
			t.Errorf("Stored's vector %v, Parse reads %v", got, want)
		}
	}
	if s := (Vector{{"a", 0.5}, {"b", 1.25e-5}}).String(); s != "a 0.5 b 1.25e-05" {
		t.Errorf("String = %q", s)
	}
}

// TestTopSelects: top keeps the same entries as sorting all of them by
// weight (ties by term) would, for every count kept, on weights with
// many ties.
func TestTopSelects(t *testing.T) {
	var all Vector
	for i := range 60 {
		all = append(all, Entry{Term: fmt.Sprintf("t%02d", (i*37)%60), W: float64((i * 7) % 9)})
	}
	want := slices.Clone(all)
	slices.SortFunc(want, func(a, b Entry) int {
		if c := cmp.Compare(b.W, a.W); c != 0 {
			return c
		}
		return strings.Compare(a.Term, b.Term)
	})
	for k := 1; k <= len(all)+1; k++ {
		w := slices.Clone(want[:min(k, len(want))])
		slices.SortFunc(w, func(a, b Entry) int { return strings.Compare(a.Term, b.Term) })
		if got := slices.Clone(all).top(k); !slices.Equal(got, w) {
			t.Fatalf("top(%d) = %v, want %v", k, got, w)
		}
	}
}

// BenchmarkNewDoc: NewDoc over the reports of the labelled coverage set
// (internal/coverage), the work each crawled article costs before its
// vector: ns/op is a report's.
func BenchmarkNewDoc(b *testing.B) {
	set, err := coverage.Load()
	if err != nil {
		b.Fatal(err)
	}
	as := set.Articles
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a := as[i%len(as)]
		NewDoc(a.Title, a.Summary, a.Lead, DefaultWeights)
	}
}

// TestWeighDates: a vector leaves weekdays out, and dates too unless
// asked for: any report of a day states it.
func TestWeighDates(t *testing.T) {
	d := NewDoc("国内油价4月14日24时起下调", "", "国家发展改革委消息，自4月14日24时起，国内汽油、柴油价格每吨分别降低120元和115元。周二调价窗口开启。", DefaultWeights)
	if d.Counts["@d4-14"] == 0 || len(d.Facts) == 0 {
		t.Fatalf("counts %v, facts %v: want the date counted", d.Counts, d.Facts)
	}
	df := fixedDF{}
	for _, dates := range []bool{false, true} {
		v := d.Weigh(df, 0, 1, dates)
		has := slices.ContainsFunc(v, func(e Entry) bool { return e.Term == "@d4-14" })
		if has != dates {
			t.Errorf("dates %t: the date among the vector's terms %t", dates, has)
		}
		if slices.ContainsFunc(v, func(e Entry) bool { return strings.HasPrefix(e.Term, "@w") }) {
			t.Errorf("dates %t: a weekday among the vector's terms", dates)
		}
	}
}

// fixedDF is a DocFreq of 100 articles none of which has any term.
type fixedDF struct{}

func (fixedDF) DF(string) int { return 0 }
func (fixedDF) Docs() int     { return 100 }

// hashDF is a DocFreq of 500 articles that gives each term a frequency
// of its own (from its bytes), 0 for one term in five.
type hashDF struct{}

func (hashDF) DF(t string) int {
	h := 7
	for i := 0; i < len(t); i++ {
		h = h*31 + int(t[i])
	}
	if h = h & 0x7fffffff % 100; h < 20 {
		return 0
	}
	return h
}
func (hashDF) Docs() int { return 500 }

// TestWeighTerms: WeighTerms of a Doc's terms, given in any order, is
// Weigh of the Doc, weight for weight.
func TestWeighTerms(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range set.Articles {
		d := NewDoc(a.Title, a.Summary, a.Lead, DefaultWeights)
		terms := make([]string, 0, len(d.Counts))
		for term := range d.Counts {
			terms = append(terms, term)
		}
		slices.Reverse(terms)
		for _, dates := range []bool{false, true} {
			want := d.Weigh(hashDF{}, 48, 0.5, dates)
			got := WeighTerms(len(terms), func(i int) (string, float64, int) {
				return terms[i], d.Counts[terms[i]], hashDF{}.DF(terms[i])
			}, hashDF{}.Docs(), 48, 0.5, dates)
			if !slices.Equal(got, want) {
				t.Fatalf("%s:%d dates %t: WeighTerms %v, Weigh %v", a.File, a.Line, dates, got, want)
			}
		}
	}
}

// TestDotWalk: Dot and Shared, which tell most terms apart by their
// first byte, give what a walk comparing whole terms gives, sum for sum
// (the same order of additions), on the coverage set's vectors and
// their running sums.
func TestDotWalk(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	walk := func(a, b Vector) (s float64, shared []string) {
		for i, j := 0, 0; i < len(a) && j < len(b); {
			switch c := strings.Compare(a[i].Term, b[j].Term); {
			case c < 0:
				i++
			case c > 0:
				j++
			default:
				s += a[i].W * b[j].W
				shared = append(shared, a[i].Term)
				i, j = i+1, j+1
			}
		}
		return s, shared
	}
	var vs []Vector
	var sum Vector
	for i, a := range set.Articles {
		v := NewDoc(a.Title, a.Summary, a.Lead, DefaultWeights).Weigh(hashDF{}, 48, 0.5, i%2 == 0)
		sum = Add(sum, v, 128)
		if i%5 == 0 {
			vs = append(vs, v, sum)
		}
	}
	for _, a := range vs {
		for _, b := range vs {
			want, wantShared := walk(a, b)
			var shared []string
			Shared(a, b, func(t string, _, _ float64) { shared = append(shared, t) })
			if got := Dot(a, b); got != want || !slices.Equal(shared, wantShared) {
				t.Fatalf("Dot %v, shared %q; a walk gives %v, %q", got, shared, want, wantShared)
			}
		}
	}
}

// TestAddKeepsHeaviest: Add, which walks terms by their first byte and
// keeps the heaviest of a sum sorted already (topSorted), gives what a
// whole-term merge and top give, at every size kept.
func TestAddKeepsHeaviest(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	merge := func(c, v Vector) Vector {
		var out Vector
		i, j := 0, 0
		for i < len(c) || j < len(v) {
			switch {
			case j == len(v) || i < len(c) && c[i].Term < v[j].Term:
				out = append(out, c[i])
				i++
			case i == len(c) || v[j].Term < c[i].Term:
				out = append(out, v[j])
				j++
			default:
				out = append(out, Entry{c[i].Term, c[i].W + v[j].W})
				i, j = i+1, j+1
			}
		}
		return out
	}
	var sum Vector
	for i, a := range set.Articles[:120] {
		v := NewDoc(a.Title, a.Summary, a.Lead, DefaultWeights).Weigh(hashDF{}, 48, 0.5, false)
		all := merge(sum, v)
		for _, k := range []int{0, 1, 2, 47, 128, len(all) - 1, len(all), len(all) + 1} {
			want := slices.Clone(all).top(k)
			if got := Add(sum, v, k); !slices.Equal(got, want) {
				t.Fatalf("article %d, %d kept: Add %v, want %v", i, k, got, want)
			}
		}
		sum = Add(sum, v, 128)
	}
}
