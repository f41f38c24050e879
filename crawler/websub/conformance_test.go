package websub_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler/websub"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/websubhub"
)

// The subscriber cases of the WebSub conformance suite (websub.rocks),
// each named by its number, against a real hub (internal/websubhub): the
// subscriber discovers, the hub verifies intent at the callback and
// distributes signed content, and the test looks at what the hub holds
// and what the crawler queued.

// subscribed runs a maintenance pass and checks that the hub holds one
// active subscription to topic, made with a secret, and that the
// subscriber says so.
func subscribed(t *testing.T, e *env, source, topic string) websubhub.Subscription {
	t.Helper()
	rep := e.maintain()
	if rep.Subscribed != 1 {
		t.Fatalf("Maintain = %+v, want one subscription requested", rep)
	}
	s := e.only()
	if s.Topic != topic {
		t.Fatalf("hub subscription topic = %q, want %q", s.Topic, topic)
	}
	if s.Secret == "" {
		t.Fatalf("subscription made without hub.secret")
	}
	if st := e.status(source); st.State != websub.StateActive || st.Topic != topic {
		t.Fatalf("status = %+v, want active on %s", st, topic)
	}
	return s
}

func TestDiscovery(t *testing.T) {
	t.Run("100 HTTP header discovery", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		self := e.site.URL() + "/world/rss.xml"
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), self), e.site.rss("", "/a/1.html"))
		s := subscribed(t, e, "world", self)
		if s.Hub != e.hubURL() {
			t.Errorf("subscribed at %q, want %q", s.Hub, e.hubURL())
		}
	})
	t.Run("101 HTML tag discovery", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		self := e.site.URL() + "/world/"
		e.site.set("/world/rss.xml", http.Header{"Content-Type": {"text/html"}},
			`<!doctype html><html><head><title>World</title><link rel="hub" href="`+e.hubURL()+`"><link rel="self" href="/world/"></head>`+
				`<body><link rel="hub" href="http://elsewhere.invalid/hub"></body></html>`)
		subscribed(t, e, "world", self)
	})
	t.Run("102 Atom feed discovery", func(t *testing.T) {
		e := newEnv(t, envOptions{sources: []srcSpec{{"sports", "atom", "/sports/atom.xml"}}})
		self := e.site.URL() + "/sports/atom.xml"
		e.site.set("/sports/atom.xml", nil, e.site.atom(`<link rel="hub" href="`+e.hubURL()+`"/><link rel="self" href="`+self+`"/>`, "/s/1.html"))
		subscribed(t, e, "sports", self)
	})
	t.Run("103 RSS feed discovery", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		self := e.site.URL() + "/world/rss.xml"
		e.site.set("/world/rss.xml", nil, e.site.rss(atomLinks(e.hubURL(), self), "/a/1.html"))
		subscribed(t, e, "world", self)
	})
	t.Run("104 Discovery priority", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		self := e.site.URL() + "/world/rss.xml"
		// The body names another hub and self: the headers win.
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), self),
			e.site.rss(atomLinks("http://body-hub.invalid/hub", e.site.URL()+"/body-self.xml"), "/a/1.html"))
		s := subscribed(t, e, "world", self)
		if s.Hub != e.hubURL() {
			t.Errorf("subscribed at %q, want the header's hub %q", s.Hub, e.hubURL())
		}
	})
	t.Run("no hub announced: polled only, looked at again later", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		e.site.set("/world/rss.xml", nil, e.site.rss("", "/a/1.html"))
		rep := e.maintain()
		if rep.NoHub != 1 || rep.Subscribed != 0 || len(e.hub.Subscriptions("")) != 0 {
			t.Fatalf("Maintain = %+v, hub subscriptions %d", rep, len(e.hub.Subscriptions("")))
		}
		st := e.status("world")
		if st.State != websub.StateNone || st.Next.IsZero() {
			t.Fatalf("status = %+v, want none with a next look", st)
		}
		if rep := e.maintain(); rep.NoHub != 0 {
			t.Fatalf("the feed was fetched again before Rediscover: %+v", rep)
		}
	})
}

