// Package websub subscribes newsrank's feed sources to the WebSub hubs
// their feeds announce (W3C Recommendation, 2018), so that a hub pushes
// each new entry within seconds instead of newsrank finding it at its next
// poll. Polling never stops: a pushed source is polled every Options.Poll
// as a fallback, and a hub that refuses, fails or stops pushing leaves the
// source to its ordinary adaptive polls.
//
// # Subscribing
//
// Maintain, run every Options.Every by Run under a lock that one daemon of
// a deployment holds at a time, looks at each feed of the rss and atom
// sources: it fetches the feed as a poll does (Feeds.FetchFeed), reads its
// hub and self links (Discover: the HTTP Link headers first, then the
// feed's own links), and asks the hub for a subscription to the topic
// (the self link, else the URL the feed was read from after redirects),
// with a callback under web.public_url and an unguessable path of its
// own (CallbackPath + source/feed id/token), a random hub.secret and the
// lease Options.Lease asks for. Redirects of the hub's answer are
// followed (a permanent one moves the subscription's hub). The
// subscription is renewed when a fifth of the lease the hub granted is
// left, and a subscription whose feed or source left the configuration
// is unsubscribed. A feed without a hub is looked at again after
// Options.Rediscover; a failure is retried with backoff.
//
// # The callback
//
// Handler answers the hub. A verification of intent (GET) gets its
// hub.challenge back only for the topic and mode that this deployment
// asked for at that callback, else 404. A push (POST) to an unknown
// callback gets 404 with its body unread; a push to a subscription is
// read only after its X-Hub-Signature (sha1, sha256, sha384 or sha512
// HMAC of the body with the subscription's secret) is checked in
// constant time over the body as it came, at most crawler.max_body_size
// bytes. A push without a valid signature changes nothing but the
// subscription's count of rejected pushes; a valid one is read as a
// polled feed is (Feeds.Pushed: the same limits, parser and link rules)
// and its new article URLs are queued at once.
//
// # Keyspace
//
// Each subscription is a hash <prefix>{crawl:<source>}:websub:<feed id>
// (keys.go lists its fields), so that any daemon of a deployment can
// answer a hub; <prefix>websub:subs (SET) lists them, and
// <prefix>websub:lock is the maintenance lock.
package websub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/metrics"
)

// CallbackPath is where the callbacks are served, under web.public_url.
const CallbackPath = "/websub/"

// Feed is a feed to subscribe: a configured URL of an rss or atom source
// whose websub setting is auto.
type Feed struct {
	Source string
	URL    string
}

// Feeds is what the subscriber needs of the crawler (*crawler.Crawler).
type Feeds interface {
	// FetchFeed fetches a configured feed of source as a poll does and
	// returns the URL it was read from, its headers and its body.
	FetchFeed(ctx context.Context, source, feedURL string) (finalURL string, header http.Header, body []byte, err error)
	// Pushed reads a pushed feed for source as a polled one and queues
	// its new article URLs; it returns how many were new.
	Pushed(ctx context.Context, source, topic string, header http.Header, body []byte) (int, error)
}

// Options configure a Subscriber.
type Options struct {
	// PublicURL is the address hubs reach newsrank's HTTP server at
	// (web.public_url); required.
	PublicURL string
	// Lease is the lease asked for (default 7 days); the hub may grant
	// another.
	Lease time.Duration
	// Poll is how often a pushed source is still polled (default 1h).
	Poll time.Duration
	// Every is how often Run looks at the subscriptions (default 1 min).
	Every time.Duration
	// Rediscover is how long a feed without a hub waits before it is
	// looked at again (default 6h).
	Rediscover time.Duration
	// VerifyTimeout is how long a hub may take to verify a request
	// before the request counts as failed (default 10 min).
	VerifyTimeout time.Duration
	// MaxBody bounds a push's body as it comes, in bytes
	// (crawler.max_body_size; default 5 MiB).
	MaxBody int64
	// Transport sends the hub requests (the crawler's, whose dialer
	// refuses private networks); nil: http.DefaultTransport.
	Transport http.RoundTripper
	// RequestTimeout bounds a hub request (default 15s).
	RequestTimeout time.Duration
	// UserAgent is sent with the hub requests.
	UserAgent string
	// Clock tells the time (leases, schedules); nil: the real clock.
	Clock clock.Clock
	// Log; nil: slog.Default().
	Log *slog.Logger
}

