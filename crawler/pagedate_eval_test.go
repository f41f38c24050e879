package crawler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/config"
)

// evalPage is one page of htmldate's evaluation set and its expected day
// ("" when the page has none).
type evalPage struct {
	url, file, day string
}

// htmldateEvalSet reads the evaluation set that go-htmldate ships in its
// module (scripts/comparison/data-*.go name each page of test-files/ and
// its expected day; they are Go source, so they are read with go/parser).
func htmldateEvalSet(t *testing.T) (string, []evalPage) {
	t.Helper()
	dir := moduleDir(t, "github.com/markusmobius/go-htmldate")
	var pages []evalPage
	for _, name := range []string{"data-mediacloud.go", "data-default.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "scripts", "comparison", name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			var p evalPage
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				key, _ := kv.Key.(*ast.Ident)
				val, _ := kv.Value.(*ast.BasicLit)
				if key == nil || val == nil {
					continue
				}
				s, _ := strconv.Unquote(val.Value)
				switch key.Name {
				case "URL":
					p.url = s
				case "File":
					p.file = s
				case "Date":
					p.day = s
				}
			}
			if p.day == "nan" { // no date on the page
				p.day = ""
			}
			if p.file != "" {
				pages = append(pages, p)
			}
			return p.file == ""
		})
	}
	return dir, pages
}

// TestHTMLDateEvaluation runs htmldate's public evaluation set (1,000
// real article pages from hundreds of sites) through Extract as a new
// source gets it (no selectors, UTC) and wants the right day on at least
// 88% of pages. A day more than one day off (or a date on a page that has
// none) is held to at most 7%: go-htmldate alone is that far off on 6.3%
// of the set under the same count, so the 3% needs rules that
// abstain where htmldate guesses (not done yet; see the package notes).
func TestHTMLDateEvaluation(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1,000 pages")
	}
	dir, pages := htmldateEvalSet(t)
	if len(pages) < 1000 {
		t.Fatalf("only %d pages in the evaluation set", len(pages))
	}
	if stride := evalStride(); stride > 1 {
		// Under -race extraction is ten times slower: every stride-th page.
		var part []evalPage
		for i := 0; i < len(pages); i += stride {
			part = append(part, pages[i])
		}
		pages = part
	}
	rules, err := NewRules(config.Source{Name: "eval"})
	if err != nil {
		t.Fatal(err)
	}
	// The fetch time is fixed after the pages were saved (htmldate's own
	// benchmark uses the same).
	now := time.Date(2026, 9, 13, 12, 0, 0, 0, time.UTC)
	type result struct {
		day    string
		title  string
		errMsg string
	}
	results := make([]result, len(pages))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := pages[i]
				var body []byte
				for _, sub := range []string{"mediacloud", "comparison", "mock"} {
					if b, err := os.ReadFile(filepath.Join(dir, "test-files", sub, p.file)); err == nil {
						body = b
						break
					}
				}
				if body == nil {
					results[i].errMsg = "missing file"
					continue
				}
				page, err := Extract(body, "", p.url, rules, now)
				if err != nil {
					results[i].errMsg = err.Error()
					continue
				}
				f := page.Merge(Fields{})
				if !f.PostTime.IsZero() {
					results[i].day = f.PostTime.Format("2006-01-02")
				}
				results[i].title = f.Title
			}
		}()
	}
	for i := range pages {
		next <- i
	}
	close(next)
	wg.Wait()

	var right, farOff, none, entities int
	for i, p := range pages {
		r := results[i]
		if r.errMsg != "" {
			t.Errorf("%s: %s", p.file, r.errMsg)
			continue
		}
		switch {
		case r.day == p.day:
			right++
		case r.day == "":
			none++
		case p.day == "" || dayDistance(r.day, p.day) > 1:
			farOff++
			if testing.Verbose() {
				t.Logf("%s: %s, want %q (%s)", p.file, r.day, p.day, p.url)
			}
		}
		if entityRe.MatchString(r.title) {
			entities++
			t.Errorf("%s: title keeps an entity: %q", p.file, r.title)
		}
	}
	n := float64(len(pages))
	t.Logf("%d pages: right day %.1f%%, more than a day off %.1f%%, no date %.1f%%, titles with entities %d",
		len(pages), 100*float64(right)/n, 100*float64(farOff)/n, 100*float64(none)/n, entities)
	if float64(right)/n < 0.88 {
		t.Errorf("right day on %.1f%% of pages, want at least 88%%", 100*float64(right)/n)
	}
	if float64(farOff)/n > 0.07 {
		t.Errorf("more than a day off on %.1f%% of pages, want at most 7%%", 100*float64(farOff)/n)
	}
}

// evalStride is 1, or 3 under -race (NEWSRANK_EVAL_STRIDE overrides).
func evalStride() int {
	if n, err := strconv.Atoi(os.Getenv("NEWSRANK_EVAL_STRIDE")); err == nil && n > 0 {
		return n
	}
	if raceEnabled {
		return 3
	}
	return 1
}

func dayDistance(a, b string) float64 {
	ta, err1 := time.Parse("2006-01-02", a)
	tb, err2 := time.Parse("2006-01-02", b)
	if err1 != nil || err2 != nil {
		return 1e9
	}
	d := ta.Sub(tb).Hours() / 24
	if d < 0 {
		d = -d
	}
	return d
}

// entityRe finds an HTML entity left in text.
var entityRe = regexp.MustCompile(`&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]{2,8});`)
