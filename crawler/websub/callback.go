package websub

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/newsrank/newsrank/internal/metrics"
)

// Reasons a push is rejected (the reason label of
// newsrank_websub_rejected_total).
const (
	RejectUnknown      = "unknown_callback" // no subscription has that callback
	RejectInactive     = "inactive"         // the subscription is not active (unsubscribing, lapsed...)
	RejectNoSignature  = "no_signature"
	RejectBadSignature = "bad_signature" // unknown algorithm, not hex, or not the body's HMAC
	RejectTooLarge     = "too_large"     // over the body limit as it came
	RejectUnreadable   = "unreadable"    // signed, but not a feed the crawler can read
)

// pushTimeout bounds the work of one push (reading the body, Redis).
const pushTimeout = 30 * time.Second

// Handler serves the callbacks under CallbackPath: the hubs'
// verifications of intent (GET) and pushes (POST).
func (s *Subscriber) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		source, fid, token, ok := parseCallback(r.URL.Path)
		if !ok {
			s.reject(w, r, RejectUnknown, http.StatusNotFound)
			return
		}
		switch r.Method {
		case http.MethodGet:
			s.verify(w, r, source, fid, token)
		case http.MethodPost:
			s.push(w, r, source, fid, token)
		default:
			w.Header().Set("Allow", "GET, POST")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
}

