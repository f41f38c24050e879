package news

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/termvec"
)

// Regrouping (the "regroup" job).
//
// An ingest decides an article's story once, as it arrives (story.go),
// so the stories depend on the order a crawl brings the articles in: a
// copy that comes before the terms that link it to its story are filed
// starts a story of its own, and an article may fit a story that formed
// after it better than the one it joined. [Store.Regroup] looks at the
// stories whose lead was posted in the last span (48 hours by default)
// again: it reads them (their leads from time:, their members from
// story:<lead>, every article's vector, term counts, title facts, names
// and language from its hash), and the frequencies of the days before
// the span (replayDF), plans with grouping's Regroup in its Replay mode
// (the span's articles grouped again in publication order as the ingest
// groups them, then merged and moved by centroid; the steps that turn
// the stories into that partition: merge, join, move, split) and applies
// each step with one script call (regroupMergeCmd, regroupMoveCmd,
// regroupSplitCmd), which keeps the votes, the rankings, the groups, the
// index and the expiries as the ingest and the vote script keep them.
//
// A step is planned on a read, and stories change while the job runs:
// users vote, ingests add members, the prune removes stories. So before
// each step the job reads the fingerprints of its two stories
// (regroupStateCmd: their members, votes, comment counts and every user's
// vote, hashed) and checks that their members are the ones the plan was
// made on; the script compares the fingerprints again before it writes
// and refuses when either changed. A refused step is read and tried
// again (a vote in between changes nothing of the plan); a step whose
// stories' members changed is passed over, with the steps that depend on
// it (their stories are not the plan's either), the others are done, and
// then the job reads and plans the span again.
// Nothing is lost: what the script writes is computed from what it reads
// in the same atomic step.

// DefaultRegroupSpan is how far back the regroup job looks by default:
// the stories whose lead was posted in the last two days.
const DefaultRegroupSpan = 48 * time.Hour

// regroupBatch is how many ranked ids one read of time: takes, and how
// many stories one pipeline reads.
const regroupBatch = 500

// regroupStepAttempts is how many times a step is read and tried when its
// stories keep changing between the read and the script; regroupPlans how
// many times a run reads and plans the span.
const (
	regroupStepAttempts = 5
	regroupPlans        = 3
)

// errRegroupStale: a step's stories no longer have the members it was
// planned on (the span is read and planned again); errRegroupClosed: the
// story that would take the articles has left the window.
var (
	errRegroupStale  = errors.New("the stories changed since they were read")
	errRegroupClosed = errors.New("the story has left the window")
)

// RegroupOptions configure [Store.Regroup].
type RegroupOptions struct {
	// Span: the stories whose lead was posted within Span before now are
	// examined (at most the window: an older story is closed).
	Span time.Duration
	// Margin and MergeMargin are grouping.RegroupOptions's: how much
	// better an article must fit another story to move there, and how far
	// above news.story.min_similarity two stories' leads must each score
	// against the other story to merge.
	Margin, MergeMargin float64
	// DryRun plans and reports, and writes nothing.
	DryRun bool

	// beforeWrite, when set (tests), runs after a step's stories are read
	// and before its script.
	beforeWrite func(grouping.Step)
}

// DefaultRegroupOptions are DefaultRegroupSpan and grouping's default
// margins.
func DefaultRegroupOptions() RegroupOptions {
	return RegroupOptions{Span: DefaultRegroupSpan, Margin: grouping.DefaultMargin, MergeMargin: grouping.DefaultMergeMargin}
}

func (o RegroupOptions) validate() error {
	switch {
	case o.Span <= 0:
		return fmt.Errorf("%w: regroup span must be positive, got %s", ErrBadInput, o.Span)
	case o.Margin <= 0:
		return fmt.Errorf("%w: regroup margin must be positive (an article could move back and forth), got %g", ErrBadInput, o.Margin)
	case o.MergeMargin < 0:
		return fmt.Errorf("%w: regroup merge margin must be 0 or more, got %g", ErrBadInput, o.MergeMargin)
	}
	return nil
}

