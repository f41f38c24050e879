package crawler

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/queue"
)

// TestProduceRidesThroughRedisRestart kills Redis (appendonly, fsync
// always) while the producer walks a site of 3,000 article URLs over 30
// list pages and 30 list API pages, and starts it again only once both
// sources have begun retrying their push (go-redis's own retries of a
// command are over by then, however long they last): the pushes that
// met the dead Redis (the HTML list's and the list API's page 10) are
// retried,
// the walks go on from the page they were at,
// and every URL of the site ends up queued, with its list fields.
func TestProduceRidesThroughRedisRestart(t *testing.T) {
	e, r := newRestartableEnv(t)

	const pages, per = 30, 50
	const strikeAt = 10 // the list page (of both sources) at which Redis dies
	// Both sources' page 10 wait until both have arrived and Redis has
	// been killed, so each one's push of page 10 meets the dead Redis
	// whatever the scheduling; the request timeout is raised so that the
	// wait for the slower walk cannot time a page out.
	arrived, struck := make(chan string, 2), make(chan struct{})
	var siteOnce, apiOnce sync.Once
	for p := 1; p <= pages; p++ {
		var b strings.Builder
		b.WriteString(`<ul class="list">`)
		for i := range per {
			fmt.Fprintf(&b, `<a class="t" href="/a/%d-%d.html">x</a>`, p, i)
		}
		b.WriteString(`</ul>`)
		if p < pages {
			fmt.Fprintf(&b, `<a class="next" href="/list/%d">next</a>`, p+1)
		}
		body := b.String()
		e.site.handle(fmt.Sprintf("%s/list/%d", host, p), func(w http.ResponseWriter, r *http.Request) {
			if p == strikeAt {
				siteOnce.Do(func() { arrived <- "site" })
				<-struck // Redis is dead before the page's URLs are pushed
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, body)
		})
		var items []string
		for i := range per {
			items = append(items, fmt.Sprintf(`{"u":"http://%s/api/%d-%d.html","t":"API %d-%d"}`, apiHost, p, i, p, i))
		}
		api := `{"items":[` + strings.Join(items, ",") + `]}`
		e.site.handle(fmt.Sprintf("%s/api/%d", apiHost, p), func(w http.ResponseWriter, r *http.Request) {
			if p == strikeAt {
				apiOnce.Do(func() { arrived <- "api" })
				<-struck // this page's push meets the dead Redis too
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, api)
		})
	}
	e.opts.RequestTimeout = time.Minute
	retrying := &retryWatch{want: map[string]bool{"site": true, "api": true}, all: make(chan struct{})}
	c := e.newCrawler([]Source{
		{Name: "site", Kind: "html", URLs: []string{"http://" + host + "/list/1"}, LinkSelector: sel("a.t"),
			NextSelector: sel("a.next"), MaxPages: pages},
		{Name: "api", Kind: "json", URLs: []string{"http://" + apiHost + "/api/{page}"}, MaxPages: pages,
			JSON: extract.JSONList{ItemsPath: "items", Fields: map[string]string{"url": "u", "title": "t"}}},
	}, WithTransport(e.site.transport()), WithLogger(slog.New(retrying)))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	produced := make(chan ProduceReport, 1)
	go func() {
		rep, err := c.Produce(ctx)
		if err != nil {
			t.Errorf("Produce: %v", err)
		}
		produced <- rep
	}()
	<-arrived
	<-arrived
	r.Kill()
	close(struck)
	select {
	case <-retrying.all:
	case <-ctx.Done():
		t.Fatal("the producer never retried a push of both sources while Redis was down")
	}
	r.Start()
	rep := <-produced

	// New is not compared with Found: a push that Redis carried out just
	// before it died, whose reply was lost, is retried and then finds its
	// URLs already pending. What is in the queue is checked below.
	for _, p := range rep.Sources {
		if p.Err != nil || p.Pages != pages || p.Found != pages*per {
			t.Errorf("source %s: %+v; want %d pages read and %d URLs found", p.Name, p, pages, pages*per)
		}
		if p.Retried == 0 {
			t.Errorf("source %s: no push retried, though Redis died before page %d's: %+v", p.Name, strikeAt, p)
		}
	}
	if rep.Retried() == 0 {
		t.Errorf("ProduceReport.Retried() = 0")
	}
	for _, name := range []string{"site", "api"} {
		st, err := c.Queue(name).Stats(ctx)
		if err != nil || st.Pending != pages*per {
			t.Errorf("queue %s: %+v (%v), want all %d URLs pending", name, st, err, pages*per)
		}
	}
	urls := make([]string, 0, pages*per)
	for p := 1; p <= pages; p++ {
		for i := range per {
			urls = append(urls, fmt.Sprintf("http://%s/api/%d-%d.html", apiHost, p, i))
		}
	}
	var entries []queue.Entry
	for len(entries) < len(urls) {
		got, err := c.Queue("api").TryClaimEntries(ctx, 1000, time.Minute)
		if err != nil || len(got) == 0 {
			t.Fatalf("claimed %d of %d: %v", len(entries), len(urls), err)
		}
		entries = append(entries, got...)
	}
	for i, it := range c.claimedFields(ctx, apiSource(c), entries) {
		if it.Title == "" {
			t.Errorf("%s: list fields lost", entries[i].URL)
			break
		}
	}
}

// retryWatch is a slog.Handler that closes all once every source in want
// has logged that it is retrying a push.
type retryWatch struct {
	mu   sync.Mutex
	want map[string]bool
	all  chan struct{}
}

func (h *retryWatch) Enabled(context.Context, slog.Level) bool { return true }
func (h *retryWatch) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *retryWatch) WithGroup(string) slog.Handler            { return h }

func (h *retryWatch) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "Redis failed during a push, retrying" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "source" {
			return true
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.want[a.Value.String()] {
			delete(h.want, a.Value.String())
			if len(h.want) == 0 {
				close(h.all)
			}
		}
		return false
	})
	return nil
}

func apiSource(c *Crawler) *source {
	for _, s := range c.sources {
		if s.cfg.Name == "api" {
			return s
		}
	}
	return nil
}
