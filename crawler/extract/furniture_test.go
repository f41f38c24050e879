package extract

import (
	"bytes"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/newsrank/newsrank/internal/corpus"
)

// furnitureClassWritten is furnitureClass as furnitureASCII was written
// for.
const furnitureClassWritten = `(?i)byline|author|caption|credit|share|sharing|social|related|recommend|promo|newsletter|subscri|signup|sign-up|advert|sponsor|breadcrumb|crumbs|read-?more|more-?link|copyright|disclaimer|sidebar|widget|footer|teaser|outbrain|taboola|cookie|consent|gdpr|(?:^|[\s_-])(?:ad|ads|tags?|meta|tie|info|editor|comments?|cmt)(?:$|[\s_-])`

// checkFurnitureASCII fails t unless furnitureASCII answers v as
// furnitureClass does (or declines it, for a value not ASCII or too
// wide), and furnitureValue too.
func checkFurnitureASCII(t *testing.T, v string) {
	t.Helper()
	want := furnitureClass.MatchString(v)
	got, ok := furnitureASCII(v)
	ascii := len(v) <= furnitureASCIIWidth
	for i := 0; i < len(v); i++ {
		ascii = ascii && v[i] < 0x80
	}
	if ok != ascii || ok && got != want {
		t.Errorf("furnitureASCII(%q) = %t, %t; the expression says %t (ASCII within the width: %t)", v, got, ok, want, ascii)
	}
	if f := furnitureValue(v); f != want {
		t.Errorf("furnitureValue(%q) = %t, the expression says %t", v, f, want)
	}
}

// TestFurnitureASCII holds furnitureASCII to furnitureClass: on each of
// the expression's words and tokens in every case, alone and between
// other text and every kind of separator, on every short value of the
// characters that matter, and on odd values.
func TestFurnitureASCII(t *testing.T) {
	if furnitureClass.String() != furnitureClassWritten {
		t.Fatal("furnitureClass changed: write furnitureASCII's words and tokens for it, then update this test")
	}
	// the expression's words, written out again (not furnitureASCII's lists)
	words := strings.Fields(`byline author caption credit share sharing social related recommend promo newsletter
		subscri signup sign-up advert sponsor breadcrumb crumbs readmore read-more morelink more-link copyright
		disclaimer sidebar widget footer teaser outbrain taboola cookie consent gdpr
		ad ads tag tags meta tie info editor comment comments cmt`)
	words = append(words, "readmore", "read-more", "read_more", "morelink", "more--link", "tagss", "adss", "commentss", "infos", "metas", "ti", "a", "edito")
	around := []string{"", "x", "X", "-", "_", " ", "\t", "\n", "\f", "\r", "\v", ".", "1", "a-", "-a", "a_", "_a", "a b", "é", "ad-"}
	for _, w := range words {
		for _, form := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:]} {
			for _, pre := range around {
				for _, post := range around {
					checkFurnitureASCII(t, pre+form+post)
				}
			}
		}
	}
	// every value of up to five of these characters
	const alphabet = "adsACt-_ \vé"
	var grow func(v string, n int)
	grow = func(v string, n int) {
		checkFurnitureASCII(t, v)
		if n == 0 {
			return
		}
		for _, r := range alphabet {
			grow(v+string(r), n-1)
		}
	}
	grow("", 5)
	for _, v := range []string{"", "ſhare", "\u212Aey", "tie", "tie\u00a0x", "post-info", "infobox", strings.Repeat("z", furnitureASCIIWidth) + " ad",
		strings.Repeat("z", furnitureASCIIWidth-3) + " ad", strings.Repeat("z", furnitureASCIIWidth+1), "\x7f-ad", "ad\x00"} {
		checkFurnitureASCII(t, v)
	}
}

// TestFurnitureASCIIRealPages holds furnitureASCII to furnitureClass on
// every class and id value of htmldate's evaluation pages (hundreds of
// sites).
func TestFurnitureASCIIRealPages(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1,000 pages")
	}
	dir, pages := corpus.HTMLDatePages(t)
	stride := 1
	if raceEnabled {
		stride = 10
	}
	seen := map[string]bool{}
	matched := 0
	for i := 0; i < len(pages); i += stride {
		body := pages[i].Read(dir)
		if body == nil {
			continue
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", pages[i].File, err)
		}
		doc.Find("[class], [id]").Each(func(_ int, s *goquery.Selection) {
			for _, at := range s.Nodes[0].Attr {
				if (at.Key == "class" || at.Key == "id") && !seen[at.Val] {
					seen[at.Val] = true
					if furnitureClass.MatchString(at.Val) {
						matched++
					}
					checkFurnitureASCII(t, at.Val)
				}
			}
		})
	}
	if len(seen) < 1000 || matched == 0 {
		t.Fatalf("%d values, %d of them furniture: too few to tell", len(seen), matched)
	}
	t.Logf("%d class and id values, %d of them furniture", len(seen), matched)
}