// StoryRef names a story (or, for a move, the article moved) in a
// regroup report, as it was read before the step.
type StoryRef struct {
	// ID is the story's lead (the article's own id for an article).
	ID    string `json:"id"`
	Title string `json:"title"`
	// Sources are the outlets of its articles, its lead's first, each
	// once.
	Sources []string `json:"sources,omitempty"`
	// Size is how many articles it has; Votes its votes (svotes, or the
	// lead's own votes when it is alone).
	Size  int     `json:"size"`
	Votes float64 `json:"votes"`
}

// RegroupStep is one step of a regroup run, done or (a dry run) planned.
type RegroupStep struct {
	// Kind is "merge" (two stories of two or more), "join" (an article
	// alone and a story), "move" (an article leaves its story for
	// another) or "split" (an article leaves its story to lead one of its
	// own).
	Kind string `json:"kind"`
	// Into is the story that takes the articles, From the one they leave
	// (merge, join: From's lead leads no more); Article the article moved.
	Into    StoryRef  `json:"into"`
	From    StoryRef  `json:"from"`
	Article *StoryRef `json:"article,omitempty"`
	// Score is the similarity that decided it (grouping.Step.Score); Own,
	// for a move, the article's similarity with the rest of its story.
	Score float64 `json:"score"`
	Own   float64 `json:"own,omitempty"`
	// Doubles: the users who had voted on both stories (merge, join);
	// each keeps their vote on Into and loses the one on From.
	Doubles int `json:"doubles,omitempty"`
	// Votes and RankScore are Into's votes and score after the step (a
	// real run).
	Votes     float64 `json:"votes"`
	RankScore float64 `json:"rank_score,omitempty"`
}

// RegroupResult reports a regroup run.
type RegroupResult struct {
	// From is the start of the span examined.
	From time.Time
	// Stories and Articles are how many stories (an article alone
	// included) and articles the first read found in the span.
	Stories, Articles int
	// Merged, Joined and Moved count the steps done (planned, for a dry
	// run) by kind.
	Merged, Joined, Moved int
	// Split counts the articles that left their story to lead one of
	// their own (the first of a story the replay found among others').
	Split int
	// Retried counts the scripts that refused a step because its stories
	// changed since they were read (the step was read and tried again);
	// Plans how many times the span was read and planned; Skipped the
	// steps given up (the story that would take the articles left the
	// window, or the stories kept changing).
	Retried, Plans, Skipped int
	// Unreported counts the like reports (Activity) that failed after a
	// merge moved votes: the votes stand, the points lag.
	Unreported int
	DryRun     bool
	Steps      []RegroupStep
}

// regroupRead is what a read of the span found.
type regroupRead struct {
	clusters []grouping.Cluster
	arts     map[string]regroupArt
}

// regroupArt is what a regroup report shows of an article.
type regroupArt struct {
	title, source string
	votes         float64 // a lead's: its story's votes (svotes, or its own)
}

// regroupFields are the hash fields Regroup reads of an article.
var regroupFields = []string{"time", "tv", "tf", "cjk", "story", "title", "source", "votes", "svotes", "ta", "to", "td", "tn", "tc"}

