package websub

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Status is a feed's subscription, as the operations page and
// `newsrank jobs` show it.
type Status struct {
	Source string `json:"source"`
	Feed   string `json:"feed"`
	// State is one of the State constants; "" when the feed was never
	// looked at.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	Hub    string `json:"hub,omitempty"`
	Topic  string `json:"topic,omitempty"`
	// Pending is the request the hub is to verify, if any.
	Pending string `json:"pending,omitempty"`
	// LeaseEnd is when the active subscription's lease ends.
	LeaseEnd time.Time `json:"lease_end,omitzero"`
	// LastPush is the last valid push.
	LastPush time.Time `json:"last_push,omitzero"`
	// Next is when a feed without a subscription is looked at again.
	Next time.Time `json:"next,omitzero"`
	// Pushes, Rejected and Renewals count valid pushes, rejected ones
	// and renewals accepted by the hub.
	Pushes   int64 `json:"pushes"`
	Rejected int64 `json:"rejected"`
	Renewals int64 `json:"renewals"`
}

// Statuses returns the subscriptions of the configured feeds, in
// configuration order.
func (s *Subscriber) Statuses(ctx context.Context) ([]Status, error) {
	cmds := make([]*redis.MapStringStringCmd, len(s.feeds))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, f := range s.feeds {
			cmds[i] = p.HGetAll(ctx, s.subKey(f.Source, feedID(f.URL)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("websub: read subscriptions: %w", err)
	}
	out := make([]Status, len(s.feeds))
	for i, f := range s.feeds {
		r := record(cmds[i].Val())
		out[i] = Status{Source: f.Source, Feed: f.URL, State: r[fState], Reason: r[fReason], Hub: r[fHub], Topic: r[fTopic],
			Pending: r[fPending], LeaseEnd: r.ms(fLeaseEnd), LastPush: r.ms(fLast), Next: r.ms(fNext),
			Pushes: r.n(fPushes), Rejected: r.n(fRejected), Renewals: r.n(fRenewals)}
		if out[i].State == "" {
			out[i].Reason = "not looked at yet"
		}
	}
	return out, nil
}

// PushPoll tells the poll schedule how often to poll a source
// (crawler.PushPolls): every Options.Poll while each of its feeds has an
// active subscription whose lease runs and no poll found articles its
// hub had not pushed; 0 (the ordinary schedule) otherwise. A poll that
// found new articles (polledNew > 0) while the source was pushed marks
// its subscriptions missed, until their next valid push: the hub is not
// pushing everything, and the source goes back to its ordinary polls.
func (s *Subscriber) PushPoll(ctx context.Context, source string, polledNew int) (time.Duration, string) {
	var recs []record
	var keys []string
	for _, f := range s.feeds {
		if f.Source != source {
			continue
		}
		key := s.subKey(f.Source, feedID(f.URL))
		r, err := s.rdb.HGetAll(ctx, key).Result()
		if err != nil {
			s.log.Warn("websub: read subscription for the poll schedule", "source", source, "err", err)
			return 0, ""
		}
		recs = append(recs, record(r))
		keys = append(keys, key)
	}
	if len(recs) == 0 {
		return 0, ""
	}
	now := s.clock.Now()
	hub := ""
	for _, r := range recs {
		if r[fState] != StateActive || !r.ms(fLeaseEnd).After(now) || r[fMissed] != "" {
			return 0, ""
		}
		hub = r[fHub]
	}
	if polledNew > 0 {
		for i, r := range recs {
			if err := setIfCmd.Run(ctx, s.rdb, []string{keys[i]}, r[fToken], fMissed, ms(now)).Err(); err != nil {
				s.log.Warn("websub: mark missed", "source", source, "err", err)
			}
		}
		s.log.Warn("websub: a poll found articles the hub had not pushed; the source is polled as usual until its next push",
			"source", source, "hub", hub, "new", polledNew)
		return 0, ""
	}
	return s.o.Poll, fmt.Sprintf("pushed by its WebSub hub %s: polled every %s as a fallback", hub, s.o.Poll)
}
