package minhash

import (
	"strings"
	"testing"
)

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