// Regroup revisits the stories whose lead was posted within o.Span
// (Regrouping above): it turns them into the stories the ingest gives
// their articles in publication order, merged and moved by centroid
// (merging the stories the ingest split, moving or splitting out the
// articles it filed in the wrong story), and reports what it did (with
// o.DryRun, what it would do, writing nothing). Errors: ErrBadInput for
// bad options or a store that does not rank by story.
func (s *Store) Regroup(ctx context.Context, o RegroupOptions) (RegroupResult, error) {
	res := RegroupResult{DryRun: o.DryRun}
	if err := o.validate(); err != nil {
		return res, err
	}
	if !s.opts.stories() {
		return res, fmt.Errorf("%w: news.rank_by is %q: there are no stories to regroup", ErrBadInput, s.opts.RankBy)
	}
	span := min(o.Span, s.opts.Window)
	p := s.opts.grouping()
	ro := grouping.RegroupOptions{Margin: o.Margin, MergeMargin: o.MergeMargin, Window: s.opts.Window, Replay: true}
	for res.Plans < regroupPlans {
		res.Plans++
		from, err := s.regroupFrom(ctx, s.clock.Now().Add(-span).Unix())
		if err != nil {
			return res, err
		}
		res.From = time.Unix(from, 0)
		rd, err := s.readRegroup(ctx, from)
		if err != nil {
			return res, err
		}
		if ro.DF, err = s.replayDF(ctx, res.From.Unix(), rd.clusters); err != nil {
			return res, err
		}
		plan := p.Regroup(rd.clusters, ro)
		if res.Plans == 1 {
			res.Stories, res.Articles = plan.Stories, plan.Articles
		}
		if o.DryRun {
			return res, s.dryRegroup(ctx, plan, rd, &res)
		}
		stale, err := s.applyRegroup(ctx, plan, rd, o, &res)
		if err != nil {
			return res, err
		}
		if stale == 0 {
			return res, nil
		}
		if res.Plans == regroupPlans {
			res.Skipped += stale
			s.log.Warn("regroup: the stories kept changing; steps left for the next run", "steps", stale)
			return res, nil
		}
		s.log.Debug("regroup: stories changed since the read; reading the span again")
	}
	return res, nil
}

// applyRegroup applies plan's steps in order and returns how many it
// passed over because their stories changed since the read (stale). Each
// step checks its own stories against the plan's, so a step that
// depends on one passed over (a move to an article whose split was not
// done, from a story whose members the plan had changed) is passed over
// too, and the others are done: a copy that joins one story does not
// hold back the steps of the rest of the span.
func (s *Store) applyRegroup(ctx context.Context, plan grouping.Plan, rd *regroupRead, o RegroupOptions, res *RegroupResult) (int, error) {
	stale := 0
	for _, st := range plan.Steps {
		step, err := s.regroupStep(ctx, st, rd, o, res)
		switch {
		case errors.Is(err, errRegroupClosed):
			res.Skipped++
		case errors.Is(err, errRegroupStale):
			stale++
		case err != nil:
			return stale, err
		default:
			res.add(step)
		}
	}
	return stale, nil
}

// RegroupMaxStories is how many stories (an article alone included) one
// regroup run examines at most: a span that holds more is shortened to
// its newest RegroupMaxStories, so that a run's reads, its memory and the
// replay stay bounded (about 20 s of CPU at most; see Replay).
const RegroupMaxStories = 20000

// regroupFrom returns the start of the span that begins at from,
// shortened when it holds more than RegroupMaxStories ranked ids.
func (s *Store) regroupFrom(ctx context.Context, from int64) (int64, error) {
	min := strconv.FormatInt(from, 10)
	n, err := s.c.ZCount(ctx, s.keys.Time(), min, "+inf").Result()
	if err != nil {
		return 0, fmt.Errorf("regroup: count the span: %w", err)
	}
	if n <= RegroupMaxStories {
		return from, nil
	}
	z, err := s.c.ZRevRangeByScoreWithScores(ctx, s.keys.Time(), &redis.ZRangeBy{Min: min, Max: "+inf", Offset: RegroupMaxStories - 1, Count: 1}).Result()
	if err != nil {
		return 0, fmt.Errorf("regroup: shorten the span: %w", err)
	}
	if len(z) == 0 {
		return from, nil // removed since the count
	}
	s.log.Warn("regroup: the span holds too many stories: its newest examined", "stories", n, "examined", RegroupMaxStories)
	return int64(z[0].Score), nil
}

