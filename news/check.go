package news

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// scanBatch is how many entries one ZSCAN or EXISTS round trip of
// Rankings and Check handles.
const scanBatch = 500

// Rankings is a copy of the three rankings, id → entry: Time holds post
// times (Unix s), Score scores, Votes net votes.
type Rankings struct {
	Time, Score, Votes map[string]float64
}

// Count returns how many articles the rankings hold (ZCARD time:).
func (s *Store) Count(ctx context.Context) (int64, error) {
	n, err := s.c.ZCard(ctx, s.keys.Time()).Result()
	if err != nil {
		return 0, fmt.Errorf("count articles: %w", err)
	}
	return n, nil
}

// Rankings reads every entry of time:, score: and votes: in bounded ZSCAN
// batches, for checks and tests. It is not one atomic snapshot: writes
// made meanwhile may show in one ranking and not yet in another.
func (s *Store) Rankings(ctx context.Context) (Rankings, error) {
	var r Rankings
	var err error
	if r.Time, err = s.zmembers(ctx, s.keys.Time()); err != nil {
		return r, err
	}
	if r.Score, err = s.zmembers(ctx, s.keys.Score()); err != nil {
		return r, err
	}
	if r.Votes, err = s.zmembers(ctx, s.keys.Votes()); err != nil {
		return r, err
	}
	return r, nil
}

// zmembers reads a sorted set's members in bounded ZSCAN batches.
func (s *Store) zmembers(ctx context.Context, key string) (map[string]float64, error) {
	out := map[string]float64{}
	var cursor uint64
	for {
		kv, next, err := s.c.ZScan(ctx, key, cursor, "", scanBatch).Result()
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", key, err)
		}
		for i := 0; i+1 < len(kv); i += 2 {
			f, err := strconv.ParseFloat(kv[i+1], 64)
			if err != nil {
				return nil, fmt.Errorf("scan %s: %s: %w", key, kv[i], err)
			}
			out[kv[i]] = f
		}
		if cursor = next; cursor == 0 {
			return out, nil
		}
	}
}

// Consistency reports the rankings' invariants, as [Store.Check] found
// them: time:, score: and votes: hold the same ids, and every ranked id
// has its article hash. Each list is sorted.
type Consistency struct {
	// Articles is how many ids time: holds.
	Articles int
	// TimeNotScore lists ids of time: missing from score:, ScoreNotTime
	// the reverse; TimeNotVotes and VotesNotTime the same for votes:.
	TimeNotScore, ScoreNotTime, TimeNotVotes, VotesNotTime []string
	// NoHash lists ids of time: without an article hash (orphans).
	NoHash []string
}

// OK reports whether every invariant holds.
func (c Consistency) OK() bool {
	return len(c.TimeNotScore)+len(c.ScoreNotTime)+len(c.TimeNotVotes)+len(c.VotesNotTime)+len(c.NoHash) == 0
}

// Check reads the rankings (Rankings) and the existence of every ranked
// article's hash, in bounded batches, and reports what breaks the
// invariants; it changes nothing ([Store.Repair] and [Store.Rebuild]
// repair). Like Rankings it is not atomic: run it when writes have
// settled.
func (s *Store) Check(ctx context.Context) (Consistency, error) {
	r, err := s.Rankings(ctx)
	if err != nil {
		return Consistency{}, fmt.Errorf("check: %w", err)
	}
	c := Consistency{
		Articles:     len(r.Time),
		TimeNotScore: missing(r.Time, r.Score),
		ScoreNotTime: missing(r.Score, r.Time),
		TimeNotVotes: missing(r.Time, r.Votes),
		VotesNotTime: missing(r.Votes, r.Time),
	}
	ids := make([]string, 0, len(r.Time))
	for id := range r.Time {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for start := 0; start < len(ids); start += scanBatch {
		batch := ids[start:min(start+scanBatch, len(ids))]
		cmds, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, id := range batch {
				p.Exists(ctx, s.keys.Article(id))
			}
			return nil
		})
		if err != nil {
			return c, fmt.Errorf("check: article hashes: %w", err)
		}
		for i, cmd := range cmds {
			if cmd.(*redis.IntCmd).Val() != 1 {
				c.NoHash = append(c.NoHash, batch[i])
			}
		}
	}
	return c, nil
}

// missing returns the ids of a that b lacks, sorted.
func missing(a, b map[string]float64) []string {
	var out []string
	for id := range a {
		if _, ok := b[id]; !ok {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
