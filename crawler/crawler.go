// Package crawler is newsrank's producer/consumer crawler. The producer
// walks each configured source — HTML list pages, RSS/Atom feeds,
// sitemaps, JSON/JSONP list APIs — and pushes canonical article URLs to
// that source's Redis queue (package queue), with the fields the list
// carried for each item. Consumers claim URLs from all the queues, fetch
// the article page, extract an article, merge it with the list item's
// fields and hand it to the news store, then acknowledge the URL. A
// failed page is retried with backoff or sent to the dead letters, with a
// reason.
//
// A URL's path through the packages is the layout:
//
//   - crawler/fetch gets a page: politeness, robots.txt, body limits, the
//     private-network guard, and an error with a reason for every way a
//     fetch fails;
//   - crawler/extract reads it: an article page (per-source CSS
//     selectors, then JSON-LD, OpenGraph and the usual <meta>/<time>/
//     <title> fallbacks) or a list (HTML, feed, sitemap, JSON);
//   - crawler/dates reads its post time, for extract;
//   - this package runs the walks (produce.go, list_pages.go: the walk of
//     each kind of list, read_ahead.go, list_cache.go, head_read.go), the
//     polls (poll.go, poll_run.go, poll_hints.go, poll_rhythm.go), the
//     consumers (consume.go, process.go: one page; commit.go: storing
//     and acknowledging in batches) and their reports and progress.
//
// # Engagement between crawls
//
// The queue does not fetch a URL again while it remembers it as done
// (queue.done_retention), but comment counts grow between crawls. So the
// producer hands the comment counts each list page carries (a feed's
// slash:comments or thr:total, a list API's mapped "comments" field) to
// the store's Refresh, one call per page: articles already stored and
// still in the window get the new count and are rescored as a re-crawl
// would rescore them, without their pages being fetched; URLs the store
// does not have go through the queue as before. A count of 0 means "not
// known" and changes nothing; a lower count is applied, as on a re-crawl.
// SourceProduce.Refreshed counts the articles refreshed. An article stored
// under another URL than its list's (the page declared a canonical URL, or
// redirected) is handed to the store with the list's URL as an alias, so
// the refresh finds it. HTML list pages carry no counts: their articles
// keep the count of their last fetch.
//
// # Conditional list fetches
//
// List pages, feeds, sitemaps and list API pages are fetched with
// If-None-Match / If-Modified-Since from the validators of their last
// answer, and a body's hash is kept too (list_cache.go): a 304, or a body
// the same as last time, is not parsed again (SourceProduce.NotModified,
// Unchanged). A walk goes on past such a page as past a page that lists
// nothing new: an HTML or API start page that is unchanged ends its start
// URL's walk (its next pages are not read); an unchanged sitemap index
// has the children it listed last time read, each conditionally. The
// validators of an HTML or API walk are kept only when none of its pages
// failed and it was not interrupted, so a page that could not be read
// is reached again next time; a feed's or sitemap's are kept on their
// own.
//
// # Keyspace
//
// The crawler owns one key per source, <prefix>{crawl:<source>}:lists (a
// HASH: list page URL → JSON of its ETag, Last-Modified, body hash, a
// sitemap index's children and the time of its last answer; the key
// expires ListCacheTTL after its last write, and older entries are
// ignored), <prefix>{crawl:<source>}:poll, the source's adaptive poll
// schedule (poll.go), and <prefix>{crawl:<source>}:rhythm, its rate of
// new articles by hour of the day (poll_rhythm.go). Beside them, the fields a list item carried
// travel with its URL as the queue's payload (JSON of
// extract.Fields), pushed, claimed and deleted in the same scripts as
// the URL, so a consumer gets them with the claim on any Redis
// deployment, Cluster included. A URL re-listed while still queued gets the newest listing's
// fields. The release before kept them in <prefix>{q:<source>}:item:<h>
// (STRING, expiring after crawler.item_ttl); consumers still read that key
// for a claimed URL without a payload, for one release (legacy_items.go).
//
// # Politeness and hostile sites
//
// Pages are fetched by package fetch: robots.txt is obeyed by default
// (cached per host for crawler.robots_ttl, Crawl-delay honoured), at most
// crawler.per_host_parallelism requests run at once per host, request
// starts to one host are spaced by crawler.delay plus a random
// 0..crawler.jitter; crawler.max_body_size bounds every body after gzip
// inflation (a gzip bomb costs its compressed size); redirects stay
// inside the source's allowed targets; crawler.deny_private_networks
// refuses private addresses when connecting, except the endpoints of the
// sources' own configured URLs. crawler.workers bounds all fetches at
// once. A source's allowed targets are scheme, host and port
// (fetch.Allowed), checked here wherever a URL enters (a listed URL, a
// next page, a child sitemap, a claimed URL, a declared canonical URL);
// URLs with user info are refused.
//
// # Redis going away
//
// A push that meets a Redis error is retried with backoff until Redis
// answers or the run's context ends (redis_retry.go); the walk waits at its
// page meanwhile. SourceProduce.Retried counts such pushes.
package crawler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// Store is where the crawler puts articles: *news.Store.
type Store interface {
	// Ingest stores an article page's article (the consumers).
	Ingest(ctx context.Context, a news.Article) (news.IngestResult, error)
	// Refresh applies the comment counts a list page carried to the
	// articles already stored, and returns how many changed (the producer).
	Refresh(ctx context.Context, es []news.Engagement) (int, error)
}

