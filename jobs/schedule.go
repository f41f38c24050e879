package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule runs the enabled jobs on their schedules until ctx ends; with
// Options.CatchUp it first starts the catch-up of missed runs. While it
// runs it announces the schedule on the keyspace (Schedulers). When ctx
// ends it stops starting runs and waits for the running ones, which see
// ctx cancelled, to return. It returns nil after a clean stop.
func (m *Manager) Schedule(ctx context.Context) error {
	c := cron.New(cron.WithLocation(m.opts.Location), cron.WithLogger(cronLogger{m.log}))
	entries := map[cron.EntryID]string{}
	fired := make(chan struct{}, 1) // a tick: announce the new next run
	for _, j := range m.jobs {
		if !j.Enabled || j.sched == nil {
			continue
		}
		name := j.Name
		entries[c.Schedule(j.sched, cron.FuncJob(func() {
			select {
			case fired <- struct{}{}:
			default:
			}
			m.tick(ctx, name)
		}))] = name
		m.log.Info("job scheduled", "job", name, "schedule", j.Schedule, "time_zone", m.opts.Location.String(),
			"next", j.sched.Next(time.Now().In(m.opts.Location)).Format(time.RFC3339))
	}
	var wg sync.WaitGroup
	if m.opts.CatchUp {
		wg.Go(func() {
			if _, err := m.CatchUp(ctx); err != nil && ctx.Err() == nil {
				m.log.Error("catch-up", "err", err)
			}
		})
	}
	c.Start()
	since := m.opts.Clock.Now()
	announce := func() {
		actx, cancel := context.WithTimeout(ctx, announceEvery)
		defer cancel()
		if err := m.announce(actx, m.announcement(c, entries, since)); err != nil && ctx.Err() == nil {
			m.log.Warn("could not announce the schedule (newsrank jobs shows this configuration's instead)", "err", err)
		}
	}
	announce()
	t := time.NewTicker(announceEvery)
	defer t.Stop()
	for running := true; running; {
		select {
		case <-ctx.Done():
			running = false
		case <-t.C:
			announce()
		case <-fired:
			announce()
		}
	}
	<-c.Stop().Done()
	wg.Wait()
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := m.withdraw(wctx); err != nil {
		m.log.Debug("withdraw the schedule announcement; it expires", "err", err)
	}
	return nil
}

// tick is a scheduled run: it goes ahead only if no run started since the
// schedule fired (another daemon may have taken this tick).
func (m *Manager) tick(ctx context.Context, name string) {
	if ctx.Err() != nil {
		return
	}
	j := m.byKey[name]
	_, err := m.run(ctx, name, TriggerSchedule, j.Run, func(ctx context.Context) (string, error) {
		return m.notDue(ctx, j)
	})
	if err != nil && !errors.Is(err, ErrLocked) {
		m.log.Debug("scheduled run ended with an error", "job", name, "err", err)
	}
}

// notDue returns a reason when job j has run since its schedule last
// fired: the next scheduled time after the start of its last run is still
// ahead. A job that never ran is due (a scheduled tick runs it).
func (m *Manager) notDue(ctx context.Context, j *Job) (string, error) {
	last, ok, err := lastRun(ctx, m.c, m.keys, j.Name)
	if err != nil || !ok {
		return "", err
	}
	return m.ranSince(j, last), nil
}

// ranSince returns a reason when last started after j's schedule last
// fired, "" when a scheduled run was due since.
func (m *Manager) ranSince(j *Job, last Run) string {
	now := m.opts.Clock.Now().In(m.opts.Location)
	if next := j.sched.Next(last.Start.In(m.opts.Location)); next.After(now) {
		return fmt.Sprintf("already ran at %s (%s by %s); next scheduled run %s",
			last.Start.In(m.opts.Location).Format(time.RFC3339), last.Trigger, last.Holder,
			next.Format(time.RFC3339))
	}
	return ""
}

// Missed returns the enabled, scheduled jobs whose schedule fired since
// their last run started, in the Manager's order. A job that never ran
// has missed nothing: on a fresh keyspace nothing is caught up, and the
// first run comes when the schedule fires.
func (m *Manager) Missed(ctx context.Context) ([]string, error) {
	var out []string
	for _, j := range m.jobs {
		if !j.Enabled || j.sched == nil {
			continue
		}
		last, ok, err := lastRun(ctx, m.c, m.keys, j.Name)
		if err != nil {
			return out, err
		}
		if ok && m.ranSince(j, last) == "" {
			out = append(out, j.Name)
		}
	}
	return out, nil
}

// CatchUp runs, one after the other, each job Missed reports, checking
// again under the lock that it is still due. It returns the jobs it ran.
// A job's failure is recorded in its history and logged; CatchUp goes on
// with the next.
func (m *Manager) CatchUp(ctx context.Context) ([]string, error) {
	missed, err := m.Missed(ctx)
	if err != nil {
		return nil, err
	}
	var ran []string
	for _, name := range missed {
		if ctx.Err() != nil {
			return ran, ctx.Err()
		}
		j := m.byKey[name]
		m.log.Info("catching up a run missed while no scheduler ran", "job", name)
		run, err := m.run(ctx, name, TriggerCatchUp, j.Run, func(ctx context.Context) (string, error) {
			return m.notDue(ctx, j)
		})
		if err != nil && !errors.Is(err, ErrLocked) && run.Status == "" {
			return ran, err // could not even take the lock: Redis is down
		}
		if run.Status == StatusOK || run.Status == StatusFailed {
			ran = append(ran, name)
		}
	}
	return ran, nil
}

// cronLogger sends robfig/cron's messages to slog.
type cronLogger struct{ log *slog.Logger }

func (l cronLogger) Info(msg string, kv ...any) { l.log.Debug("cron: "+msg, kv...) }
func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Error("cron: "+msg, append(kv, "err", err)...)
}
