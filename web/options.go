package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/websub"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// Options are how the server behaves and what it serves. Start from
// DefaultOptions; package config fills the settings from the web, news
// and crawler sections and checks their ranges. Redis is required; a nil
// domain part makes its endpoints answer 503 "unavailable" naming what is
// missing.
type Options struct {
	// Tokens may call write endpoints (Authorization: Bearer <token>);
	// AdminTokens may also run jobs and sign in on /ops.
	Tokens      []string
	AdminTokens []string
	// MaxBodySize caps request bodies, in bytes.
	MaxBodySize int64
	// RequestTimeout bounds the Redis work of one request; past it the
	// request fails with 503.
	RequestTimeout time.Duration
	// ReadTimeout, WriteTimeout and IdleTimeout are those of Serve's
	// http.Server.
	ReadTimeout  time.Duration
	WriteTimeout time.Duration
	IdleTimeout  time.Duration
	// CookieSecret signs the visitor cookie, the forms' CSRF tokens and
	// the admin sessions; empty is a random key per process.
	CookieSecret string
	// CookieSecure marks the visitor and admin cookies Secure (HTTPS
	// only).
	CookieSecure bool
	// FormTTL is how long the forms of a page (their CSRF tokens) stay
	// valid.
	FormTTL time.Duration
	// AdminSessionTTL is how long an admin signed in on /ops stays signed
	// in.
	AdminSessionTTL time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For tells
	// the client's address, which the limit on wrong tokens counts by
	// (auth_limit.go); without them it is the connection's peer.
	TrustedProxies []netip.Prefix
	// PublicURL is the address readers reach the server at (web.public_url,
	// CheckPublicURL): the feeds' absolute links start with it. Empty: the
	// request's own scheme and host, X-Forwarded-Proto and
	// X-Forwarded-Host taken from TrustedProxies only (feeds.go, baseURL).
	PublicURL string
	// Window is the news window (news.window): votes are open on younger
	// articles.
	Window time.Duration
	// PageSize is a listing's default size, MaxPageSize the largest a
	// client may ask for (news.page_size, news.max_page_size).
	PageSize    int
	MaxPageSize int
	// Labels are how the pages name the sources, and the groups named
	// like them, by name (crawler.sources[].label); a name without a
	// label is shown as is.
	Labels map[string]string

	// Redis is pinged by /readyz.
	Redis *rdb.Client
	// News is the article store: listings, votes, posts, groups.
	News *news.Store
	// Activity and Invites are the user leaderboards, for their
	// endpoints. The points that votes, posts and article page views
	// earn are the news store's to give (news.WithActivity).
	Activity *board.Activity
	Invites  *board.Invites
	// Queues are the crawl queues, one per source, for /api/queue, the
	// operations page and the queue gauges of /metrics.
	Queues []*queue.Queue
	// Jobs runs and lists the batch jobs.
	Jobs *jobs.Manager
	// Polls tells each crawl source's poll schedule (last poll, new
	// articles, next poll and why) for the operations page; nil: not
	// shown. *crawler.Crawler is one.
	Polls PollSchedules
	// WebSub answers the WebSub hubs' callbacks under /websub/ (package
	// crawler/websub, web.public_url); nil: not served (404).
	WebSub http.Handler
	// Subscriptions tells each feed's WebSub subscription for the
	// operations page; nil: not shown. *websub.Subscriber is one.
	Subscriptions WebSubStatuses
	// Clock tells the time for ages and boards; nil is the real clock.
	Clock clock.Clock
	// Log receives request errors; nil is slog.Default().
	Log *slog.Logger
}

// WebSubStatuses tells the feeds' WebSub subscriptions.
type WebSubStatuses interface {
	Statuses(ctx context.Context) ([]websub.Status, error)
}

// PollSchedules tells the crawl sources' adaptive poll schedules.
type PollSchedules interface {
	PollStates(ctx context.Context) ([]crawler.PollState, error)
}

// DefaultOptions are the server's defaults: no tokens, 64KiB bodies, a
// 2s request timeout, http.Server timeouts of 10s, 15s and 60s, a random
// cookie key, forms good for 12h, admin sessions of 8h, and the news
// window and page sizes of news.DefaultOptions. The domain parts (Redis,
// News...) are left for the caller to set.
func DefaultOptions() Options {
	n := news.DefaultOptions()
	return Options{
		MaxBodySize:     64 << 10,
		RequestTimeout:  2 * time.Second,
		ReadTimeout:     10 * time.Second,
		WriteTimeout:    15 * time.Second,
		IdleTimeout:     60 * time.Second,
		FormTTL:         12 * time.Hour,
		AdminSessionTTL: 8 * time.Hour,
		Window:          n.Window,
		PageSize:        n.PageSize,
		MaxPageSize:     n.MaxPageSize,
	}
}

// CheckPublicURL checks a web.public_url: an absolute http or https URL
// with a host, a path allowed, no user, query or fragment.
func CheckPublicURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("must be an absolute http(s) URL such as https://news.example.org, got %q", raw)
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.HasSuffix(raw, "#") {
		return fmt.Errorf("must have no user, query or fragment (the feeds add paths to it), got %q", raw)
	}
	if !validHost(u.Host) {
		return fmt.Errorf("host %q is not a host name or address with an optional port", u.Host)
	}
	return nil
}
