package config

import (
	"time"

	"github.com/newsrank/newsrank/jobs"
)

// Jobs configures the scheduled jobs (package jobs) and the daemon.
type Jobs struct {
	// TimeZone is the zone the cron schedules are read in.
	TimeZone string `yaml:"time_zone"`
	// LockTTL is the expiry of a job's run lock; the holder renews it while
	// it runs, so a killed holder blocks others for at most this long.
	LockTTL Duration `yaml:"lock_ttl"`
	// History is how many runs are kept per job.
	History int `yaml:"history"`
	// CatchUp runs a job at start when its last scheduled run was missed.
	CatchUp bool `yaml:"catch_up"`
	// ShutdownTimeout bounds how long the daemon waits for in-flight work
	// after SIGINT/SIGTERM before handing unfinished URLs back.
	ShutdownTimeout Duration `yaml:"shutdown_timeout"`
	// Crawl walks the sources and queues new article URLs (the daemon's
	// consumers fetch them); every 6 hours by default.
	Crawl Job `yaml:"crawl"`
	// Prune removes articles older than news.window; Rescore rebuilds
	// score: from time: and votes:. Weekly by default, as the ranking is
	// a week's (Monday 00:00 and 00:05 in TimeZone). With the gravity
	// formula, whose scores decay with age, rescore more often (e.g.
	// "@every 15m").
	Prune   Job `yaml:"prune"`
	Rescore Job `yaml:"rescore"`
	// Archive snapshots the top of every closed day and month board
	// (board.archive_top) once the period has been closed for a day; it
	// is idempotent and catches up on every board that has not expired.
	// Hourly by default.
	Archive Job `yaml:"archive"`
	// Regroup revisits the recent stories (news.rank_by: story): every 6
	// hours at :30 by default, after the crawl.
	Regroup RegroupJob `yaml:"regroup"`
}

// Job is one scheduled job.
type Job struct {
	// Schedule is a cron spec (minute hour day-of-month month day-of-week)
	// or a descriptor such as "@every 6h" or "@weekly".
	Schedule string `yaml:"schedule"`
	// Enabled puts the job on the daemon's schedule; a disabled job still
	// runs by hand (newsrank crawl -once, rescore, prune).
	Enabled bool `yaml:"enabled"`
}

func defaultJobs() Jobs {
	o := jobs.DefaultOptions()
	return Jobs{
		TimeZone:        o.Location.String(),
		LockTTL:         Duration(o.LockTTL),
		History:         o.History,
		CatchUp:         o.CatchUp,
		ShutdownTimeout: Duration(30 * time.Second),
		Crawl:           Job{Schedule: "0 */6 * * *", Enabled: true},
		Prune:           Job{Schedule: "0 0 * * 1", Enabled: true},
		Rescore:         Job{Schedule: "5 0 * * 1", Enabled: true},
		Archive:         Job{Schedule: "15 * * * *", Enabled: true},
		Regroup:         defaultRegroup(),
	}
}

func (j *Jobs) validate(v *validator) {
	checkZone(v, "time_zone", j.TimeZone)
	v.minDur("lock_ttl", j.LockTTL, 3*time.Second)
	v.min("history", j.History, 1)
	v.minDur("shutdown_timeout", j.ShutdownTimeout, 0)
	for _, job := range []struct {
		name string
		job  Job
	}{{"crawl", j.Crawl}, {"prune", j.Prune}, {"rescore", j.Rescore}, {"archive", j.Archive}} {
		if _, err := jobs.ParseSchedule(job.job.Schedule); err != nil {
			v.addf(job.name+".schedule", "%v, got %q", err, job.job.Schedule)
		}
	}
	j.Regroup.validate(v.at("regroup"))
}
