package news

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Engagement is a crawled comment count for an article URL, as a list page
// (feed, list API) carries it, without the article page.
type Engagement struct {
	// URL is the canonical article URL (queue.Canonical), as ingested.
	URL string
	// Comments is the comment count. 0 means "not known" and changes
	// nothing, as in a re-crawl (Article.Comments).
	Comments int64
}

// RefreshChunk is how many articles one refresh script call takes.
const RefreshChunk = 100

// Refresh sets the comment counts of articles the store already has and
// rescores each article whose count changed, exactly as re-ingesting it
// with that count would (same script function, same formula), without its
// page: a producer that reads a list again passes the counts it carried.
//
// It never creates an article: a URL the store does not have, or whose
// post time is older than the window (voting closed; maybe pruned from the
// rankings already), is left alone, as is a count equal to the stored one
// or 0 ("not known"). A count lower than the stored one is applied, as a
// re-crawl applies it (comments get deleted); only 0 keeps the stored
// count. The crawl time is not changed: the page was not fetched.
//
// updated is the number of articles whose count changed. Entries are sent
// up to RefreshChunk per script call, all calls in one pipeline. An entry
// with a bad URL or a negative count is skipped and reported in an error
// wrapping ErrBadInput, after the valid entries were applied; other errors
// are Redis failures. For the same URL twice, its last count other than 0
// wins.
func (s *Store) Refresh(ctx context.Context, es []Engagement) (updated int, err error) {
	var bad []error
	counts := make(map[string]int64, len(es)) // URL → its last count
	var order []string                        // distinct URLs, first-seen order
	for _, e := range es {
		if err := checkURL(e.URL); err != nil {
			bad = append(bad, err)
			continue
		}
		if e.Comments < 0 {
			bad = append(bad, fmt.Errorf("%s: %w: comment count %d is negative", e.URL, ErrBadInput, e.Comments))
			continue
		}
		if e.Comments == 0 {
			continue
		}
		if _, ok := counts[e.URL]; !ok {
			order = append(order, e.URL)
		}
		counts[e.URL] = e.Comments
	}
	if len(order) > 0 {
		updated, err = s.runRefresh(ctx, order, counts)
		if err != nil {
			return 0, err
		}
	}
	if len(bad) > 0 {
		return updated, fmt.Errorf("refresh: %d of %d entries rejected: %w", len(bad), len(es), errors.Join(bad...))
	}
	return updated, nil
}

// runRefresh sends urls (distinct, valid) with their counts through
// refreshCmd, RefreshChunk per call, in one pipeline.
func (s *Store) runRefresh(ctx context.Context, urls []string, counts map[string]int64) (int, error) {
	now := s.clock.Now().Unix()
	name, param := s.formula.scriptArgs()
	window := int64(s.cfg.Window.D() / time.Second)
	chunks := (len(urls) + RefreshChunk - 1) / RefreshChunk
	cmds, err := s.runPipelined(ctx, refreshCmd, chunks, func(c int) ([]string, []any) {
		part := urls[c*RefreshChunk : min(len(urls), (c+1)*RefreshChunk)]
		keys := make([]string, 0, 2+len(part))
		keys = append(keys, s.keys.Votes(), s.keys.Score())
		args := make([]any, 0, 5+3*len(part))
		args = append(args, s.cfg.CommentWeight, name, param, now, window)
		for _, u := range part {
			id := ID(u)
			keys = append(keys, s.keys.Article(id))
			args = append(args, id, u, counts[u])
		}
		return keys, args
	})
	if err != nil {
		return 0, fmt.Errorf("refresh %d articles: %w", len(urls), err)
	}
	n := 0
	for _, cmd := range cmds {
		v, err := cmd.Int()
		if err != nil {
			return 0, fmt.Errorf("refresh %d articles: %w", len(urls), err)
		}
		n += v
	}
	return n, nil
}
