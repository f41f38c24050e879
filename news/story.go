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
	"github.com/newsrank/newsrank/minhash"
)

// Stories.
//
// With news.rank_by: story, every article the store creates from a crawl
// gets a bottom-k MinHash sketch of its title + summary (minhash.Of) and
// is filed in a near-duplicate index, one HASH (shingles): each of the
// sketch's minhash.IndexKeys least hashes (8 hex digits) → the story
// filed under it most recently (its lead's id). The article's candidates
// are the stories filed under its own keys; each is compared through its
// lead (so a story does not drift by chaining copies of copies), and the
// most similar lead posted within the window whose overlap (minhash.Overlap:
// the share of the shorter text's shingles the other has) is at least
// news.story.min_similarity gives its story, or the article
// starts one. A story's id is its lead's id: the first article of it the
// store saw. storyCmd does this atomically per batch, so two copies
// ingested at once cannot start two stories.
//
// An article of a story of two or more has the field story (the lead's
// id) in its hash, and story:<lead> lists the members with their source.

// Member is one article of a story, as listings show it ("also: ...").
type Member struct {
	ID string `json:"id"`
	// Source is the article's outlet (its source field; may be "").
	Source string `json:"source,omitempty"`
}

// storyText is the text an article is fingerprinted on.
func storyText(title, summary string) string { return title + "\n" + summary }

// storyCmd files newly created articles in the near-duplicate index and
// gives each a story, and ranks by story: an article that joins a story
// leaves time:, votes: and score: (only leads are ranked), its votes are
// added to the story's votes (svotes on the lead's hash; set to the
// lead's own votes when the story forms) and the lead is rescored with
// them and its own post time. Keys built in the script (news:<c>,
// story:<lead>) are under the same {news} hash tag as the declared ones,
// so they are in the same cluster slot. A lead posted before the cutoff
// (its story is closed) takes no new member.
//
// The index is read once for the whole call (one HMGET of every key of
// every article) and written once at its end (one HSET; a later article's
// key overwrites an earlier one's); an article sees the ones before it
// in the call through the script's own table. The rankings' changes go
// out at the end of the call too, one command per key, not one per
// article. Per article there is one HSET of its hash, one HMGET per
// distinct candidate story (at most minhash.IndexKeys) and the story's
// writes when it joins one.
//
// KEYS[1], KEYS[2], KEYS[3] -> time:, votes:, score: ZSETs
// KEYS[4] -> touched: SET (touchLua)
// KEYS[5] -> shingles: HASH, the near-duplicate index
// then, per article: its news:<id> HASH and the cache:score:<g> and
// cache:time:<g> ZSETs of each of its groups
// ARGV[1] -> key base (prefix + "{news}:")
// ARGV[2] -> least overlap (news.story.min_similarity)
// ARGV[3] -> cutoff (Unix s): leads posted before it take no member
// ARGV[4] -> hashes per sketch at most (minhash.K)
// ARGV[5], ARGV[6] -> formula name and parameter
// ARGV[7] -> now (Unix s)
// then, per article: id, sketch (4 bytes per hash, big-endian, increasing), its
// index keys (minhash.Sketch.Keys), post time
// (Unix s), time to live (s: post time + window + grace − now), source,
// number of groups, its votes
//
// Returns per article its story id ("" when it is alone so far).
var storyCmd = redis.NewScript(formulaLua + touchLua + `
local base, minsim, cutoff, kmax = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local formula, param, now = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
-- hashes unpacks a sketch (4 bytes a hash, big-endian) into numbers, in
-- one call of struct.unpack.
local formats = {}
local function hashes(s)
  local n = #s / 4
  if not formats[n] then formats[n] = '>' .. string.rep('I4', n) end
  return {struct.unpack(formats[n], s)}, n
end
-- overlap is the overlap estimate of two sketches (minhash.Overlap): of
-- the least kmax hashes of their union, those in both, and those in the
-- one with fewer.
local function overlap(a, na, b, nb)
  local i, j, union, both = 1, 1, 0, 0
  while union < kmax and (i <= na or j <= nb) do
    if j > nb or (i <= na and a[i] < b[j]) then
      i = i + 1
    elseif i > na or b[j] < a[i] then
      j = j + 1
    else
      i, j, both = i + 1, j + 1, both + 1
    end
    union = union + 1
  end
  return both, math.min(i - 1, j - 1)
end
local fields, filed, a = {}, {}, 8
while ARGV[a] do
  local ks = ARGV[a+2]
  for i = 1, #ks, 8 do fields[#fields+1] = string.sub(ks, i, i + 7) end
  a = a + 8
end
if #fields > 0 then
  local vals = redis.call('HMGET', KEYS[5], unpack(fields))
  for i, f in ipairs(fields) do
    if vals[i] then filed[f] = vals[i] end
  end
end
local out, expired, unrank, rescored, leads, index = {}, {}, {}, {}, {}, {}
local k = 6
a = 8
while ARGV[a] do
  local id, mh, ks, t, exp, src, ng, own = ARGV[a], ARGV[a+1], ARGV[a+2], ARGV[a+3], ARGV[a+4], ARGV[a+5], tonumber(ARGV[a+6]), tonumber(ARGV[a+7])
  local best, bestb, bestu, lh, seen, mine, nmine = nil, 0, 1, nil, {}, nil, 0
  for i = 1, #ks, 8 do
    local lead = filed[string.sub(ks, i, i + 7)]
    if lead and lead ~= id and not seen[lead] then
      seen[lead] = true
      local h = redis.call('HMGET', base .. 'news:' .. lead, 'mh', 'time', 'votes', 'svotes', 'source', 'story')
      if h[1] and tonumber(h[2]) and tonumber(h[2]) >= cutoff then
        if not mine then mine, nmine = hashes(mh) end
        local theirs, ntheirs = hashes(h[1])
        local b, u = overlap(mine, nmine, theirs, ntheirs)
        -- b/u >= minsim, and above the best so far (b/u > bestb/bestu)
        if b >= minsim * u - 1e-9 and b * bestu > bestb * u then best, bestb, bestu, lh = lead, b, u, h end
      end
    end
  end
  local owner = best or id
  for i = 1, #ks, 8 do
    local f = string.sub(ks, i, i + 7)
    filed[f] = owner
    index[#index+1] = f
    index[#index+1] = owner
  end
  if best then
    local sk, lk = base .. 'story:' .. best, base .. 'news:' .. best
    local sv = (tonumber(lh[4]) or tonumber(lh[3]) or 0) + own
    if not lh[6] then
      -- the story forms: lead and member, kept as long as the longer-lived
      local ttl = redis.call('TTL', lk)
      redis.call('HSET', lk, 'story', best, 'svotes', num(sv))
      redis.call('HSET', sk, best, lh[5] or '', id, src)
      redis.call('EXPIRE', sk, math.max(ttl, exp))
    else
      redis.call('HSET', lk, 'svotes', num(sv))
      redis.call('HSET', sk, id, src)
      redis.call('EXPIRE', sk, exp, 'GT')
    end
    redis.call('HSET', KEYS[k], 'mh', mh, 'mhkeys', ks, 'story', best)
    unrank[#unrank+1] = id
    if not rescored[best] then leads[#leads+1] = best end
    rescored[best] = {num(sv), num(rank(formula, param, tonumber(lh[2]), sv, now))}
    for g = 1, 2 * ng do expired[#expired+1] = KEYS[k+g] end
    out[#out+1] = best
  else
    redis.call('HSET', KEYS[k], 'mh', mh, 'mhkeys', ks)
    out[#out+1] = ''
  end
  k, a = k + 1 + 2 * ng, a + 8
end
if #index > 0 then redis.call('HSET', KEYS[5], unpack(index)) end
if #unrank > 0 then
  for i = 1, 3 do redis.call('ZREM', KEYS[i], unpack(unrank)) end
  local vz, sz = {}, {}
  for _, l in ipairs(leads) do
    vz[#vz+1] = rescored[l][1]; vz[#vz+1] = l
    sz[#sz+1] = rescored[l][2]; sz[#sz+1] = l
    unrank[#unrank+1] = l
  end
  redis.call('ZADD', KEYS[2], unpack(vz))
  redis.call('ZADD', KEYS[3], unpack(sz))
  touch(KEYS[4], unpack(unrank))
end
if #expired > 0 then redis.call('UNLINK', unpack(expired)) end
return out
`)

