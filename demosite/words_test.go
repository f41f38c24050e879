package demosite

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

func TestWordListsEncodeInGBK(t *testing.T) {
	enc := simplifiedchinese.GBK.NewEncoder()
	for name, list := range words {
		for _, w := range list {
			if _, err := enc.String(w); err != nil {
				t.Errorf("word list %s: %q cannot be encoded in GBK: %v", name, w, err)
			}
		}
	}
	for _, name := range []string{"zh.sentence", "zh.fin_sentence", "en.sentence", "en.sports_sentence"} {
		for _, w := range words[name] {
			for rest := w; strings.Contains(rest, "{"); {
				i, j := strings.Index(rest, "{"), strings.Index(rest, "}")
				if j < i {
					t.Fatalf("%s: unbalanced placeholder in %q", name, w)
				}
				if _, ok := words[name[:2]+"."+rest[i+1:j]]; !ok {
					t.Errorf("%s: %q uses unknown list %s", name, w, rest[i+1:j])
				}
				rest = rest[j+1:]
			}
		}
	}
}
