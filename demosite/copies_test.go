package demosite

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/newsrank/newsrank/internal/coverage"
)

// TestStoriesPublished: Options.Stories (AllStories) adds one article per
// report of the coverage set, each in a UTF-8 section of its language, an
// event's reports spread over sections, the post times the set's shifted
// so that the latest is Now; the other articles are those of the site
// without stories. A report's page carries its title as the headline,
// its summary as the meta description and its lead's paragraphs as the
// body, and nothing more.
func TestStoriesPublished(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	plain := New(Options{Articles: 60, Now: testNow, Seed: 3})
	site, srv := serve(t, Options{Articles: 60, Now: testNow, Seed: 3, Stories: AllStories})
	reports, paths := site.StoryCopies()
	if len(reports.Articles) != len(set.Articles) || len(paths) != len(set.Articles) || len(reports.LookAlikes) != len(set.LookAlikes) {
		t.Fatalf("%d reports (%d paths), %d look-alike pairs published; want the set's %d, %d",
			len(reports.Articles), len(paths), len(reports.LookAlikes), len(set.Articles), len(set.LookAlikes))
	}
	shift := testNow.Sub(set.Articles[0].Published)
	for i, a := range set.Articles {
		shift = min(shift, testNow.Sub(a.Published))
		if got := reports.Articles[i]; got.Event != a.Event || got.Title != a.Title || got.Lead != a.Lead {
			t.Fatalf("report %d is %s %q, want the set's %s %q", i, got.Event, got.Title, a.Event, a.Title)
		}
	}
	info := byPath(site.Articles())
	others, latest := 0, time.Time{}
	sections := map[string]map[string]bool{} // event → its reports' sections
	for _, a := range site.Articles() {
		if a.Story == "" {
			others++
		}
	}
	for i, r := range set.Articles {
		a, ok := info[paths[i]]
		if !ok {
			t.Fatalf("report %d (%s) at %s: not among the site's articles", i, r.Event, paths[i])
		}
		if a.Story != r.Event || a.Title != r.Title || a.Summary != r.Summary || a.Source != r.Outlet {
			t.Errorf("%s: %s %q %q by %s; want %s %q %q by %s", a.Path, a.Story, a.Title, a.Summary, a.Source, r.Event, r.Title, r.Summary, r.Outlet)
		}
		if want := r.Published.Add(shift).UTC(); !a.PostTime.Equal(want) || !reports.Articles[i].Published.Equal(want) {
			t.Errorf("%s: posted %v (StoryCopies: %v), want the set's %v shifted by %v", a.Path, a.PostTime, reports.Articles[i].Published, r.Published, shift)
		}
		if a.PostTime.After(latest) {
			latest = a.PostTime
		}
		if en := a.Section == "world" || a.Section == "tech" || a.Section == "sports"; a.Charset != "utf-8" || en != (r.Lang == coverage.English) {
			t.Errorf("%s: a %s report in section %s (%s)", a.Path, r.Lang, a.Section, a.Charset)
		}
		if sections[r.Event] == nil {
			sections[r.Event] = map[string]bool{}
		}
		sections[r.Event][a.Section] = true
	}
	if !latest.Equal(testNow) {
		t.Errorf("the latest report is posted at %v, want Now %v", latest, testNow)
	}
	if others != len(plain.Articles()) {
		t.Errorf("%d other articles, want the %d of the site without stories", others, len(plain.Articles()))
	}
	spread := 0
	for _, secs := range sections {
		if len(secs) > 1 {
			spread++
		}
	}
	if spread < len(sections)/2 {
		t.Errorf("%d of %d events have reports in several sections", spread, len(sections))
	}

	bodySel := map[string]string{} // section → its body's selector
	for _, src := range site.Sources(srv.URL) {
		bodySel[src.Name] = src.Extract.Body
	}
	for i, r := range set.Articles {
		if i%40 != 0 && i != len(set.Articles)-1 {
			continue
		}
		doc := htmlDoc(t, getOK(t, srv, srv.URL+paths[i], "text/html"))
		if got := strings.TrimSpace(doc.Find("h1").First().Text()); got != r.Title {
			t.Errorf("%s: headline %q, want %q", paths[i], got, r.Title)
		}
		if got, _ := doc.Find(`meta[name="description"], meta[property="og:description"]`).First().Attr("content"); got != r.Summary {
			t.Errorf("%s: description %q, want %q", paths[i], got, r.Summary)
		}
		var body []string
		doc.Find(bodySel[info[paths[i]].Section]).Find("p").Each(func(_ int, p *goquery.Selection) {
			body = append(body, strings.TrimSpace(p.Text()))
		})
		if want := paragraphs(r.Lead); !slices.Equal(body, want) {
			t.Errorf("%s: body paragraphs\n%q\nwant the lead's\n%q", paths[i], body, want)
		}
	}
}

// TestStoriesChosen: a count of events publishes the reports of the
// events that began last, every report of each, the latest posted at Now;
// the same options give the same site.
func TestStoriesChosen(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	began := map[string]time.Time{}
	for _, a := range set.Articles {
		if b, ok := began[a.Event]; !ok || a.Published.Before(b) {
			began[a.Event] = a.Published
		}
	}
	opts := Options{Articles: 120, Now: testNow, Seed: 5, Stories: 10}
	site, srv := serve(t, opts)
	reports, paths := site.StoryCopies()
	events := map[string]int{}
	for _, a := range reports.Articles {
		events[a.Event]++
	}
	if len(events) != 10 {
		t.Fatalf("%d events published, want 10", len(events))
	}
	for e, n := range events {
		all := 0
		for _, a := range set.Articles {
			if a.Event == e {
				all++
			}
		}
		if n != all {
			t.Errorf("event %s: %d of its %d reports published", e, n, all)
		}
		for o, b := range began {
			if events[o] == 0 && b.After(began[e]) {
				t.Errorf("event %s (began %v) published, %s (began later, %v) not", e, began[e], o, b)
			}
		}
	}
	latest := time.Time{}
	for _, a := range reports.Articles {
		if a.Published.After(latest) {
			latest = a.Published
		}
	}
	if !latest.Equal(testNow) {
		t.Errorf("latest report at %v, want %v", latest, testNow)
	}

	again, srv2 := serve(t, opts)
	if !slices.Equal(site.Articles(), again.Articles()) {
		t.Fatal("same options, different articles")
	}
	for _, p := range append(paths[:3:3], "/guonei/", "/world/rss.xml", "/api/list/news/0-20.html?callback=artiList") {
		b1 := bytes.ReplaceAll(get(t, srv, p).body, []byte(srv.URL), []byte("BASE"))
		b2 := bytes.ReplaceAll(get(t, srv2, p).body, []byte(srv2.URL), []byte("BASE"))
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s differs between two sites with the same options", p)
		}
	}
}
