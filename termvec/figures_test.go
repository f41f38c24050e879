package termvec

import (
	"slices"
	"testing"
)

// figures returns the figure and date terms of text.
func figures(text string) []string {
	var fs []string
	Tokens(text, func(term string, k Kind) {
		if k == Figure || k == Date {
			fs = append(fs, term)
		}
	})
	return fs
}

// terms returns the terms of text, sorted.
func terms(text string) []string {
	var ts []string
	Tokens(text, func(term string, _ Kind) { ts = append(ts, term) })
	slices.Sort(ts)
	return ts
}

// shareFigure tells whether a and b have a figure in common.
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
		// a scale does not read "1.500" (1,500 million in Europe), and
		// trailing zeros are a value's unless they are all there is
		{"Konzern meldet 1.500 Mio. Euro Verlust", "Konzern meldet 1,5 Mio. Euro Verlust"},
		{"Python 3.10 released", "Python 3.1 released"},
		{"Streik am 12.10. in Kassel", "Streik am 12.1. in Kassel"},
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
		// thousands separators other than the comma: a space, no-break
		// spaces, a thin space, apostrophes, the Arabic one
		{"Westmark to cut 1 500 jobs", "Westmark to cut 1 800 jobs"},
		{"Westmark to cut 1\u00a0500 jobs", "Westmark to cut 1\u00a0800 jobs"},
		{"Westmark va supprimer 1\u202f500 emplois", "Westmark va supprimer 1\u202f800 emplois"},
		{"Westmark to cut 1\u2009500 jobs", "Westmark to cut 1\u2009800 jobs"},
		{"Westmark streicht 1'500 Stellen", "Westmark streicht 1'800 Stellen"},
		{"Westmark streicht 1’500 Stellen", "Westmark streicht 1’800 Stellen"},
		{"Westmark to cut 1 500 000 jobs", "Westmark to cut 1 800 000 jobs"},
		{"Westmark to cut ١٬٥٠٠ jobs", "Westmark to cut ١٬٨٠٠ jobs"},
		// a version after letters, a sign, the Arabic decimal separator, a
		// spaced colon
		{"Westmark OS v2.1 released to users", "Westmark OS v3.1 released to users"},
		{"Westmark temperatures fall to -3 degrees", "Westmark temperatures rise to 3 degrees"},
		{"Westmark economy changes by −0.5% in quarter", "Westmark economy changes by 0.5% in quarter"},
		{"Westmark inflation rises to ٢٫١٪", "Westmark inflation rises to ٣٫١٪"},
		{"Falcons beat Ironbridge 2 : 0 in cup final", "Falcons beat Harbor Town 2 : 1 in cup final"},
		// what stays apart however figures are normalised: a range is not
		// its first day, a score's trailing zero is kept, a three-digit
		// fraction is no decimal's, letters between digits are kept
		{"Westmark summit set for 2-3 June", "Westmark summit set for 3 June"},
		{"Westmark summit set for 2-3 June", "Westmark summit set for 2 June"},
		{"Rovers beat Eastfield 20-10 at Kingsmead", "Rovers beat Eastfield 20-1 at Kingsmead"},
		{"Court rules on 10/10 majority", "Court rules on 10/1 majority"},
		{"Rovers beat Eastfield 2-0 at Kingsmead", "Rovers beat Eastfield with 2 goals at Kingsmead"},
		{"Werk streicht 1.500 Stellen", "Werk streicht 1,5 Stellen"},
		{"Grève des dockers à 14h30", "Grève des dockers à 16h30"},
		{"Westmark wins 4x100m relay", "Westmark wins 4x400m relay"},
		{"Westmark growth slows in Q3", "Westmark growth slows in Q4"},
		{"Westmark to cut 1 500 jobs", "Westmark to cut 1500.5 jobs"},
		{"Westmark firm fined $5m by regulator", "Westmark firm fined $5bn by regulator"},
		{"Quantix raises $1.2bn", "Quantix raises $1.2m"},
		{"Falcons beat Ironbridge 2-0 in cup final", "Falcons beat Ironbridge 2-0100 in cup final"},
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
		{"Westmark raises $1.2 bln in bond sale", "Westmark raises $1.2 billion in bond sale"},
		{"Westmark unveils $1.2-billion plan", "Westmark unveils $1.2bn plan"},
		{"Westmark debt hits $1.2 trln", "Westmark debt hits $1.2 trillion"},
		{"Westmark raises $1.2 bil in bond sale", "Westmark raises $1.2 billion in bond sale"},
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
		// one value written in another way (the outside test's N2): a
		// unit or scale after the figure, a score's, a season's or a
		// time's joiner, a decimal's trailing zeros, a decimal comma
		{"Quantix raises $1.2bn in new funding round", "Quantix raises $1.2 billion in new funding round"},
		{"Quantix recalls 1.5m cars in Westmark", "Quantix recalls 1.5 million cars in Westmark"},
		{"Quantix recalls 1.5m cars in Westmark", "Quantix recalls 1,500,000 cars in Westmark"},
		{"Quantix to cut 10,000 jobs in Westmark", "Quantix to cut 10k jobs in Westmark"},
		{"Quantix raises $1.2bn", "Quantix raises $1,200m"},
		{"Falcons beat Ironbridge 2:1 in cup final", "Falcons beat Ironbridge 2-1 in cup final"},
		{"Falcons beat Ironbridge 2:0 in cup final", "Falcons beat Ironbridge 2–0 in cup final"},
		{"Falcons beat Ironbridge 2 : 0 in cup final", "Falcons beat Ironbridge 2-0 in cup final"},
		{"Falcons unveil kit for 2024/25 season", "Falcons unveil kit for 2024-25 season"},
		{"Falcons unveil kit for 2024/25 season", "Falcons unveil kit for 2024–25 season"},
		{"Magnitude 7.0 earthquake strikes Westmark coast", "Magnitude 7 earthquake strikes Westmark coast"},
		{"Westmark council meets at 14:30 today", "Westmark council meets at 14.30 today"},
		{"Westmark bank raises rate to 2.5%", "Westmark bank raises rate to 2.5 per cent"},
		{"Westmark bank raises rate to 2,5%", "Westmark bank raises rate to 2.5%"},
		{"Runner sets Westmark 5km record", "Runner sets Westmark 5 km record"},
		{"Falcons win 2nd round of cup", "Falcons win round 2 of cup"},
		// one value with other thousands separators, or none
		{"Westmark to cut 1 500 jobs", "Westmark to cut 1,500 jobs"},
		{"Westmark to cut 1\u00a0500 jobs", "Westmark to cut 1500 jobs"},
		{"Westmark va supprimer 1\u202f500 emplois", "Westmark va supprimer 1 500 emplois"},
		{"Westmark to cut 1\u2009500 jobs", "Westmark to cut 1500 jobs"},
		{"Westmark streicht 1'500 Stellen", "Westmark streicht 1500 Stellen"},
		{"Westmark streicht 1’500 Stellen", "Westmark streicht 1'500 Stellen"},
		{"Westmark to cut 1 500 000 jobs", "Westmark to cut 1,500,000 jobs"},
		{"Westmark to cut 1,500-2,000 jobs", "Westmark to cut 1500–2000 jobs"},
		{"Westmark to cut ١٬٥٠٠ jobs", "Westmark to cut 1500 jobs"},
		// a version after letters, a sign, Arabic-Indic digits and decimal
		// separator, a spaced colon
		{"Westmark OS v2.1 released to users", "Westmark OS version 2.1 released"},
		{"Westmark temperatures fall to -3 degrees", "Westmark temperatures drop to −3 degrees"},
		{"Westmark inflation rises to ٢٫١٪", "Westmark inflation rises to 2.1%"},
	} {
		if !shareFigure(c[0], c[1]) {
			t.Errorf("%q (figures %x) and %q (%x) share no figure", c[0], figures(c[0]), c[1], figures(c[1]))
		}
	}
}