// add records a step done.
func (r *RegroupResult) add(st RegroupStep) {
	switch st.Kind {
	case grouping.Merge.String():
		r.Merged++
	case grouping.Join.String():
		r.Joined++
	case grouping.Move.String():
		r.Moved++
	case grouping.Split.String():
		r.Split++
	}
	r.Steps = append(r.Steps, st)
}

// readRegroup reads the stories whose lead was posted at from or later:
// the ranked ids of time: in bounded batches, each one's hash and story
// members, then the members' hashes. An article alone without a vector
// (posted by a user) cannot be compared and is left out. Reads that
// interleave with writes may see a story half changed: the plan's steps
// are checked against their stories again before they are written.
func (s *Store) readRegroup(ctx context.Context, from int64) (*regroupRead, error) {
	rd := &regroupRead{arts: make(map[string]regroupArt)}
	min := strconv.FormatInt(from, 10)
	for off := int64(0); ; off += regroupBatch {
		ids, err := s.c.ZRangeByScore(ctx, s.keys.Time(), &redis.ZRangeBy{Min: min, Max: "+inf", Offset: off, Count: regroupBatch}).Result()
		if err != nil {
			return nil, fmt.Errorf("regroup: read time: %w", err)
		}
		if err := s.readRegroupBatch(ctx, ids, rd); err != nil {
			return nil, err
		}
		if len(ids) < regroupBatch {
			return rd, nil
		}
	}
}

// readRegroupBatch reads the stories of ranked ids into rd.
func (s *Store) readRegroupBatch(ctx context.Context, ids []string, rd *regroupRead) error {
	if len(ids) == 0 {
		return nil
	}
	pipe := s.c.Pipeline()
	heads := make([]*redis.SliceCmd, len(ids))
	stories := make([]*redis.MapStringStringCmd, len(ids))
	for i, id := range ids {
		heads[i] = pipe.HMGet(ctx, s.keys.Article(id), regroupFields...)
		stories[i] = pipe.HGetAll(ctx, s.keys.Story(id))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("regroup: read %d stories: %w", len(ids), err)
	}
	type lead struct {
		m       grouping.Member
		members []string
	}
	var leads []lead
	var others []string
	for i, id := range ids {
		v := heads[i].Val()
		m, ok := s.regroupArt(id, v, rd)
		story := str(v[4])
		if !ok || story != "" && story != id {
			continue // gone, or not a lead (a member is not ranked)
		}
		var ms []string
		for mid := range stories[i].Val() {
			if mid != id {
				ms = append(ms, mid)
			}
		}
		slices.Sort(ms)
		if len(ms) == 0 && len(m.Vector) == 0 {
			continue // alone and not comparable
		}
		leads = append(leads, lead{m, ms})
		others = append(others, ms...)
	}
	members := make(map[string]grouping.Member, len(others))
	if len(others) > 0 {
		pipe := s.c.Pipeline()
		cmds := make([]*redis.SliceCmd, len(others))
		for i, id := range others {
			cmds[i] = pipe.HMGet(ctx, s.keys.Article(id), regroupFields...)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("regroup: read %d story members: %w", len(others), err)
		}
		// a member posted before the window stays in its story (Closed):
		// a story it started would be closed to votes and articles
		closed := s.clock.Now().Add(-s.opts.Window).Unix()
		for i, id := range others {
			if m, ok := s.regroupArt(id, cmds[i].Val(), rd); ok {
				m.Closed = m.Time < closed
				members[id] = m
			}
		}
	}
	for _, l := range leads {
		c := grouping.Cluster{Members: []grouping.Member{l.m}}
		for _, id := range l.members {
			m, ok := members[id]
			if !ok {
				// listed but gone: kept, so that the plan sees the members
				// the story's key lists, with nothing to compare
				m = grouping.Member{ID: id, Time: l.m.Time}
			}
			c.Members = append(c.Members, m)
		}
		rd.clusters = append(rd.clusters, c)
	}
	return nil
}

