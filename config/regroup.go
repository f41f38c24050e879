package config

import (
	"time"

	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
)

// RegroupJob is the "regroup" job (jobs.regroup): it revisits the
// stories of the last Span with news.rank_by: story, turning them into
// those the ingest gives their articles in publication order (merging
// the stories it split, moving or splitting out the articles it filed in
// the wrong story; news.Store.Regroup). Hourly by default; crawl -once
// runs it at its end.
type RegroupJob struct {
	// Schedule and Enabled are those of every job (Job).
	Schedule string `yaml:"schedule"`
	Enabled  bool   `yaml:"enabled"`
	// Span: the stories whose lead was posted within it are examined (at
	// most news.window).
	Span Duration `yaml:"span"`
	// Margin is how much more similar an article must be to another
	// story than to the rest of its own to move there (so that it does
	// not move back and forth between runs); MergeMargin how far above
	// news.story.min_similarity the leads of two stories must each score
	// against the other story for the two to merge.
	Margin      float64 `yaml:"margin"`
	MergeMargin float64 `yaml:"merge_margin"`
}

func defaultRegroup() RegroupJob {
	o := news.DefaultRegroupOptions()
	return RegroupJob{Schedule: "30 * * * *", Enabled: true, Span: Duration(o.Span),
		Margin: o.Margin, MergeMargin: o.MergeMargin}
}

func (r *RegroupJob) validate(v *validator) {
	if _, err := jobs.ParseSchedule(r.Schedule); err != nil {
		v.addf("schedule", "%v, got %q", err, r.Schedule)
	}
	v.minDur("span", r.Span, time.Hour)
	if r.Margin <= 0 || r.Margin > 1 {
		v.addf("margin", "must be above 0 and at most 1, got %g", r.Margin)
	}
	if r.MergeMargin < 0 || r.MergeMargin > 1 {
		v.addf("merge_margin", "must be from 0 to 1, got %g", r.MergeMargin)
	}
}

// Job returns r's schedule as a Job.
func (r RegroupJob) Job() Job { return Job{Schedule: r.Schedule, Enabled: r.Enabled} }

// Options returns r as news.RegroupOptions.
func (r RegroupJob) Options() news.RegroupOptions {
	return news.RegroupOptions{Span: r.Span.D(), Margin: r.Margin, MergeMargin: r.MergeMargin}
}
