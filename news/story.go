package news

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/metrics"
	"github.com/newsrank/newsrank/minhash"
)

// Stories.
//
// With news.rank_by: story, every article the store creates from a crawl
// gets a bottom-k MinHash sketch of its title + summary (minhash.Of) and
// is filed in a near-duplicate index, one HASH (shingles): each of the
// sketch's keys (minhash.Sketch.Keys: its names and figures first, then
// its least word pairs; 8 hex digits each) → the stories filed under it
// (their leads' ids, comma-separated), the latest first, StoriesPerKey
// at most. The article's candidates are the stories listed under at
// least minhash.MinSharedKeys of its own keys (two, or all of them when
// it has fewer; a story listed under one key shares a common word pair,
// not a copy, and comparing it would cost a read and a merge for
// nothing); the StoryMaxCandidates of them whose shared keys list the
// fewest other stories are compared, each through its lead
// (so a story does not drift by chaining copies of copies), and the
// most similar lead posted within the window whose overlap
// (minhash.Overlap: the share of the shorter text's shingles the other
// has) is at least news.story.min_similarity, and whose title overlaps
// the article's by at least StoryMinTitleOverlap, gives its story, or
// the article starts one.
// A story's id is its lead's id: the first article of it the store saw.
// The store decides this in Go against a version of the index, and the
// ingest script call checks the version before it writes (story_plan.go,
// ingestPlanCmd), or ingestStoryCmd decides it in the call itself, so
// two copies ingested at once cannot start two stories.
//
// An article of a story of two or more has the field story (the lead's
// id) in its hash, and story:<lead> lists the members with their source.

// Member is one article of a story, as listings show it ("also: ...").
type Member struct {
	ID string `json:"id"`
	// Source is the article's outlet (its source field; may be "").
	Source string `json:"source,omitempty"`
}

// sketchFields returns the hash fields of an article's sketch, as
// ingestStoryCmd takes them among its optional fields: mt (the sketch of
// its title), mh (the sketch of its title and summary, 4 bytes per hash,
// big-endian, increasing) and mhkeys (its index keys, minhash.Sketch.Keys,
// 8 hex digits each); none when the text has no shingle. The keys come ready to use as
// fields of the index, and the script unpacks a sketch only when it
// compares it. It returns them as the planner takes them too.
func sketchFields(title, summary string) (*storyArt, []any) {
	// the text fingerprinted is title + "\n" + summary; mt is the title's
	sk, head, ok := minhash.OfTitled(title, summary)
	if !ok {
		return nil, nil
	}
	st := &storyArt{mh: sk, mt: head}
	mt := head.Bytes() // "" when the title has no shingle: not checked
	keys := minhash.Sketch(sk.Keys()).Hex()
	for i := 0; i < len(keys); i += 8 {
		st.keys = append(st.keys, keys[i:i+8])
	}
	return st, []any{"mt", mt, "mh", sk.Bytes(), "mhkeys", keys}
}

// runStoryIngest runs parts through ingestPlanCmd with their stories
// planned in Go (planStories), planning again the chunks refused as
// stale, PlanAttempts times at most; what is still refused then runs
// through ingestStoryCmd, which decides in Lua.
func (s *Store) runStoryIngest(ctx context.Context, as []Article, calls []ingestCall, parts [][]int, res []IngestResult, head []any, now time.Time) error {
	cutoff := now.Add(-s.opts.Window).Unix()
	for range PlanAttempts {
		plans, err := s.planStories(ctx, calls, parts, cutoff)
		if err != nil {
			return err
		}
		if s.planned != nil {
			s.planned()
		}
		stale, err := s.runChunks(ctx, as, calls, parts, res, ingestPlanCmd, func(c int) []any {
			return append(append(slices.Clip(head), cutoff), plans[c].args()...)
		})
		if err != nil {
			return err
		}
		var left [][]int
		for c, part := range parts {
			if slices.Contains(stale, c) {
				left = append(left, part)
			} else {
				s.cacheLeads(calls, part, res)
			}
		}
		metrics.StoryChunks.WithLabelValues("planned").Add(float64(len(parts) - len(left)))
		metrics.StoryChunks.WithLabelValues("stale").Add(float64(len(left)))
		if parts = left; len(parts) == 0 {
			return nil
		}
	}
	s.log.Debug("story index busy: stories decided in the script", "chunks", len(parts))
	head = append(slices.Clip(head), s.opts.StoryMinSimilarity, cutoff, minhash.K, minhash.MinSharedKeys, StoryMinTitleOverlap, StoriesPerKey, StoryMaxCandidates)
	metrics.StoryChunks.WithLabelValues("script").Add(float64(len(parts)))
	_, err := s.runChunks(ctx, as, calls, parts, res, ingestStoryCmd, func(int) []any { return head })
	return err
}

