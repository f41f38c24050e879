package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robfig/cron/v3"
)

// A running Schedule announces the jobs as it runs them, so that
// `newsrank jobs` (or any process on the keyspace) shows the schedules
// really in use, which may not be its own configuration's: the demo's
// are shorter, a daemon may run another config file.

// schedulers is the set of holders whose Schedule runs now. // SET holder
func (k keys) schedulers() string { return k.base + "schedulers" }

// scheduler is one running Schedule's announcement. // STRING JSON Scheduler, PX announceTTL
func (k keys) scheduler(holder string) string { return k.base + "scheduler:" + holder }

const (
	// announceEvery is how often a running Schedule renews its
	// announcement (and its next run times); announceTTL how long one
	// outlives a scheduler killed without a word.
	announceEvery = 10 * time.Second
	announceTTL   = 3 * announceEvery
	// maxSchedulers bounds how many announcements are read.
	maxSchedulers = 100
)

// Scheduler is a Schedule running now: who runs it, since when, in which
// time zone, and each job as it runs it.
type Scheduler struct {
	Holder   string      `json:"holder"`
	Since    time.Time   `json:"since"`
	TimeZone string      `json:"time_zone"`
	Jobs     []Scheduled `json:"jobs"`
}

// Scheduled is one job as a running Schedule has it.
type Scheduled struct {
	Name     string `json:"name"`
	Schedule string `json:"schedule"`
	Enabled  bool   `json:"enabled"`
	// Next is the scheduler's own next run (its cron's), nil when the job
	// is not on its schedule.
	Next *time.Time `json:"next,omitempty"`
}

// announcement builds what this Manager's running Schedule announces;
// entries maps the cron entries to job names.
func (m *Manager) announcement(c *cron.Cron, entries map[cron.EntryID]string, since time.Time) Scheduler {
	next := map[string]time.Time{}
	for _, e := range c.Entries() {
		if name, ok := entries[e.ID]; ok && !e.Next.IsZero() {
			next[name] = e.Next
		}
	}
	s := Scheduler{Holder: m.opts.Holder, Since: since, TimeZone: m.opts.Location.String()}
	for _, j := range m.jobs {
		sj := Scheduled{Name: j.Name, Schedule: j.Schedule, Enabled: j.Enabled && j.sched != nil}
		if t, ok := next[j.Name]; ok && sj.Enabled {
			sj.Next = &t
		}
		s.Jobs = append(s.Jobs, sj)
	}
	return s
}

// announce writes s for announceTTL.
func (m *Manager) announce(ctx context.Context, s Scheduler) error {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode scheduler: %w", err)
	}
	_, err = m.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, m.keys.schedulers(), s.Holder)
		p.Set(ctx, m.keys.scheduler(s.Holder), b, announceTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("announce the schedule: %w", err)
	}
	return nil
}

// withdraw removes this Manager's announcement.
func (m *Manager) withdraw(ctx context.Context) error {
	_, err := m.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SRem(ctx, m.keys.schedulers(), m.opts.Holder)
		p.Del(ctx, m.keys.scheduler(m.opts.Holder))
		return nil
	})
	return err
}

// Schedulers returns the Schedules running now on this keyspace (daemons,
// demos), the longest-running first. Announcements of schedulers that
// died without withdrawing them expire within announceTTL and are dropped.
func (m *Manager) Schedulers(ctx context.Context) ([]Scheduler, error) {
	holders, err := m.c.SRandMemberN(ctx, m.keys.schedulers(), maxSchedulers).Result()
	if err != nil {
		return nil, fmt.Errorf("read the schedulers: %w", err)
	}
	if len(holders) == 0 {
		return nil, nil
	}
	ks := make([]string, len(holders))
	for i, h := range holders {
		ks[i] = m.keys.scheduler(h)
	}
	vals, err := m.c.MGet(ctx, ks...).Result()
	if err != nil {
		return nil, fmt.Errorf("read the schedulers: %w", err)
	}
	var out []Scheduler
	var gone []any
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			gone = append(gone, holders[i])
			continue
		}
		var sc Scheduler
		if err := json.Unmarshal([]byte(s), &sc); err != nil {
			return nil, fmt.Errorf("read scheduler %s: %w", holders[i], err)
		}
		out = append(out, sc)
	}
	if len(gone) > 0 {
		if err := m.c.SRem(ctx, m.keys.schedulers(), gone...).Err(); err != nil && !errors.Is(err, redis.Nil) {
			return out, fmt.Errorf("drop expired schedulers: %w", err)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Since.Before(out[j].Since) || out[i].Since.Equal(out[j].Since) && out[i].Holder < out[j].Holder
	})
	return out, nil
}

// StatusAsScheduled is Status with each job's schedule as it is really
// run: when a Schedule runs on this keyspace (the longest-running one of
// Schedulers), its spec, time zone, enabled flag and its cron's next run
// (JobStatus.ScheduledBy names it); else this Manager's own, the next run
// computed as a Schedule started now would. It returns the schedulers too.
func (m *Manager) StatusAsScheduled(ctx context.Context) ([]JobStatus, []Scheduler, error) {
	st, err := m.Status(ctx)
	if err != nil {
		return nil, nil, err
	}
	scheds, err := m.Schedulers(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(scheds) == 0 {
		return st, nil, nil
	}
	s := scheds[0]
	for i := range st {
		for _, sj := range s.Jobs {
			if sj.Name == st[i].Name {
				st[i].Schedule, st[i].Enabled, st[i].Next = sj.Schedule, sj.Enabled, sj.Next
				st[i].ScheduledBy, st[i].TimeZone = s.Holder, s.TimeZone
			}
		}
	}
	return st, scheds, nil
}
