package demosite

import (
	"math"
	"math/rand/v2"
	"time"
)

// A daily rhythm of publication (Options.DailyRhythm): newsrooms publish
// by the clock of their city, most in the morning and the working day,
// little at night, and some in bursts (a match report, then its
// follow-ups; breaking news and its updates). Each section has a shape of
// its own, in its own zone, varied by the seed so that no two seeds give
// the same rhythms.

// purposeRhythm is the draw of an article's post time in a daily rhythm;
// it has its own generator, so that the other fields of an article are
// the same with or without a rhythm.
const purposeRhythm = 3

// peak is one bump of a section's day: its centre (local hour), its
// width (hours, one standard deviation) and its height against the
// section's busiest.
type peak struct {
	at, width, height float64
}

// dayShape is a section's publication rate by local time of day: a floor
// (the night's rate against the peaks') under Gaussian peaks.
type dayShape struct {
	floor float64
	peaks []peak
	// burst is the chance that an article follows the one before it in
	// its section, a few minutes after it, instead of falling at a time
	// of its own.
	burst float64
}

// baseShapes are the sections' rhythms before the seed varies them.
var baseShapes = map[string]dayShape{
	// A domestic news desk: a morning peak, a second after lunch, an
	// evening round-up.
	"guonei": {floor: 0.05, peaks: []peak{{9, 1.5, 1}, {15, 2, 0.6}, {20, 1.5, 0.35}}},
	// A foreign desk: the working day of its city, busiest in the morning.
	"world": {floor: 0.08, peaks: []peak{{8, 2, 1}, {13, 3, 0.7}}},
	// A tech site: the afternoon and evening.
	"tech": {floor: 0.06, peaks: []peak{{14, 2.5, 1}, {19, 2, 0.5}}},
	// Sports: the evening's matches, in bursts.
	"sports": {floor: 0.04, peaks: []peak{{12, 2, 0.35}, {20.5, 1.5, 1}}, burst: 0.45},
	// Markets: before the opening and through the session.
	"finance": {floor: 0.03, peaks: []peak{{9, 1, 1}, {11, 1.5, 0.7}, {14, 1.2, 0.8}}},
	// The front page: breaking news, in bursts, from early morning on.
	"news": {floor: 0.06, peaks: []peak{{8.5, 1.5, 1}, {12, 2, 0.6}, {18, 2.5, 0.6}}, burst: 0.35},
}

// shapeOf is sec's rhythm for seed: its base shape with each peak moved
// by up to an hour either way, widened or narrowed by up to a quarter,
// its height and the floor scaled by 0.7 to 1.3, and its burst chance by
// 0.6 to 1.4.
func shapeOf(seed int64, secIdx int, sec *section) dayShape {
	base := baseShapes[sec.id]
	r := rand.New(rand.NewPCG(uint64(seed), 0x7217<<8|uint64(secIdx)))
	vary := func(lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }
	sh := dayShape{floor: base.floor * vary(0.7, 1.3), burst: min(base.burst*vary(0.6, 1.4), 0.7)}
	for _, p := range base.peaks {
		sh.peaks = append(sh.peaks, peak{at: p.at + vary(-1, 1), width: p.width * vary(0.8, 1.25), height: p.height * vary(0.7, 1.3)})
	}
	return sh
}

// rate is the shape's relative rate at local hour h (0 <= h < 24).
func (sh dayShape) rate(h float64) float64 {
	v := sh.floor
	for _, p := range sh.peaks {
		d := math.Abs(h - p.at)
		d = min(d, 24-d) // the day wraps around
		v += p.height * math.Exp(-d*d/(2*p.width*p.width))
	}
	return v
}

// rhythmSteps is how finely drawTime cuts the day (minutes).
const rhythmSteps = 24 * 60

// cdf is the shape's distribution over the minutes of the day.
func (sh dayShape) cdf() []float64 {
	out := make([]float64, rhythmSteps)
	sum := 0.0
	for i := range out {
		sum += sh.rate((float64(i) + 0.5) / 60)
		out[i] = sum
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// rhythmDraw draws the post times of one section's articles in its daily
// rhythm, within the week before now.
type rhythmDraw struct {
	sh   dayShape
	cdf  []float64
	zone *time.Location
	now  time.Time
	last time.Time // the section's article drawn before, zero: none
}

func newRhythmDraw(seed int64, secIdx int, sec *section, now time.Time) *rhythmDraw {
	sh := shapeOf(seed, secIdx, sec)
	return &rhythmDraw{sh: sh, cdf: sh.cdf(), zone: sec.zone, now: now}
}

// post draws the post time of article idx (seed's generator of it): a
// few minutes after the section's article before when it follows it (a
// burst), else a day of the week and a minute of that day by the shape.
// Times are whole seconds, between a week and a minute before now.
func (d *rhythmDraw) post(seed int64, idx int) time.Time {
	r := rng(seed, idx, purposeRhythm)
	lo, hi := d.now.Add(-week+time.Minute), d.now.Add(-time.Minute)
	if !d.last.IsZero() && r.Float64() < d.sh.burst {
		// Follow-ups come 1 to ~20 minutes apart (exponential, mean 6).
		gap := time.Minute + time.Duration(r.ExpFloat64()*float64(5*time.Minute))
		if t := d.last.Add(gap); t.Before(hi) {
			d.last = t.Truncate(time.Second)
			return d.last
		}
	}
	today := d.now.In(d.zone)
	midnight := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, d.zone)
	for {
		day := midnight.AddDate(0, 0, -r.IntN(8))
		m := searchCDF(d.cdf, r.Float64())
		t := day.Add(time.Duration(m)*time.Minute + time.Duration(r.Int64N(int64(time.Minute))))
		if t.After(lo) && t.Before(hi) {
			d.last = t.Truncate(time.Second).UTC()
			return d.last
		}
	}
}

// searchCDF is the first index of cdf at or above u.
func searchCDF(cdf []float64, u float64) int {
	lo, hi := 0, len(cdf)-1
	for lo < hi {
		m := (lo + hi) / 2
		if cdf[m] < u {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
