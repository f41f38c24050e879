package websub_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/websub"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/internal/websubhub"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

const prefix = "t:"

// env is one test's world: a real redis-server, a publisher's site, a
// real hub on its own server, the crawler with its sources, and the
// subscriber's callbacks on a server of their own (the daemon's web
// server, as far as the hub can tell).
type env struct {
	t        *testing.T
	ctx      context.Context
	rdb      *redis.Client
	site     *publisher
	hub      *websubhub.Hub
	hubSrv   *httptest.Server
	hubMux   *http.ServeMux
	callback *httptest.Server
	crawler  *crawler.Crawler
	sub      *websub.Subscriber
	sources  []crawler.Source
	opts     websub.Options
	maxBody  int64
}

// envOptions shape an env.
type envOptions struct {
	hub     websubhub.Options
	maxBody int64
	// sources: kind and path of each source's feed on the site; default
	// one rss source "world" at /world/rss.xml.
	sources []srcSpec
}

type srcSpec struct{ name, kind, path string }

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	srv := redistest.Start(t)
	e := &env{t: t, ctx: ctx, rdb: srv.Client(), maxBody: o.maxBody}
	if e.maxBody == 0 {
		e.maxBody = 1 << 20
	}
	e.site = newPublisher(t)

	e.hubMux = http.NewServeMux()
	e.hubSrv = httptest.NewServer(e.hubMux)
	t.Cleanup(e.hubSrv.Close)
	if o.hub.RetryDelay == 0 {
		o.hub.RetryDelay = time.Millisecond
	}
	o.hub.Log = quiet()
	e.hub = websubhub.New(o.hub)
	t.Cleanup(e.hub.Close)
	e.hubMux.Handle("/hub", e.hub)

	if len(o.sources) == 0 {
		o.sources = []srcSpec{{"world", "rss", "/world/rss.xml"}}
	}
	for _, s := range o.sources {
		e.sources = append(e.sources, crawler.Source{Name: s.name, Kind: s.kind, URLs: []string{e.site.URL() + s.path}})
	}
	e.buildCrawler()

	mux := http.NewServeMux()
	e.callback = httptest.NewServer(mux)
	t.Cleanup(e.callback.Close)
	mux.Handle(websub.CallbackPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.subscriber().Handler().ServeHTTP(w, r)
	}))
	e.opts = websub.Options{PublicURL: e.callback.URL, Lease: 24 * time.Hour, MaxBody: e.maxBody, Log: quiet(),
		Transport: e.crawler.Transport(), UserAgent: "newsrank-test"}
	e.rebuild(e.feeds())
	return e
}

var subMu sync.Mutex

func (e *env) subscriber() *websub.Subscriber {
	subMu.Lock()
	defer subMu.Unlock()
	return e.sub
}

func (e *env) buildCrawler() {
	o := crawler.DefaultOptions()
	o.DenyPrivateNetworks = false // every server of the test is on 127.0.0.1
	o.ObeyRobots = false
	o.Delay, o.Jitter = 0, 0
	o.MaxBodySize = e.maxBody
	o.Sources = e.sources
	store, err := news.New(e.rdb, prefix, news.DefaultOptions())
	if err != nil {
		e.t.Fatal(err)
	}
	c, err := crawler.New(o, queue.DefaultOptions(), e.rdb, prefix, store, crawler.WithLogger(quiet()))
	if err != nil {
		e.t.Fatal(err)
	}
	e.crawler = c
}

// feeds are the crawler's sources' feeds.
func (e *env) feeds() []websub.Feed {
	var out []websub.Feed
	for _, s := range e.sources {
		for _, u := range s.URLs {
			out = append(out, websub.Feed{Source: s.Name, URL: u})
		}
	}
	return out
}

// rebuild makes the subscriber anew for feeds (a restart with another
// configuration), on the same Redis.
func (e *env) rebuild(feeds []websub.Feed) {
	s, err := websub.New(e.rdb, prefix, feeds, e.crawler, e.opts)
	if err != nil {
		e.t.Fatal(err)
	}
	subMu.Lock()
	e.sub = s
	subMu.Unlock()
}

func (e *env) hubURL() string { return e.hubSrv.URL + "/hub" }

// maintain runs one maintenance pass and waits for the hub's
// verifications it caused.
func (e *env) maintain() websub.Report {
	e.t.Helper()
	rep, err := e.subscriber().Maintain(e.ctx)
	if err != nil {
		e.t.Fatalf("Maintain: %v", err)
	}
	if err := e.hub.Idle(e.ctx); err != nil {
		e.t.Fatal(err)
	}
	return rep
}

