package config

import (
	"fmt"
	"time"

	"github.com/newsrank/newsrank/jobs"
)

// Options translates the jobs section into package jobs's options,
// loading its time zone.
func (j Jobs) Options() (jobs.Options, error) {
	loc, err := time.LoadLocation(j.TimeZone)
	if err != nil {
		return jobs.Options{}, fmt.Errorf("jobs.time_zone: %w", err)
	}
	return jobs.Options{Location: loc, LockTTL: j.LockTTL.D(), History: j.History, CatchUp: j.CatchUp}, nil
}
