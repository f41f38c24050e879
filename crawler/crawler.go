// Package crawler is newsrank's producer/consumer crawler (seed 004, built
// properly). The producer walks each configured source — HTML list pages,
// RSS/Atom feeds, sitemaps, JSON/JSONP list APIs — and pushes canonical
// article URLs to that source's Redis queue (package queue), with the
// fields the list carried for each item. Consumers claim URLs from all the
// queues, fetch the article page with colly, extract an article (per-source
// CSS selectors, then JSON-LD, OpenGraph and the usual <meta>/<time>/<title>
// fallbacks), merge it with the list item's fields and hand it to the news
// store, then acknowledge the URL. A failed page is retried with backoff
// or sent to the dead letters, with a reason.
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
// answer, and a body's hash is kept too (validators.go): a 304, or a body
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
// ignored), and <prefix>{crawl:<source>}:poll, the source's adaptive
// poll schedule (poll.go). Beside them, the fields a
// list item carried travel with its URL as the queue's payload (JSON of
// Fields), pushed, claimed and deleted in the same scripts as the URL, so
// a consumer gets them with the claim on any Redis deployment, Cluster
// included. A URL re-listed while still queued gets the newest listing's
// fields. The release before kept them in <prefix>{q:<source>}:item:<h>
// (STRING, expiring after crawler.item_ttl); consumers still read that key
// for a claimed URL without a payload, for one release (legacy_items.go).
//
// # Politeness
//
// robots.txt is obeyed by default (cached per host for crawler.robots_ttl,
// Crawl-delay honoured), at most crawler.per_host_parallelism requests run
// at once per host, request starts to one host are spaced by
// crawler.delay plus a random 0..crawler.jitter, and crawler.workers
// bounds all fetches at once.
//
// # Hostile sites
//
// crawler.max_body_size bounds every body after gzip inflation, which
// newsrank does itself (bodyTransport): a gzip bomb costs its compressed
// size. A source's allowed targets are scheme, host and port (allowedSet),
// checked wherever a URL enters; URLs with user info are refused.
// crawler.deny_private_networks refuses private addresses when connecting
// (netGuard), except the endpoints of the sources' own configured URLs.
//
// # Redis going away
//
// A push that meets a Redis error is retried with backoff until Redis
// answers or the run's context ends (redisRetry); the walk waits at its
// page meanwhile. SourceProduce.Retried counts such pushes.
package crawler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

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

// ErrUnknownSource is returned for a source name that is not configured.
var ErrUnknownSource = errors.New("unknown source")

// ErrNoSources is returned when there is nothing to crawl.
var ErrNoSources = errors.New("no sources configured (crawler.sources)")

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
	fetch   *fetcher
	push    PushPolls // nil: no source is pushed (push.go)
}

// source is one configured source, compiled.
type source struct {
	cfg     Source
	rules   *Rules
	allowed allowedSet
	queue   *queue.Queue
	// items: the kind's list items carry fields (feeds, sitemaps, APIs).
	items bool
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
		c.tr = newTransport(cfg, c.log)
	}
	c.qopts = append([]queue.Option{queue.WithClock(c.clock), queue.WithLogger(c.log)}, c.qopts...)
	for i, sc := range cfg.Sources {
		s, err := c.compile(sc)
		if err != nil {
			return nil, fmt.Errorf("crawler.sources[%d]: %w", i, err)
		}
		c.sources = append(c.sources, s)
	}
	var robots *robotsCache
	if cfg.ObeyRobots {
		rc := &http.Client{Transport: &bodyTransport{next: c.tr, limit: maxRobotsSize, truncate: true},
			Timeout: cfg.RequestTimeout, CheckRedirect: robotsRedirect}
		robots = newRobotsCache(rc, cfg.UserAgent, cfg.RobotsTTL, c.clock.Now)
	}
	c.fetch = newFetcher(cfg.UserAgent, cfg.RequestTimeout, cfg.MaxBodySize, cfg.MaxRedirects, c.tr,
		robots, newHostLimiter(cfg.PerHostParallelism, cfg.Delay, cfg.Jitter))
	return c, nil
}

// newTransport keeps enough idle connections per host for the workers,
// and guards its dialer (crawler.deny_private_networks).
func newTransport(cfg Options, log *slog.Logger) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(100, 4*cfg.Workers)
	t.MaxIdleConnsPerHost = max(cfg.Workers, cfg.PerHostParallelism, 2)
	t.ResponseHeaderTimeout = cfg.RequestTimeout
	var configured []string
	for _, s := range cfg.Sources {
		configured = append(configured, s.URLs...)
		if s.PageTemplate != "" {
			configured = append(configured, s.PageTemplate)
		}
	}
	d := &net.Dialer{Timeout: min(cfg.RequestTimeout, 30*time.Second), KeepAlive: 30 * time.Second}
	return newNetGuard(cfg.DenyPrivateNetworks, configured, log).transport(t, d)
}

// robotsRedirect follows a robots.txt redirect (at most 5) only to the
// same host, on the same port or a default one; any other is not followed
// and the redirect itself is read as "no robots.txt" (all allowed).
func robotsRedirect(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	p := req.URL.Port()
	if len(via) > 5 || req.URL.User != nil || !strings.EqualFold(req.URL.Hostname(), from.Hostname()) ||
		p != "" && p != from.Port() && p != defaultPort(req.URL.Scheme) {
		return http.ErrUseLastResponse
	}
	return nil
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
	rules, err := NewRules(sc)
	if err != nil {
		return nil, err
	}
	s := &source{cfg: sc, rules: rules}
	configured := sc.URLs
	if sc.PageTemplate != "" {
		configured = append(slices.Clone(sc.URLs), sc.PageTemplate)
	}
	if s.allowed, err = newAllowedSet(sc.AllowedDomains, configured); err != nil {
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