// regroupArt parses an article's regroupFields into a Member and records
// what reports show of it in rd; false when its hash is gone.
func (s *Store) regroupArt(id string, v []any, rd *regroupRead) (grouping.Member, bool) {
	t, err := strconv.ParseInt(str(v[0]), 10, 64)
	if err != nil {
		return grouping.Member{}, false
	}
	m := grouping.Member{ID: id, Time: t, Facts: strings.Fields(str(v[2])), CJK: str(v[3]) == "1", Actor: str(v[9]), Object: str(v[10])}
	m.Day, _ = strconv.ParseInt(str(v[11]), 10, 64) // none: 0
	m.TitleNames = strings.Fields(str(v[12]))
	m.Counts = parseCounts(str(v[13]))
	if m.Vector, err = termvec.Parse(str(v[1])); err != nil {
		s.log.Warn("regroup: unreadable term vector: the article is compared with nothing", "id", id, "err", err)
		m.Vector = nil
	}
	a := regroupArt{title: str(v[5]), source: str(v[6])}
	votes := str(v[8])
	if votes == "" {
		votes = str(v[7])
	}
	a.votes, _ = strconv.ParseFloat(votes, 64)
	rd.arts[id] = a
	return m, true
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// ref describes story lead of members ids (as the plan saw them).
func (rd *regroupRead) ref(lead string, ids []string) StoryRef {
	a := rd.arts[lead]
	r := StoryRef{ID: lead, Title: a.title, Size: len(ids), Votes: a.votes}
	if a.source != "" {
		r.Sources = append(r.Sources, a.source)
	}
	var more []string
	for _, id := range ids {
		if src := rd.arts[id].source; id != lead && src != "" && !slices.Contains(r.Sources, src) {
			more = append(more, src)
		}
	}
	slices.Sort(more)
	r.Sources = append(r.Sources, slices.Compact(more)...)
	return r
}

// describe returns the report of step st.
func (rd *regroupRead) describe(st grouping.Step) RegroupStep {
	out := RegroupStep{Kind: st.Kind.String(), Into: rd.ref(st.Into, st.IntoMembers), From: rd.ref(st.From, st.FromMembers), Score: st.Score}
	if st.Kind == grouping.Move || st.Kind == grouping.Split {
		a := rd.ref(st.Article, []string{st.Article})
		a.Votes = 0
		out.Article, out.Own = &a, st.Own
	}
	return out
}

// dryRegroup reports plan's steps as a dry run: what each would do, and
// for a merge how many users voted on both stories (read now).
func (s *Store) dryRegroup(ctx context.Context, plan grouping.Plan, rd *regroupRead, res *RegroupResult) error {
	pipe := s.c.Pipeline()
	voters := make([][2]*redis.StringSliceCmd, len(plan.Steps))
	for i, st := range plan.Steps {
		if st.Kind == grouping.Merge || st.Kind == grouping.Join {
			voters[i] = [2]*redis.StringSliceCmd{pipe.HKeys(ctx, s.keys.Voted(st.Into)), pipe.HKeys(ctx, s.keys.Voted(st.From))}
		}
	}
	if len(plan.Steps) > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("regroup: read the voters: %w", err)
		}
	}
	for i, st := range plan.Steps {
		step := rd.describe(st)
		if v := voters[i]; v[0] != nil {
			into := v[0].Val()
			for _, u := range v[1].Val() {
				if slices.Contains(into, u) {
					step.Doubles++
				}
			}
		}
		res.add(step)
	}
	return nil
}

