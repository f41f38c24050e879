package websubhub

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
)

// subscriber is a minimal hand-written subscriber: it confirms the
// verifications it is told to, and records what it is sent.
type subscriber struct {
	mu      sync.Mutex
	confirm bool
	checks  []url.Values
	pushes  []*http.Request
	bodies  []string
}

func (s *subscriber) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == http.MethodGet {
		s.checks = append(s.checks, r.URL.Query())
		if s.confirm {
			io.WriteString(w, r.URL.Query().Get("hub.challenge"))
			return
		}
		http.NotFound(w, r)
		return
	}
	b, _ := io.ReadAll(r.Body)
	s.pushes = append(s.pushes, r)
	s.bodies = append(s.bodies, string(b))
}

func TestHub(t *testing.T) {
	ctx := context.Background()
	k := clock.NewFake(time.Now())
	h := New(Options{Clock: k, Algorithm: "sha512", RetryDelay: time.Millisecond})
	defer h.Close()
	hubSrv := httptest.NewServer(h)
	defer hubSrv.Close()
	sub := &subscriber{confirm: true}
	subSrv := httptest.NewServer(sub)
	defer subSrv.Close()
	topic := subSrv.URL + "/topic"
	ask := func(form url.Values) int {
		res, err := http.PostForm(hubSrv.URL, form)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if err := h.Idle(ctx); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode
	}

	if code := ask(url.Values{"hub.mode": {"subscribe"}, "hub.topic": {"not a url"}, "hub.callback": {subSrv.URL + "/cb"}}); code != http.StatusBadRequest {
		t.Fatalf("bad topic: %d, want 400", code)
	}
	if code := ask(url.Values{"hub.mode": {"subscribe"}, "hub.topic": {topic}, "hub.callback": {subSrv.URL + "/cb?x=1"},
		"hub.secret": {"s3cret"}, "hub.lease_seconds": {"3600"}}); code != http.StatusAccepted {
		t.Fatalf("subscribe: %d, want 202", code)
	}
	q := sub.checks[0]
	if q.Get("hub.mode") != "subscribe" || q.Get("hub.topic") != topic || q.Get("hub.lease_seconds") != "3600" || q.Get("hub.challenge") == "" || q.Get("x") != "1" {
		t.Fatalf("verification query %v", q)
	}
	subs := h.Subscriptions(topic)
	if len(subs) != 1 || subs[0].Secret != "s3cret" || !subs[0].Expires.Equal(k.Now().Add(time.Hour)) {
		t.Fatalf("subscriptions %+v", subs)
	}

	n, err := h.Distribute(ctx, topic, "application/atom+xml", []byte("<feed/>"))
	if err != nil || n != 1 {
		t.Fatalf("Distribute = %d, %v", n, err)
	}
	p := sub.pushes[0]
	if p.Header.Get("Content-Type") != "application/atom+xml" || sub.bodies[0] != "<feed/>" ||
		p.Header.Get("X-Hub-Signature") != Sign("sha512", "s3cret", []byte("<feed/>")) ||
		!strings.Contains(strings.Join(p.Header.Values("Link"), ","), "<"+topic+`>; rel="self"`) {
		t.Fatalf("push headers %v body %q", p.Header, sub.bodies[0])
	}

	// A subscriber that does not confirm is not subscribed.
	sub.confirm = false
	ask(url.Values{"hub.mode": {"subscribe"}, "hub.topic": {topic}, "hub.callback": {subSrv.URL + "/other"}})
	if h.Verified("failed") != 1 || len(h.Subscriptions(topic)) != 1 {
		t.Fatalf("an unconfirmed subscription was taken: %+v", h.Subscriptions(topic))
	}
	// Leases end.
	k.Advance(time.Hour)
	if subs := h.Subscriptions(""); len(subs) != 0 {
		t.Fatalf("subscriptions past their lease: %+v", subs)
	}
	// Unsubscription, verified.
	sub.confirm = true
	ask(url.Values{"hub.mode": {"subscribe"}, "hub.topic": {topic}, "hub.callback": {subSrv.URL + "/cb"}})
	ask(url.Values{"hub.mode": {"unsubscribe"}, "hub.topic": {topic}, "hub.callback": {subSrv.URL + "/cb"}})
	if subs := h.Subscriptions(""); len(subs) != 0 || h.Verified("unsubscribe") != 1 {
		t.Fatalf("unsubscribe left %+v", subs)
	}
}
