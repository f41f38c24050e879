package news

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/simhash"
)

// Stories.
//
// With news.rank_by: story, every article the store creates from a crawl
// is fingerprinted (simhash.Of over title + summary) and filed in a
// locality-sensitive index: one ZSET per band value (band:<i>:<hex>, id →
// post time) for each of the fingerprint's four 16-bit bands. Its
// candidates are the members of its four buckets posted within the
// window, at most MaxBandCandidates newest per bucket; the nearest one at
// a Hamming distance of at most news.story.max_distance (<= 3, so a
// near-duplicate shares a band with it and is always a candidate) gives
// its story, or the article starts one. A story's id is its lead's id:
// the first article of it the store saw. storyCmd does this atomically
// per batch, so two copies ingested at once cannot start two stories.
//
// An article of a story of two or more has the field story (the lead's
// id) in its hash, and story:<lead> lists the members with their source.

// MaxBandCandidates bounds how many articles of one band bucket an
// ingested article is compared with (the newest ones): the work per
// article is at most 4 × MaxBandCandidates comparisons whatever the data.
const MaxBandCandidates = 32

// Member is one article of a story, as listings show it ("also: ...").
type Member struct {
	ID string `json:"id"`
	// Source is the article's outlet (its source field; may be "").
	Source string `json:"source,omitempty"`
}

// storyText is the text an article is fingerprinted on.
func storyText(title, summary string) string { return title + "\n" + summary }

// storyCmd files newly created articles in the band index and gives each
// a story. Keys built in the script (news:<c>, story:<lead>) are under the
// same {news} hash tag as the declared ones, so they are in the same
// cluster slot.
//
// KEYS[1] -> time: ZSET (routing only)
// then, per article: its news:<id> HASH and its four band:<i>:<hex> ZSETs
// ARGV[1] -> key base (prefix + "{news}:")
// ARGV[2] -> max distance
// ARGV[3] -> cutoff (Unix s): bucket entries posted before it are dropped
// ARGV[4] -> candidates per bucket (MaxBandCandidates)
// then, per article: id, fingerprint (16 hex digits), post time (Unix s),
// time to live (s: post time + window + grace − now), source
//
// Returns per article its story id ("" when it is alone so far).
var storyCmd = redis.NewScript(`
local base, maxd, cutoff, nc = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local function dist(a, b)
  local d = 0
  for i = 1, 16, 4 do
    local x = bit.bxor(tonumber(string.sub(a, i, i+3), 16), tonumber(string.sub(b, i, i+3), 16))
    while x ~= 0 do x = bit.band(x, x - 1); d = d + 1 end
  end
  return d
end
local function keepFor(key, ttl)
  if redis.call('EXPIRE', key, ttl, 'NX') == 0 then redis.call('EXPIRE', key, ttl, 'GT') end
end
local out = {}
local k, a = 2, 5
while ARGV[a] do
  local id, fp, t, exp, src = ARGV[a], ARGV[a+1], ARGV[a+2], ARGV[a+3], ARGV[a+4]
  local best, bestd, seen = nil, maxd + 1, {}
  for b = 1, 4 do
    local bk = KEYS[k+b]
    redis.call('ZREMRANGEBYSCORE', bk, '-inf', '(' .. cutoff)
    for _, c in ipairs(redis.call('ZREVRANGE', bk, 0, nc - 1)) do
      if c ~= id and not seen[c] then
        seen[c] = true
        local h = redis.call('HMGET', base .. 'news:' .. c, 'fp', 'story')
        if h[1] then
          local d = dist(fp, h[1])
          if d < bestd then best, bestd = h[2] or c, d end
        end
      end
    end
  end
  redis.call('HSET', KEYS[k], 'fp', fp)
  if best then
    local sk = base .. 'story:' .. best
    if redis.call('EXISTS', sk) == 0 then
      local lk = base .. 'news:' .. best
      redis.call('HSET', lk, 'story', best)
      redis.call('HSET', sk, best, redis.call('HGET', lk, 'source') or '')
      local ttl = redis.call('TTL', lk)
      if ttl < 0 then ttl = exp end
      keepFor(sk, ttl)
    end
    redis.call('HSET', KEYS[k], 'story', best)
    redis.call('HSET', sk, id, src)
    keepFor(sk, exp)
    out[#out+1] = best
  else
    out[#out+1] = ''
  end
  for b = 1, 4 do
    redis.call('ZADD', KEYS[k+b], t, id)
    keepFor(KEYS[k+b], exp)
  end
  k, a = k + 5, a + 5
end
return out
`)

// storyCall is one created article for storyCmd.
type storyCall struct {
	keys []string
	args []any
}

// storyCallFor builds the storyCmd part of a created article, or ok false
// when its text has no feature to fingerprint.
func (s *Store) storyCallFor(a Article, id string, post, now time.Time) (storyCall, bool) {
	fp, ok := simhash.Of(storyText(a.Title, a.Summary))
	if !ok {
		return storyCall{}, false
	}
	keys := make([]string, 0, 1+simhash.NumBands)
	keys = append(keys, s.keys.Article(id))
	for i, b := range fp.Bands() {
		keys = append(keys, s.keys.Band(i, b))
	}
	ttl := int64(post.Add(s.opts.Window+Grace).Sub(now) / time.Second)
	hex := fmt.Sprintf("%016x", uint64(fp))
	return storyCall{keys: keys, args: []any{id, hex, post.Unix(), ttl, strings.TrimSpace(a.Source)}}, true
}

// groupStories runs storyCmd on the articles of as that ingest created,
// IngestChunk per call, in one pipeline, and sets their results' Story.
func (s *Store) groupStories(ctx context.Context, as []Article, res []IngestResult, now time.Time) error {
	var calls []storyCall
	var at []int
	for i, a := range as {
		if res[i].Err != nil || res[i].Status != Created {
			continue
		}
		post := a.PostTime
		if post.IsZero() || post.After(now) {
			post = now
		}
		if c, ok := s.storyCallFor(a, res[i].ID, post, now); ok {
			calls = append(calls, c)
			at = append(at, i)
		}
	}
	if len(calls) == 0 {
		return nil
	}
	cutoff := now.Add(-s.opts.Window).Unix()
	chunks := (len(calls) + IngestChunk - 1) / IngestChunk
	cmds, err := rdb.EvalEach(ctx, s.c, storyCmd, chunks, func(c int) ([]string, []any) {
		part := calls[c*IngestChunk : min(len(calls), (c+1)*IngestChunk)]
		keys := []string{s.keys.Time()}
		args := []any{s.keys.base, s.opts.StoryDistance, cutoff, MaxBandCandidates}
		for _, sc := range part {
			keys = append(keys, sc.keys...)
			args = append(args, sc.args...)
		}
		return keys, args
	})
	if err != nil {
		return fmt.Errorf("group %d articles into stories: %w", len(calls), err)
	}
	n := 0
	for _, cmd := range cmds {
		vals, err := cmd.StringSlice()
		if err != nil {
			return fmt.Errorf("group %d articles into stories: %w", len(calls), err)
		}
		for _, v := range vals {
			if n < len(at) {
				res[at[n]].Story = v
			}
			n++
		}
	}
	if n != len(at) {
		return fmt.Errorf("group %d articles into stories: %d replies", len(at), n)
	}
	return nil
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
