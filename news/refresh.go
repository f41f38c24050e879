package news

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/newsrank/newsrank/internal/rdb"
)

// Engagement is a crawled comment count for an article URL, as a list page
// (feed, list API) carries it, without the article page.
type Engagement struct {
	// URL is the canonical article URL (canonurl.Canonical), as ingested.
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
// count. The crawl time is not changed: the page was not fetched. A URL
// the store has no article under leads to the article one of its aliases
// names (Article.Aliases: the page declared another canonical URL or
// redirected), read with one MGET for all of them.
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
		if err := s.ensureUngrouped(ctx); err != nil {
			return 0, err
		}
		updated, err = s.refreshWithAliases(ctx, order, counts)
		if err != nil {
			return updated, err
		}
	}
	if len(bad) > 0 {
		return updated, fmt.Errorf("refresh: %d of %d entries rejected: %w", len(bad), len(es), errors.Join(bad...))
	}
	return updated, nil
}

// refreshWithAliases refreshes urls, then, for those the store has no
// article under, the URLs their alias keys lead to (one MGET).
func (s *Store) refreshWithAliases(ctx context.Context, urls []string, counts map[string]int64) (int, error) {
	updated, missing, err := s.runRefresh(ctx, urls, counts)
	if err != nil || len(missing) == 0 {
		return updated, err
	}
	keys := make([]string, len(missing))
	for i, u := range missing {
		keys[i] = s.keys.Alias(ID(u))
	}
	vals, err := s.c.MGet(ctx, keys...).Result()
	if err != nil {
		return updated, fmt.Errorf("refresh: read %d aliases: %w", len(keys), err)
	}
	targets := map[string]int64{}
	var order []string
	for i, v := range vals {
		t, ok := v.(string)
		if !ok || t == missing[i] || checkURL(t) != nil {
			continue
		}
		if _, seen := targets[t]; !seen {
			order = append(order, t)
		}
		targets[t] = counts[missing[i]]
	}
	if len(order) == 0 {
		return updated, nil
	}
	n, _, err := s.runRefresh(ctx, order, targets)
	return updated + n, err
}

// runRefresh sends urls (distinct, valid) with their counts through
// refreshCmd, RefreshChunk per call, in one pipeline. missing are the URLs
// the store has no article under.
func (s *Store) runRefresh(ctx context.Context, urls []string, counts map[string]int64) (updated int, missing []string, err error) {
	now := s.clock.Now().Unix()
	name, param := s.formula.scriptArgs()
	window := int64(s.opts.Window / time.Second)
	chunks := (len(urls) + RefreshChunk - 1) / RefreshChunk
	cmds, err := rdb.EvalEach(ctx, s.c, refreshCmd, chunks, func(c int) ([]string, []any) {
		part := urls[c*RefreshChunk : min(len(urls), (c+1)*RefreshChunk)]
		keys := make([]string, 0, 3+len(part))
		keys = append(keys, s.keys.Votes(), s.keys.Score(), s.keys.Touched())
		args := make([]any, 0, 6+3*len(part))
		args = append(args, s.opts.CommentWeight, name, param, now, window, s.opts.storyFlag())
		for _, u := range part {
			id := ID(u)
			keys = append(keys, s.keys.Article(id))
			args = append(args, id, u, counts[u])
		}
		return keys, args
	})
	if err != nil {
		return 0, nil, fmt.Errorf("refresh %d articles: %w", len(urls), err)
	}
	for c, cmd := range cmds {
		part := urls[c*RefreshChunk : min(len(urls), (c+1)*RefreshChunk)]
		r, err := cmd.Int64Slice()
		if err != nil || len(r) == 0 {
			return 0, nil, fmt.Errorf("refresh %d articles: reply %v: %w", len(part), r, err)
		}
		updated += int(r[0])
		for _, i := range r[1:] {
			if i < 1 || int(i) > len(part) {
				return 0, nil, fmt.Errorf("refresh %d articles: bad position %d in reply", len(part), i)
			}
			missing = append(missing, part[i-1])
		}
	}
	return updated, missing, nil
}
