package minhash

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/demosite"
)

// jaccard is the exact Jaccard similarity of the shingle sets of a and b.
func jaccard(a, b string) float64 {
	sa, sb := map[uint64]bool{}, map[uint64]bool{}
	Shingles(a, func(h uint64) { sa[h] = true })
	Shingles(b, func(h uint64) { sb[h] = true })
	in := 0
	for h := range sa {
		if sb[h] {
			in++
		}
	}
	return float64(in) / float64(len(sa)+len(sb)-in)
}

func TestOf(t *testing.T) {
	a, ok := Of("Central bank raises interest rates to fight inflation")
	if !ok {
		t.Fatal("not ok")
	}
	for _, text := range []string{
		"Central bank raises interest rates to fight inflation",
		"CENTRAL BANK RAISES INTEREST RATES, TO FIGHT INFLATION!",
		"The central bank raises the interest rates to fight inflation",
	} {
		if b, _ := Of(text); Similarity(a, b) != 1 {
			t.Errorf("%q: similarity %.2f, want 1 (same shingles)", text, Similarity(a, b))
		}
	}
	if b, _ := Of("To fight inflation, central bank raises interest rates"); Similarity(a, b) < 0.4 {
		t.Errorf("word order: similarity %.2f, want most word pairs kept", Similarity(a, b))
	}
	other, _ := Of("Local team wins the football championship after extra time")
	if s := Similarity(a, other); s > 0.1 {
		t.Errorf("unrelated texts at similarity %.2f", s)
	}
	if _, ok := Of(" ,.!? "); ok {
		t.Error("punctuation only is ok")
	}
}

// TestSimilarityExact checks that texts of fewer than K shingles are
// compared exactly, and longer ones within a bottom-k estimate's error.
func TestSimilarityExact(t *testing.T) {
	base := "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango"
	words := []string{"uniform", "victor", "whiskey", "xray", "yankee", "zulu", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen"}
	a, _ := Of(base)
	for k := 0; k <= 8; k += 2 {
		other := base
		for i := range k {
			other += " " + words[i]
		}
		b, _ := Of(other)
		if got, j := Similarity(a, b), jaccard(base, other); math.Abs(got-j) > 1e-9 {
			t.Errorf("%d extra words: similarity %.3f, exact %.3f", k, got, j)
		}
	}
	var long, longer string
	for i := range 300 {
		long += fmt.Sprintf(" w%d", i)
		if i%4 != 0 {
			longer += fmt.Sprintf(" w%d", i)
		}
	}
	a, _ = Of(long)
	b, _ := Of(longer)
	j := jaccard(long, longer)
	if len(a) != K {
		t.Errorf("sketch of %d hashes, want %d", len(a), K)
	}
	if got, sd := Similarity(a, b), math.Sqrt(j*(1-j)/K); math.Abs(got-j) > 4*sd {
		t.Errorf("long texts: estimate %.3f, exact %.3f", got, j)
	}
}

func TestKeys(t *testing.T) {
	a, _ := Of("Central bank raises interest rates to fight inflation in Berlin")
	b, _ := Of("Central bank lifts interest rates to fight inflation in Berlin")
	shared := 0
	for _, x := range a.Keys() {
		if slices.Contains(b.Keys(), x) {
			shared++
		}
	}
	if shared == 0 {
		t.Errorf("close texts share no key (similarity %.2f)", Similarity(a, b))
	}
	pairs := 0
	for _, v := range a {
		pairs += int(v & 1)
	}
	if len(a.Keys()) != min(pairs, IndexKeys) || !slices.IsSorted(a) {
		t.Errorf("keys %v of sketch %v", a.Keys(), a)
	}
	if len(a.Hex()) != 8*len(a) {
		t.Errorf("hex %d digits", len(a.Hex()))
	}
}

func BenchmarkOf(b *testing.B) {
	text := "Central bank raises interest rates to fight inflation. The decision was expected by most economists, who see prices rising."
	for b.Loop() {
		Of(text)
	}
}

// TestFigures: a figure's first replica is marked (Figure) and is an
// index key before word pairs; a name's is a key but not a figure.
func TestFigures(t *testing.T) {
	count := func(text string) (figures, keys int) {
		sk, _ := Of(text)
		for _, v := range sk {
			if Figure(v) {
				figures++
			}
		}
		for _, v := range sk.Keys() {
			if Figure(v) {
				keys++
			}
		}
		return figures, keys
	}
	if f, k := count("Redcliffe beat Ironbridge 2-0 in the cup final on Sunday"); f != 1 || k != 1 {
		t.Errorf("2-0: %d figures, %d of them keys; want 1 and 1 (a weekday is no figure)", f, k)
	}
	if f, _ := count("Shares in Norvex rise after strong results"); f != 0 {
		t.Errorf("no figure: %d", f)
	}
	sk, _ := Of("Shares in Norvex rise after strong results")
	if k := sk.Keys(); len(k) == 0 || k[0]&3 != 3 {
		t.Errorf("keys %x: want the name Norvex first", k)
	}
}

// TestOfTitled: one pass gives the sketches of title + summary and of the
// title that Of gives, on the labelled set's texts (English and Chinese)
// and on titles and summaries that end mid-sentence, in a figure or a
// name, or have no shingle.
func TestOfTitled(t *testing.T) {
	texts := [][2]string{
		{"", ""}, {"!!", ""}, {"", "Only a summary, with Names like Rotterdam."},
		{"Bank raises rates by 1,5", "00 points"}, {"Shares rise 4", "% in Tokyo"},
		{"Police say Rotterdam", "Port workers strike"}, {"per", "cent of voters"},
		{"大阪科技巨头", "丰新拒绝球场协议"}, {"孟", "买"}, {"Ｆｕｌｌｗｉｄｔｈ", "ｔｅｘｔ"},
	}
	for _, a := range demosite.StorySet(1, 200, time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)) {
		texts = append(texts, [2]string{a.Title, a.Summary})
	}
	for _, tx := range texts {
		text, head, ok := OfTitled(tx[0], tx[1])
		want, wok := Of(tx[0] + "\n" + tx[1])
		wantHead, _ := Of(tx[0])
		if ok != wok || !slices.Equal(text, want) || !slices.Equal(head, wantHead) {
			t.Errorf("OfTitled(%q, %q) = %v, %v, %v; Of gives %v, %v, %v", tx[0], tx[1], text, head, ok, want, wantHead, wok)
		}
	}
}
