package websub_test

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/newsrank/newsrank/crawler/websub"
	"github.com/newsrank/newsrank/internal/websubhub"
)

// Forged and hostile pushes: each stores nothing, counts a rejection,
// loses nothing already queued, and the callback keeps serving (a valid
// push afterwards still works).

// twoSources subscribes world (rss) and sports (atom) at the hub.
func twoSources(t *testing.T, o envOptions) (e *env, world, sports websubhub.Subscription) {
	t.Helper()
	o.sources = []srcSpec{{"world", "rss", "/world/rss.xml"}, {"sports", "atom", "/sports/atom.xml"}}
	e = newEnv(t, o)
	e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss(""))
	e.site.set("/sports/atom.xml", linkHeader(e.hubURL(), ""), e.site.atom(""))
	e.maintain()
	for _, s := range e.hub.Subscriptions("") {
		if strings.Contains(s.Topic, "/world/") {
			world = s
		} else {
			sports = s
		}
	}
	if world.Callback == "" || sports.Callback == "" {
		t.Fatalf("subscriptions: %+v", e.hub.Subscriptions(""))
	}
	return e, world, sports
}

// stillWorks publishes a new world article through the hub and checks
// that it is queued.
func stillWorks(t *testing.T, e *env, article string) {
	t.Helper()
	topic := e.site.URL() + "/world/rss.xml"
	e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss("", article))
	if n, err := e.hub.Publish(e.ctx, topic); err != nil || n != 1 {
		t.Fatalf("a valid push after the attack: delivered %d, %v", n, err)
	}
	got := e.queued("world")
	if len(got) != 1 || got[0] != e.site.URL()+article {
		t.Fatalf("queued %v after a valid push, want %s", got, article)
	}
}

func signed(secret string, body []byte) http.Header {
	return http.Header{"X-Hub-Signature": {websubhub.Sign("sha256", secret, body)}, "Content-Type": {"application/rss+xml"}}
}

func TestForgedPushes(t *testing.T) {
	cases := []struct {
		name string
		// push sends the forged push; it returns the status the callback
		// must answer.
		push func(e *env, world, sports websubhub.Subscription) (got, want int)
		// rejected: the rejections counted on world's subscription.
		rejected int64
	}{
		{"no signature", func(e *env, w, _ websubhub.Subscription) (int, int) {
			return e.post(w.Callback, http.Header{"Content-Type": {"application/rss+xml"}}, []byte(e.site.rss("", "/x.html"))), http.StatusAccepted
		}, 1},
		{"unknown signature method", func(e *env, w, _ websubhub.Subscription) (int, int) {
			body := []byte(e.site.rss("", "/x.html"))
			sig := strings.Replace(websubhub.Sign("sha256", w.Secret, body), "sha256", "md5", 1)
			return e.post(w.Callback, http.Header{"X-Hub-Signature": {sig}}, body), http.StatusAccepted
		}, 1},
		{"wrong secret", func(e *env, w, _ websubhub.Subscription) (int, int) {
			body := []byte(e.site.rss("", "/x.html"))
			return e.post(w.Callback, signed("not the secret", body), body), http.StatusAccepted
		}, 1},
		{"another subscription's secret", func(e *env, w, s websubhub.Subscription) (int, int) {
			body := []byte(e.site.rss("", "/x.html"))
			return e.post(w.Callback, signed(s.Secret, body), body), http.StatusAccepted
		}, 1},
		{"signature of another body", func(e *env, w, _ websubhub.Subscription) (int, int) {
			body := []byte(e.site.rss("", "/x.html"))
			return e.post(w.Callback, signed(w.Secret, []byte(e.site.rss(""))), body), http.StatusAccepted
		}, 1},
		{"a topic never subscribed (a guessed callback)", func(e *env, w, _ websubhub.Subscription) (int, int) {
			body := []byte(e.site.rss("", "/x.html"))
			guess := e.callback.URL + websub.CallbackPath + "world/" + websub.FeedID(e.site.URL()+"/other.xml") + "/" + strings.Repeat("a", 32)
			return e.post(guess, signed(w.Secret, body), body), http.StatusNotFound
		}, 0},
		{"the right subscription, a guessed token", func(e *env, w, _ websubhub.Subscription) (int, int) {
			body := []byte(e.site.rss("", "/x.html"))
			guess := w.Callback[:len(w.Callback)-32] + strings.Repeat("b", 32)
			return e.post(guess, signed(w.Secret, body), body), http.StatusNotFound
		}, 0},
		{"oversized body, validly signed", func(e *env, w, _ websubhub.Subscription) (int, int) {
			body := []byte(e.site.rss("<!--" + strings.Repeat("x", int(e.maxBody)) + "-->"))
			return e.post(w.Callback, signed(w.Secret, body), body), http.StatusRequestEntityTooLarge
		}, 1},
		{"compressed bomb, validly signed", func(e *env, w, _ websubhub.Subscription) (int, int) {
			var b bytes.Buffer
			z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			z.Write([]byte(e.site.rss("", "/x.html")[:200]))
			z.Write(make([]byte, 64<<20)) // 64 MiB of zeros: about 64 KiB compressed
			z.Close()
			h := signed(w.Secret, b.Bytes())
			h.Set("Content-Encoding", "gzip")
			return e.post(w.Callback, h, b.Bytes()), http.StatusAccepted
		}, 1},
		{"signed, but not a feed", func(e *env, w, _ websubhub.Subscription) (int, int) {
			body := []byte("<html><body>hello</body></html>")
			return e.post(w.Callback, signed(w.Secret, body), body), http.StatusAccepted
		}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, world, sports := twoSources(t, envOptions{})
			got, want := c.push(e, world, sports)
			if got != want {
				t.Errorf("answered %d, want %d", got, want)
			}
			if n := e.pending("world") + e.pending("sports"); n != 0 {
				t.Fatalf("%d URLs queued by a forged push", n)
			}
			st := e.status("world")
			if st.Rejected != c.rejected || st.Pushes != 0 || st.State != websub.StateActive {
				t.Fatalf("status %+v, want %d rejected, no push, still active", st, c.rejected)
			}
			if st := e.status("sports"); st.Rejected != 0 {
				t.Fatalf("sports counted %d rejections for a push to world", st.Rejected)
			}
			stillWorks(t, e, "/a/after.html")
		})
	}
}

