package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

func TestSplitSelector(t *testing.T) {
	tests := []struct{ in, css, attr string }{
		{"h1.title", "h1.title", ""},
		{"meta[name=pubdate]@content", "meta[name=pubdate]", "content"},
		{`a[href^="mailto:a@b"]`, `a[href^="mailto:a@b"]`, ""},
		{`a[href^="mailto:a@b"] @ data-x`, `a[href^="mailto:a@b"]`, "data-x"},
	}
	for _, tt := range tests {
		css, attr := SplitSelector(tt.in)
		if css != tt.css || attr != tt.attr {
			t.Errorf("SplitSelector(%q) = %q, %q; want %q, %q", tt.in, css, attr, tt.css, tt.attr)
		}
	}
}

// TestNodeText: nodeText is goquery's Text of the node's selection, on
// every element of the extraction fixtures and of a page with nested,
// empty, comment and CDATA-like content; firstNode is first's node.
func TestNodeText(t *testing.T) {
	pages := []string{`<html><head><title> T </title></head><body><h1>a<b>b</b> c</h1><p></p><p><!-- x --></p>` +
		`<div class="x"> one <span>two</span><i></i></div><script>var x = "<p>";</script><pre>  a
  b</pre><div class="x">second</div></body></html>`}
	fixtures, err := filepath.Glob(filepath.Join("testdata", "extract", "*.html"))
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("fixtures: %v, %d", err, len(fixtures))
	}
	for _, f := range fixtures {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, string(b))
	}
	elems, fast := 0, 0
	for i, page := range pages {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		doc.Find("*").Each(func(_ int, s *goquery.Selection) {
			n := s.Nodes[0]
			elems++
			if c := n.FirstChild; c != nil && c.NextSibling == nil && c.Type == html.TextNode {
				fast++
			}
			if got, want := nodeText(n), s.Text(); got != want {
				t.Errorf("page %d, <%s>: nodeText = %q, want %q", i, n.Data, got, want)
			}
		})
		for _, css := range []string{"h1", "div.x", "p", "title", "nothing-here", "meta[name]"} {
			m := cascadia.MustCompile(css)
			want := doc.FindMatcher(m).First()
			got := firstNode(doc, m)
			if (got == nil) != (want.Length() == 0) || (got != nil && got != want.Nodes[0]) {
				t.Errorf("page %d: firstNode(%q) = %v, want %v", i, css, got, want.Nodes)
			}
		}
	}
	if fast == 0 || fast == elems {
		t.Fatalf("%d of %d elements hold one text node: both kinds are needed", fast, elems)
	}
}
