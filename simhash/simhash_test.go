package simhash

import "testing"

func TestOf(t *testing.T) {
	a, ok := Of("Central bank raises interest rates to fight inflation")
	if !ok {
		t.Fatal("not ok")
	}
	cases := []struct {
		name    string
		text    string
		maxDist int
	}{
		{"same text", "Central bank raises interest rates to fight inflation", 0},
		{"case and punctuation", "CENTRAL BANK RAISES INTEREST RATES, TO FIGHT INFLATION!", 0},
		{"stop words", "The central bank raises the interest rates to fight inflation", 0},
		{"word order", "To fight inflation, central bank raises interest rates", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, _ := Of(c.text)
			if d := Distance(a, b); d > c.maxDist {
				t.Errorf("distance %d, want <= %d", d, c.maxDist)
			}
		})
	}
	other, _ := Of("Local team wins the football championship after extra time")
	if d := Distance(a, other); d < 10 {
		t.Errorf("unrelated texts at distance %d", d)
	}
	if _, ok := Of(" ,.!? "); ok {
		t.Error("punctuation only is ok")
	}
}

func TestFeaturesCJK(t *testing.T) {
	var n int
	Features("央行加息", func(uint64) { n++ })
	if n != 3 {
		t.Errorf("央行加息: %d features, want 3 bigrams", n)
	}
	n = 0
	Features("5G 网络 上线", func(uint64) { n++ })
	if n != 3 { // "5g", 网络, 上线
		t.Errorf("mixed: %d features, want 3", n)
	}
	a, _ := Of("央行宣布加息以应对通胀")
	b, _ := Of("央行宣布加息应对通胀")
	if d := Distance(a, b); d > 16 {
		t.Errorf("one dropped character: distance %d", d)
	}
}

func TestBands(t *testing.T) {
	f := Fingerprint(0x1111_2222_3333_4444)
	if got := f.Bands(); got != [4]uint16{0x4444, 0x3333, 0x2222, 0x1111} {
		t.Errorf("bands %x", got)
	}
	// Within MaxDistance, some band is equal.
	g := f ^ 1 ^ 1<<20 ^ 1<<40
	fb, gb := f.Bands(), g.Bands()
	same := 0
	for i := range fb {
		if fb[i] == gb[i] {
			same++
		}
	}
	if same == 0 {
		t.Error("no band shared at distance 3")
	}
}

func BenchmarkOf(b *testing.B) {
	text := "Central bank raises interest rates to fight inflation. The decision was expected by most economists, who see prices rising."
	for b.Loop() {
		Of(text)
	}
}
