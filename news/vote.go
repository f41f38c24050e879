package news

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/human"
	"github.com/newsrank/newsrank/internal/metrics"
	"github.com/newsrank/newsrank/internal/userid"
)

// MaxUser is the longest user name accepted, in bytes.
const MaxUser = userid.MaxLen

// checkUser applies the user id rule (userid.Check).
func checkUser(user string) error {
	if err := userid.Check(user); err != nil {
		return fmt.Errorf("%w: user %.40q %v", ErrBadInput, user, err)
	}
	return nil
}

func checkID(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("%w: article id must be 16 hex digits, got %q", ErrBadInput, id)
	}
	return nil
}

// Vote records user's vote d (Up, Down or None to cancel) on article id,
// atomically: each user has at most one vote per article, and a switch or
// a cancel moves the counts exactly once. Voting is open until the article
// is older than the window (news.window). Then it reports whether the
// voter likes the article (Activity.SetLike) with the vote's version, a
// repeat of the current vote included. Errors: ErrNotFound,
// ErrVotingClosed, ErrBadInput; ErrActivity (with the result) when the
// vote was recorded and its report failed: voting the same again
// completes it.
//
// With news.rank_by: story the vote goes to the article's story
// (storyVoteCmd): it is kept on the story's lead, so a user has one vote
// per story whichever of its articles they vote on, voting is open while
// the lead is within the window, and the result (Story: the lead) carries
// the story's counts, votes and score.
func (s *Store) Vote(ctx context.Context, user, id string, d Dir) (VoteResult, error) {
	if err := checkUser(user); err != nil {
		return VoteResult{}, err
	}
	if err := checkID(id); err != nil {
		return VoteResult{}, err
	}
	if d != Up && d != Down && d != None {
		return VoteResult{}, fmt.Errorf("%w: vote must be up, down or none, got %d", ErrBadInput, d)
	}
	if err := s.ensureUngrouped(ctx); err != nil {
		return VoteResult{}, fmt.Errorf("vote on %s: %w", id, err)
	}
	cmd := s.runVote(ctx, user, id, d)
	r, err := parseScriptReply(cmd)
	if err != nil {
		return VoteResult{}, fmt.Errorf("vote on %s: %w", id, err)
	}
	switch r[0] {
	case "notfound":
		return VoteResult{}, fmt.Errorf("vote on %s: %w", id, ErrNotFound)
	case "closed":
		why := "older than " + human.Duration(s.opts.Window)
		if s.opts.stories() {
			// a story's article votes for the story, open while its lead is
			why = "its story began more than " + human.Duration(s.opts.Window) + " ago"
		}
		return VoteResult{}, fmt.Errorf("vote on %s: %w (%s)", id, ErrVotingClosed, why)
	case "ok":
		story := s.opts.stories()
		if len(r) != 8 && !story || len(r) != 9 && story {
			break
		}
		res := VoteResult{ID: id}
		liked := id
		if story {
			res.Story, liked = r[8], r[8]
		}
		res.Up, _ = strconv.ParseInt(r[1], 10, 64)
		res.Down, _ = strconv.ParseInt(r[2], 10, 64)
		res.Votes, _ = strconv.ParseFloat(r[3], 64)
		res.Score, _ = strconv.ParseFloat(r[4], 64)
		p, _ := strconv.Atoi(r[5])
		res.Previous = Dir(p)
		res.Version, _ = strconv.ParseInt(r[6], 10, 64)
		metrics.Votes.WithLabelValues(d.String()).Inc()
		return res, s.reportVote(ctx, user, liked, r[7], d, res.Version)
	}
	return VoteResult{}, fmt.Errorf("vote on %s: unexpected reply %q", id, r)
}

// runVote runs the vote script: voteCmd, or storyVoteCmd with
// news.rank_by: story.
func (s *Store) runVote(ctx context.Context, user, id string, d Dir) *redis.Cmd {
	name, param := s.formula.scriptArgs()
	k := s.keys
	args := []any{id, user, int(d), s.clock.Now().Unix(), int64(s.opts.Window / time.Second), int64(Grace / time.Second),
		name, param, s.opts.CommentWeight}
	if s.opts.stories() {
		return storyVoteCmd.Run(ctx, s.c, []string{k.Article(id), k.Votes(), k.Score(), k.Touched(), k.VoteSeq()},
			append(args, k.base)...)
	}
	return voteCmd.Run(ctx, s.c, []string{k.Article(id), k.Voted(id), k.Votes(), k.Score(), k.Touched(), k.VoteSeq()}, args...)
}

// MaxVotesOf is the most ids VotesOf takes in one call.
const MaxVotesOf = 1000

// VotesOf returns user's current votes on the articles ids, in one round
// trip (a pipeline of HGET voted:<id> user), so that a page can show
// which articles the visitor already voted on. Ids voted on map to Up or
// Down; the others are absent, so a lookup gives None. A vote is visible
// as long as voted:<id> lives (Grace past the window); an unknown article
// simply has no vote. Errors: ErrBadInput for a bad user, a bad id or more
// than MaxVotesOf ids.
func (s *Store) VotesOf(ctx context.Context, user string, ids ...string) (map[string]Dir, error) {
	if err := checkUser(user); err != nil {
		return nil, err
	}
	if len(ids) > MaxVotesOf {
		return nil, fmt.Errorf("%w: at most %d ids per call, got %d", ErrBadInput, MaxVotesOf, len(ids))
	}
	for _, id := range ids {
		if err := checkID(id); err != nil {
			return nil, err
		}
	}
	out := make(map[string]Dir)
	if len(ids) == 0 {
		return out, nil
	}
	cmds := make([]*redis.StringCmd, len(ids))
	_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.HGet(ctx, s.keys.Voted(id), user)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("votes of %s: %w", user, err)
	}
	for i, c := range cmds {
		v, err := c.Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("votes of %s on %s: %w", user, ids[i], err)
		}
		switch v {
		case "1":
			out[ids[i]] = Up
		case "-1":
			out[ids[i]] = Down
		}
	}
	return out, nil
}
