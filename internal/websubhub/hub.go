// Package websubhub is a WebSub hub (W3C Recommendation, 2018): the
// server that publishers announce in their feeds and that pushes each new
// version of a topic to its subscribers. newsrank subscribes to hubs; this
// hub is what its tests subscribe to and what `newsrank demo` announces on
// its demo news site, so that the subscriber is tested against the hub
// side of the protocol rather than against answers written for it.
//
// It implements the hub's part of the protocol:
//
//   - subscription requests (POST, form-encoded hub.mode=subscribe or
//     unsubscribe, hub.topic, hub.callback, hub.lease_seconds, hub.secret):
//     bad requests get 400 and a reason; good ones 202 Accepted, and the
//     intent is verified afterwards;
//   - verification of intent: a GET to the callback with hub.mode,
//     hub.topic, hub.challenge and, for a subscription, hub.lease_seconds;
//     only a 2xx answer whose body is the challenge activates (or ends) the
//     subscription. A subscription Options.Deny refuses gets a GET with
//     hub.mode=denied and hub.reason instead;
//   - content distribution: a POST of the topic's content, with its
//     Content-Type, the Link headers rel="hub" and rel="self" and, for a
//     subscription made with a secret, X-Hub-Signature (HMAC of the body
//     with Options.Algorithm: sha1, sha256, sha384 or sha512); a non-2xx
//     answer is retried (Options.Attempts);
//   - leases: a subscription ends when its lease ends, unless renewed by
//     a new subscription request; the lease granted is the one asked for,
//     within Options.MinLease..MaxLease;
//   - publishing: a POST hub.mode=publish with hub.url (or hub.topic) makes
//     the hub fetch the topic and distribute it; Publish and Distribute do
//     the same from code.
//
// Everything is in memory. The hub never retries a failed verification:
// the subscriber asks again.
package websubhub

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
)

// Options configure a Hub. The zero value is usable: see the field
// comments for the defaults.
type Options struct {
	// Client sends the verifications, the distributions and the fetches
	// of topics; nil: a client with a 10s timeout that follows no
	// redirect.
	Client *http.Client
	// Clock tells the time leases are counted in; nil: the real clock.
	Clock clock.Clock
	// Log receives what the hub does; nil: slog.Default().
	Log *slog.Logger
	// URL is the hub's own URL, sent as the rel="hub" Link of
	// distributions; empty: the URL the subscription request was sent to.
	URL string
	// DefaultLease is granted when a subscriber asks for none (default
	// 10 days); MinLease and MaxLease bound what it may ask for (default
	// 1 minute and 30 days).
	DefaultLease, MinLease, MaxLease time.Duration
	// Algorithm signs distributions: sha1, sha256 (default), sha384 or
	// sha512.
	Algorithm string
	// Deny, when set, decides on each subscription request: a non-empty
	// reason refuses it (the callback gets hub.mode=denied).
	Deny func(topic, callback string) (reason string)
	// Attempts is how many times a distribution is tried per subscriber
	// (default 3), RetryDelay the wait between tries (default 100ms).
	Attempts   int
	RetryDelay time.Duration
	// MaxBody bounds a topic's content the hub fetches (default 10 MiB).
	MaxBody int64
}

// Subscription is an active subscription.
type Subscription struct {
	Topic    string
	Callback string
	// Secret signs the distributions; empty: they are not signed.
	Secret string
	// Expires is when the lease ends.
	Expires time.Time
	// Hub is the hub URL the subscription was made at.
	Hub string
}

