package news

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// MaxPage is the highest page number accepted.
const MaxPage = 1_000_000_000

// itemFromHash builds an Item from an article hash's fields.
func itemFromHash(id string, h map[string]string) Item {
	it := Item{
		ID:      id,
		Title:   h["title"],
		URL:     h["url"],
		Source:  h["source"],
		Summary: h["summary"],
		Image:   h["image"],
		User:    h["user"],
	}
	if v, err := strconv.ParseInt(h["time"], 10, 64); err == nil {
		it.PostTime = time.Unix(v, 0)
	}
	if v, err := strconv.ParseInt(h["crawled"], 10, 64); err == nil {
		it.CrawlTime = time.Unix(v, 0)
	}
	it.Comments, _ = strconv.ParseInt(h["comments"], 10, 64)
	it.Up, _ = strconv.ParseInt(h["up"], 10, 64)
	it.Down, _ = strconv.ParseInt(h["down"], 10, 64)
	it.Votes, _ = strconv.ParseFloat(h["votes"], 64)
	it.Story = h["story"]
	it.StoryVotes, _ = strconv.ParseFloat(h["svotes"], 64)
	return it
}

// Get returns one article, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (Item, error) {
	if err := checkID(id); err != nil {
		return Item{}, err
	}
	var h *redis.MapStringStringCmd
	var sc *redis.FloatCmd
	_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		h = p.HGetAll(ctx, s.keys.Article(id))
		sc = p.ZScore(ctx, s.keys.Score(), id)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return Item{}, fmt.Errorf("get %s: %w", id, err)
	}
	if len(h.Val()) == 0 {
		return Item{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	it := itemFromHash(id, h.Val())
	it.Score = sc.Val()
	return it, nil
}

// pageBounds checks page and size and returns the ZREVRANGE bounds.
func (s *Store) pageBounds(page, size int) (int, int64, int64, error) {
	if size == 0 {
		size = s.opts.PageSize
	}
	if size < 1 || size > s.opts.MaxPageSize {
		return 0, 0, 0, fmt.Errorf("%w: page size must be 1 to %d, got %d", ErrBadInput, s.opts.MaxPageSize, size)
	}
	if page < 1 || page > MaxPage {
		return 0, 0, 0, fmt.Errorf("%w: page must be 1 to %d, got %d", ErrBadInput, MaxPage, page)
	}
	start := int64(page-1) * int64(size)
	return size, start, start + int64(size) - 1, nil
}

func (s *Store) ranking(o Order) (string, error) {
	switch o {
	case ByScore:
		return s.keys.Score(), nil
	case ByTime:
		return s.keys.Time(), nil
	}
	return "", fmt.Errorf("%w: unknown order %d", ErrBadInput, o)
}

// List returns page (1-based) of size articles in order o (highest first),
// fields included: in one round trip when the page holds the articles it
// held when this Store last read it, else two (page.go). size 0 means
// news.page_size; size above news.max_page_size is ErrBadInput. A page past the end is empty and
// reports Pages. An id on the page whose article hash is gone (it expired
// before the prune job removed it from the ranking, or was deleted) is
// dropped from the rankings (Repair) and the page read again, so a page
// is full while more articles exist.
func (s *Store) List(ctx context.Context, o Order, page, size int) (Page, error) {
	size, start, stop, err := s.pageBounds(page, size)
	if err != nil {
		return Page{}, err
	}
	rk, err := s.ranking(o)
	if err != nil {
		return Page{}, err
	}
	p, err := s.readFullPage(ctx, zsetPage(rk, start, stop, o == ByScore), page, size)
	if err != nil {
		return Page{}, fmt.Errorf("list by %s page %d: %w", o, page, err)
	}
	if err := s.fillAlso(ctx, &p); err != nil {
		return Page{}, fmt.Errorf("list by %s page %d: %w", o, page, err)
	}
	return p, nil
}

// Top returns the n best-scored articles (1 <= n <= news.max_page_size).
func (s *Store) Top(ctx context.Context, n int) ([]Item, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: top n must be 1 to %d, got %d", ErrBadInput, s.opts.MaxPageSize, n)
	}
	p, err := s.List(ctx, ByScore, 1, n)
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// groupCall checks names and builds the keys and args of groupsCmd.
func (s *Store) groupCall(id, op string, groups []string) ([]string, []any, error) {
	if err := checkID(id); err != nil {
		return nil, nil, err
	}
	if len(groups) == 0 {
		return nil, nil, fmt.Errorf("%w: no group named", ErrBadInput)
	}
	k := s.keys
	keys := []string{k.Article(id), k.Groups()}
	args := []any{id, op}
	var seen []string
	for _, g := range groups {
		if err := ValidGroupName(g); err != nil {
			return nil, nil, err
		}
		if slices.Contains(seen, g) {
			continue
		}
		seen = append(seen, g)
		keys = append(keys, k.Group(g))
		keys = append(keys, k.groupCaches(g)...)
		args = append(args, g)
	}
	return keys, args, nil
}

// AddToGroups adds article id to groups and drops their cached rankings.
// An unknown article is ErrNotFound.
func (s *Store) AddToGroups(ctx context.Context, id string, groups ...string) error {
	keys, args, err := s.groupCall(id, "add", groups)
	if err != nil {
		return err
	}
	n, err := groupsCmd.Run(ctx, s.c, keys, args...).Int()
	if err != nil {
		return fmt.Errorf("add %s to groups %v: %w", id, groups, err)
	}
	if n < 0 {
		return fmt.Errorf("add %s to groups %v: %w", id, groups, ErrNotFound)
	}
	return nil
}

// RemoveFromGroups removes article id from groups and drops their cached
// rankings. Removing an article that is not in a group does nothing.
func (s *Store) RemoveFromGroups(ctx context.Context, id string, groups ...string) error {
	keys, args, err := s.groupCall(id, "remove", groups)
	if err != nil {
		return err
	}
	if err := groupsCmd.Run(ctx, s.c, keys, args...).Err(); err != nil {
		return fmt.Errorf("remove %s from groups %v: %w", id, groups, err)
	}
	return nil
}

// Groups returns the groups that have members, sorted by name.
func (s *Store) Groups(ctx context.Context) ([]Group, error) {
	// groups: holds group names only (a few per configured source), so
	// reading it whole is bounded by the configuration.
	names, err := s.c.SMembers(ctx, s.keys.Groups()).Result()
	if err != nil {
		return nil, fmt.Errorf("groups: %w", err)
	}
	slices.Sort(names)
	cmds := make([]*redis.IntCmd, len(names))
	if _, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, n := range names {
			cmds[i] = p.SCard(ctx, s.keys.Group(n))
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("groups: %w", err)
	}
	out := make([]Group, 0, len(names))
	for i, n := range names {
		if c := cmds[i].Val(); c > 0 {
			out = append(out, Group{Name: n, Size: c})
		}
	}
	return out, nil
}

// GroupList is List restricted to one group: the group's ranking is built
// with ZINTERSTORE and cached for news.group_cache_ttl (a membership change
// drops the cache; votes show in it when it is next built). An unknown
// group is an empty listing.
func (s *Store) GroupList(ctx context.Context, group string, o Order, page, size int) (Page, error) {
	if err := ValidGroupName(group); err != nil {
		return Page{}, err
	}
	size, start, stop, err := s.pageBounds(page, size)
	if err != nil {
		return Page{}, err
	}
	rk, err := s.ranking(o)
	if err != nil {
		return Page{}, err
	}
	rr := s.groupPage(group, o, rk, start, stop)
	p, err := s.readFullPage(ctx, rr, page, size)
	if err != nil {
		return Page{}, fmt.Errorf("group %s by %s page %d: %w", group, o, page, err)
	}
	if err := s.fillAlso(ctx, &p); err != nil {
		return Page{}, fmt.Errorf("group %s by %s page %d: %w", group, o, page, err)
	}
	return p, nil
}