func TestSubscription(t *testing.T) {
	t.Run("1xx creates a subscription with a secret and the lease asked for", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		self := e.site.URL() + "/world/rss.xml"
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), self), e.site.rss(""))
		before := time.Now()
		s := subscribed(t, e, "world", self)
		after := time.Now()
		if s.Expires.Before(before.Add(24*time.Hour)) || s.Expires.After(after.Add(24*time.Hour)) {
			t.Errorf("hub lease ends %s, want 24h after the request", s.Expires)
		}
		st := e.status("world")
		if st.LeaseEnd.Before(before.Add(24*time.Hour).Truncate(time.Millisecond)) || st.LeaseEnd.After(after.Add(24*time.Hour)) {
			t.Errorf("subscriber's lease end %s, want 24h after the verification", st.LeaseEnd)
		}
		if len(s.Secret) < 32 {
			t.Errorf("secret %q is short", s.Secret)
		}
	})
	t.Run("1xx callback URLs are unique per subscription and unguessable", func(t *testing.T) {
		e := newEnv(t, envOptions{sources: []srcSpec{{"world", "rss", "/world/rss.xml"}, {"sports", "atom", "/sports/atom.xml"}}})
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss(""))
		e.site.set("/sports/atom.xml", linkHeader(e.hubURL(), ""), e.site.atom(""))
		e.maintain()
		subs := e.hub.Subscriptions("")
		if len(subs) != 2 || subs[0].Callback == subs[1].Callback || subs[0].Secret == subs[1].Secret {
			t.Fatalf("subscriptions %+v: want two, with their own callbacks and secrets", subs)
		}
		for _, s := range subs {
			token := s.Callback[strings.LastIndex(s.Callback, "/")+1:]
			if len(token) != 32 || !strings.HasPrefix(s.Callback, e.callback.URL+websub.CallbackPath) {
				t.Errorf("callback %q: want %s… ending in 128 random bits", s.Callback, e.callback.URL+websub.CallbackPath)
			}
		}
	})
	t.Run("1xx renews before the lease ends, same callback", func(t *testing.T) {
		k := clock.NewFake(time.Now())
		e := newEnv(t, envOptions{hub: websubhub.Options{Clock: k}})
		e.opts.Clock = k
		e.rebuild(e.feeds())
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss(""))
		first := subscribed(t, e, "world", e.site.URL()+"/world/rss.xml")
		k.Advance(12 * time.Hour)
		if rep := e.maintain(); rep.Renewed != 0 {
			t.Fatalf("renewed with half the lease left: %+v", rep)
		}
		k.Advance(8 * time.Hour) // a fifth of the lease left, less 48 minutes
		rep := e.maintain()
		if rep.Renewed != 1 {
			t.Fatalf("Maintain = %+v, want a renewal", rep)
		}
		again := e.only()
		if again.Callback != first.Callback || again.Secret != first.Secret || !again.Expires.After(first.Expires) {
			t.Fatalf("renewal %+v, first %+v: want the same callback and secret, a later lease end", again, first)
		}
		if st := e.status("world"); st.Renewals != 1 || st.State != websub.StateActive || !st.LeaseEnd.Equal(k.Now().Add(24*time.Hour).Truncate(time.Millisecond)) {
			t.Fatalf("status %+v, want active with one renewal, its lease from the renewal", st)
		}
	})
	t.Run("1xx a lease that ended without renewal: subscribed anew, the old callback dead", func(t *testing.T) {
		k := clock.NewFake(time.Now())
		e := newEnv(t, envOptions{hub: websubhub.Options{Clock: k}})
		e.opts.Clock = k
		e.rebuild(e.feeds())
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss(""))
		first := subscribed(t, e, "world", e.site.URL()+"/world/rss.xml")
		k.Advance(25 * time.Hour)
		if n := len(e.hub.Subscriptions("")); n != 0 {
			t.Fatalf("hub kept %d subscriptions past their lease", n)
		}
		if iv, _ := e.subscriber().PushPoll(e.ctx, "world", 0); iv != 0 {
			t.Fatalf("a lapsed subscription keeps polls at %s, want the ordinary schedule", iv)
		}
		rep := e.maintain()
		if rep.Subscribed != 1 {
			t.Fatalf("Maintain = %+v, want a new subscription", rep)
		}
		if s := e.only(); s.Callback == first.Callback || s.Secret == first.Secret {
			t.Fatalf("the new subscription reuses the lapsed one's callback or secret")
		}
		body := []byte(e.site.rss("", "/a/old.html"))
		code := e.post(first.Callback, http.Header{"X-Hub-Signature": {websubhub.Sign("sha256", first.Secret, body)}}, body)
		if code != http.StatusNotFound || e.pending("world") != 0 {
			t.Fatalf("a push to the lapsed callback answered %d and queued %d", code, e.pending("world"))
		}
	})
	t.Run("200 subscribes to the topic's self URL, not the URL fetched", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		self := e.site.URL() + "/world/canonical.xml"
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), self), e.site.rss(""))
		subscribed(t, e, "world", self)
	})
	for _, c := range []struct {
		name   string
		status int
	}{{"201 topic URL with a 302 temporary redirect", http.StatusFound}, {"202 topic URL with a 301 permanent redirect", http.StatusMovedPermanently}} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			moved := e.site.URL() + "/world/moved.xml"
			e.site.redirect("/world/rss.xml", c.status, moved)
			e.site.set("/world/moved.xml", linkHeader(e.hubURL(), moved), e.site.rss(""))
			subscribed(t, e, "world", moved)
		})
	}
	for _, c := range []struct {
		name      string
		status    int
		permanent bool
	}{
		{"203 hub with a 302 temporary redirect", http.StatusFound, false},
		{"203 hub with a 307 temporary redirect", http.StatusTemporaryRedirect, false},
		{"204 hub with a 301 permanent redirect", http.StatusMovedPermanently, true},
		{"204 hub with a 308 permanent redirect", http.StatusPermanentRedirect, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			old := e.hubSrv.URL + "/old-hub"
			e.hubMux.Handle("/old-hub", http.RedirectHandler(e.hubURL(), c.status))
			e.site.set("/world/rss.xml", linkHeader(old, ""), e.site.rss(""))
			subscribed(t, e, "world", e.site.URL()+"/world/rss.xml")
			want := old
			if c.permanent {
				want = e.hubURL()
			}
			if st := e.status("world"); st.Hub != want {
				t.Errorf("subscription's hub = %q, want %q", st.Hub, want)
			}
		})
	}
	t.Run("205 rejects a verification request with an invalid topic URL", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		self := e.site.URL() + "/world/rss.xml"
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), self), e.site.rss(""))
		// The hub verifies at once; make it verify another topic by
		// having someone else ask it for our callback with another topic.
		s := subscribed(t, e, "world", self)
		form := url.Values{"hub.mode": {"subscribe"}, "hub.topic": {e.site.URL() + "/other.xml"}, "hub.callback": {s.Callback}}
		res, err := http.PostForm(e.hubURL(), form)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if err := e.hub.Idle(e.ctx); err != nil {
			t.Fatal(err)
		}
		if n := e.hub.Verified("failed"); n != 1 {
			t.Fatalf("the hub's verification of another topic was confirmed (failed verifications: %d)", n)
		}
		if got := e.hub.Subscriptions(e.site.URL() + "/other.xml"); len(got) != 0 {
			t.Fatalf("hub holds %+v for a topic never asked for", got)
		}
		// By hand: wrong topic, wrong mode, no challenge, wrong token.
		for _, q := range []url.Values{
			{"hub.mode": {"subscribe"}, "hub.topic": {self + "x"}, "hub.challenge": {"c1"}, "hub.lease_seconds": {"60"}},
			{"hub.mode": {"unsubscribe"}, "hub.topic": {self}, "hub.challenge": {"c2"}},
			{"hub.mode": {"subscribe"}, "hub.topic": {self}, "hub.lease_seconds": {"60"}},
		} {
			if code, body := e.get(s.Callback, q); code != http.StatusNotFound || strings.Contains(body, "c1") || strings.Contains(body, "c2") {
				t.Errorf("verification %v answered %d %q, want 404", q, code, body)
			}
		}
		forged := s.Callback[:len(s.Callback)-32] + strings.Repeat("0", 32)
		if code, _ := e.get(forged, url.Values{"hub.mode": {"subscribe"}, "hub.topic": {self}, "hub.challenge": {"c"}, "hub.lease_seconds": {"60"}}); code != http.StatusNotFound {
			t.Errorf("verification at a guessed callback answered %d, want 404", code)
		}
		if st := e.status("world"); st.State != websub.StateActive {
			t.Errorf("status %+v after forged verifications, want still active", st)
		}
	})
	t.Run("1xx denied by the hub: polls go on, tried again later", func(t *testing.T) {
		e := newEnv(t, envOptions{hub: websubhub.Options{Deny: func(string, string) string { return "not today" }}})
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss(""))
		e.maintain()
		st := e.status("world")
		if st.State != websub.StateDenied || !strings.Contains(st.Reason, "not today") || st.Next.IsZero() {
			t.Fatalf("status %+v, want denied with the hub's reason and a retry", st)
		}
		if iv, _ := e.subscriber().PushPoll(e.ctx, "world", 0); iv != 0 {
			t.Fatalf("a denied source is polled every %s, want its ordinary schedule", iv)
		}
	})
	t.Run("1xx a hub that refuses the request: failed, retried with backoff", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		e.hubMux.HandleFunc("/broken-hub", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "we are down", http.StatusServiceUnavailable)
		})
		e.site.set("/world/rss.xml", linkHeader(e.hubSrv.URL+"/broken-hub", ""), e.site.rss(""))
		rep := e.maintain()
		st := e.status("world")
		if rep.Failed != 1 || st.State != websub.StateFailed || !strings.Contains(st.Reason, "503") || st.Next.IsZero() {
			t.Fatalf("Maintain %+v, status %+v: want failed, with the hub's answer, retried later", rep, st)
		}
		if rep := e.maintain(); rep.Failed != 0 || rep.Subscribed != 0 {
			t.Fatalf("tried again before the backoff: %+v", rep)
		}
	})
	t.Run("1xx unsubscribes a removed source", func(t *testing.T) {
		e := newEnv(t, envOptions{sources: []srcSpec{{"world", "rss", "/world/rss.xml"}, {"sports", "atom", "/sports/atom.xml"}}})
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss(""))
		e.site.set("/sports/atom.xml", linkHeader(e.hubURL(), ""), e.site.atom(""))
		e.maintain()
		if n := len(e.hub.Subscriptions("")); n != 2 {
			t.Fatalf("hub has %d subscriptions, want 2", n)
		}
		e.rebuild([]websub.Feed{{Source: "world", URL: e.site.URL() + "/world/rss.xml"}})
		rep := e.maintain()
		if rep.Unsubscribed != 1 {
			t.Fatalf("Maintain = %+v, want one unsubscription", rep)
		}
		subs := e.hub.Subscriptions("")
		if len(subs) != 1 || !strings.Contains(subs[0].Topic, "/world/") {
			t.Fatalf("hub holds %+v, want world's only", subs)
		}
		if n, _ := e.rdb.Exists(e.ctx, "t:{crawl:sports}:websub:"+feedIDOf(e.site.URL()+"/sports/atom.xml")).Result(); n != 0 {
			t.Fatalf("sports' subscription is still in Redis")
		}
		if n, _ := e.rdb.SCard(e.ctx, "t:websub:subs").Result(); n != 1 {
			t.Fatalf("index holds %d subscriptions, want 1", n)
		}
	})
	t.Run("1xx a source whose feed URL changed: the old topic is unsubscribed, the new one subscribed", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss(""))
		e.site.set("/world/v2.xml", linkHeader(e.hubURL(), ""), e.site.rss(""))
		e.maintain()
		e.rebuild([]websub.Feed{{Source: "world", URL: e.site.URL() + "/world/v2.xml"}})
		rep := e.maintain()
		if rep.Subscribed != 1 || rep.Unsubscribed != 1 {
			t.Fatalf("Maintain = %+v, want one subscription and one unsubscription", rep)
		}
		if s := e.only(); s.Topic != e.site.URL()+"/world/v2.xml" {
			t.Fatalf("hub holds %+v, want the new topic only", s)
		}
	})
	t.Run("one maintenance pass at a time across processes", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss(""))
		if err := e.rdb.Set(e.ctx, "t:websub:lock", "another daemon", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		if rep := e.maintain(); !rep.Locked || rep.Subscribed != 0 {
			t.Fatalf("Maintain = %+v under another's lock, want Locked and nothing done", rep)
		}
		e.rdb.Del(e.ctx, "t:websub:lock")
		if rep := e.maintain(); rep.Subscribed != 1 {
			t.Fatalf("Maintain = %+v, want a subscription", rep)
		}
	})
}