func TestReplayAfterUnsubscribe(t *testing.T) {
	e, world, _ := twoSources(t, envOptions{})
	// Capture a valid push to world, as an eavesdropper would.
	body := []byte(e.site.rss("", "/a/1.html"))
	h := signed(world.Secret, body)
	if code := e.post(world.Callback, h, body); code != http.StatusAccepted {
		t.Fatalf("valid push answered %d", code)
	}
	if got := e.queued("world"); len(got) != 1 {
		t.Fatalf("queued %v, want the pushed article", got)
	}
	// world leaves the configuration: unsubscribed, verified by the hub.
	e.rebuild([]websub.Feed{{Source: "sports", URL: e.site.URL() + "/sports/atom.xml"}})
	if rep := e.maintain(); rep.Unsubscribed != 1 {
		t.Fatalf("Maintain = %+v, want world unsubscribed", rep)
	}
	replay := []byte(e.site.rss("", "/a/1.html", "/a/2.html"))
	for _, b := range [][]byte{body, replay} {
		if code := e.post(world.Callback, signed(world.Secret, b), b); code != http.StatusNotFound {
			t.Fatalf("replay to an unsubscribed topic answered %d, want 404", code)
		}
	}
	if n := e.pending("world"); n != 0 {
		t.Fatalf("a replay queued %d URLs", n)
	}
	// The verification of the old subscription cannot be replayed either.
	code, _ := e.get(world.Callback, url.Values{"hub.mode": {"subscribe"}, "hub.topic": {world.Topic}, "hub.challenge": {"x"}, "hub.lease_seconds": {"60"}})
	if code != http.StatusNotFound {
		t.Fatalf("verification at an unsubscribed callback answered %d", code)
	}
}

// TestPushFlood sends 1,000 pushes (forged ones of every kind, and valid
// ones for articles already queued, in a bounded loop, from 8 clients at
// once) and then checks that nothing was stored but the one valid
// article, every forged push was counted, and the callback still serves.
func TestPushFlood(t *testing.T) {
	e, world, sports := twoSources(t, envOptions{})
	valid := []byte(e.site.rss("", "/a/valid.html"))
	forged := []byte(e.site.rss("", "/a/forged.html"))
	kinds := []func() int{
		func() int { return e.post(world.Callback, http.Header{}, forged) },
		func() int { return e.post(world.Callback, signed(sports.Secret, forged), forged) },
		func() int { return e.post(world.Callback, signed("guess", forged), forged) },
		func() int { return e.post(world.Callback, signed(world.Secret, valid), valid) },
	}
	const total, clients = 1000, 8
	codes := make(chan int, total)
	done := make(chan struct{})
	for c := range clients {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := c; i < total; i += clients {
				codes <- kinds[i%len(kinds)]()
			}
		}()
	}
	for range clients {
		<-done
	}
	close(codes)
	for code := range codes {
		if code != http.StatusAccepted {
			t.Fatalf("a push of the flood answered %d", code)
		}
	}
	got := e.queued("world")
	if len(got) != 1 || got[0] != e.site.URL()+"/a/valid.html" {
		t.Fatalf("queued %v, want the valid article only", got)
	}
	st := e.status("world")
	if st.Pushes != total/4 || st.Rejected != total*3/4 {
		t.Fatalf("status %+v, want %d pushes and %d rejected", st, total/4, total*3/4)
	}
	stillWorks(t, e, "/a/after.html")
}
