// Package corpus reads, for tests and benchmarks, the corpora that
// dependencies ship in the module cache (gofeed's feeds, go-htmldate's
// evaluation pages): they are not copied into this repository.
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
