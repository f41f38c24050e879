package minhash

import (
	"slices"
	"testing"
)

// figures returns the figure hashes (Figure) of the sketch of text, as
// the story decision reads them from a title's sketch.
func figures(text string) []uint32 {
	sk, _ := Of(text)
	var fs []uint32
	for _, v := range sk {
		if Figure(v) {
			fs = append(fs, v)
		}
	}
	return fs
}

// shareFigure tells whether the sketches of a and b have a figure hash in
// common.
func shareFigure(a, b string) bool {
	fb := figures(b)
	for _, v := range figures(a) {
		if slices.Contains(fb, v) {
			return true
		}
	}
	return false
}

// TestFiguresApart: titles of other events whose figures differ share no
// figure, however many digits the figures have in common: a figure is
// the whole number as a reader sees it (2-0, 2.1%, 14:30), not its
// digit groups.
func TestFiguresApart(t *testing.T) {
	for _, c := range [][2]string{
		{"Rovers beat Eastfield 2-0 at Kingsmead", "Rovers beat Northgate 2-1 at Kingsmead"},
		{"Westmark inflation rises to 2.1%", "Westmark inflation rises to 3.1%"},
		{"Westmark inflation rises to 2.1%", "Westmark inflation rises to 2.9%"},
		{"Magnitude 6.1 earthquake strikes off Calderon coast", "Magnitude 6.4 earthquake strikes off Calderon coast"},
		{"Krone ends at 1.25 per dollar", "Krone ends at 1.35 per dollar"},
		{"Werk streicht 1.500 Stellen", "Werk streicht 1.800 Stellen"},
		{"Strike called for 14:30 at Harbor Town docks", "Strike called for 16:30 at Harbor Town docks"},
		{"Apple releases iOS 18.1 with new features", "Apple releases iOS 18.2 with new features"},
		{"Rovers beat Eastfield 1-0 at Kingsmead", "Rovers beat Eastfield 3-1 at Kingsmead"},
		{"Rovers beat Eastfield 2-0 at Kingsmead", "Rovers lose 0-3 to Eastfield at Kingsmead"},
		{"Rovers beat Eastfield 2–0 at Kingsmead", "Rovers beat Eastfield 3–0 at Kingsmead"},
		{"Rovers beat Eastfield 2—0 at Kingsmead", "Rovers beat Eastfield 2—1 at Kingsmead"},
		{"Rovers beat Eastfield 2 - 0 at Kingsmead", "Rovers beat Eastfield 2 - 1 at Kingsmead"},
		{"Rovers beat Eastfield 2-0 at Kingsmead", "Rovers beat Eastfield 3-1 at Kingsmead"},
		{"Quake of magnitude 6.1 hits Calderon", "Quake of magnitude 5.4 hits Calderon"},
		{"Factory cuts 1,500 jobs", "Factory cuts 1,800 jobs"},
		{"Factory cuts 1,5 million jobs", "Factory cuts 15 million jobs"},
		{"Factory cuts 1.500 jobs", "Factory cuts 1500 jobs"},
		{"Factory cuts 1.500 jobs", "Factory cuts 1.5 jobs"},
		{"Shares rise 2.1% in Tokyo", "Shares rise 21% in Tokyo"},
		{"Court rules on 3/4 majority", "Court rules on 3/5 majority"},
		{"Vote set for 2025-06-01", "Vote set for 2025-06-08"},
		{"央行宣布利率上涨2.1%", "央行宣布利率上涨3.1%"},
		{"红队以2比0击败蓝队", "红队以2比1击败蓝队"},
		{"红队以2:0击败蓝队", "红队以2:1击败蓝队"},
		{"赤チームが2対0で勝利", "赤チームが2対1で勝利"},
		{"레드팀 2대0 승리", "레드팀 2대1 승리"},
		{"Rovers beat Eastfield ２－０ at Kingsmead", "Rovers beat Eastfield ２－１ at Kingsmead"},
	} {
		if len(figures(c[0])) == 0 || len(figures(c[1])) == 0 {
			t.Errorf("%q, %q: figures %x, %x; want some each", c[0], c[1], figures(c[0]), figures(c[1]))
		}
		if shareFigure(c[0], c[1]) {
			t.Errorf("%q and %q share a figure", c[0], c[1])
		}
	}
}

