package news

import (
	"math"
	"time"
)

// Formula turns an article's post time and net votes into its ranking
// score (higher ranks first). The store's scripts compute the same values
// on the server, bit for bit (formulaLua); the rescore job calls Score to
// rebuild score:.
type Formula interface {
	// Name is the config name: "linear", "hot" or "gravity".
	Name() string
	// Score is the article's score at now. Only post time to the second
	// matters (post times are stored in Unix seconds).
	Score(postTime time.Time, votes float64, now time.Time) float64
	// Decays reports whether Score depends on now, so stored scores go
	// stale and the rescore job must refresh every article, not only
	// rebuild the ones that changed.
	Decays() bool

	// scriptArgs are the formula's name and parameter as the Lua scripts
	// take them (formulaLua).
	scriptArgs() (name string, param float64)
}

// Linear is the hot-news score: post time in seconds plus Weight
// seconds per net vote (432 = a day per 200 votes). The rescore job can
// rebuild it on the server with ZINTERSTORE score: 2 time: votes: WEIGHTS 1 Weight.
type Linear struct {
	Weight float64
}

// Name returns "linear".
func (Linear) Name() string { return "linear" }

// Score returns postTime + Weight × votes.
func (f Linear) Score(postTime time.Time, votes float64, _ time.Time) float64 {
	return float64(postTime.Unix()) + float64(f.Weight*votes)
}

// Decays returns false.
func (Linear) Decays() bool { return false }

func (f Linear) scriptArgs() (string, float64) { return "linear", f.Weight }

// Hot is Reddit's hot ranking: sign(v)·log10(max(|v|,1)) + t/Divisor with t
// the post time in Unix seconds: every Divisor seconds of recency are worth
// ten times the votes.
type Hot struct {
	Divisor float64
}

// Name returns "hot".
func (Hot) Name() string { return "hot" }

// Score returns sign(v)·log10(max(|v|,1)) + postTime/Divisor.
func (f Hot) Score(postTime time.Time, votes float64, _ time.Time) float64 {
	sign := 0.0
	switch {
	case votes > 0:
		sign = 1
	case votes < 0:
		sign = -1
	}
	return float64(sign*log10(math.Max(math.Abs(votes), 1))) + float64(postTime.Unix())/f.Divisor
}

// Decays returns false: the age term is the post time itself.
func (Hot) Decays() bool { return false }

func (f Hot) scriptArgs() (string, float64) { return "hot", f.Divisor }

// Gravity is Hacker News's ranking: votes / (age in hours + 2)^Gravity.
// Scores fall as articles age, so stored scores are only right at the time
// they were written: the rescore job refreshes them.
type Gravity struct {
	Gravity float64
}

// Name returns "gravity".
func (Gravity) Name() string { return "gravity" }

// Score returns votes / (age_hours + 2)^Gravity, with a post time after now
// counted as age 0.
func (f Gravity) Score(postTime time.Time, votes float64, now time.Time) float64 {
	age := float64(now.Unix()-postTime.Unix()) / 3600
	if age < 0 {
		age = 0
	}
	return votes / pow(age+2, f.Gravity)
}

// Decays returns true.
func (Gravity) Decays() bool { return true }

func (f Gravity) scriptArgs() (string, float64) { return "gravity", f.Gravity }