// regroupStates reads the fingerprints and members of stories leads
// (regroupStateCmd) and the groups that have members.
func (s *Store) regroupStates(ctx context.Context, leads ...string) ([]string, [][]string, []string, error) {
	keys := []string{s.keys.Time()}
	for _, l := range leads {
		keys = append(keys, s.keys.Article(l))
	}
	r, err := parseScriptReply(regroupStateCmd.Run(ctx, s.c, keys, toAny(leads)...))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("regroup: read stories %v: %w", leads, err)
	}
	fps := make([]string, len(leads))
	members := make([][]string, len(leads))
	for i := range leads {
		if len(r) < 2 {
			return nil, nil, nil, fmt.Errorf("regroup: read stories %v: reply too short", leads)
		}
		n, _ := strconv.Atoi(r[1])
		if len(r) < 2+n {
			return nil, nil, nil, fmt.Errorf("regroup: read stories %v: reply too short", leads)
		}
		fps[i], members[i], r = r[0], r[2:2+n], r[2+n:]
	}
	groups, err := s.c.SMembers(ctx, s.keys.Groups()).Result()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("regroup: read the groups: %w", err)
	}
	slices.Sort(groups)
	return fps, members, groups, nil
}

// regroupStep applies step st: it reads its stories' fingerprints, checks
// their members against the plan's, and runs the step's script, reading
// and trying again while the script finds the stories changed.
func (s *Store) regroupStep(ctx context.Context, st grouping.Step, rd *regroupRead, o RegroupOptions, res *RegroupResult) (RegroupStep, error) {
	if st.Kind == grouping.Split {
		return s.regroupSplit(ctx, st, rd, o, res)
	}
	out := rd.describe(st)
	name, param := s.formula.scriptArgs()
	for range regroupStepAttempts {
		fps, members, groups, err := s.regroupStates(ctx, st.Into, st.From)
		if err != nil {
			return out, err
		}
		if fps[0] == "" || fps[1] == "" || !slices.Equal(members[0], st.IntoMembers) || !slices.Equal(members[1], st.FromMembers) {
			return out, errRegroupStale
		}
		if o.beforeWrite != nil {
			o.beforeWrite(st)
		}
		k := s.keys
		keys := []string{k.Time(), k.Votes(), k.Score(), k.Touched(), k.StoryIndex(), k.StoryIndexVersion(), k.VoteSeq(),
			k.Article(st.Into), k.Article(st.From)}
		args := []any{s.clock.Now().Unix(), int64(s.opts.Window / time.Second), int64((s.opts.Window + Grace) / time.Second),
			name, param, s.opts.CommentWeight, st.Into, st.From}
		var cmd *redis.Cmd
		if st.Kind == grouping.Move {
			keys = append(keys, k.Article(st.Article))
			keys = appendGroups(keys, k, groups)
			args = append(args, st.Article, fps[0], fps[1], st.IntoCentroid.String(), st.IntoLast,
				st.FromCentroid.String(), st.FromLast, s.opts.grouping().PerKey)
			cmd = regroupMoveCmd.Run(ctx, s.c, keys, args...)
		} else {
			keys = appendGroups(keys, k, groups)
			args = append(args, fps[0], fps[1], st.IntoCentroid.String(), st.IntoLast)
			cmd = regroupMergeCmd.Run(ctx, s.c, keys, args...)
		}
		r, err := parseScriptReply(cmd)
		if err != nil {
			return out, fmt.Errorf("regroup: %s %s into %s: %w", st.Kind, st.From, st.Into, err)
		}
		switch {
		case r[0] == "changed":
			res.Retried++
			continue
		case r[0] == "closed":
			return out, errRegroupClosed
		case r[0] == "ok" && st.Kind == grouping.Move && len(r) == 5:
			out.Votes, _ = strconv.ParseFloat(r[1], 64)
			out.RankScore, _ = strconv.ParseFloat(r[2], 64)
			s.log.Info("regroup: moved an article", "article", st.Article, "from", st.From, "into", st.Into, "score", st.Score, "own", st.Own)
			return out, nil
		case r[0] == "ok" && st.Kind != grouping.Move && len(r) >= 8 && (len(r)-8)%4 == 0:
			out.Votes, _ = strconv.ParseFloat(r[1], 64)
			out.RankScore, _ = strconv.ParseFloat(r[2], 64)
			out.Doubles, _ = strconv.Atoi(r[6])
			s.reportMerge(ctx, st, r[7], r[8:], res)
			s.log.Info("regroup: merged stories", "into", st.Into, "from", st.From, "kind", st.Kind, "score", st.Score,
				"votes", out.Votes, "doubles", out.Doubles)
			return out, nil
		}
		return out, fmt.Errorf("regroup: %s %s into %s: unexpected reply %q", st.Kind, st.From, st.Into, r)
	}
	return out, errRegroupStale
}

