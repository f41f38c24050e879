package config

import (
	"fmt"
	"maps"
	"time"

	"github.com/newsrank/newsrank/board"
)

// Options translates the board section into package board's options,
// loading its time zone.
func (b Board) Options() (board.Options, error) {
	loc, err := time.LoadLocation(b.TimeZone)
	if err != nil {
		return board.Options{}, fmt.Errorf("board.time_zone: %w", err)
	}
	return board.Options{
		Location:         loc,
		Weights:          maps.Clone(b.Weights),
		DayRetention:     b.DayRetention.D(),
		MonthRetention:   b.MonthRetention.D(),
		Cap:              b.Cap,
		ArchiveTop:       b.ArchiveTop,
		ArchiveRetention: b.ArchiveRetention.D(),
	}, nil
}

// boardFromOptions is the board section that translates to o.
func boardFromOptions(o board.Options) Board {
	zone := "Local"
	if o.Location != nil {
		zone = o.Location.String()
	}
	return Board{
		TimeZone:         zone,
		Weights:          maps.Clone(o.Weights),
		DayRetention:     Duration(o.DayRetention),
		MonthRetention:   Duration(o.MonthRetention),
		Cap:              o.Cap,
		ArchiveTop:       o.ArchiveTop,
		ArchiveRetention: Duration(o.ArchiveRetention),
	}
}
