package extract

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
)

// TestCollapseAndTextLen: collapse and textLen give what joining
// strings.Fields and counting the runes of each element's Text give.
func TestCollapseAndTextLen(t *testing.T) {
	ref := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, s := range []string{"", " ", "a", " a", "a ", "a b", "a  b", "a\tb", "a\nb", "\u00a0x", "x\u3000y", "新闻 标题", "a b c ", "  "} {
		if got, want := collapse(s), ref(s); got != want {
			t.Errorf("collapse(%q) = %q, want %q", s, got, want)
		}
	}
	const page = `<html><body><div class="b"><p> Hello,
	<b>wor</b>ld </p><p>二 三</p><script>var x = 1;</script></div><div class="b"></div><div class="b">  x  </div></body></html>`
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	sel := doc.Find("div.b")
	want := 0
	sel.Each(func(_ int, e *goquery.Selection) {
		if want > 0 {
			want++
		}
		want += utf8.RuneCountInString(ref(e.Text()))
	})
	if got := textLen(sel); got != want {
		t.Errorf("textLen = %d, want %d", got, want)
	}
}

// TestIsSpace: isSpace is unicode.IsSpace.
func TestIsSpace(t *testing.T) {
	for r := rune(0); r <= 0x10ffff; r++ {
		if isSpace(r) != unicode.IsSpace(r) {
			t.Fatalf("isSpace(%U) = %v", r, isSpace(r))
		}
	}
}