// storyCall is one created article for storyCmd.
type storyCall struct {
	keys []string
	args []any
}

// sketchAll computes the sketches of the articles of as at todo in a
// goroutine, while the ingest script runs, and returns a function that
// waits for them (indexed as as; nil for an article with no shingle).
// The work is bounded (a few µs an article) and the goroutine ends by
// itself when the caller stops waiting.
func sketchAll(as []Article, todo []int) func() []minhash.Sketch {
	out := make([]minhash.Sketch, len(as))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, i := range todo {
			out[i], _ = minhash.Of(storyText(as[i].Title, as[i].Summary))
		}
	}()
	return func() []minhash.Sketch {
		<-done
		return out
	}
}

// storyCallFor builds the storyCmd part of a created article of sketch
// sk, or ok false when its text has no feature to fingerprint.
func (s *Store) storyCallFor(a Article, sk minhash.Sketch, id string, votes float64, post, now time.Time) (storyCall, bool) {
	if len(sk) == 0 {
		return storyCall{}, false
	}
	keys := make([]string, 0, 1+2*len(a.Groups))
	keys = append(keys, s.keys.Article(id))
	for _, g := range a.Groups {
		keys = append(keys, s.keys.groupCaches(g)...)
	}
	ttl := int64(post.Add(s.opts.Window+Grace).Sub(now) / time.Second)
	return storyCall{keys: keys, args: []any{id, sk.Bytes(), minhash.Sketch(sk.Keys()).Hex(), post.Unix(), ttl,
		strings.TrimSpace(a.Source), len(a.Groups), formatNum(votes)}}, true
}

// groupStories runs storyCmd on the articles of as that ingest created,
// IngestChunk per call, in one pipeline, and sets their results' Story;
// sketches are the articles' (sketchAll).
func (s *Store) groupStories(ctx context.Context, as []Article, sketches []minhash.Sketch, res []IngestResult, now time.Time) error {
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
		if c, ok := s.storyCallFor(a, sketches[i], res[i].ID, res[i].Votes, post, now); ok {
			calls = append(calls, c)
			at = append(at, i)
		}
	}
	if len(calls) == 0 {
		return nil
	}
	cutoff := now.Add(-s.opts.Window).Unix()
	name, param := s.formula.scriptArgs()
	chunks := (len(calls) + IngestChunk - 1) / IngestChunk
	cmds, err := rdb.EvalEach(ctx, s.c, storyCmd, chunks, func(c int) ([]string, []any) {
		part := calls[c*IngestChunk : min(len(calls), (c+1)*IngestChunk)]
		keys := []string{s.keys.Time(), s.keys.Votes(), s.keys.Score(), s.keys.Touched(), s.keys.Shingles()}
		args := []any{s.keys.base, s.opts.StoryMinSimilarity, cutoff, minhash.K, name, param, now.Unix()}
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
