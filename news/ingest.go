package news

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/internal/metrics"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/termvec"
)

// MaxTitle is the longest title accepted, in bytes.
const MaxTitle = 1024

// formatNum formats a float exactly (shortest form that parses back to
// the same value), without an exponent, as Redis stores it.
func formatNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// checkURL accepts absolute http(s) URLs.
func checkURL(raw string) error {
	if raw == "" {
		return fmt.Errorf("%w: url is empty", ErrBadInput)
	}
	if canonurl.IsCanonical(raw) {
		return nil // an absolute http(s) URL with a host, which url.Parse reads (canonurl.TestIsCanonical)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: url %q: %v", ErrBadInput, raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%w: url must be an absolute http(s) URL, got %q", ErrBadInput, raw)
	}
	return nil
}

func checkTitle(title string) (string, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return "", fmt.Errorf("%w: title is empty", ErrBadInput)
	}
	if len(title) > MaxTitle {
		return "", fmt.Errorf("%w: title is %d bytes, more than %d", ErrBadInput, len(title), MaxTitle)
	}
	return title, nil
}

// ingestCall is one validated article ready for ingestCmd.
type ingestCall struct {
	id string
	// votes and score of the article if it is new.
	votes, score float64
	keys         []string
	args         []any
	tooOld       bool
	// with news.rank_by: story, its terms (grouping) and its post time
	// (Unix s)
	story *termvec.Doc
	post  int64
}

// withFields returns c's script arguments with optional hash fields f
// (field, value, ...) after its own.
func (c ingestCall) withFields(f []any) []any {
	if len(f) == 0 {
		return c.args
	}
	no := c.args[9].(int)
	out := make([]any, 0, len(c.args)+len(f))
	out = append(out, c.args[:9]...)
	out = append(out, no+len(f))
	out = append(out, c.args[10:10+no]...)
	out = append(out, f...)
	return append(out, c.args[10+no:]...)
}

// prepare validates a and builds its script call. now is the store clock.
func (s *Store) prepare(a Article, now time.Time) (ingestCall, error) {
	if err := checkURL(a.URL); err != nil {
		return ingestCall{}, err
	}
	id := ID(a.URL)
	title, err := checkTitle(a.Title)
	if err != nil {
		return ingestCall{id: id}, fmt.Errorf("%s: %w", a.URL, err)
	}
	if a.Comments < 0 {
		return ingestCall{id: id}, fmt.Errorf("%s: %w: comment count %d is negative", a.URL, ErrBadInput, a.Comments)
	}
	for _, g := range a.Groups {
		if err := ValidGroupName(g); err != nil {
			return ingestCall{id: id}, fmt.Errorf("%s: %w", a.URL, err)
		}
	}
	crawl := a.CrawlTime
	if crawl.IsZero() || crawl.After(now) {
		crawl = now
	}
	post := a.PostTime
	if post.IsZero() || post.After(crawl) {
		post = crawl
	}
	pt, ct, nt := post.Unix(), crawl.Unix(), now.Unix()
	window := int64(s.opts.Window / time.Second)
	if nt-pt > window {
		return ingestCall{id: id, tooOld: true}, nil
	}
	votes := float64(a.Comments) * s.opts.CommentWeight
	score := s.formula.Score(time.Unix(pt, 0), votes, now)
	keys := make([]string, 1, 1+3*len(a.Groups))
	keys[0] = s.keys.Article(id)
	var groups []any
	for _, g := range a.Groups {
		if slices.Contains(groups, any(g)) {
			continue
		}
		keys = append(keys, s.groupKeysOf(g)...)
		groups = append(groups, g)
	}
	var opt []any
	for _, f := range [...]struct{ name, v string }{{"source", a.Source}, {"summary", a.Summary}, {"image", a.Image}} {
		if v := strings.TrimSpace(f.v); v != "" {
			opt = append(opt, f.name, v)
		}
	}
	var st *termvec.Doc
	if s.opts.stories() {
		st = storyDoc(a)
	}
	args := make([]any, 0, 10+len(opt)+len(groups))
	args = append(args, id, a.URL, title, pt, ct, a.Comments, formatNum(votes), formatNum(score), len(groups), len(opt))
	args = append(args, opt...)
	args = append(args, groups...)
	return ingestCall{id: id, keys: keys, args: args, votes: votes, score: score, story: st, post: pt}, nil
}

// groupKeyCache holds the keys of the groups that ingests name: a group
// and its caches (keyspace.GroupWithCaches), made once a group rather
// than at every article (each names its source's groups). It holds up to
// maxCachedGroups groups; the keys of others are made each time.
type groupKeyCache struct {
	m sync.Map // group name → []string
	n atomic.Int32
}

const maxCachedGroups = 1024

