package demosite

import (
	"testing"
	"time"
)

// TestDailyRhythm: with DailyRhythm the site has the same articles, posted
// within the same week, but by each section's day in its own zone: its
// nights (00:00 to 04:59) quiet, its busiest hour at least twice its
// average, and the seed changes the shapes.
func TestDailyRhythm(t *testing.T) {
	for seed := int64(1); seed <= 12; seed++ {
		flat := New(Options{Articles: 1400, Now: testNow, Seed: seed})
		s := New(Options{Articles: 1400, Now: testNow, Seed: seed, DailyRhythm: true})
		fa, ra := flat.Articles(), s.Articles()
		if len(fa) != len(ra) {
			t.Fatalf("seed %d: %d articles with a rhythm, %d without", seed, len(ra), len(fa))
		}
		titles := map[string]string{}
		for _, a := range fa {
			titles[a.Title] = a.Section
		}
		moved := 0
		for i, a := range ra {
			if titles[a.Title] != a.Section {
				t.Fatalf("seed %d: %q (%s) is not an article of the site without a rhythm", seed, a.Title, a.Section)
			}
			if a.PostTime.After(testNow.Add(-time.Minute)) || a.PostTime.Before(testNow.Add(-week-staleMax-time.Minute)) ||
				a.PostTime.Nanosecond() != 0 || a.PostTime.Location() != time.UTC {
				t.Errorf("seed %d: %s posted at %v", seed, a.Path, a.PostTime)
			}
			if i > 0 && a.PostTime.After(ra[i-1].PostTime) {
				t.Fatalf("seed %d: articles not newest first at %d", seed, i)
			}
			if !a.PostTime.Equal(fa[i].PostTime) {
				moved++
			}
		}
		if moved < len(ra)*9/10 {
			t.Errorf("seed %d: only %d of %d post times differ from the site without a rhythm", seed, moved, len(ra))
		}
		for _, sec := range s.sections {
			var hours [24]int
			for _, a := range sec.public {
				hours[a.post.In(sec.zone).Hour()]++
			}
			night, busiest := 0, 0
			for h, n := range hours {
				if h < 5 {
					night += n
				}
				busiest = max(busiest, n)
			}
			n := len(sec.public)
			if 100*night > 12*n || busiest*24 < 2*n {
				t.Errorf("seed %d, %s: %d of %d articles between 00:00 and 04:59, %d in its busiest hour: %v",
					seed, sec.id, night, n, busiest, hours)
			}
		}
	}
	a, b := shapeOf(7, 0, newSections()[0]), shapeOf(8, 0, newSections()[0])
	if a.peaks[0] == b.peaks[0] || a.floor == b.floor {
		t.Errorf("seeds 7 and 8 give the same shape: %+v", a)
	}
}

// TestRhythmBursts: in a section that always bursts, every article after
// the first follows the one drawn before it by 1 to ~30 minutes; bursts
// are drawn only for the sports and news sections.
func TestRhythmBursts(t *testing.T) {
	sec := newSections()[0]
	d := newRhythmDraw(3, 0, sec, testNow)
	d.sh.burst = 1
	prev := d.post(3, 0)
	for i := 1; i < 50; i++ {
		p := d.post(3, i)
		if gap := p.Sub(prev); gap < time.Minute || gap > 40*time.Minute {
			// (seed 3 draws the first 34 hours before Now: no follow-up
			// reaches Now, where one would be drawn on its own)
			t.Fatalf("article %d follows the one before by %v", i, gap)
		}
		prev = p
	}
	for i, sec := range newSections() {
		bursty := sec.id == "sports" || sec.id == "news"
		if sh := shapeOf(7, i, sec); (sh.burst > 0) != bursty {
			t.Errorf("%s: burst chance %.2f", sec.id, sh.burst)
		}
	}
}