// parseCallback splits CallbackPath + source/feed id/token.
func parseCallback(p string) (source, fid, token string, ok bool) {
	rest, found := strings.CutPrefix(p, CallbackPath)
	if !found {
		return "", "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || parts[0] == "" || len(parts[1]) != 12 || len(parts[2]) != 32 {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// lookup reads the subscription at a callback; ok is false when there is
// none, or its token is not the callback's (compared in constant time).
func (s *Subscriber) lookup(ctx context.Context, source, fid, token string) (record, bool, error) {
	r, err := s.read(ctx, source, fid)
	if err != nil {
		return nil, false, err
	}
	if len(r) == 0 || subtle.ConstantTimeCompare([]byte(r[fToken]), []byte(token)) != 1 {
		return nil, false, nil
	}
	return r, true, nil
}

// verify answers a verification of intent: the challenge for the topic
// and mode pending at this callback, a 200 for a denial of it, else 404.
func (s *Subscriber) verify(w http.ResponseWriter, r *http.Request, source, fid, token string) {
	ctx, cancel := context.WithTimeout(r.Context(), pushTimeout)
	defer cancel()
	q := r.URL.Query()
	mode, topic, challenge := q.Get("hub.mode"), q.Get("hub.topic"), q.Get("hub.challenge")
	rec, ok, err := s.lookup(ctx, source, fid, token)
	if err != nil {
		s.log.Error("websub: verification", "source", source, "err", err)
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !ok || (mode != "denied" && challenge == "") {
		http.NotFound(w, r)
		return
	}
	arg := q.Get("hub.lease_seconds")
	if mode == "denied" {
		arg = q.Get("hub.reason")
		if arg == "" {
			arg = "no reason given"
		}
	}
	now := s.clock.Now()
	n, err := verifyCmd.Run(ctx, s.rdb, []string{s.subKey(source, fid)}, token, mode, topic, arg, ms(now),
		ms(now.Add(24*time.Hour))).Int()
	if err != nil {
		s.log.Error("websub: verification", "source", source, "err", err)
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	switch n {
	case 1:
		s.log.Info("websub: subscription verified", "source", source, "feed", rec[fFeed], "hub", rec[fHub], "topic", topic, "lease_seconds", arg)
		metrics.WebSubRequests.WithLabelValues("subscribe", "verified").Inc()
	case 2:
		s.rdb.SRem(ctx, s.indexKey(), source+"/"+fid)
		s.log.Info("websub: unsubscription verified", "source", source, "feed", rec[fFeed], "hub", rec[fHub])
		metrics.WebSubRequests.WithLabelValues("unsubscribe", "verified").Inc()
	case 3:
		s.log.Warn("websub: the hub denied the subscription; polls go on", "source", source, "feed", rec[fFeed], "hub", rec[fHub], "reason", arg)
		metrics.WebSubRequests.WithLabelValues("subscribe", "denied").Inc()
		w.WriteHeader(http.StatusOK)
		return
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, challenge)
}

// push takes a hub's content distribution: see the package comment. A
// valid push, and one whose signature is wrong, both get 202 (a forger
// learns nothing from the answer); a push to no subscription gets 404, an
// oversized one 413, and one that Redis could not take 503, so that the
// hub tries again.
func (s *Subscriber) push(w http.ResponseWriter, r *http.Request, source, fid, token string) {
	ctx, cancel := context.WithTimeout(r.Context(), pushTimeout)
	defer cancel()
	rec, ok, err := s.lookup(ctx, source, fid, token)
	switch {
	case err != nil:
		s.log.Error("websub: push", "source", source, "err", err)
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	case !ok:
		s.reject(w, r, RejectUnknown, http.StatusNotFound)
		return
	case rec[fState] != StateActive || !rec.ms(fLeaseEnd).After(s.clock.Now()):
		s.rejected(ctx, source, fid, token, RejectInactive)
		s.reject(w, r, RejectInactive, http.StatusNotFound)
		return
	}
	sig, newHash, ok := parseSignature(r.Header.Get("X-Hub-Signature"))
	if !ok {
		why := RejectBadSignature
		if r.Header.Get("X-Hub-Signature") == "" {
			why = RejectNoSignature
		}
		s.rejected(ctx, source, fid, token, why)
		s.reject(w, r, why, http.StatusAccepted)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.o.MaxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.rejected(ctx, source, fid, token, RejectTooLarge)
			s.reject(w, r, RejectTooLarge, http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "body not read", http.StatusBadRequest)
		return
	}
	m := hmac.New(newHash, []byte(rec[fSecret]))
	m.Write(body)
	if !hmac.Equal(m.Sum(nil), sig) {
		s.rejected(ctx, source, fid, token, RejectBadSignature)
		s.reject(w, r, RejectBadSignature, http.StatusAccepted)
		return
	}
	n, err := s.crawl.Pushed(ctx, source, rec[fTopic], r.Header, body)
	if err != nil && isUnreadable(err) {
		s.log.Warn("websub: a signed push could not be read", "source", source, "hub", rec[fHub], "err", err)
		s.rejected(ctx, source, fid, token, RejectUnreadable)
		s.reject(w, r, RejectUnreadable, http.StatusAccepted)
		return
	}
	if err != nil {
		s.log.Error("websub: push not queued", "source", source, "err", err)
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if err := countCmd.Run(ctx, s.rdb, []string{s.subKey(source, fid)}, token, fPushes, ms(s.clock.Now())).Err(); err != nil {
		s.log.Warn("websub: count push", "source", source, "err", err)
	}
	metrics.WebSubPushes.WithLabelValues(source).Inc()
	s.log.Info("websub: push", "source", source, "topic", rec[fTopic], "new", n)
	w.WriteHeader(http.StatusAccepted)
}

// isUnreadable reports whether Pushed failed on the content (a resend
// would fail again) rather than on Redis.
func isUnreadable(err error) bool {
	type unreadable interface{ PushUnreadable() bool }
	var u unreadable
	if errors.As(err, &u) {
		return u.PushUnreadable()
	}
	return errors.Is(err, ErrUnreadable)
}

// ErrUnreadable may be wrapped by Feeds.Pushed's error for content that
// cannot be read as a feed: the push is then rejected (RejectUnreadable)
// rather than failed with 503.
var ErrUnreadable = errors.New("pushed content cannot be read")

// rejected counts a rejected push on its subscription (whose callback
// it was sent to: never a hash of its own).
func (s *Subscriber) rejected(ctx context.Context, source, fid, token, why string) {
	if err := countCmd.Run(ctx, s.rdb, []string{s.subKey(source, fid)}, token, fRejected, ms(s.clock.Now())).Err(); err != nil {
		s.log.Warn("websub: count rejected push", "source", source, "err", err)
	}
}

// reject answers a rejected push or callback and counts it by reason.
func (s *Subscriber) reject(w http.ResponseWriter, r *http.Request, why string, status int) {
	if r.Method == http.MethodPost {
		metrics.WebSubRejected.WithLabelValues(why).Inc()
		s.log.Debug("websub: push rejected", "path", r.URL.Path, "reason", why)
	}
	if status == http.StatusAccepted {
		w.WriteHeader(status)
		return
	}
	http.Error(w, http.StatusText(status), status)
}

// parseSignature reads X-Hub-Signature: "method=hex", method one of
// sha1, sha256, sha384, sha512.
func parseSignature(v string) (sig []byte, newHash func() hash.Hash, ok bool) {
	method, hexSig, found := strings.Cut(strings.TrimSpace(v), "=")
	if !found {
		return nil, nil, false
	}
	switch strings.ToLower(method) {
	case "sha1":
		newHash = sha1.New
	case "sha256":
		newHash = sha256.New
	case "sha384":
		newHash = sha512.New384
	case "sha512":
		newHash = sha512.New
	default:
		return nil, nil, false
	}
	sig, err := hex.DecodeString(hexSig)
	if err != nil || len(sig) != newHash().Size() {
		return nil, nil, false
	}
	return sig, newHash, true
}