// Subscriber keeps the subscriptions of the configured feeds and answers
// their hubs. It is safe for concurrent use.
type Subscriber struct {
	o      Options
	rdb    redis.UniversalClient
	prefix string
	feeds  []Feed
	crawl  Feeds
	client *http.Client
	log    *slog.Logger
	clock  clock.Clock
	public *url.URL
}

// New returns a subscriber for feeds on rdb (keys under prefix, the
// configured redis.key_prefix).
func New(rdb redis.UniversalClient, prefix string, feeds []Feed, crawl Feeds, o Options) (*Subscriber, error) {
	if rdb == nil || crawl == nil {
		return nil, errors.New("websub: nil redis client or crawler")
	}
	u, err := url.Parse(strings.TrimSpace(o.PublicURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("websub: the public URL must be an absolute http(s) URL (web.public_url), got %q", o.PublicURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if o.Lease <= 0 {
		o.Lease = 7 * 24 * time.Hour
	}
	if o.Poll <= 0 {
		o.Poll = time.Hour
	}
	if o.Every <= 0 {
		o.Every = time.Minute
	}
	if o.Rediscover <= 0 {
		o.Rediscover = 6 * time.Hour
	}
	if o.VerifyTimeout <= 0 {
		o.VerifyTimeout = 10 * time.Minute
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 5 << 20
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 15 * time.Second
	}
	if o.Transport == nil {
		o.Transport = http.DefaultTransport
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	s := &Subscriber{o: o, rdb: rdb, prefix: prefix, feeds: slices.Clone(feeds), crawl: crawl, log: o.Log, clock: o.Clock, public: u}
	s.client = &http.Client{Transport: o.Transport, Timeout: o.RequestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return s, nil
}

// Feeds returns the feeds the subscriber keeps subscribed.
func (s *Subscriber) Feeds() []Feed { return slices.Clone(s.feeds) }

// Run runs Maintain every Options.Every until ctx ends; a failed pass is
// logged and tried again at the next.
func (s *Subscriber) Run(ctx context.Context) error {
	for {
		if _, err := s.Maintain(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("websub: maintenance failed", "err", err)
		}
		due, stop := clock.Wait(s.clock, s.o.Every)
		select {
		case <-due:
		case <-ctx.Done():
			stop()
			return nil
		}
	}
}

// Report is what one Maintain pass did.
type Report struct {
	// Locked: another process holds the maintenance lock; nothing done.
	Locked bool
	// Subscribed, Renewed and Unsubscribed count the requests the hubs
	// accepted; Failed those that failed (discovery, the hub's answer);
	// NoHub the feeds that announce no hub.
	Subscribed, Renewed, Unsubscribed, Failed, NoHub int
}

// lockTTL is the maintenance lock's TTL; a pass renews it every third.
const lockTTL = time.Minute

// Maintain subscribes the feeds that have no subscription (or whose
// subscription failed, was denied or lapsed, once their retry is due),
// renews the subscriptions whose lease is ending, and unsubscribes those
// of feeds no longer configured. It runs under the maintenance lock: when
// another process holds it, it does nothing (Report.Locked).
func (s *Subscriber) Maintain(ctx context.Context) (Report, error) {
	var rep Report
	token := randomHex(16)
	ok, err := s.rdb.SetNX(ctx, s.lockKey(), token, lockTTL).Result()
	if err != nil {
		return rep, fmt.Errorf("websub: take lock: %w", err)
	}
	if !ok {
		rep.Locked = true
		return rep, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	kept := make(chan struct{})
	go func() {
		defer close(kept)
		s.keepLock(ctx, cancel, token)
	}()
	defer func() {
		cancel()
		<-kept
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		if err := releaseLockCmd.Run(rctx, s.rdb, []string{s.lockKey()}, token).Err(); err != nil {
			s.log.Warn("websub: release lock", "err", err)
		}
	}()

	want := map[string]bool{}
	var errs []error
	for _, f := range s.feeds {
		want[f.Source+"/"+feedID(f.URL)] = true
		if err := s.maintainFeed(ctx, f, &rep); err != nil {
			errs = append(errs, err)
		}
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
	}
	if err := s.dropUnwanted(ctx, want, &rep); err != nil {
		errs = append(errs, err)
	}
	return rep, errors.Join(errs...)
}

// keepLock renews the lock every third of its TTL until ctx ends; when
// the lock is lost it cancels the pass.
func (s *Subscriber) keepLock(ctx context.Context, cancel context.CancelFunc, token string) {
	t := time.NewTicker(lockTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, err := renewLockCmd.Run(ctx, s.rdb, []string{s.lockKey()}, token, lockTTL.Milliseconds()).Int()
		if err == nil && n == 0 {
			s.log.Error("websub: maintenance lock lost; the pass stops")
			cancel()
			return
		}
	}
}

// maintainFeed brings one feed's subscription up to date.
func (s *Subscriber) maintainFeed(ctx context.Context, f Feed, rep *Report) error {
	fid := feedID(f.URL)
	r, err := s.read(ctx, f.Source, fid)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	state, pending := r[fState], r[fPending]
	switch {
	case len(r) == 0:
		return s.subscribe(ctx, f, r, rep)
	case pending != "" && now.Sub(r.ms(fAsked)) > s.o.VerifyTimeout:
		// The hub took the request and never verified it.
		return s.fail(ctx, f, r, fmt.Sprintf("the hub took the %s request but did not verify it within %s", pending, s.o.VerifyTimeout), rep)
	case pending != "":
		return nil // waiting for the hub
	case state == StateActive && !r.ms(fLeaseEnd).After(now):
		s.log.Info("websub: lease ended, subscribing again", "source", f.Source, "feed", f.URL, "hub", r[fHub])
		return s.subscribe(ctx, f, r, rep)
	case state == StateActive:
		granted := r.ms(fLeaseEnd).Sub(r.ms(fVerified))
		if now.Before(r.ms(fLeaseEnd).Add(-granted / 5)) {
			return nil
		}
		return s.subscribe(ctx, f, r, rep)
	default: // none, failed, denied, requested without a pending request
		if now.Before(r.ms(fNext)) {
			return nil
		}
		return s.subscribe(ctx, f, r, rep)
	}
}

// subscribe discovers the feed's hub and topic and asks the hub for a
// subscription: a renewal, with the same callback and secret, when the
// hub and topic are those of the active subscription r; else a new one.
func (s *Subscriber) subscribe(ctx context.Context, f Feed, r record, rep *Report) error {
	fid := feedID(f.URL)
	key := s.subKey(f.Source, fid)
	if err := s.rdb.SAdd(ctx, s.indexKey(), f.Source+"/"+fid).Err(); err != nil {
		return fmt.Errorf("websub: index subscription: %w", err)
	}
	final, header, body, err := s.crawl.FetchFeed(ctx, f.Source, f.URL)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.fail(ctx, f, r, "discovery: the feed could not be read: "+err.Error(), rep)
	}
	links := Discover(header, body, final)
	now := s.clock.Now()
	if len(links.Hubs) == 0 {
		rep.NoHub++
		fields := []any{fState, StateNone, fReason, "the feed announces no hub", fNext, ms(now.Add(s.o.Rediscover)),
			fPending, "", fSource, f.Source, fFeed, f.URL}
		_, err := setIfCmd.Run(ctx, s.rdb, []string{key}, append([]any{r[fToken]}, fields...)...).Int()
		return wrap("record a feed without hub", err)
	}
	hub, topic := links.Hubs[0], links.Self
	if topic == "" {
		topic = final
	}
	renewal := r[fState] == StateActive && r[fTopic] == topic && r.ms(fLeaseEnd).After(now) &&
		(r[fHub] == hub || slices.Contains(links.Hubs, r[fHub]))
	token, secret, state := randomHex(16), randomHex(32), StateRequested
	if renewal {
		hub, token, secret, state = r[fHub], r[fToken], r[fSecret], StateActive
	}
	// The request is recorded before it is sent: a hub may verify it
	// before it answers.
	fields := []any{fSource, f.Source, fFeed, f.URL, fTopic, topic, fHub, hub, fToken, token, fSecret, secret,
		fState, state, fPending, "subscribe", fAsked, ms(now), fReason, "asked the hub"}
	if !renewal {
		fields = append(fields, fLeaseEnd, "0", fVerified, "0")
	}
	ok, err := setIfCmd.Run(ctx, s.rdb, []string{key}, append([]any{r[fToken]}, fields...)...).Int()
	if err != nil || ok == 0 {
		return wrap("record a subscription request", err)
	}
	r = s.mustRead(ctx, f.Source, fid, r)
	moved, err := s.request(ctx, hub, url.Values{
		"hub.mode":          {"subscribe"},
		"hub.topic":         {topic},
		"hub.callback":      {s.callbackURL(f.Source, fid, token)},
		"hub.lease_seconds": {strconv.FormatInt(int64(s.o.Lease/time.Second), 10)},
		"hub.secret":        {secret},
	})
	if moved != "" {
		setIfCmd.Run(ctx, s.rdb, []string{key}, token, fHub, moved)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		metrics.WebSubRequests.WithLabelValues("subscribe", "failed").Inc()
		return s.fail(ctx, f, r, err.Error(), rep)
	}
	if renewal {
		rep.Renewed++
		metrics.WebSubRequests.WithLabelValues("renew", "accepted").Inc()
		_, err = s.rdb.HIncrBy(ctx, key, fRenewals, 1).Result()
	} else {
		rep.Subscribed++
		metrics.WebSubRequests.WithLabelValues("subscribe", "accepted").Inc()
	}
	s.log.Info("websub: subscription requested", "source", f.Source, "feed", f.URL, "hub", hub, "topic", topic, "renewal", renewal)
	return wrap("count a renewal", err)
}

// mustRead reads a subscription again after a write (its token changed);
// on a failure it returns r, whose token the next write then misses.
func (s *Subscriber) mustRead(ctx context.Context, source, fid string, r record) record {
	n, err := s.read(ctx, source, fid)
	if err != nil {
		return r
	}
	return n
}

// fail records a failed discovery, request or verification: the feed is
// looked at again after a backoff of 5 minutes doubling per failure in a
// row, at most a day. An active subscription stays active until its lease
// ends.
func (s *Subscriber) fail(ctx context.Context, f Feed, r record, reason string, rep *Report) error {
	rep.Failed++
	s.log.Warn("websub: subscription failed", "source", f.Source, "feed", f.URL, "hub", r[fHub], "reason", reason)
	now := s.clock.Now()
	backoff := min(5*time.Minute<<min(r.n(fFails), 10), 24*time.Hour)
	fields := []any{fReason, reason, fNext, ms(now.Add(backoff)), fPending, "", fSource, f.Source, fFeed, f.URL}
	if r[fState] != StateActive || !r.ms(fLeaseEnd).After(now) {
		fields = append(fields, fState, StateFailed)
	}
	_, err := failCmd.Run(ctx, s.rdb, []string{s.subKey(f.Source, feedID(f.URL))}, append([]any{r[fToken]}, fields...)...).Int()
	return wrap("record a failure", err)
}

func wrap(what string, err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return nil
	}
	return fmt.Errorf("websub: %s: %w", what, err)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
