package minhash

import (
	"fmt"
	"math"
	"slices"
	"testing"
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

func TestShinglesCJK(t *testing.T) {
	var n int
	Shingles("央行加息", func(uint64) { n++ })
	if n != 3 {
		t.Errorf("央行加息: %d shingles, want 3 bigrams", n)
	}
	n = 0
	Shingles("5G 网络 上线", func(uint64) { n++ })
	if n != 3 { // "5g", 网络, 上线
		t.Errorf("mixed: %d shingles, want 3", n)
	}
	if j := jaccard("央行宣布加息以应对通胀", "央行宣布加息应对通胀"); j < 0.6 {
		t.Errorf("one dropped character: Jaccard %.2f", j)
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