// Hub is a WebSub hub; it implements http.Handler. Close it when done.
type Hub struct {
	o   Options
	log *slog.Logger

	mu   sync.Mutex
	subs map[subKey]*Subscription
	// verified counts the verifications of intent that ended, by result
	// ("subscribe", "unsubscribe", "denied", "failed").
	verified map[string]int

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type subKey struct{ topic, callback string }

// New returns a hub.
func New(o Options) *Hub {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.DefaultLease <= 0 {
		o.DefaultLease = 10 * 24 * time.Hour
	}
	if o.MinLease <= 0 {
		o.MinLease = time.Minute
	}
	if o.MaxLease <= 0 {
		o.MaxLease = 30 * 24 * time.Hour
	}
	if o.Algorithm == "" {
		o.Algorithm = "sha256"
	}
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = 100 * time.Millisecond
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 10 << 20
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{o: o, log: o.Log, subs: map[subKey]*Subscription{}, verified: map[string]int{}, ctx: ctx, cancel: cancel}
}

// Close stops the verifications and distributions in flight and waits
// for them.
func (h *Hub) Close() {
	h.cancel()
	h.wg.Wait()
}

// Idle waits until no verification or publication started by a request
// is in flight (or ctx ends).
func (h *Hub) Idle(ctx context.Context) error {
	done := make(chan struct{})
	go func() { h.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Verified returns how many verifications of intent ended with result:
// "subscribe" or "unsubscribe" (the subscriber confirmed), "denied" (the
// hub refused and told the subscriber) or "failed" (the subscriber did
// not echo the challenge).
func (h *Hub) Verified(result string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.verified[result]
}

// Subscriptions returns the active subscriptions to topic (all topics
// when topic is ""), those whose lease ended left out, sorted by
// callback.
func (h *Hub) Subscriptions(topic string) []Subscription {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expire()
	var out []Subscription
	for k, s := range h.subs {
		if topic == "" || k.topic == topic {
			out = append(out, *s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Callback < out[j].Callback })
	return out
}

// expire drops the subscriptions whose lease ended; h.mu is held.
func (h *Hub) expire() {
	now := h.o.Clock.Now()
	for k, s := range h.subs {
		if !s.Expires.After(now) {
			delete(h.subs, k)
		}
	}
}

// ServeHTTP takes subscription, unsubscription and publish requests.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "a WebSub hub takes POST requests", http.StatusMethodNotAllowed)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	switch mode := r.PostForm.Get("hub.mode"); mode {
	case "subscribe", "unsubscribe":
		req, err := h.parseSubscription(r, mode)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			h.verify(h.ctx, req)
		}()
		w.WriteHeader(http.StatusAccepted)
	case "publish":
		topic := r.PostForm.Get("hub.url")
		if topic == "" {
			topic = r.PostForm.Get("hub.topic")
		}
		if !absHTTP(topic) {
			http.Error(w, "hub.url must be an absolute http(s) URL", http.StatusBadRequest)
			return
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			if _, err := h.Publish(h.ctx, topic); err != nil {
				h.log.Warn("websubhub: publish failed", "topic", topic, "err", err)
			}
		}()
		w.WriteHeader(http.StatusAccepted)
	default:
		http.Error(w, fmt.Sprintf("hub.mode must be subscribe, unsubscribe or publish, got %q", mode), http.StatusBadRequest)
	}
}

// subRequest is a subscription or unsubscription request that was
// accepted for verification.
type subRequest struct {
	mode, topic, callback, secret, hub string
	lease                              time.Duration
}

func (h *Hub) parseSubscription(r *http.Request, mode string) (subRequest, error) {
	f := r.PostForm
	req := subRequest{mode: mode, topic: f.Get("hub.topic"), callback: f.Get("hub.callback"), secret: f.Get("hub.secret"),
		lease: h.o.DefaultLease, hub: h.o.URL}
	if req.hub == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		req.hub = scheme + "://" + r.Host + r.URL.Path
	}
	switch {
	case !absHTTP(req.topic):
		return req, errors.New("hub.topic must be an absolute http(s) URL")
	case !absHTTP(req.callback):
		return req, errors.New("hub.callback must be an absolute http(s) URL")
	case len(req.secret) >= 200:
		return req, errors.New("hub.secret must be shorter than 200 bytes")
	}
	if s := f.Get("hub.lease_seconds"); s != "" && mode == "subscribe" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return req, fmt.Errorf("hub.lease_seconds must be a positive number of seconds, got %q", s)
		}
		req.lease = min(max(time.Duration(n)*time.Second, h.o.MinLease), h.o.MaxLease)
	}
	return req, nil
}

func absHTTP(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// verify verifies the intent of req with its callback and, when the
// subscriber confirms, activates or removes the subscription.
func (h *Hub) verify(ctx context.Context, req subRequest) {
	q := url.Values{"hub.mode": {req.mode}, "hub.topic": {req.topic}}
	if h.o.Deny != nil && req.mode == "subscribe" {
		if reason := h.o.Deny(req.topic, req.callback); reason != "" {
			q.Set("hub.mode", "denied")
			q.Set("hub.reason", reason)
			res, err := h.get(ctx, req.callback, q)
			if err == nil {
				res.Body.Close()
			}
			h.count("denied")
			return
		}
	}
	challenge := randomHex(16)
	q.Set("hub.challenge", challenge)
	if req.mode == "subscribe" {
		q.Set("hub.lease_seconds", strconv.FormatInt(int64(req.lease/time.Second), 10))
	}
	res, err := h.get(ctx, req.callback, q)
	if err != nil {
		h.log.Info("websubhub: verification failed", "callback", req.callback, "err", err)
		h.count("failed")
		return
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<10))
	res.Body.Close()
	if res.StatusCode/100 != 2 || string(body) != challenge {
		h.log.Info("websubhub: subscriber did not confirm", "callback", req.callback, "mode", req.mode, "status", res.StatusCode)
		h.count("failed")
		return
	}
	h.mu.Lock()
	k := subKey{req.topic, req.callback}
	if req.mode == "subscribe" {
		h.subs[k] = &Subscription{Topic: req.topic, Callback: req.callback, Secret: req.secret,
			Expires: h.o.Clock.Now().Add(req.lease), Hub: req.hub}
	} else {
		delete(h.subs, k)
	}
	h.verified[req.mode]++
	h.mu.Unlock()
}