// TestFigureWords: a figure is one term; what joins digits joins
// nothing else.
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
		{"quantix raises $1.2bn", 1, "quantix raises $1.2 bn"},
		{"factory cuts 1 500 jobs", 1, "factory cuts 1,500 jobs"},
		{"magnitude 7.0 quake", 2, ""}, // 7 and, as written, 7.0
		{"magnitude 7 quake", 1, ""},
		{"temperatures fall to -3 degrees", 1, "temperatures fall to −3 degrees"},
		{"westmark os v2.1 is out", 1, "westmark os v 2.1 is out"},
		{"leaders of the g7 meet", 1, "leaders of the g 7 meet"},
		{"co2 levels rise, abc7 reports", 0, ""}, // longer words keep their digits
		{"talks at cop26 in glasgow", 0, ""},
	} {
		if got := len(figures(c.text)); got != c.figures {
			t.Errorf("%q: %d figures, want %d", c.text, got, c.figures)
		}
		if c.same != "" && !slices.Equal(terms(c.text), terms(c.same)) {
			t.Errorf("%q and %q: terms %q and %q, want the same", c.text, c.same, terms(c.text), terms(c.same))
		}
	}
}

// TestFigureCanonical: the canonical form of figures (figure.read), its
// value and as written, and how much of the text each is.
func TestFigureCanonical(t *testing.T) {
	for _, c := range []struct{ text, value, written, rest string }{
		{"2-0", "2.0", "", ""},
		{"2:1", "2.1", "", ""},
		{"2 : 1 win", "2.1", "", " win"},
		{"2 - 1", "2.1", "", ""},
		{"2 / 3", "2", "", " / 3"},
		{"2024/25", "2024.25", "", ""},
		{"3/4", "3.4", "", ""},
		{"2比0", "2.0", "", ""},
		{"14:30", "14.30", "", ""},
		{"14.30", "14.30", "", ""},
		{"7.0", "7", "7.0", ""},
		{"2.50%", "2.50", "", "%"},
		{"1,5", "1.5", "", ""},
		{"1,50", "1.50", "", ""},
		{"1.5000", "1.5000", "", ""},
		{"1.500", "1.500", "", ""},
		{"1,500", "1500", "", ""},
		{"1 500 jobs", "1500", "", " jobs"},
		{"1'500", "1500", "", ""},
		{"1’500", "1500", "", ""},
		{"١٬٥٠٠", "1500", "", ""},
		{"٢٫١", "2.1", "", ""},
		{"1 500 000", "1500000", "", ""},
		{"1,500,000", "1500000", "", ""},
		{"2,000.50", "2000.50", "", ""},
		{"1,500-2,000", "1500.2000", "", ""},
		{"1,50,000", "1.50.000", "", ""},
		{"1234 567", "1234", "", " 567"},
		{"1 5000", "1", "", " 5000"},
		{"12,500 fans", "12500", "", " fans"},
		{"1.2bn", "1200000000", "", ""},
		{"1.2-billion plan", "1200000000", "", " plan"},
		{"100-m dash", "100", "", "-m dash"},
		{"1.2 billion dollars", "1200000000", "", " dollars"},
		{"1.2 Billion", "1200000000", "", ""},
		{"1,5 Mio. Euro", "1500000", "", ". Euro"},
		{"2 millions d'euros", "2000000", "", " d'euros"},
		{"1.5m", "1500000", "", ""},
		{"10k", "10000", "", ""},
		{"0.5bn", "500000000", "", ""},
		{"1.2345k", "1234.5", "", ""},
		{"-1.5bn", "-1500000000", "", ""},
		{"5 m tall", "5", "", " m tall"},
		{"5ms", "5", "", "ms"},
		{"2-3m", "2.3", "", "m"},
		{"5G", "5", "", "G"},
		{"2nd", "2", "", "nd"},
		{"5km", "5", "", "km"},
		{"14h30", "14h30", "", ""},
		{"4x100m", "4x100", "", "m"},
		{"3×4", "3x4", "", ""},
		{"1n1 flu", "1n1", "", " flu"},
		{"2025-06-01t14:30", "2025.06.01t14.30", "", ""},
		{"-3 degrees", "-3", "", " degrees"},
		{"−0.50%", "-0.50", "", "%"},
		{"2- and 3-pointers", "2", "", "- and 3-pointers"},
		{"1, 2", "1", "", ", 2"},
		{"5. next", "5", "", ". next"},
	} {
		var f figure
		n := f.read(c.text)
		written := c.written
		if written == "" {
			written = c.value
		}
		if v, w, rest := string(f.b[:f.value]), string(f.b[:f.n]), c.text[n:]; v != c.value || w != written || rest != c.rest {
			t.Errorf("%q: value %q, written %q, rest %q; want %q, %q, %q", c.text, v, w, rest, c.value, written, c.rest)
		}
	}
}