// TestFiguresShared: a figure written alike (or normalised alike: "%" and
// "per cent", thousands separators, full-width digits, dashes) is one
// figure in both texts, whatever the wording around it.
func TestFiguresShared(t *testing.T) {
	for _, c := range [][2]string{
		{"Rovers beat Eastfield 2-0 at Kingsmead", "Eastfield lose 2-0 to Rovers"},
		{"Rovers beat Eastfield 2-0 at Kingsmead", "Rovers beat Eastfield 2–0"},
		{"Rovers beat Eastfield 2-0 at Kingsmead", "Rovers beat Eastfield 2 – 0"},
		{"Westmark inflation rises to 2.1%", "Inflation in Westmark climbs to 2.1 per cent"},
		{"Magnitude 6.1 earthquake strikes off Calderon coast", "Calderon coast hit by 6.1 quake"},
		{"Strike called for 14:30 at Harbor Town docks", "Harbor Town dockers to strike at 14:30"},
		{"Apple releases iOS 18.1 with new features", "iOS 18.1 is out"},
		{"Factory cuts 1,500 jobs", "Factory to cut 1500 jobs"},
		{"Factory cuts 1,500,000 jobs", "Factory to cut 1500000 jobs"},
		{"Werk streicht 1.500 Stellen", "1.500 Stellen fallen weg"},
		{"Vote set for 2025-06-01", "Voters go to the polls on 2025-06-01"},
		{"央行宣布利率上涨2.1%", "利率上涨2.1%"},
		{"央行宣布利率上涨2.1%", "央行宣布利率上涨２．１％"},
		{"红队以2比0击败蓝队", "红队2比0胜蓝队"},
		{"红队以2比0击败蓝队", "红队以2:0击败蓝队"},
	} {
		if !shareFigure(c[0], c[1]) {
			t.Errorf("%q (figures %x) and %q (%x) share no figure", c[0], figures(c[0]), c[1], figures(c[1]))
		}
	}
}

// TestFigureWords: a figure is one word (one figure hash, FactWeight
// shingles) that pairs with its neighbours and ends no sentence; what
// joins digits joins nothing else.
func TestFigureWords(t *testing.T) {
	for _, c := range []struct {
		text    string
		figures int
		same    string // a text with the same shingles
	}{
		{"Rovers beat Eastfield 2-0 at Kingsmead", 1, "Rovers beat Eastfield 2—0 at Kingsmead"},
		{"inflation rises to 2.1% in march", 1, "inflation rises to 2.1 per cent in march"},
		{"talks resume at 14:30 in geneva", 1, ""},
		{"vote set for 2025-06-01 in the capital", 1, ""},
		{"a 3/4 majority", 1, ""},
		{"上涨2.1%", 1, "上涨２．１％"},
		{"以2比0获胜", 1, ""},
		{"covid-19 cases rise", 1, "covid 19 cases rise"},
		{"scores 2- and 3-pointers", 2, "scores 2 and 3 pointers"},
		{"rates fall. 5 banks agree", 1, ""},
		{"the 5g network: 20 cities", 2, ""},
		{"Voters say 1, 2, 3", 3, "Voters say 1 2 3"},
	} {
		if got := len(figures(c.text)); got != c.figures {
			t.Errorf("%q: %d figures, want %d", c.text, got, c.figures)
		}
		if c.same == "" {
			continue
		}
		a, _ := Of(c.text)
		b, _ := Of(c.same)
		if !slices.Equal(a, b) {
			t.Errorf("%q and %q: similarity %.2f, want the same shingles", c.text, c.same, Similarity(a, b))
		}
	}
	// words, word pairs and a figure's replicas: "2-0" is one word, its
	// pairs with the words on either side, and no sentence ends at its
	// point ("2.1" pairs with "percent")
	for text, want := range map[string]int{
		"rovers beat eastfield 2-0 at kingsmead":   5 + 4 + FactWeight - 1,
		"inflation rose 2.1 percent in march":      5 + 4 + FactWeight - 1,
		"inflation rose 2.1%, march data show":     7 + 6 + FactWeight - 1,
		"the vote is on 2025-06-01 in the city":    3 + 2 + FactWeight - 1,
		"以2比0获胜":                                   3 + FactWeight - 1, // 以, 2:0, 获胜
		"attendance of 1,500 at kingsmead stadium": 4 + 3 + FactWeight - 1,
	} {
		if got := count(text); got != want {
			t.Errorf("%q: %d shingles, want %d", text, got, want)
		}
	}
}
