package board

import (
	"maps"
	"time"
)

// Actions returns the actions the activity board knows: visit, like,
// collect, comment, publish and follow.
func Actions() []string {
	return []string{"visit", "like", "collect", "comment", "publish", "follow"}
}

// MaxWeight is the most points one action may be worth (Options.Weights):
// a user's total must stay a whole number a Redis score holds exactly
// (MaxScore), also after millions of awards.
const MaxWeight = 1_000_000

// MaxScore is the largest score the boards hold and answer about exactly:
// 2^53, the last of the whole numbers a Redis score (a double) holds
// without a gap.
const MaxScore = 1 << 53

// Options configure the boards. Package config checks them (known actions,
// weights 0 to MaxWeight, retentions of at least a day and a month, Cap >= 0); the
// constructors do not check them again.
type Options struct {
	// Location decides where a day and a month begin; nil is time.Local.
	Location *time.Location
	// Weights are the points per action (Actions); actions not listed
	// earn nothing.
	Weights map[string]int
	// DayRetention and MonthRetention are how long a day's and a month's
	// board live after they are created. The undo ledger remembers an
	// award max(DayRetention, MonthRetention) after its day.
	DayRetention   time.Duration
	MonthRetention time.Duration
	// Cap, when > 0, keeps only the top Cap members in each board's
	// ranking; 0 keeps everyone.
	Cap int
	// ArchiveTop is how many of a closed period's top users
	// Activity.Archive keeps in the period's snapshot (at most MaxN); 0
	// keeps no snapshots.
	ArchiveTop int
	// ArchiveRetention is how long a snapshot lives after the end of its
	// period.
	ArchiveRetention time.Duration
}

// DefaultOptions are local time, the weights of the package's table (a
// visit 1, a like or a collect or a follow 2, a comment 3, a post 10),
// boards kept 31 and 400 days, no cap, and snapshots of the top 100 of
// every closed day and month kept two years (730 days: a day or a month
// can be compared with the same one a year before, and a month's snapshot
// outlives its board, kept 400 days, by about a year; 1.6 KB a period,
// some 1.2 MB in all).
func DefaultOptions() Options {
	return Options{
		Location: time.Local,
		Weights: map[string]int{
			"visit": 1, "like": 2, "collect": 2, "comment": 3, "publish": 10, "follow": 2,
		},
		DayRetention:     31 * 24 * time.Hour,
		MonthRetention:   400 * 24 * time.Hour,
		ArchiveTop:       100,
		ArchiveRetention: 730 * 24 * time.Hour,
	}
}

func (o Options) location() *time.Location {
	if o.Location == nil {
		return time.Local
	}
	return o.Location
}

func (o Options) weights() map[string]int { return maps.Clone(o.Weights) }