func TestDistribution(t *testing.T) {
	for _, alg := range []string{"sha1", "sha256", "sha384", "sha512"} {
		t.Run("300 returns 2xx and queues the pushed articles, signed with "+alg, func(t *testing.T) {
			e := newEnv(t, envOptions{hub: websubhub.Options{Algorithm: alg}})
			self := e.site.URL() + "/world/rss.xml"
			e.site.set("/world/rss.xml", linkHeader(e.hubURL(), self), e.site.rss("", "/a/1.html"))
			subscribed(t, e, "world", self)
			e.site.set("/world/rss.xml", linkHeader(e.hubURL(), self), e.site.rss("", "/a/2.html", "/a/1.html"))
			n, err := e.hub.Publish(e.ctx, self)
			if err != nil || n != 1 {
				t.Fatalf("Publish = %d, %v; want delivered to the one subscriber", n, err)
			}
			got := e.queued("world")
			want := []string{e.site.URL() + "/a/1.html", e.site.URL() + "/a/2.html"}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("queued %v, want %v", got, want)
			}
			st := e.status("world")
			if st.Pushes != 1 || st.Rejected != 0 || st.LastPush.IsZero() {
				t.Fatalf("status %+v, want one push", st)
			}
		})
	}
	t.Run("301 rejects a distribution with an invalid signature", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		self := e.site.URL() + "/world/rss.xml"
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), self), e.site.rss(""))
		s := subscribed(t, e, "world", self)
		body := []byte(e.site.rss("", "/a/forged.html"))
		sig := websubhub.Sign("sha256", s.Secret, body)
		bad := sig[:len(sig)-1] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", sig[len(sig)-1])+1)%16])
		code := e.post(s.Callback, http.Header{"X-Hub-Signature": {bad}, "Content-Type": {"application/rss+xml"}}, body)
		if code/100 != 2 {
			t.Errorf("answered %d, want 2xx (the forger learns nothing)", code)
		}
		if n := e.pending("world"); n != 0 {
			t.Fatalf("%d URLs queued from a push with a bad signature", n)
		}
		if st := e.status("world"); st.Rejected != 1 || st.Pushes != 0 {
			t.Fatalf("status %+v, want one rejected push", st)
		}
	})
	t.Run("302 rejects a distribution with no signature", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		self := e.site.URL() + "/world/rss.xml"
		e.site.set("/world/rss.xml", linkHeader(e.hubURL(), self), e.site.rss(""))
		s := subscribed(t, e, "world", self)
		e.post(s.Callback, http.Header{"Content-Type": {"application/rss+xml"}}, []byte(e.site.rss("", "/a/forged.html")))
		if n := e.pending("world"); n != 0 {
			t.Fatalf("%d URLs queued from an unsigned push", n)
		}
		if st := e.status("world"); st.Rejected != 1 {
			t.Fatalf("status %+v, want one rejected push", st)
		}
	})
}

func feedIDOf(u string) string { return websub.FeedID(u) }
