// Package corpus reads, for tests and benchmarks, the corpora that
// dependencies ship in the module cache (gofeed's feeds and date layouts,
// go-htmldate's evaluation pages): they are not copied into this
// repository.
package corpus

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ModuleDir is where the module cache holds the required module path; it
// fails the test when the module is not downloaded.
func ModuleDir(t testing.TB, path string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("go list -m %s: %v (run go mod download)", path, err)
	}
	return dir
}

// HTMLDatePage is one page of htmldate's evaluation set and its expected day
// ("" when the page has none).
type HTMLDatePage struct {
	// URL is where the page was saved from, File its name in the module's
	// test-files, Day its expected day (2006-01-02).
	URL, File, Day string
}

// HTMLDatePages reads the evaluation set that go-htmldate ships in its
// module, 1,000 real article pages from hundreds of sites, and returns
// the module's directory (scripts/comparison/data-*.go name each page of
// test-files/ and its expected day; they are Go source, so they are read
// with go/parser).
func HTMLDatePages(t testing.TB) (string, []HTMLDatePage) {
	t.Helper()
	dir := ModuleDir(t, "github.com/markusmobius/go-htmldate")
	var pages []HTMLDatePage
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
			var p HTMLDatePage
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
					p.URL = s
				case "File":
					p.File = s
				case "Date":
					p.Day = s
				}
			}
			if p.Day == "nan" { // no date on the page
				p.Day = ""
			}
			if p.File != "" {
				pages = append(pages, p)
			}
			return p.File == ""
		})
	}
	return dir, pages
}

// Read returns the page's bytes from go-htmldate's module, nil when
// missing.
func (p HTMLDatePage) Read(dir string) []byte {
	for _, sub := range []string{"mediacloud", "comparison", "mock"} {
		if b, err := os.ReadFile(filepath.Join(dir, "test-files", sub, p.File)); err == nil {
			return b
		}
	}
	return nil
}

// GofeedDateLayouts are the Go time layouts gofeed's date parser tries
// (dateFormats and dateFormatsWithNamedZone in its
// internal/shared/dateparser.go, read with go/parser): the forms feeds
// write their dates in.
func GofeedDateLayouts(t testing.TB) []string {
	t.Helper()
	path, f := gofeedDateFile(t, "dateparser.go")
	named := map[string]string{"RFC822": time.RFC822, "RFC822Z": time.RFC822Z, "RFC850": time.RFC850,
		"RFC1123": time.RFC1123, "RFC1123Z": time.RFC1123Z, "RFC3339": time.RFC3339, "RFC3339Nano": time.RFC3339Nano,
		"ANSIC": time.ANSIC, "UnixDate": time.UnixDate, "RubyDate": time.RubyDate}
	var out []string
	for _, v := range []string{"dateFormats", "dateFormatsWithNamedZone"} {
		obj := f.Scope.Lookup(v)
		if obj == nil {
			t.Fatalf("%s: no %s", path, v)
		}
		lit, _ := obj.Decl.(*ast.ValueSpec).Values[0].(*ast.CompositeLit)
		if lit == nil {
			t.Fatalf("%s: %s is not a slice literal", path, v)
		}
		for _, e := range lit.Elts {
			switch e := e.(type) {
			case *ast.BasicLit:
				s, _ := strconv.Unquote(e.Value)
				out = append(out, s)
			case *ast.SelectorExpr:
				l, ok := named[e.Sel.Name]
				if !ok {
					t.Fatalf("%s: layout time.%s unknown here", path, e.Sel.Name)
				}
				out = append(out, l)
			}
		}
	}
	return out
}

// GofeedDateCase is a date of gofeed's own date parser tests and the
// instant it means, in UTC ("2006-01-02 15:04:05").
type GofeedDateCase struct{ In, WantUTC string }

// GofeedDateCases reads the cases of gofeed's date parser tests (the
// {in, wantUTC} tables of its internal/shared/dateparser_test.go).
func GofeedDateCases(t testing.TB) []GofeedDateCase {
	t.Helper()
	path, f := gofeedDateFile(t, "dateparser_test.go")
	var out []GofeedDateCase
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok || len(lit.Elts) != 2 {
			return true
		}
		var vals []string
		for _, e := range lit.Elts {
			if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
				v, _ := strconv.Unquote(b.Value)
				vals = append(vals, v)
			}
		}
		if len(vals) == 2 {
			out = append(out, GofeedDateCase{In: vals[0], WantUTC: vals[1]})
		}
		return true
	})
	if len(out) == 0 {
		t.Fatalf("%s: no date cases", path)
	}
	return out
}

// gofeedDateFile parses a file of gofeed's date parser package.
func gofeedDateFile(t testing.TB, name string) (string, *ast.File) {
	t.Helper()
	path := filepath.Join(ModuleDir(t, "github.com/mmcdole/gofeed"), "internal", "shared", name)
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return path, f
}