// leadReader is a Store that says whether it reads an article's Lead
// (*news.Store: only to group stories, with news.rank_by: story). The
// crawler does not look for the lead of an article page for a store that
// says no; a Store without the method gets it.
type leadReader interface {
	ReadsLead() bool
}

// ErrUnknownSource is returned for a source name that is not configured.
var ErrUnknownSource = errors.New("unknown source")

// ErrNoSources is returned when there is nothing to crawl.
var ErrNoSources = errors.New("no sources configured (crawler.sources)")

// ErrNoTitle is an article page with no title anywhere.
var ErrNoTitle = errors.New("page has no title")

// Failure reasons of the crawler's own steps, beside those of a fetch
// (fetch.ReasonHTTP404...), in fetch.Error.Reason, dead letters and the
// metrics.PagesFailed reason label.
const (
	ReasonNoTitle    = "no_title"
	ReasonNotAllowed = "not_allowed" // a queued URL outside the source's allowed targets
	ReasonBadList    = "bad_list"
	ReasonStore      = "store"
)

// Crawler runs the producer and the consumers of the configured sources.
// It is safe for concurrent use; Produce, Consume and RunOnce may run at
// the same time (and in several processes).
type Crawler struct {
	cfg     Options
	qopt    queue.Options
	rdb     redis.UniversalClient
	prefix  string
	store   Store
	log     *slog.Logger
	clock   clock.Clock
	qopts   []queue.Option
	tr      http.RoundTripper
	sources []*source
	fetcher *fetch.Fetcher
	push    PushPolls // nil: no source is pushed (push.go)
}

// source is one configured source, compiled.
type source struct {
	cfg   Source
	rules *extract.Rules
	// pageRules are rules for an article page, which the fetch decoded
	// from a forced charset already.
	pageRules *extract.Rules
	allowed   fetch.Allowed
	queue     *queue.Queue
	// items: the kind's list items carry fields (feeds, sitemaps, APIs).
	items bool
	// loc is the zone of its times (time_zone; UTC): its rhythm's hours
	// of the day are in it.
	loc *time.Location
	// fetched is its series of article pages fetched (articlesFetched).
	fetched atomic.Pointer[prometheus.Counter]
}

// Option configures a Crawler.
type Option func(*Crawler)

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *Crawler) { c.log = l } }

// WithClock sets the clock for crawl times (default clock.Real); it is
// passed on to the queues.
func WithClock(k clock.Clock) Option { return func(c *Crawler) { c.clock = k } }

// WithTransport sets the HTTP transport (default: a tuned clone of
// http.DefaultTransport). Its own dialer decides where connections go:
// crawler.deny_private_networks is enforced by the default transport's
// dialer only.
func WithTransport(rt http.RoundTripper) Option { return func(c *Crawler) { c.tr = rt } }

// WithQueueOptions adds options for the per-source queues.
func WithQueueOptions(opts ...queue.Option) Option {
	return func(c *Crawler) { c.qopts = append(c.qopts, opts...) }
}