// regroupSplit applies split step st (regroupSplitCmd), as regroupStep
// applies the others.
func (s *Store) regroupSplit(ctx context.Context, st grouping.Step, rd *regroupRead, o RegroupOptions, res *RegroupResult) (RegroupStep, error) {
	out := rd.describe(st)
	name, param := s.formula.scriptArgs()
	for range regroupStepAttempts {
		fps, members, groups, err := s.regroupStates(ctx, st.From)
		if err != nil {
			return out, err
		}
		if fps[0] == "" || !slices.Equal(members[0], st.FromMembers) {
			return out, errRegroupStale
		}
		if o.beforeWrite != nil {
			o.beforeWrite(st)
		}
		k := s.keys
		keys := appendGroups([]string{k.Time(), k.Votes(), k.Score(), k.Touched(), k.StoryIndex(), k.StoryIndexVersion(), k.VoteSeq(),
			k.Article(st.From), k.Article(st.Article)}, k, groups)
		args := []any{s.clock.Now().Unix(), int64(s.opts.Window / time.Second), int64((s.opts.Window + Grace) / time.Second),
			name, param, s.opts.CommentWeight, st.From, st.Article, fps[0], st.FromCentroid.String(), st.FromLast, s.opts.grouping().PerKey}
		r, err := parseScriptReply(regroupSplitCmd.Run(ctx, s.c, keys, args...))
		if err != nil {
			return out, fmt.Errorf("regroup: split %s from %s: %w", st.Article, st.From, err)
		}
		switch {
		case r[0] == "changed":
			res.Retried++
			continue
		case r[0] == "closed":
			return out, errRegroupClosed
		case r[0] == "ok" && len(r) == 5:
			out.Votes, _ = strconv.ParseFloat(r[1], 64)
			out.RankScore, _ = strconv.ParseFloat(r[2], 64)
			s.log.Info("regroup: an article leads a story of its own", "article", st.Article, "from", st.From, "own", st.Own)
			return out, nil
		}
		return out, fmt.Errorf("regroup: split %s from %s: unexpected reply %q", st.Article, st.From, r)
	}
	return out, errRegroupStale
}

// appendGroups appends each group's SET and cached rankings to keys.
func appendGroups(keys []string, k keyspace, groups []string) []string {
	for _, g := range groups {
		keys = append(keys, k.GroupWithCaches(g)...)
	}
	return keys
}

// reportMerge tells the activity boards what a merge did to likes: each
// voter of the absorbed story likes it no more, and one whose up-vote
// moved to the story that took it likes that one (unless they posted
// its lead), with the version the script gave their vote. voters are the
// merge script's (user, vote, moved, version) quadruples; poster is who
// posted into's lead. A failed report is logged and counted: the votes
// stand, the points lag until the user votes again.
func (s *Store) reportMerge(ctx context.Context, st grouping.Step, poster string, voters []string, res *RegroupResult) {
	if s.activity == nil {
		return
	}
	for i := 0; i+3 < len(voters); i += 4 {
		user, vote, moved := voters[i], voters[i+1], voters[i+2] == "1"
		version, _ := strconv.ParseInt(voters[i+3], 10, 64)
		err := s.activity.SetLike(ctx, user, st.From, false, version)
		if err == nil && moved && vote == "1" && user != poster {
			err = s.activity.SetLike(ctx, user, st.Into, true, version)
		}
		if err != nil {
			res.Unreported++
			s.log.Warn("regroup: report a moved vote", "user", user, "from", st.From, "into", st.Into, "err", err)
		}
	}
}