func (h *Hub) count(result string) {
	h.mu.Lock()
	h.verified[result]++
	h.mu.Unlock()
}

// get sends a verification GET to callback with q added to its query.
func (h *Hub) get(ctx context.Context, callback string, q url.Values) (*http.Response, error) {
	u, err := url.Parse(callback)
	if err != nil {
		return nil, err
	}
	all := u.Query()
	for k, vs := range q {
		all[k] = vs
	}
	u.RawQuery = all.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	return h.o.Client.Do(req)
}

// Publish fetches topic and distributes its content to the topic's
// subscribers; it returns how many took it.
func (h *Hub) Publish(ctx context.Context, topic string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, topic, nil)
	if err != nil {
		return 0, err
	}
	res, err := h.o.Client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("fetch topic %s: %w", topic, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("fetch topic %s: status %d", topic, res.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, h.o.MaxBody+1))
	if err != nil {
		return 0, fmt.Errorf("fetch topic %s: %w", topic, err)
	}
	if int64(len(body)) > h.o.MaxBody {
		return 0, fmt.Errorf("fetch topic %s: larger than %d bytes", topic, h.o.MaxBody)
	}
	return h.Distribute(ctx, topic, res.Header.Get("Content-Type"), body)
}

// Distribute sends body, of contentType, to every active subscriber of
// topic, each on its own, trying each up to Options.Attempts times; it
// returns how many answered 2xx.
func (h *Hub) Distribute(ctx context.Context, topic, contentType string, body []byte) (int, error) {
	subs := h.Subscriptions(topic)
	ok := make(chan bool, len(subs))
	var wg sync.WaitGroup
	for _, s := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok <- h.deliver(ctx, s, contentType, body)
		}()
	}
	wg.Wait()
	close(ok)
	n := 0
	for v := range ok {
		if v {
			n++
		}
	}
	return n, ctx.Err()
}

func (h *Hub) deliver(ctx context.Context, s Subscription, contentType string, body []byte) bool {
	for i := range h.o.Attempts {
		if i > 0 {
			if err := clock.Sleep(ctx, h.o.RetryDelay); err != nil {
				return false
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.Callback, strings.NewReader(string(body)))
		if err != nil {
			return false
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		req.Header.Add("Link", "<"+s.Hub+`>; rel="hub"`)
		req.Header.Add("Link", "<"+s.Topic+`>; rel="self"`)
		if s.Secret != "" {
			req.Header.Set("X-Hub-Signature", Sign(h.o.Algorithm, s.Secret, body))
		}
		res, err := h.o.Client.Do(req)
		if err != nil {
			h.log.Info("websubhub: distribution failed", "callback", s.Callback, "attempt", i+1, "err", err)
			continue
		}
		io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		res.Body.Close()
		if res.StatusCode/100 == 2 {
			return true
		}
		h.log.Info("websubhub: distribution refused", "callback", s.Callback, "attempt", i+1, "status", res.StatusCode)
	}
	return false
}

// Sign is the X-Hub-Signature value of body under secret with algorithm
// (sha1, sha256, sha384 or sha512): "algorithm=hex(HMAC(secret, body))".
// An unknown algorithm signs with sha256.
func Sign(algorithm, secret string, body []byte) string {
	var nh func() hash.Hash
	switch algorithm {
	case "sha1":
		nh = sha1.New
	case "sha384":
		nh = sha512.New384
	case "sha512":
		nh = sha512.New
	default:
		algorithm, nh = "sha256", sha256.New
	}
	m := hmac.New(nh, []byte(secret))
	m.Write(body)
	return algorithm + "=" + hex.EncodeToString(m.Sum(nil))
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
