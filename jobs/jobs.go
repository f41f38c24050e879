package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robfig/cron/v3"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/errkind"
	"github.com/newsrank/newsrank/internal/metrics"
)

// Names of newsrank's jobs.
const (
	Crawl   = "crawl"
	Prune   = "prune"
	Rescore = "rescore"
	Archive = "archive"
	Regroup = "regroup"
)

// ErrUnknownJob is returned for a job name the Manager does not have.
var ErrUnknownJob = errkind.New(errkind.NotFound, "", "unknown job")

// Func is the work of a job. It should return promptly when ctx ends, and
// reports what it did as counts.
type Func func(ctx context.Context) (Counts, error)

// Job is one job the Manager runs.
type Job struct {
	// Name identifies the job: its lock, its history, its CLI name.
	Name string
	// About is a one-line description for listings.
	About string
	// Schedule is a cron spec (five fields, or a descriptor such as
	// "@every 6h"); empty means the job only runs by hand.
	Schedule string
	// Enabled puts the job on the schedule; a disabled job still runs by
	// hand.
	Enabled bool
	// Run does the work.
	Run Func

	sched cron.Schedule
}

// Options configure a Manager. Zero fields take the defaults noted.
type Options struct {
	// Location is the time zone schedules are read in (default time.Local).
	Location *time.Location
	// LockTTL is the lock expiry (default 1 minute); the lock is renewed
	// every third of it while a job runs.
	LockTTL time.Duration
	// History is how many runs are kept per job (default 50).
	History int
	// CatchUp makes Schedule run missed jobs at start.
	CatchUp bool
	// Clock tells the time of runs and of catch-up decisions (default
	// clock.Real). The cron ticks and the lock expiry use real time.
	Clock clock.Clock
	// Logger (default slog.Default()).
	Logger *slog.Logger
	// Holder names this process in locks and history (default host/pid).
	Holder string
}

// DefaultOptions are local time, a lock of a minute, 50 runs of history
// and catch-up on.
func DefaultOptions() Options {
	return Options{Location: time.Local, LockTTL: time.Minute, History: 50, CatchUp: true}
}

// ParseSchedule parses a cron spec (minute hour day-of-month month
// day-of-week) or a descriptor such as "@every 6h" or "@weekly".
func ParseSchedule(spec string) (cron.Schedule, error) { return cron.ParseStandard(spec) }

// Manager runs jobs under their locks, records their runs and schedules
// them. It is safe for concurrent use.
type Manager struct {
	c     redis.UniversalClient
	keys  keys
	opts  Options
	log   *slog.Logger
	jobs  []*Job
	byKey map[string]*Job
}

// NewManager returns a Manager for jobs, storing locks and history in c
// under prefix (config redis.key_prefix). Schedules are checked here.
func NewManager(c redis.UniversalClient, prefix string, opts Options, jobs ...Job) (*Manager, error) {
	def := DefaultOptions()
	if opts.Location == nil {
		opts.Location = def.Location
	}
	if opts.LockTTL <= 0 {
		opts.LockTTL = def.LockTTL
	}
	if opts.History <= 0 {
		opts.History = def.History
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Holder == "" {
		host, _ := os.Hostname()
		opts.Holder = host + "/" + strconv.Itoa(os.Getpid())
	}
	m := &Manager{c: c, keys: newKeys(prefix), opts: opts, log: opts.Logger, byKey: map[string]*Job{}}
	for _, j := range jobs {
		if j.Name == "" || j.Run == nil {
			return nil, fmt.Errorf("job %q: name and Run are required", j.Name)
		}
		if _, dup := m.byKey[j.Name]; dup {
			return nil, fmt.Errorf("job %q: defined twice", j.Name)
		}
		if j.Schedule != "" {
			s, err := ParseSchedule(j.Schedule)
			if err != nil {
				return nil, fmt.Errorf("job %s: schedule %q: %w", j.Name, j.Schedule, err)
			}
			j.sched = s
		}
		m.jobs = append(m.jobs, &j)
		m.byKey[j.Name] = &j
	}
	return m, nil
}

// Jobs returns the jobs, in the order they were given.
func (m *Manager) Jobs() []Job {
	out := make([]Job, len(m.jobs))
	for i, j := range m.jobs {
		out[i] = *j
	}
	return out
}

// Has reports whether the Manager has a job called name.
func (m *Manager) Has(name string) bool { _, ok := m.byKey[name]; return ok }

func (m *Manager) job(name string) (*Job, error) {
	j, ok := m.byKey[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownJob, name)
	}
	return j, nil
}

