package crawler

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// TestCrawlDemoSite crawls the bundled demo site end to end — every
// source kind, GBK pages, JSON-LD, OpenGraph, <time>, robots.txt — into a
// real redis-server through the real queue and news store, and checks the
// stored articles against the site's ground truth.
func TestCrawlDemoSite(t *testing.T) {
	for _, tt := range []struct {
		name    string
		sources func(*demosite.Site, string) []demosite.Source
	}{
		{"Sources", (*demosite.Site).Sources},         // each section its own way in
		{"HTMLSources", (*demosite.Site).HTMLSources}, // list pages only
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			now := time.Now().UTC().Truncate(time.Second)
			site := demosite.New(demosite.Options{Articles: 240, Now: now, Seed: 4})
			srv := httptest.NewServer(site)
			t.Cleanup(srv.Close)

			e.opts.Workers = 8
			e.opts.Sources = demoSources(tt.sources(site, srv.URL))
			c, err := New(e.opts, e.qopts, e.rdb, testPrefix, e.store, WithLogger(quietLog()),
				WithTransport(http.DefaultTransport.(*http.Transport).Clone()), WithQueueOptions(queue.WithLogger(quietLog())))
			if err != nil {
				t.Fatal(err)
			}
			rep := e.runOnce(c)
			if fs := rep.FailedSources(); len(fs) > 0 {
				t.Fatalf("failed sources %v: %+v", fs, rep)
			}

			window := news.DefaultOptions().Window
			var fresh, old int
			byPath := map[string]demosite.ArticleInfo{}
			for _, a := range site.Articles() {
				byPath[a.Path] = a
				if now.Sub(a.PostTime) > window {
					old++
				} else {
					fresh++
				}
			}
			tot := rep.Totals()
			if tot.Created != int64(fresh) || tot.TooOld != int64(old) {
				t.Errorf("created %d, too old %d; the site has %d articles in the window and %d older", tot.Created, tot.TooOld, fresh, old)
			}
			// Private pages are linked from some list pages; robots.txt keeps
			// the crawler out, and says so.
			if got := tot.Failed[fetch.ReasonRobots]; tt.name == "HTMLSources" || got > 0 {
				if got != int64(len(site.PrivateArticles())) {
					t.Errorf("robots failures = %d, want %d (the private articles)", got, len(site.PrivateArticles()))
				}
			}
			if other := tot.Failures() - tot.Failed[fetch.ReasonRobots]; other != 0 {
				t.Errorf("unexpected failures: %v", tot.Failed)
			}
			for _, p := range site.PrivateArticles() {
				if _, err := e.article(srv.URL + p.Path); err == nil {
					t.Errorf("private article %s stored", p.Path)
				}
			}

			chinese, gbk := 0, 0
			for path, want := range byPath {
				got, err := e.article(srv.URL + path)
				if now.Sub(want.PostTime) > window {
					if err == nil {
						t.Errorf("%s: stored, but older than the window", path)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s (%s): %v", path, want.Section, err)
					continue
				}
				if got.Title != want.Title {
					t.Errorf("%s (%s): title %q, want %q", path, want.Section, got.Title, want.Title)
				}
				if !got.PostTime.Equal(want.PostTime) {
					t.Errorf("%s (%s): post time %v, want %v", path, want.Section, got.PostTime, want.PostTime)
				}
				if got.Comments != want.Comments {
					t.Errorf("%s (%s): comments %d, want %d", path, want.Section, got.Comments, want.Comments)
				}
				if want.Source != "" && got.Source != want.Source && got.Source != want.Section {
					t.Errorf("%s (%s): source %q, want %q", path, want.Section, got.Source, want.Source)
				}
				if want.Charset == "gbk" {
					gbk++
				}
				if isCJK(want.Title) {
					chinese++
				}
			}
			if chinese == 0 || gbk == 0 {
				t.Errorf("the crawl checked %d Chinese titles and %d GBK pages; the demo site has both", chinese, gbk)
			}

			// Every section's group holds its fresh articles.
			for _, src := range e.opts.Sources {
				want := 0
				for _, a := range byPath {
					if a.Section == src.Name && now.Sub(a.PostTime) <= window {
						want++
					}
				}
				page, err := e.store.GroupList(context.Background(), src.Name, news.ByTime, 1, 25)
				if err != nil || page.Total != want {
					t.Errorf("group %s: %d articles (err %v), want %d", src.Name, page.Total, err, want)
				}
			}
		})
	}
}

func isCJK(s string) bool {
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}

// demoSources compiles the demo site's sources.
func demoSources(srcs []demosite.Source) []Source {
	out := make([]Source, 0, len(srcs))
	for _, d := range srcs {
		j, x := d.JSON, d.Extract
		out = append(out, Source{
			Name: d.Name, Label: d.Label, Kind: d.Kind, URLs: d.URLs, Groups: d.Groups, MaxPages: d.MaxPages,
			LinkSelector: sel(d.LinkSelector), NextSelector: sel(d.NextSelector), PageTemplate: d.PageTemplate, FirstPage: d.FirstPage,
			JSON: extract.JSONList{ItemsPath: j.ItemsPath, URLTemplate: j.URLTemplate, Fields: j.Fields,
				Offset: extract.OffsetPagination{Start: j.Offset.Start, Step: j.Offset.Step, Limit: j.Offset.Limit}},
			Config: extract.Config{Selectors: extract.Selectors{Title: sel(x.Title), PostTime: sel(x.PostTime), Source: sel(x.Source),
				Comments: sel(x.Comments), Body: sel(x.Body)},
				TimeLayouts: d.TimeLayouts, TimeZone: d.TimeZone},
		})
	}
	return out
}
