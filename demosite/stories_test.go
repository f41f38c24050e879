package demosite

import (
	"strings"
	"testing"
	"time"
)

// TestStoriesPublished: Options.Stories adds one article per copy of the
// labelled stories (StorySet with the site's seed and now), each in a
// UTF-8 section of its language, the copies of one story spread over
// sections; the other articles are those of the site without stories.
func TestStoriesPublished(t *testing.T) {
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	plain := New(Options{Articles: 60, Now: now, Seed: 3})
	site, srv := serve(t, Options{Articles: 60, Now: now, Seed: 3, Stories: 12})
	set := StorySet(3, 12, now)
	copies := map[string][]ArticleInfo{}
	others := 0
	for _, a := range site.Articles() {
		if a.Story == "" {
			others++
			continue
		}
		copies[a.Story] = append(copies[a.Story], a)
		if a.Charset != "utf-8" || (a.Section == "world" || a.Section == "tech" || a.Section == "sports") == isCJKText(a.Title) {
			t.Errorf("copy %q in section %s (%s)", a.Title, a.Section, a.Charset)
		}
	}
	if others != len(plain.Articles()) {
		t.Errorf("%d other articles, want the %d of the site without stories", others, len(plain.Articles()))
	}
	n, spread := 0, 0
	for _, cs := range copies {
		n += len(cs)
		secs := map[string]bool{}
		for _, c := range cs {
			secs[c.Section] = true
		}
		if len(secs) > 1 {
			spread++
		}
	}
	if n != len(set) || len(copies) != 12 || spread == 0 {
		t.Errorf("%d copies of %d stories (%d in several sections), want the set's %d copies of 12", n, len(copies), spread, len(set))
	}
	for _, l := range set {
		found := false
		for _, a := range copies[l.Story] {
			found = found || a.Title == l.Title && a.Summary == l.Summary && a.PostTime.Equal(l.PostTime.Truncate(time.Second))
		}
		if !found {
			t.Errorf("copy %q of %s not published", l.Title, l.Story)
		}
	}
	for _, a := range copies["s0000"] {
		doc := htmlDoc(t, getOK(t, srv, srv.URL+a.Path, "text/html"))
		if got := strings.TrimSpace(doc.Find("h1").First().Text()); got != a.Title {
			t.Errorf("%s: headline %q, want %q", a.Path, got, a.Title)
		}
		if !strings.Contains(doc.Find("body").Text(), a.Summary) {
			t.Errorf("%s: the body does not carry the copy's summary %q", a.Path, a.Summary)
		}
	}
}

func isCJKText(s string) bool {
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}