// Run runs the job now under its lock and records the run. When another
// run holds the lock it records a skipped run and returns ErrLocked. The
// returned error is the job's own (the run is then "failed").
func (m *Manager) Run(ctx context.Context, name, trigger string) (Run, error) {
	j, err := m.job(name)
	if err != nil {
		return Run{}, err
	}
	return m.run(ctx, j.Name, trigger, j.Run, nil)
}

// RunFunc runs fn as job name: same lock, same history, same metrics as
// Run. The command line uses it where it wants its own progress display
// around the job's work (newsrank crawl -once).
func (m *Manager) RunFunc(ctx context.Context, name, trigger string, fn Func) (Run, error) {
	if _, err := m.job(name); err != nil {
		return Run{}, err
	}
	return m.run(ctx, name, trigger, fn, nil)
}

// skipReason is checked under the lock before a run: a non-empty reason
// says why the run is skipped; "" lets it go ahead.
type skipReason func(ctx context.Context) (reason string, err error)

// run runs fn as job name under its lock, after skip (when not nil), and
// records the run.
func (m *Manager) run(ctx context.Context, name, trigger string, fn Func, skip skipReason) (Run, error) {
	log := m.log.With("job", name, "trigger", trigger)
	start := m.opts.Clock.Now()
	run := Run{Job: name, Trigger: trigger, Holder: m.opts.Holder, Start: start}
	lock, err := acquire(ctx, m.c, m.keys.lock(name), m.opts.LockTTL, Holder{Holder: m.opts.Holder, Since: start}, m.log)
	if errors.Is(err, ErrLocked) {
		reason := ErrLocked.Error()
		if h, ok, herr := holderOf(ctx, m.c, m.keys.lock(name)); herr == nil && ok {
			reason += fmt.Sprintf(" (%s since %s)", h.Holder, h.Since.Format(time.RFC3339))
		}
		log.Info("job skipped", "reason", reason)
		return m.skipped(ctx, run, reason), ErrLocked
	}
	if err != nil {
		return Run{}, fmt.Errorf("job %s: %w", name, err)
	}
	released := false
	defer func() {
		if !released {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			lock.Release(rctx)
		}
	}()
	if skip != nil {
		reason, err := skip(ctx)
		if err != nil {
			return Run{}, fmt.Errorf("job %s: %w", name, err)
		}
		if reason != "" {
			log.Info("job skipped", "reason", reason)
			return m.skipped(ctx, run, reason), nil
		}
	}

	jctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lock.keep(func() { cancel(ErrLockLost) })
	log.Info("job started")
	counts, err := safeRun(jctx, fn)
	if cause := context.Cause(jctx); err != nil && errors.Is(cause, ErrLockLost) {
		err = fmt.Errorf("%w: %w", ErrLockLost, err)
	}

	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer rcancel()
	if _, rerr := lock.Release(rctx); rerr != nil {
		log.Warn("release job lock; it will expire", "err", rerr)
	}
	released = true

	return m.finish(rctx, log, run, counts, err, ctx.Err() != nil)
}

