package minhash

import (
	"fmt"
	"math"
	"slices"
	"strings"
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

func TestShinglesCJK(t *testing.T) {
	var n int
	Shingles("央行加息", func(uint64) { n++ })
	if n != 3 {
		t.Errorf("央行加息: %d shingles, want 3 bigrams", n)
	}
	n = 0
	Shingles("5G 网络 上线", func(uint64) { n++ })
	if n != 4+FactWeight { // "5" (a figure: FactWeight times), "g", their pair, 网络, 上线
		t.Errorf("mixed: %d shingles, want %d", n, 4+FactWeight)
	}
	if j := jaccard("央行宣布加息以应对通胀", "央行宣布加息应对通胀"); j < 0.6 {
		t.Errorf("one dropped character: Jaccard %.2f", j)
	}
}

// count is how many shingles text has.
func count(text string) int {
	n := 0
	Shingles(text, func(uint64) { n++ })
	return n
}

// TestNormalise checks that ways of writing one thing give one sketch.
func TestNormalise(t *testing.T) {
	for _, c := range [][2]string{
		{"Rates rise 5% in Berlin", "Rates rise 5 percent in Berlin"},
		{"Rates rise 5 per cent in Berlin", "Rates rise 5 percent in Berlin"},
		{"Rates rise 5％ in Berlin", "Rates rise 5 percent in Berlin"},
		{"Factory cuts 1,500 jobs", "Factory cuts 1500 jobs"},
		{"The bank's rate rises", "The bank rate rises"},
		{"The bank’s rate rises", "The bank rate rises"},
	} {
		a, _ := Of(c[0])
		b, _ := Of(c[1])
		if Similarity(a, b) != 1 {
			t.Errorf("%q and %q: similarity %.2f, want 1", c[0], c[1], Similarity(a, b))
		}
	}
	if a, b := count("rates per capita"), count("rates per cent capita"); a != 5 || b != 5 {
		t.Errorf("per without cent: %d and %d shingles, want 5 each", a, b)
	}
}

// TestFacts checks that names and figures count FactWeight times, and
// words of a title in title case do not.
func TestFacts(t *testing.T) {
	extra := FactWeight - 1
	for _, c := range []struct {
		text  string
		facts int
	}{
		{"the central bank cuts rates", 0},
		{"The central bank cuts rates", 0},                   // the first word of a sentence
		{"The central bank of Ruritania cuts rates", 1},      // a name
		{"The central bank cuts rates by 25 points", 1},      // a figure
		{"Central Bank Cuts Rates in Ruritania", 0},          // title case
		{"Ruritania cuts rates. Ruritania's bank agrees", 0}, // first words only
		{"Ruritania cuts rates, the bank of Ruritania says", 1},
	} {
		plain := count(strings.ToLower(c.text))
		if strings.ContainsAny(c.text, "0123456789") {
			plain = count(strings.ReplaceAll(c.text, "25", "x"))
		}
		if got := count(c.text); got != plain+c.facts*extra {
			t.Errorf("%q: %d shingles, want %d (%d facts)", c.text, got, plain+c.facts*extra, c.facts)
		}
	}
	base, _ := Of("The central bank of Ruritania cut its rate by 25 points on Monday.")
	name, _ := Of("The central bank of Freedonia cut its rate by 25 points on Monday.")
	figure, _ := Of("The central bank of Ruritania cut its rate by 50 points on Monday.")
	word, _ := Of("The central bank of Ruritania lowered its rate by 25 points on Monday.")
	if on, of, ow := Overlap(base, name), Overlap(base, figure), Overlap(base, word); on >= ow || of >= ow {
		t.Errorf("overlap with another name %.2f, figure %.2f, not below another verb's %.2f", on, of, ow)
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
