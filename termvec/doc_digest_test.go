package termvec

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/newsrank/newsrank/internal/coverage"
)

var updateDocs = flag.Bool("termvec.update-docs", false, "write the digest of NewDoc on the coverage set to testdata/docs.golden")

// oddTexts are texts at the edges of what Tokens reads: empty, marks
// alone, cut runes, mixed scripts, long words, figures of every
// notation, apostrophes, abbreviations.
var oddTexts = []string{
	"", " ", ".", "'", "''s", "-", "−5", "--3", "a", "A", "I.", "U.S.", "Mr. Tan's O'Neill d'Arcy",
	"\xe4\xb8", "\xff\xfe abc", "周", "周二", "星期二。", "一", "Ａｂｃ　ＤＥＦ１２３", "ﬁnance ﬂow",
	strings.Repeat("x", 100) + " " + strings.Repeat("Y", 70), "3.5%, $1.2bn, 1.2万亿, 12000亿, 27,140, 11.6 per cent",
	"Baden-Württemberg's Mbappé São Paulo MÜLLER", "Taiwan Semiconductor (台積電) said on Monday, March 8",
	"美团（03690.HK）：OpenAI与Nvidia 2025年净利润增长11.6%", "per per cent cent per", "2-1 2-0 1-2 T20 5G 2nd",
	"Feb. 1, Broadcom said. Shares rose! Why? Dollar General: \"Dollar Tree\"; done\nnext",
	"한국어 텍스트 カタカナ ひらがな 漢字", "\u200b\u00ad\ufeffword", "Ⅻ ① ½ ²", "İstanbul ǅ ß ø æ",
}

// docDigest writes d in full, each count's bits exactly.
func docDigest(b *strings.Builder, d Doc) {
	terms := make([]string, 0, len(d.Counts))
	for t := range d.Counts {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	for _, t := range terms {
		fmt.Fprintf(b, "%q:%x ", t, math.Float64bits(d.Counts[t]))
	}
	fmt.Fprintf(b, "|%q|%q|%q|%q|%q|%t\n", d.Facts, d.Names, d.TitleNames, d.Actor, d.Object, d.CJK)
}

// TestNewDocDigest holds NewDoc, on the coverage set's reports and on
// oddTexts (each as a title, a summary and a lead), to the digest of
// testdata/docs.golden: a faster tokenizer must give every term, count,
// name and fact as before. A change of the rules writes the file again
// with -termvec.update-docs.
func TestNewDocDigest(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, a := range set.Articles {
		docDigest(&b, NewDoc(a.Title, a.Summary, a.Lead, DefaultWeights))
	}
	for _, x := range oddTexts {
		docDigest(&b, NewDoc(x, x, x, DefaultWeights))
		docDigest(&b, NewDoc(x, "", "", DefaultWeights))
		docDigest(&b, NewDoc("", "", x, DefaultWeights))
	}
	h := sha256.Sum256([]byte(b.String()))
	got := hex.EncodeToString(h[:16])
	const file = "testdata/docs.golden"
	if *updateDocs {
		if err := os.WriteFile(file, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != strings.TrimSpace(string(want)) {
		t.Errorf("NewDoc's digest on the coverage set and odd texts %s, want %s", got, strings.TrimSpace(string(want)))
	}
}