// finish records and logs a run that ran: counts and err are the job's;
// shutdown says the caller's context ended, so an error is an
// interruption, not the job failing on its own.
func (m *Manager) finish(ctx context.Context, log *slog.Logger, run Run, counts Counts, err error, shutdown bool) (Run, error) {
	run.End = m.opts.Clock.Now()
	run.Counts = counts
	run.Status = StatusOK
	interrupted := err != nil && shutdown
	switch {
	case interrupted:
		run.Status = StatusInterrupted
		run.Error = "interrupted by a shutdown before it finished"
	case err != nil:
		run.Status = StatusFailed
		run.Error = err.Error()
	}
	metrics.JobRuns.WithLabelValues(run.Job, string(run.Status)).Inc()
	metrics.JobDuration.WithLabelValues(run.Job).Observe(run.Duration().Seconds())
	if rerr := record(ctx, m.c, m.keys, m.opts.History, run); rerr != nil {
		log.Error("job run not recorded", "err", rerr)
	}
	took := run.Duration().Round(time.Millisecond)
	switch {
	case interrupted:
		log.Info("job interrupted", append([]any{"took", took}, counts.attrs()...)...)
		return run, fmt.Errorf("job %s: %w", run.Job, err)
	case err != nil:
		log.Error("job failed", append([]any{"took", took, "err", err}, counts.attrs()...)...)
		return run, fmt.Errorf("job %s: %w", run.Job, err)
	}
	log.Info("job done", append([]any{"took", took}, counts.attrs()...)...)
	return run, nil
}

// skipped records and returns a skipped run.
func (m *Manager) skipped(ctx context.Context, run Run, reason string) Run {
	run.End = run.Start
	run.Status = StatusSkipped
	run.Error = reason
	metrics.JobRuns.WithLabelValues(run.Job, string(run.Status)).Inc()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := record(rctx, m.c, m.keys, m.opts.History, run); err != nil {
		m.log.Error("job run not recorded", "job", run.Job, "err", err)
	}
	return run
}

// safeRun calls fn, turning a panic into an error.
func safeRun(ctx context.Context, fn Func) (counts Counts, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return fn(ctx)
}

// History returns up to n recorded runs of the job, newest first.
func (m *Manager) History(ctx context.Context, name string, n int) ([]Run, error) {
	if _, err := m.job(name); err != nil {
		return nil, err
	}
	return history(ctx, m.c, m.keys, name, min(n, m.opts.History))
}

// JobStatus is a job's schedule and state, for listings.
type JobStatus struct {
	Name     string `json:"name"`
	About    string `json:"about"`
	Schedule string `json:"schedule"`
	Enabled  bool   `json:"enabled"`
	// TimeZone is the zone Schedule is read in.
	TimeZone string `json:"time_zone"`
	// ScheduledBy names the running scheduler (a daemon, the demo) whose
	// schedule this is (StatusAsScheduled); empty: this configuration's.
	ScheduledBy string `json:"scheduled_by,omitempty"`
	// Last is the last run that ran (ok or failed); nil if it never ran.
	Last *Run `json:"last,omitempty"`
	// Latest is the newest history entry, which may be a skipped run.
	Latest *Run `json:"latest,omitempty"`
	// Next is the next scheduled run; nil when not scheduled.
	Next *time.Time `json:"next,omitempty"`
	// Running names the lock holder while a run is going on.
	Running *Holder `json:"running,omitempty"`
}

// Status returns every job's schedule, last run, next run and current
// holder.
func (m *Manager) Status(ctx context.Context) ([]JobStatus, error) {
	now := m.opts.Clock.Now().In(m.opts.Location)
	out := make([]JobStatus, 0, len(m.jobs))
	for _, j := range m.jobs {
		st := JobStatus{Name: j.Name, About: j.About, Schedule: j.Schedule, Enabled: j.Enabled, TimeZone: m.opts.Location.String()}
		if last, ok, err := lastRun(ctx, m.c, m.keys, j.Name); err != nil {
			return nil, err
		} else if ok {
			st.Last = &last
		}
		latest, err := history(ctx, m.c, m.keys, j.Name, 1)
		if err != nil {
			return nil, err
		}
		if len(latest) > 0 {
			st.Latest = &latest[0]
		}
		if j.Enabled && j.sched != nil {
			next := j.sched.Next(now)
			st.Next = &next
		}
		if h, ok, err := holderOf(ctx, m.c, m.keys.lock(j.Name)); err != nil {
			return nil, err
		} else if ok {
			st.Running = &h
		}
		out = append(out, st)
	}
	return out, nil
}

// Location is the time zone schedules are read in.
func (m *Manager) Location() *time.Location { return m.opts.Location }
