package crawler

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/config"
)

// TestProduceRidesThroughRedisRestart kills Redis (appendonly, fsync
// always) while the producer walks a site of 3,000 article URLs over 30
// list pages and 30 list API pages, and starts it again 3 seconds later
// (longer than go-redis's own retries last): the pushes that met the
// dead Redis (the HTML list's and the list API's page 10) are retried,
// the walks go on from the page they were at,
// and every URL of the site ends up queued, with its list fields.
func TestProduceRidesThroughRedisRestart(t *testing.T) {
	e, r := newRestartableEnv(t)

	const pages, per = 30, 50
	const strikeAt = 10 // the HTML list page at which Redis dies
	strike, struck := make(chan struct{}), make(chan struct{})
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
				strike <- struct{}{}
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
				<-struck // this page's push meets the dead Redis too
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, api)
		})
	}
	c := e.crawler(
		config.Source{Name: "site", Kind: "html", URLs: []string{"http://" + host + "/list/1"}, LinkSelector: "a.t",
			NextSelector: "a.next", MaxPages: pages},
		config.Source{Name: "api", Kind: "json", URLs: []string{"http://" + apiHost + "/api/{page}"}, MaxPages: pages,
			JSON: config.JSONList{ItemsPath: "items", Fields: map[string]string{"url": "u", "title": "t"}}},
	)
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
	<-strike
	r.Kill()
	close(struck)
	time.Sleep(3 * time.Second)
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
	items, err := c.loadItems(ctx, "api", urls)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range items {
		if it.Title == "" {
			t.Errorf("%s: list fields lost", urls[i])
			break
		}
	}
}