// New builds a crawler for cfg's sources on rdb (keys under prefix, the
// configured redis.key_prefix), each source with a queue of qopt, handing
// articles to store. It fails on a source it cannot use (a bad name or
// group, an unknown time zone, a bad allowed domain).
func New(cfg Options, qopt queue.Options, rdb redis.UniversalClient, prefix string, store Store, opts ...Option) (*Crawler, error) {
	if rdb == nil {
		return nil, errors.New("crawler: nil redis client")
	}
	if store == nil {
		return nil, errors.New("crawler: nil store")
	}
	c := &Crawler{cfg: cfg, qopt: qopt, rdb: rdb, prefix: prefix, store: store, log: slog.Default(), clock: clock.Real{}}
	for _, o := range opts {
		o(c)
	}
	if c.tr == nil {
		var configured []string
		for _, s := range cfg.Sources {
			configured = append(configured, s.configuredURLs()...)
		}
		c.tr = fetch.NewTransport(cfg.Options, cfg.Workers, configured, c.log)
	}
	c.qopts = append([]queue.Option{queue.WithClock(c.clock), queue.WithLogger(c.log)}, c.qopts...)
	for i, sc := range cfg.Sources {
		s, err := c.compile(sc)
		if err != nil {
			return nil, fmt.Errorf("crawler.sources[%d]: %w", i, err)
		}
		c.sources = append(c.sources, s)
	}
	c.fetcher = fetch.New(cfg.Options, c.tr, c.clock.Now)
	return c, nil
}

// configuredURLs are the URLs a source's configuration names: its start
// URLs and page template.
func (sc Source) configuredURLs() []string {
	if sc.PageTemplate == "" {
		return sc.URLs
	}
	return append(slices.Clone(sc.URLs), sc.PageTemplate)
}

func (c *Crawler) compile(sc Source) (*source, error) {
	if err := queue.ValidName(sc.Name); err != nil {
		return nil, fmt.Errorf("source %q: %w", sc.Name, err)
	}
	for _, g := range sc.Groups {
		if err := news.ValidGroupName(g); err != nil {
			return nil, fmt.Errorf("source %s: groups: %w", sc.Name, err)
		}
	}
	rules, err := extract.NewRules(sc.Config)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", sc.Name, err)
	}
	s := &source{cfg: sc, rules: rules, pageRules: rules.Decoded(), loc: time.UTC}
	if lr, ok := c.store.(leadReader); ok && !lr.ReadsLead() {
		s.pageRules = s.pageRules.WithoutLead()
	}
	if sc.TimeZone != "" {
		if s.loc, err = time.LoadLocation(sc.TimeZone); err != nil {
			return nil, fmt.Errorf("source %s: time_zone: %w", sc.Name, err)
		}
	}
	if s.allowed, err = fetch.NewAllowed(sc.AllowedDomains, sc.configuredURLs()); err != nil {
		return nil, fmt.Errorf("source %s: %w", sc.Name, err)
	}
	s.items = sc.Kind != "html"
	s.queue = queue.New(c.rdb, c.prefix, sc.Name, c.qopt, c.qopts...)
	return s, nil
}

// Sources returns the configured source names, in config order.
func (c *Crawler) Sources() []string {
	names := make([]string, len(c.sources))
	for i, s := range c.sources {
		names[i] = s.cfg.Name
	}
	return names
}

// Queue returns the queue of the named source, or nil.
func (c *Crawler) Queue(name string) *queue.Queue {
	if s := c.source(name); s != nil {
		return s.queue
	}
	return nil
}

func (c *Crawler) source(name string) *source {
	for _, s := range c.sources {
		if s.cfg.Name == name {
			return s
		}
	}
	return nil
}

// pick returns the named sources (all when names is empty).
func (c *Crawler) pick(names []string) ([]*source, error) {
	if len(c.sources) == 0 {
		return nil, ErrNoSources
	}
	if len(names) == 0 {
		return c.sources, nil
	}
	var out []*source
	for _, n := range names {
		s := c.source(n)
		if s == nil {
			return nil, fmt.Errorf("%w %q: configured sources are %s", ErrUnknownSource, n, strings.Join(c.Sources(), ", "))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}