// cacheLeads puts the articles of part that the ingest created and that
// lead their story (alone so far) in the store's leadCache: the next
// batches' copies of them are planned without reading them.
func (s *Store) cacheLeads(calls []ingestCall, part []int, res []IngestResult) {
	for _, i := range part {
		if c := calls[i]; c.story != nil && res[i].Status == Created && res[i].Err == nil && res[i].Story == "" {
			s.leads.put(c.id, storyLead{mh: c.story.mh, mt: c.story.mt, t: c.post})
		}
	}
}

// StoryMinTitleOverlap is the least overlap (minhash.Overlap) of the
// titles of an article and a story's lead for the article to join it,
// besides news.story.min_similarity on title + summary: articles that
// share a summary but not their titles (a site's boilerplate description
// in every page's meta description, or a demo site's stock sentence) are
// other stories. On the labelled set (TestStorySetQuality, seed 1) the
// copies' titles overlap 0.125 at least, 0.23 at the first percentile.
const StoryMinTitleOverlap = 0.2

// StoriesPerKey is how many stories one key of the near-duplicate index
// lists at most, the most recently filed first. With one, a key of a
// common word pair ("officials said") named only the last story that had
// it, and a story whose keys were all taken over that way could no
// longer be found: with copies arriving among other articles (as a crawl
// brings them, TestStorySetQuality's shuffled order) recall fell to 0.74.
const StoriesPerKey = 8

// StoryMaxCandidates is how many candidate stories an article is compared
// with at most: those of most weight (bestStory). With 4, the least
// shuffled recall over TestStorySetQuality's 30 seeds was 0.948 (with
// min_similarity 0.64); with 6 it is 0.958 (with 0.62).
const StoryMaxCandidates = 6

// fillAlso sets the Also of the items of p that belong to a story of two
// or more: the story's other members, in one round trip (nothing is read
// when no item has a story).
func (s *Store) fillAlso(ctx context.Context, p *Page) error {
	cmds := make(map[string]*redis.MapStringStringCmd)
	pipe := s.c.Pipeline()
	for _, it := range p.Items {
		if it.Story != "" && cmds[it.Story] == nil {
			cmds[it.Story] = pipe.HGetAll(ctx, s.keys.Story(it.Story))
		}
	}
	if len(cmds) == 0 {
		return nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("read %d stories: %w", len(cmds), err)
	}
	for i := range p.Items {
		it := &p.Items[i]
		if it.Story == "" {
			continue
		}
		it.Also = alsoOf(it.ID, it.Story, cmds[it.Story].Val())
	}
	return nil
}

// alsoOf lists the members of story sid other than id: the lead first,
// then by id.
func alsoOf(id, sid string, members map[string]string) []Member {
	out := make([]Member, 0, len(members))
	for m, src := range members {
		if m != id {
			out = append(out, Member{ID: m, Source: src})
		}
	}
	rank := func(m Member) string {
		if m.ID == sid {
			return ""
		}
		return m.ID
	}
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(rank(a), rank(b)) })
	return out
}

// StoryOf returns the members of article id's story (id itself included,
// the lead first), or just id when it is alone.
func (s *Store) StoryOf(ctx context.Context, id string) (lead string, members []Member, err error) {
	if err := checkID(id); err != nil {
		return "", nil, err
	}
	sid, err := s.c.HGet(ctx, s.keys.Article(id), "story").Result()
	if errors.Is(err, redis.Nil) || err == nil && sid == "" {
		return id, []Member{{ID: id}}, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("story of %s: %w", id, err)
	}
	m, err := s.c.HGetAll(ctx, s.keys.Story(sid)).Result()
	if err != nil {
		return "", nil, fmt.Errorf("story %s: %w", sid, err)
	}
	all := alsoOf("", sid, m)
	return sid, all, nil
}