// groupKeysOf is keyspace.GroupWithCaches(g), cached. The slice is
// shared: the caller copies it (append) and does not change it.
func (s *Store) groupKeysOf(g string) []string {
	if v, ok := s.groupKeys.m.Load(g); ok {
		return v.([]string)
	}
	ks := s.keys.GroupWithCaches(g)
	if s.groupKeys.n.Load() < maxCachedGroups {
		if _, loaded := s.groupKeys.m.LoadOrStore(g, ks); !loaded {
			s.groupKeys.n.Add(1)
		}
	}
	return ks
}

// Ingest stores a crawled article, or refreshes it when its URL is known:
// see the package documentation. A rejected article returns an error
// wrapping ErrBadInput; a too-old one returns Status TooOld and no error.
func (s *Store) Ingest(ctx context.Context, a Article) (IngestResult, error) {
	rs, err := s.IngestBatch(ctx, []Article{a})
	if err != nil {
		return IngestResult{}, err
	}
	return rs[0], rs[0].Err
}

// IngestBatch ingests articles in one pipeline. The results are in the
// order of as; a rejected article has its Err set and does not stop the
// others. The error is for Redis failures only.
func (s *Store) IngestBatch(ctx context.Context, as []Article) ([]IngestResult, error) {
	now := s.clock.Now()
	res := make([]IngestResult, len(as))
	calls := make([]ingestCall, len(as))
	var todo []int
	for i, a := range as {
		c, err := s.prepare(a, now)
		res[i].ID = c.id
		switch {
		case err != nil:
			res[i].Err = err
		case c.tooOld:
			res[i].Status = TooOld
		default:
			calls[i] = c
			todo = append(todo, i)
		}
	}
	if len(todo) > 0 {
		if err := s.ensureUngrouped(ctx); err != nil {
			return nil, err
		}
		if err := s.runIngest(ctx, as, calls, todo, res, now); err != nil {
			return nil, err
		}
		if err := s.saveAliases(ctx, as, res); err != nil {
			return nil, err
		}
	}
	var counts [TooOld + 1]int
	for i := range res {
		switch {
		case res[i].Err != nil:
			s.log.Warn("article rejected", "url", as[i].URL, "err", res[i].Err)
		default:
			counts[res[i].Status]++
		}
	}
	for st, n := range counts {
		if n > 0 {
			metrics.Articles.WithLabelValues(Status(st).String()).Add(float64(n))
		}
	}
	return res, nil
}

// MaxAliases is how many aliases of one article are kept.
const MaxAliases = 4

