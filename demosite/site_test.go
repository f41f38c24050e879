package demosite

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestOptionsAndGroundTruth(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		before := time.Now()
		s := New(Options{})
		if got := len(s.Articles()); got != DefaultArticles {
			t.Errorf("Articles() has %d articles, want the default %d", got, DefaultArticles)
		}
		if s.Now().Before(before.Add(-time.Second)) || s.Now().After(time.Now()) {
			t.Errorf("zero Now became %v, want the time New was called (~%v)", s.Now(), before)
		}
	})
	for _, n := range []int{1, 7, 120, 1000} {
		s := New(Options{Articles: n, Now: testNow, Seed: 3})
		as := s.Articles()
		if len(as) != n {
			t.Fatalf("Articles: %d, want %d", len(as), n)
		}
		counts := map[string]int{}
		paths := map[string]bool{}
		stale := 0
		for i, a := range as {
			counts[a.Section]++
			if paths[a.Path] {
				t.Errorf("duplicate path %s", a.Path)
			}
			paths[a.Path] = true
			if a.Title == "" || a.Source == "" || a.Summary == "" {
				t.Errorf("incomplete article %+v", a)
			}
			if a.Private {
				t.Errorf("Articles() includes private %s", a.Path)
			}
			if !a.PostTime.Before(testNow) || a.PostTime.Before(testNow.Add(-week-staleMax-time.Minute)) {
				t.Errorf("%s: post time %v outside the week (+%v) before %v", a.Path, a.PostTime, staleMax, testNow)
			}
			if a.PostTime.Before(testNow.Add(-week)) {
				stale++
			}
			if a.PostTime.Nanosecond() != 0 || a.PostTime.Location() != time.UTC {
				t.Errorf("%s: post time %v is not whole UTC seconds", a.Path, a.PostTime)
			}
			if a.Comments < 0 {
				t.Errorf("%s: negative comments", a.Path)
			}
			if i > 0 && a.PostTime.After(as[i-1].PostTime) {
				t.Errorf("Articles not newest first at %d", i)
			}
		}
		if n >= 120 && (stale == 0 || stale > n/10) {
			t.Errorf("%d articles: %d older than a week, want a few", n, stale)
		}
		if n >= 6 {
			if len(counts) != 6 {
				t.Errorf("%d articles in %d sections, want 6: %v", n, len(counts), counts)
			}
			lo, hi := n, 0
			for _, c := range counts {
				lo, hi = min(lo, c), max(hi, c)
			}
			if hi-lo > 1 {
				t.Errorf("uneven sections: %v", counts)
			}
		}
		for _, p := range s.PrivateArticles() {
			if !p.Private || !strings.HasPrefix(p.Path, "/private/") || paths[p.Path] {
				t.Errorf("bad private article %+v", p)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	opts := Options{Articles: 300, Now: testNow, Seed: 42}
	s1, srv1 := serve(t, opts)
	s2, srv2 := serve(t, opts)
	if !slices.Equal(s1.Articles(), s2.Articles()) || !slices.Equal(s1.PrivateArticles(), s2.PrivateArticles()) {
		t.Fatal("same options, different ground truth")
	}
	paths := []string{"/", "/robots.txt", "/world/rss.xml", "/sports/atom.xml", "/finance/sitemap_index.xml",
		"/finance/sitemap_news.xml", "/api/list/news/0-50.html?callback=artiList", "/tech/list_2.html"}
	for _, sec := range s1.sections {
		paths = append(paths, sec.listPath(1), sec.listPath(sec.pages))
	}
	for i, a := range s1.Articles() {
		if i%17 == 0 {
			paths = append(paths, a.Path)
		}
	}
	paths = append(paths, s1.PrivateArticles()[0].Path)
	for _, p := range paths {
		b1 := bytes.ReplaceAll(get(t, srv1, p).body, []byte(srv1.URL), []byte("BASE"))
		b2 := bytes.ReplaceAll(get(t, srv2, p).body, []byte(srv2.URL), []byte("BASE"))
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s differs between two sites with the same options", p)
		}
	}

	other := New(Options{Articles: 300, Now: testNow, Seed: 43}).Articles()
	same := 0
	for i, a := range s1.Articles() {
		if other[i].Title == a.Title {
			same++
		}
	}
	if same > 30 {
		t.Errorf("seeds 42 and 43 share %d of 300 titles", same)
	}

	later := New(Options{Articles: 300, Now: testNow.Add(time.Hour), Seed: 42}).Articles()
	for i, a := range s1.Articles() {
		if later[i].Title != a.Title || !later[i].PostTime.Equal(a.PostTime.Add(time.Hour)) {
			t.Fatalf("Now+1h should shift post times by 1h: %s vs %s", fmtInfo(a), fmtInfo(later[i]))
		}
	}

	// Growing the site keeps the first articles' content.
	bigger := byPath(New(Options{Articles: 600, Now: testNow, Seed: 42}).Articles())
	for _, a := range s1.Articles() {
		if b, ok := bigger[a.Path]; !ok || b != a {
			t.Fatalf("article %s changed when the site grew", a.Path)
		}
	}
}

func TestDelay(t *testing.T) {
	const d = 30 * time.Millisecond
	_, srv := serve(t, Options{Articles: 10, Now: testNow, Delay: d})
	start := time.Now()
	getOK(t, srv, "/robots.txt", "text/plain")
	if el := time.Since(start); el < d {
		t.Errorf("response after %v, want at least the %v delay", el, d)
	}
}

func TestConcurrentRequests(t *testing.T) {
	s, srv := serve(t, Options{Articles: 240, Now: testNow, Seed: 4})
	as := s.Articles()
	errs := make(chan error, 8)
	for w := range 8 {
		go func() {
			for i := w; i < len(as); i += 8 {
				resp, err := srv.Client().Get(srv.URL + as[i].Path)
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("%s: status %d", as[i].Path, resp.StatusCode)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