func (e *env) status(source string) websub.Status {
	e.t.Helper()
	sts, err := e.subscriber().Statuses(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, st := range sts {
		if st.Source == source {
			return st
		}
	}
	e.t.Fatalf("no status for %s in %+v", source, sts)
	return websub.Status{}
}

// queued claims and returns the URLs queued for source.
func (e *env) queued(source string) []string {
	e.t.Helper()
	urls, err := e.crawler.Queue(source).TryClaim(e.ctx, 1000, time.Minute)
	if err != nil {
		e.t.Fatal(err)
	}
	slices.Sort(urls)
	return urls
}

// pending is how many URLs wait in source's queue.
func (e *env) pending(source string) int64 {
	e.t.Helper()
	st, err := e.crawler.Queue(source).Stats(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return st.Pending
}

// post sends a push to a callback by hand.
func (e *env) post(callback string, header http.Header, body []byte) int {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.ctx, http.MethodPost, callback, strings.NewReader(string(body)))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// get sends a verification by hand.
func (e *env) get(callback string, q url.Values) (int, string) {
	e.t.Helper()
	res, err := http.Get(callback + "?" + q.Encode())
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// only returns the only subscription the hub has, failing otherwise.
func (e *env) only() websubhub.Subscription {
	e.t.Helper()
	subs := e.hub.Subscriptions("")
	if len(subs) != 1 {
		e.t.Fatalf("hub has %d subscriptions, want 1: %+v", len(subs), subs)
	}
	return subs[0]
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// publisher is the publisher's site: each path serves a document with
// headers the test sets, and can be changed while the test runs.
type publisher struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	pages map[string]page
}

type page struct {
	status int
	header http.Header
	body   string
}

func newPublisher(t *testing.T) *publisher {
	p := &publisher{t: t, pages: map[string]page{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		pg, ok := p.pages[r.URL.Path]
		p.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, vs := range pg.header {
			w.Header()[k] = vs
		}
		if pg.status != 0 {
			w.WriteHeader(pg.status)
		}
		io.WriteString(w, pg.body)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *publisher) URL() string { return p.srv.URL }

func (p *publisher) set(path string, header http.Header, body string) {
	p.setStatus(path, 0, header, body)
}

func (p *publisher) setStatus(path string, status int, header http.Header, body string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if header == nil {
		header = http.Header{}
	}
	p.pages[path] = page{status: status, header: header, body: body}
}

// redirect makes path answer status with a Location of to.
func (p *publisher) redirect(path string, status int, to string) {
	p.setStatus(path, status, http.Header{"Location": {to}}, "")
}

// rss is an RSS 2.0 feed of the articles (paths on the site), with links
// (raw XML) in its channel.
func (p *publisher) rss(links string, articles ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>World</title><link>` + p.URL() + `/world/</link>
<description>World news</description>` + links)
	for i, a := range articles {
		fmt.Fprintf(&b, "<item><title>Article %s</title><link>%s%s</link><pubDate>%s</pubDate></item>\n",
			a, p.URL(), a, time.Now().Add(-time.Duration(i)*time.Minute).UTC().Format(time.RFC1123Z))
	}
	b.WriteString("</channel></rss>")
	return b.String()
}

// atom is an Atom feed of the articles, with links in its feed element.
func (p *publisher) atom(links string, articles ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Sports</title><id>urn:test:sports</id><updated>` +
		time.Now().UTC().Format(time.RFC3339) + `</updated>` + links)
	for i, a := range articles {
		fmt.Fprintf(&b, `<entry><title>Article %s</title><id>urn:test:%s</id><link rel="alternate" href="%s%s"/><updated>%s</updated></entry>`+"\n",
			a, a, p.URL(), a, time.Now().Add(-time.Duration(i)*time.Minute).UTC().Format(time.RFC3339))
	}
	b.WriteString("</feed>")
	return b.String()
}

// linkHeader is a Link header announcing hub and self.
func linkHeader(hub, self string) http.Header {
	h := http.Header{}
	if hub != "" {
		h.Add("Link", "<"+hub+`>; rel="hub"`)
	}
	if self != "" {
		h.Add("Link", "<"+self+`>; rel="self"`)
	}
	return h
}

// atomLinks are the atom:link elements of an RSS channel.
func atomLinks(hub, self string) string {
	s := ""
	if hub != "" {
		s += `<atom:link rel="hub" href="` + hub + `"/>`
	}
	if self != "" {
		s += `<atom:link rel="self" href="` + self + `" type="application/rss+xml"/>`
	}
	return s
}