// saveAliases writes the alias keys of the stored articles of as, in one
// pipeline (none when no article has aliases). An alias key is a pointer
// only: written after the article, it never leads to a missing one, and
// it expires window + Grace from now, no earlier than the article.
func (s *Store) saveAliases(ctx context.Context, as []Article, res []IngestResult) error {
	ttl := s.opts.Window + Grace
	var pipe redis.Pipeliner
	n := 0
	for i, a := range as {
		if len(a.Aliases) == 0 || res[i].Err != nil || (res[i].Status != Created && res[i].Status != Updated) {
			continue
		}
		kept := 0
		for _, alias := range a.Aliases {
			if alias == a.URL || checkURL(alias) != nil || kept == MaxAliases {
				continue
			}
			if pipe == nil {
				pipe = s.c.Pipeline()
			}
			pipe.Set(ctx, s.keys.Alias(ID(alias)), a.URL, ttl)
			kept++
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("save %d article aliases: %w", n, err)
	}
	return nil
}

// IngestChunk is how many articles one ingest script call takes.
const IngestChunk = 100

// runIngest runs the calls of todo through ingestCmd, IngestChunk
// articles per script call, all calls in one pipeline, and fills res;
// with news.rank_by: story through ingestPlanCmd (runStoryIngest).
func (s *Store) runIngest(ctx context.Context, as []Article, calls []ingestCall, todo []int, res []IngestResult, now time.Time) error {
	var parts [][]int
	for c := 0; c < len(todo); c += IngestChunk {
		parts = append(parts, todo[c:min(len(todo), c+IngestChunk)])
	}
	head := s.ingestHead(now)
	if s.opts.stories() {
		return s.runStoryIngest(ctx, as, calls, parts, res, head, now)
	}
	_, err := s.runChunks(ctx, as, calls, parts, res, ingestCmd, func(int) []any { return head }, nil)
	return err
}

// ingestHead returns ARGV[1] .. ARGV[6] of the ingest scripts.
func (s *Store) ingestHead(now time.Time) []any {
	name, param := s.formula.scriptArgs()
	return []any{s.opts.CommentWeight, name, param, now.Unix(),
		int64((s.opts.Window + Grace) / time.Second), s.opts.storyFlag()}
}

// runChunks runs parts (chunks of calls) through script, one call each,
// all calls in one pipeline, and fills res from the replies; args(c) is
// call c's ARGV before the articles'. It returns the indexes of parts
// refused as stale (ingestPlanCmd), whose articles it left alone.
// fields(c, i), when fields is not nil, are optional hash fields (field,
// value, ...) of call i in chunk c besides its own.
func (s *Store) runChunks(ctx context.Context, as []Article, calls []ingestCall, parts [][]int, res []IngestResult, script *redis.Script, args func(c int) []any, fields func(c, i int) []any) ([]int, error) {
	stories := s.opts.stories()
	cmds, err := rdb.EvalEach(ctx, s.c, script, len(parts), func(c int) ([]string, []any) {
		keys := []string{s.keys.Time(), s.keys.Votes(), s.keys.Score(), s.keys.Groups(), s.keys.Touched()}
		argv := slices.Clip(args(c)) // its articles appended to a copy: args may hand one slice to every call
		for _, i := range parts[c] {
			keys = append(keys, calls[i].keys...)
			if fields != nil {
				argv = append(argv, calls[i].withFields(fields(c, i))...)
			} else {
				argv = append(argv, calls[i].args...)
			}
		}
		if stories {
			keys = append(keys, s.keys.StoryIndex(), s.keys.StoryIndexVersion())
		}
		return keys, argv
	})
	if err != nil {
		return nil, fmt.Errorf("ingest %d articles: %w", countOf(parts), err)
	}
	var stale []int
	for c, cmd := range cmds {
		part := parts[c]
		rows, err := cmd.StringSlice()
		if err != nil {
			return nil, fmt.Errorf("ingest %d articles: %w", len(part), err)
		}
		if len(rows) == 1 && rows[0] == "stale" {
			stale = append(stale, c)
			continue
		}
		if rows, err = parseIngest(as, calls, part, res, rows); err != nil {
			return nil, err
		}
		if stories {
			rows, err = parseStories(part, res, rows)
			if err != nil {
				return nil, err
			}
		}
		if len(rows) != 0 {
			return nil, fmt.Errorf("ingest %d articles: %d extra reply values", len(part), len(rows))
		}
	}
	return stale, nil
}

// countOf is how many articles parts holds.
func countOf(parts [][]int) int {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	return n
}

// parseIngest fills the results of the articles of part from rows, an
// ingest script's reply, and returns what follows their rows.
func parseIngest(as []Article, calls []ingestCall, part []int, res []IngestResult, rows []string) ([]string, error) {
	for _, i := range part {
		if len(rows) == 0 {
			return nil, fmt.Errorf("ingest %d articles: reply too short", len(part))
		}
		if rows[0] == "created" {
			res[i].Status = Created
			res[i].Votes, res[i].Score = calls[i].votes, calls[i].score
			rows = rows[1:]
			continue
		}
		if len(rows) < 3 {
			return nil, fmt.Errorf("ingest %s: reply too short: %q", as[i].URL, rows)
		}
		r := rows[:3]
		rows = rows[3:]
		switch r[0] {
		case "updated":
			res[i].Status = Updated
			res[i].Votes, _ = strconv.ParseFloat(r[1], 64)
			res[i].Score, _ = strconv.ParseFloat(r[2], 64)
		case "conflict":
			res[i].Err = fmt.Errorf("ingest %s: id %s already holds %s (hash collision)", as[i].URL, res[i].ID, r[1])
		default:
			return nil, fmt.Errorf("ingest %s: unexpected reply %q", as[i].URL, r)
		}
	}
	return rows, nil
}

// parseStories sets the Story of the articles of part that the script
// created from rows, ingestStoryCmd's story ids (one per created
// article, in order), and returns what follows them.
func parseStories(part []int, res []IngestResult, rows []string) ([]string, error) {
	for _, i := range part {
		if res[i].Err != nil || res[i].Status != Created {
			continue
		}
		if len(rows) == 0 {
			return nil, fmt.Errorf("ingest %d articles: story reply too short", len(part))
		}
		res[i].Story, rows = rows[0], rows[1:]
	}
	return rows, nil
}

// parseScriptReply turns a script's array reply into strings.
func parseScriptReply(c *redis.Cmd) ([]string, error) {
	vals, err := c.Slice()
	if err != nil {
		return nil, err
	}
	return stringsOf(vals)
}

// stringsOf turns an array reply of strings and integers into strings.
func stringsOf(v any) ([]string, error) {
	vals, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("unexpected script reply %T", v)
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case string:
			out[i] = x
		case int64:
			out[i] = strconv.FormatInt(x, 10)
		case nil:
		default:
			return nil, fmt.Errorf("unexpected script reply element %T", v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty script reply")
	}
	return out, nil
}
