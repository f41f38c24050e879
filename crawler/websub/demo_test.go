package websub_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/websub"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/internal/websubhub"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// TestDemoSitePublishesThroughItsHub wires what `newsrank demo` wires: the
// demo site announcing a hub served beside it, the crawler configured
// from the site's sources, the subscriber on the feeds config picks. The
// site's feeds get subscribed, and each article the site publishes later
// reaches its source's queue through the hub, before any poll.
func TestDemoSitePublishesThroughItsHub(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now().Truncate(time.Second)
	k := clock.NewFake(start)
	site := demosite.New(demosite.Options{Articles: 40, Now: start, Clock: k, Hub: "/hub", Upcoming: 4, UpcomingEvery: time.Minute})
	hub := websubhub.New(websubhub.Options{Log: quiet()})
	defer hub.Close()
	mux := http.NewServeMux()
	mux.Handle("/hub", hub)
	mux.Handle("/", site)
	siteSrv := httptest.NewServer(mux)
	defer siteSrv.Close()

	cfg := config.DefaultConfig()
	cfg.Crawler.Sources = config.DemoSources(site.Sources(siteSrv.URL))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	copts, err := cfg.Crawler.Options()
	if err != nil {
		t.Fatal(err)
	}
	copts.DenyPrivateNetworks, copts.Delay, copts.Jitter = false, 0, 0
	rdb := redistest.Start(t).Client()
	store, err := news.New(rdb, prefix, news.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c, err := crawler.New(copts, queue.DefaultOptions(), rdb, prefix, store, crawler.WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	var sub *websub.Subscriber
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sub.Handler().ServeHTTP(w, r) }))
	defer cb.Close()
	feeds := cfg.Crawler.WebSubFeeds()
	if len(feeds) != 2 {
		t.Fatalf("feeds to subscribe: %+v, want world's RSS and sports' Atom", feeds)
	}
	sub, err = websub.New(rdb, prefix, feeds, c, websub.Options{PublicURL: cb.URL, Transport: c.Transport(), Log: quiet(), Clock: k})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := sub.Maintain(ctx); err != nil || rep.Subscribed != 2 {
		t.Fatalf("Maintain = %+v, %v; want both feeds subscribed", rep, err)
	}
	if err := hub.Idle(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(hub.Subscriptions("")); n != 2 {
		t.Fatalf("hub holds %d subscriptions, want 2", n)
	}

	pubs := site.Publications()
	if len(pubs) != 4 {
		t.Fatalf("Publications = %+v, want 4", pubs)
	}
	for _, p := range pubs {
		k.Set(p.At)
		n, err := hub.Publish(ctx, siteSrv.URL+p.Feed)
		if err != nil || n != 1 {
			t.Fatalf("publish %s: delivered %d, %v", p.Feed, n, err)
		}
		source := "world"
		if p.Feed == demosite.FeedPaths["sports"] {
			source = "sports"
		}
		urls, err := c.Queue(source).TryClaim(ctx, 100, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, u := range urls {
			found = found || u == siteSrv.URL+p.Path
		}
		if !found {
			t.Fatalf("after %q was published in %s, the queue had %v", p.Title, p.Feed, urls)
		}
	}
}
