package grouping

import (
	"testing"

	"github.com/newsrank/newsrank/internal/coverage"
	"github.com/newsrank/newsrank/termvec"
)

// BenchmarkEngineAdd: an Engine in memory groups the whole coverage set
// in publication order, the articles' terms (termvec.NewDoc) computed
// before: the work of weighing an article, finding its candidates and
// comparing it with them. ns/article is an article's.
func BenchmarkEngineAdd(b *testing.B) {
	set, err := coverage.Load()
	if err != nil {
		b.Fatal(err)
	}
	window := set.Window()
	order := set.ByPublished()
	as := make([]Article, len(order))
	for j, i := range order {
		a := set.Articles[i]
		as[j] = Article{ID: a.File + ":" + itoa(a.Line), Time: a.Published.Unix(),
			Doc: termvec.NewDoc(a.Title, a.Summary, a.Lead, DefaultParams.Weights)}
	}
	// each article's terms as the Engine weighs them, for "decide"
	ts := make([]ArticleTerms, len(as))
	e := NewEngine(DefaultParams, window, NewMemFreq(window))
	for j, a := range as {
		ts[j] = e.Terms(a)
		e.AddTerms(a, ts[j])
	}
	b.Run("add", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			e := NewEngine(DefaultParams, window, NewMemFreq(window))
			for _, a := range as {
				e.Add(a)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(as)), "ns/article")
	})
	// decide: the candidates and their comparison alone, the terms given
	b.Run("decide", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			e := NewEngine(DefaultParams, window, noFreq{})
			for j, a := range as {
				e.AddTerms(a, ts[j])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(as)), "ns/article")
	})
}

// noFreq is a Freq that counts nothing: the terms are weighed before.
type noFreq struct{}

func (noFreq) DF(string) int                 { return 0 }
func (noFreq) Docs() int                     { return 0 }
func (noFreq) At(int64)                      {}
func (noFreq) Add(map[string]float64, int64) {}
