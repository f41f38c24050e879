package news

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/metrics"
)

// Stories.
//
// With news.rank_by: story, every article the store creates from a crawl
// is grouped with the other outlets' reports of its event (package
// grouping): its title, summary and lead (Article.Lead) make a TF-IDF
// term vector (package termvec) against the document frequencies of the
// window's articles (TermDF, a HASH per day, summed over the window's
// days: an article counts as long as its day is in the window, and the
// counts expire with it); its candidate stories are those filed in the
// inverted index (StoryIndex) under its terms of most weight; each is
// compared as a whole (its centroid: the sum of its members' vectors),
// and the most similar one whose lead was posted within the window and
// whose score reaches news.story.min_similarity gives its story, or the
// article starts one. A story's id is its lead's id: the first article
// of it the store saw. The article's hash keeps its vector (tv), its
// index terms (tk), its title's facts (tf) and names (tn) and its
// language (cjk), and one that starts a story the day it tells of (td);
// a lead's hash keeps its story's centroid (cv) and its
// latest member's post time (slast). The store plans this in Go against a version of the
// index, and the ingest script checks the version before it writes
// (story_plan.go, ingestPlanCmd), so two copies ingested at once cannot
// start two stories.
//
// An article of a story of two or more has the field story (the lead's
// id) in its hash, and story:<lead> lists the members with their source.

// Member is one article of a story, as listings show it ("also: ...").
type Member struct {
	ID string `json:"id"`
	// Source is the article's outlet (its source field; may be "").
	Source string `json:"source,omitempty"`
}

// storyChunks counts n chunks of story ingest that ended as result.
func storyChunks(result string, n int) {
	if n > 0 {
		metrics.StoryChunks.WithLabelValues(result).Add(float64(n))
	}
}

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
