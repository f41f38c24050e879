package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/newsrank/newsrank/board"
)

// Board configures the user leaderboards (package board).
type Board struct {
	// TimeZone decides where a day and a month begin, e.g. "Asia/Shanghai".
	TimeZone string `yaml:"time_zone"`
	// Weights are the points per action; actions not listed earn nothing.
	Weights map[string]int `yaml:"weights"`
	// DayRetention and MonthRetention are how long a day's and a month's
	// board live after they are created (the expiry is set once, at
	// creation). The undo ledger remembers an award max(DayRetention,
	// MonthRetention) after its day, so undo works as long as the boards
	// exist.
	DayRetention   Duration `yaml:"day_retention"`
	MonthRetention Duration `yaml:"month_retention"`
	// Cap, when > 0, keeps only the top Cap members in each board's ranking
	// (see docs/leaderboards.md, "Huge boards"); 0 keeps everyone. Activity boards
	// keep every other user's true total beside the board and admit by it;
	// the invitation board admits an inviter only above the Cap-th score
	// and keeps every count exactly.
	Cap int `yaml:"cap"`
	// ArchiveTop is how many of a closed day's or month's top users the
	// "archive" job keeps in the period's snapshot, which stays readable
	// after the board expires (0 keeps none; at most 1000).
	ArchiveTop int `yaml:"archive_top"`
	// ArchiveRetention is how long a snapshot lives after its period ends.
	ArchiveRetention Duration `yaml:"archive_retention"`
}

func defaultBoard() Board { return boardFromOptions(board.DefaultOptions()) }

func (b *Board) validate(v *validator) {
	checkZone(v, "time_zone", b.TimeZone)
	for _, k := range slices.Sorted(maps.Keys(b.Weights)) {
		if actions := board.Actions(); !slices.Contains(actions, k) {
			msg := fmt.Sprintf("unknown action: must be one of %s", strings.Join(actions, ", "))
			if s := suggest(k, actions); s != "" {
				msg += ", did you mean " + s + "?"
			}
			v.addf("weights."+k, "%s", msg)
		}
		if w := b.Weights[k]; w < 0 || w > board.MaxWeight {
			v.addf("weights."+k, "must be between 0 and %d, got %d", board.MaxWeight, w)
		}
	}
	v.minDur("day_retention", b.DayRetention, 24*time.Hour)
	v.minDur("month_retention", b.MonthRetention, 31*24*time.Hour)
	v.min("cap", b.Cap, 0)
	v.min("archive_top", b.ArchiveTop, 0)
	if b.ArchiveTop > board.MaxN {
		v.addf("archive_top", "must be <= %d, got %d", board.MaxN, b.ArchiveTop)
	}
	v.minDur("archive_retention", b.ArchiveRetention, 24*time.Hour)
}

func checkZone(v *validator, name, zone string) {
	if _, err := time.LoadLocation(zone); err != nil {
		v.addf(name, "unknown time zone %q", zone)
	}
}
